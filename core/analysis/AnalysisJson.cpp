#include "core/analysis/AnalysisJson.h"

#include <QString>
#include <cmath>
#include <limits>

#include "core/accounting/ParamCount.h"
#include "core/data/Series.h"
#include "core/fit/Extrapolation.h"

namespace scalex::analysis {

namespace {



}  // namespace

QString jsonText(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

QJsonValue jsonNumber(double value) { return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null); }

QJsonArray stringsJson(const std::vector<std::string>& v) {
    QJsonArray a;
    for (const auto& s : v) a.append(QString::fromStdString(s));
    return a;
}

// ---- fits of the study's runs ---------------------------------------------------------------

QJsonObject toJson(const fit::LossSurfaceParams& p) {
    return {{"logA", p.logA}, {"logB", p.logB}, {"logE", p.logE}, {"alpha", p.alpha}, {"beta", p.beta}, {"gamma", p.gamma}};
}

QJsonObject toJson(const std::optional<fit::PowerLaw>& law) {
    if (!law) return {};
    return {{"exponent", law->exponent}, {"coefficient", law->coefficient}, {"r2", law->r2}, {"n", law->nPoints}};
}

QJsonArray outliersJson(const std::vector<FlaggedRun>& flagged, const char* groupKey) {
    QJsonArray arr;
    for (const auto& f : flagged) {
        const QString id = QString::fromStdString(data::runLabel(*f.run));
        QJsonObject o{{"run", id},
                      {"line", f.run->sourceLine},
                      {"loss", f.outlier.observed},
                      {"expected", f.outlier.expected},
                      {"robust_sigmas", f.outlier.robustSigmas},
                      {"reason", QString::fromStdString(f.outlier.reason)}};
        if (groupKey) o.insert(QLatin1String(groupKey), f.outlier.group);
        arr.append(o);
    }
    return arr;
}

QJsonObject toJson(const fit::LossSurfaceFit& fit, const fit::LossSurfaceSettings& s) {
    QJsonObject o = toJson(fit.best);
    QJsonArray starts;
    for (const auto& st : fit.bestStarts)
        starts.append(QJsonObject{{"index", static_cast<qint64>(st.index)},
                                  {"objective", st.objective},
                                  {"iterations", st.iterations},
                                  {"converged", st.converged},
                                  {"init", toJson(st.init)},
                                  {"fitted", toJson(st.fitted)}});
    o.insert("objective", fit.objective);
    o.insert("huber_delta", s.huberDelta);
    o.insert("fit_gamma", s.fitGamma);
    o.insert("n_points", fit.nPoints);
    o.insert("n_starts", static_cast<qint64>(fit.nStarts));
    o.insert("n_converged", static_cast<qint64>(fit.nConverged));
    if (fit.refitFrom > 0) o.insert("refit_from", static_cast<qint64>(fit.refitFrom));
    o.insert("best_start", static_cast<qint64>(fit.bestStart));
    o.insert("n_near_best", static_cast<qint64>(fit.nNearBest));
    o.insert("spread_near_best", toJson(fit.spread));
    o.insert("best_starts", starts);
    o.insert("r2", fit.quality.r2);
    o.insert("rmse", fit.quality.rmse);
    o.insert("rmse_log", fit.quality.rmseLog);
    o.insert("seconds", fit.seconds);
    o.insert("warnings", stringsJson(fit.warnings));
    return o;
}

QJsonObject extrapolationJson(const LossSurfaceAnalysis& a) {
    if (!a.extrapolation) return QJsonObject{{"held_out_by", "params"}, {"note", "no fit to check"}};
    const auto& ex = *a.extrapolation;
    QJsonObject o{{"held_out_by", "params"}};
    if (!ex.note.empty()) {
        o.insert("note", QString::fromStdString(ex.note));
        return o;
    }
    QJsonArray held;
    for (const auto& r : ex.heldOut)
        held.append(QJsonObject{{"run", QString::fromStdString(data::runLabel(*a.runs[r.index]))},
                                {"params", r.params},
                                {"tokens", r.tokens},
                                {"loss", r.observed},
                                {"predicted", r.predicted},
                                {"error", r.error}});
    o.insert("n_fitted", ex.fit.nPoints);
    o.insert("held_out", held);
    o.insert("mean_error", ex.meanError);
    o.insert("mean_abs_error", ex.meanAbsError);
    o.insert("max_abs_error", ex.maxAbsError);
    return o;
}

QJsonObject toJson(const IsoFlopAnalysis& a) {
    const fit::IsoFlopResult& r = a.result;
    QJsonArray profiles;
    for (const auto& pr : r.profiles)
        profiles.append(QJsonObject{
            {"budget", pr.budget},
            {"flops_mean", pr.flopsMean},
            {"n_runs", pr.nRuns},
            {"fitted", pr.fitted},
            {"n_opt", pr.nOpt},
            {"d_opt", pr.dOpt},
            {"loss_at_opt", pr.lossAtNOpt},
            {"loss_at_d_opt", pr.lossAtDOpt},
            {"parabola_n", QJsonObject{{"a", pr.inN.a}, {"b", pr.inN.b}, {"c", pr.inN.c}}},
            {"parabola_d", QJsonObject{{"a", pr.inD.a}, {"b", pr.inD.b}, {"c", pr.inD.c}}},
            {"r2_n", pr.qualityN.r2},
            {"r2_d", pr.qualityD.r2},
            {"in_power_law", pr.inPowerLaw},
            {"left_out", QString::fromStdString(pr.leftOut)},
            {"warnings", stringsJson(pr.warnings)},
        });
    QJsonObject o{{"profiles", profiles}, {"n_budgets", r.nBudgetsInLaw}, {"n_unassigned", static_cast<qint64>(r.unassigned.size())}};
    if (r.nOptLaw) {
        o.insert("a", r.nOptLaw->exponent);
        o.insert("A", r.nOptLaw->coefficient);
        o.insert("r2_n_opt", r.nOptLaw->r2);
    }
    if (r.dOptLaw) {
        o.insert("b", r.dOptLaw->exponent);
        o.insert("B", r.dOptLaw->coefficient);
        o.insert("r2_d_opt", r.dOptLaw->r2);
    }
    QJsonArray lobo;
    for (const auto& l : fit::leaveOneBudgetOut(r))
        lobo.append(QJsonObject{{"budget", l.budget},
                                {"a", l.nOptLaw.exponent},
                                {"b", l.dOptLaw.exponent},
                                {"n_opt_observed", l.nOptObserved},
                                {"n_opt_predicted", l.nOptPredicted},
                                {"d_opt_observed", l.dOptObserved},
                                {"d_opt_predicted", l.dOptPredicted}});
    o.insert("leave_one_budget_out", lobo);
    // How well the laws extrapolate: fitted without the largest budget, predicting it.
    const auto& ex = a.extrapolation;
    QJsonObject extrapolation{{"n_budgets_fitted", ex.nBudgetsFitted}};
    QJsonArray held;
    for (const auto& h : ex.heldOut)
        held.append(QJsonObject{{"budget", h.budget},
                                {"n_opt_observed", h.nOptObserved},
                                {"n_opt_predicted", h.nOptPredicted},
                                {"n_opt_error", h.nOptError},
                                {"d_opt_observed", h.dOptObserved},
                                {"d_opt_predicted", h.dOptPredicted},
                                {"d_opt_error", h.dOptError}});
    extrapolation.insert("held_out", held);
    if (!ex.note.empty()) extrapolation.insert("note", QString::fromStdString(ex.note));
    o.insert("extrapolation", extrapolation);
    o.insert("warnings", stringsJson(r.warnings));
    return o;
}

QJsonObject toJson(const fit::ContextTrend& trend) {
    QJsonArray optima;
    for (const auto& c : trend.optima) optima.append(QJsonObject{{"context", c.context}, {"n_opt", c.nOpt}, {"d_opt", c.dOpt}});
    return QJsonObject{{"budget", trend.budget},
                       {"optima", optima},
                       {"n_opt_over_context", toJson(trend.nOptOverContext)},
                       {"d_opt_over_context", toJson(trend.dOptOverContext)}};
}

QJsonObject toJson(const fit::SlopeResult& r) {
    QJsonArray groups;
    for (const auto& g : r.groups) {
        QJsonObject o{{"ratio", g.ratio}, {"n_runs", static_cast<qint64>(g.runs.size())}, {"fitted", g.fitted}};
        if (g.fitted) {
            o.insert("eta", g.eta);
            o.insert("lambda", g.lambda);
            o.insert("r2", g.quality.r2);
            o.insert("rmse", g.quality.rmse);
        } else {
            o.insert("note", QString::fromStdString(g.note));
        }
        groups.append(o);
    }
    return {{"groups", groups}, {"n_ungrouped", static_cast<qint64>(r.ungrouped.size())}};
}

QJsonArray extrapolationJson(const SlopeAnalysis& a) {
    QJsonArray arr;
    for (const auto& pr : a.extrapolation) {
        const auto* run = a.runs[pr.index];
        arr.append(QJsonObject{{"ratio", pr.ratio},
                               {"run", QString::fromStdString(data::runLabel(*run))},
                               {"flops", pr.flops},
                               {"loss", pr.observed},
                               {"predicted", pr.predicted},
                               {"error", pr.error}});
    }
    return arr;
}

QJsonObject frontierJson(const ParetoAnalysis& a) {
    QJsonArray pts;
    for (const auto& fp : a.frontier) {
        const data::Run* run = a.runs[fp.index];
        pts.append(QJsonObject{{"flops", fp.flops},
                               {"loss", fp.loss},
                               {"run", QString::fromStdString(data::runLabel(*run))},
                               {"line", run->sourceLine}});
    }
    return QJsonObject{{"frontier", pts}, {"n_runs", static_cast<qint64>(a.points.size())}};
}

QJsonObject toJson(const SeriesComparison& compared, const std::vector<ParetoAnalysis>& analyses, bool withIntervals) {
    const auto& A = analyses[compared.a];
    const auto& B = analyses[compared.b];
    const auto& cmp = compared.comparison;
    QJsonObject c{{"a", QString::fromStdString(A.group.series)}, {"b", QString::fromStdString(B.group.series)}, {"overlap", cmp.overlap}};
    if (data::known(A.group.context)) c.insert("context", A.group.context);
    if (!cmp.overlap) return c;
    c.insert("a_dominates", cmp.aDominates);
    c.insert("min_loss_gap", cmp.minLossGap);
    c.insert("max_loss_gap", cmp.maxLossGap);
    c.insert("min_compute_ratio", cmp.minComputeRatio);
    c.insert("max_compute_ratio", cmp.maxComputeRatio);
    c.insert("geomean_compute_ratio", cmp.geomeanComputeRatio);
    QJsonArray eqC, eqL;
    for (const auto& s : cmp.atEqualCompute) eqC.append(QJsonObject{{"flops", s.flops}, {"loss_a", s.lossA}, {"loss_b", s.lossB}});
    for (const auto& s : cmp.atEqualLoss) eqL.append(QJsonObject{{"loss", s.loss}, {"compute_a", s.computeA}, {"compute_b", s.computeB}});
    c.insert("at_equal_compute", eqC);
    c.insert("at_equal_loss", eqL);
    if (withIntervals) {
        // 95 % intervals: each series' runs resampled, both frontiers recomputed and compared.
        QJsonObject intervals;
        for (const auto& i : compared.intervals.intervals)
            intervals.insert(QString::fromStdString(i.name), QJsonObject{{"lower", i.lower}, {"upper", i.upper}, {"n_valid", i.nValid}});
        c.insert("intervals", intervals);
    }
    return c;
}

QJsonObject toJson(const fit::BootstrapResult& r, const fit::BootstrapSettings& s) {
    QJsonArray intervals;
    for (const auto& i : r.intervals)
        intervals.append(QJsonObject{{"name", QString::fromStdString(i.name)},
                                     {"estimate", i.estimate},
                                     {"lower", i.lower},
                                     {"upper", i.upper},
                                     {"median", i.median},
                                     {"n_valid", i.nValid}});
    return {{"intervals", intervals},
            {"n_resamples", r.nResamples},
            {"seed", QString::number(s.seed)},
            {"level", s.level},
            {"cancelled", r.cancelled}};
}

QJsonObject seriesJson(const std::vector<std::pair<SeriesGroup, QJsonObject>>& results) {
    QJsonArray list;
    for (const auto& [g, o] : results) {
        QJsonObject e = o;
        e.insert("name", QString::fromStdString(g.series));
        e.insert("label", QString::fromStdString(g.label()));
        if (data::known(g.context)) e.insert("context", g.context);
        list.append(e);
    }
    QJsonObject top = results.size() == 1 ? list.first().toObject() : QJsonObject{};
    top.insert("series", list);
    return top;
}

// ---- the runtime model ----------------------------------------------------------------------

QJsonObject toJson(const inference::Accelerator& a) {
    return {{"name", jsonText(a.name)},
            {"description", jsonText(a.description)},
            {"year", a.year},
            {"flops_per_s", a.flops},
            {"memory_bandwidth_bytes_per_s", a.memoryBandwidth},
            {"arithmetic_intensity", a.intensity()}};
}

QJsonObject toJson(const accounting::ModelConfig& c) {
    return {{"family", jsonText(accounting::familyName(c.family))},
            {"d_model", qint64(c.dModel)},
            {"n_layers", qint64(c.nLayers)},
            {"n_heads", qint64(c.nHeads)},
            {"n_kv_heads", qint64(c.nKvHeads)},
            {"d_qk", qint64(c.dQk)},
            {"d_hv", qint64(c.dHv)},
            {"d_ff", qint64(c.dFf)},
            {"vocab", qint64(c.vocab)},
            {"chunk", qint64(c.chunk)},
            {"params", qint64(accounting::countParameters(c).total())}};
}

QJsonObject toJson(const inference::RuntimeRates& r, const inference::Accelerator& acc) {
    return {{"alpha_eff", r.prefill.rate},
            {"beta_eff", r.decode.rate},
            {"alpha_eff_over_acc", r.prefill.rate / acc.flops},
            {"beta_eff_over_acc", r.decode.rate / acc.memoryBandwidth},
            {"eps_prefill", r.prefill.overhead},
            {"eps_decode", r.decode.overhead},
            {"batch_term_decode", r.decode.batchTerm}};
}

QJsonObject toJson(const inference::Prediction& x) {
    return {{"ttft_ms", x.ttft * 1e3},
            {"step_ms", x.stepTime * 1e3},
            {"throughput_tok_per_s", x.throughput},
            {"prefill_flops", x.prefillFlops},
            {"prefill_bytes", x.prefillBytes},
            {"prefill_intensity", x.prefillIntensity()},
            {"decode_step_flops", x.decodeFlops},
            {"decode_step_bytes", x.decodeBytes},
            {"decode_intensity", x.decodeIntensity()},
            {"weight_bytes", x.weightBytes},
            {"cache_bytes", x.cacheBytes},
            {"memory_bytes", x.memoryBytes()}};
}

QJsonObject sourceJson(const SourcedRates& r) {
    if (!r.fitted) return {};
    return {{"prefill", jsonText(r.prefillFrom)}, {"decode", jsonText(r.decodeFrom)}};
}

QJsonObject toJson(const RuntimeModelFits& entry, const RuntimeStageFit& s, const inference::Accelerator& acc,
                   bool withPoints) {
    const data::InferenceModel& m = entry.model;
    const inference::StageFit& f = s.fit;
    const bool pre = s.stage == inference::Stage::Prefill;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QJsonObject j{
        {"model", jsonText(m.model)},
        {"family", jsonText(accounting::familyName(m.family))},
        {"family_tag", jsonText(m.familyTag)},
        {"num_params", m.numParams},
        {"architecture_source", jsonText(m.architectureSource)},
        {"architecture_param_mismatch", jsonNumber(m.paramMismatch())},
        {"config", m.config ? toJson(*m.config) : QJsonObject{}},
        {"stage", jsonText(inference::stageName(s.stage))},
        {"alpha_eff", jsonNumber(pre ? f.model.rate : nan)},
        {"beta_eff", jsonNumber(pre ? nan : f.model.rate)},
        {"eps", f.model.overhead},
        {"batch_term", f.model.batchTerm},
        {"alpha_eff_over_acc", jsonNumber(pre ? f.model.rate / acc.flops : nan)},
        {"beta_eff_over_acc", jsonNumber(pre ? nan : f.model.rate / acc.memoryBandwidth)},
        {"rmse", f.rmse},
        {"r2", f.r2},
        {"median_rel_error", f.medianRelError},
        {"median_rel_error_variable", jsonNumber(f.medianRelErrorVariable)},
        {"n_points", qint64(f.nPoints)},
        {"n_variable", qint64(f.nVariable)},
        {"n_failed", qint64(s.failed)},
    };
    if (withPoints) {
        QJsonArray pts;
        for (std::size_t i = 0; i < s.samples.size(); ++i)
            pts.append(QJsonObject{{"line", s.lines[i]},
                                   {"batch", s.samples[i].batch},
                                   {"prefill", s.samples[i].prefill},
                                   {"work", f.work[i]},
                                   {"measured", s.samples[i].seconds},
                                   {"modelled", f.predicted[i]}});
        j["points"] = pts;
    }
    return j;
}

QJsonObject toJson(const RuntimeFitAnalysis& analysis, const RuntimeFitOptions& options,
                   const inference::Accelerator& accelerator, bool withPoints) {
    QJsonArray fits;
    for (const auto& m : analysis.models)
        for (const auto& s : m.stages) fits.append(toJson(m, s, accelerator, withPoints));
    return QJsonObject{
        {"accelerator", toJson(accelerator)},
        {"convention", jsonText(options.work.convention.name)},
        {"f_causal", options.work.convention.ops.causal},
        {"generated_tokens", options.work.generatedTokens},
        {"loss", options.robust ? "l1-relative" : "l2-relative"},
        {"variable_share", options.variableShare},
        {"units", QJsonObject{{"alpha_eff", "FLOP/s"}, {"beta_eff", "byte/s"}, {"eps", "s"}, {"batch_term", "s per sequence"},
                              {"rmse", "s"}}},
        {"fits", fits},
    };
}

}  // namespace scalex::analysis
