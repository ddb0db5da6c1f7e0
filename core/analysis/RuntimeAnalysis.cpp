#include "core/analysis/RuntimeAnalysis.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <limits>

#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/AnalysisJson.h"
#include "core/analysis/ResultCache.h"
#include "core/data/StrictCsv.h"

namespace scalex::analysis {

using accounting::Family;
using accounting::ModelConfig;
using inference::Stage;

RuntimeFitOptions::RuntimeFitOptions() = default;

inference::FitOptions RuntimeFitOptions::fitOptions(Family family, Stage stage) const {
    inference::FitOptions o = inference::defaultFitOptions(family, stage);
    if (batchTerm) o.batchTerm = *batchTerm;
    o.robust = robust;
    o.variableShare = variableShare;
    return o;
}

std::string_view stageName(Stage stage) { return inference::stageName(stage); }

std::optional<Stage> parseStage(std::string_view text) { return inference::parseStage(text); }

// ---- accelerators ---------------------------------------------------------------------------

std::vector<inference::Accelerator> paperAccelerators() { return inference::paperAccelerators(); }

std::optional<inference::Accelerator> paperAccelerator(std::string_view name) { return inference::paperAccelerator(name); }

inference::Accelerator paperAcceleratorOr(std::string_view name) {
    return inference::paperAccelerator(name).value_or(inference::paperAccelerators().back());
}

std::optional<std::string> acceleratorProblem(const inference::Accelerator& accelerator) {
    return inference::validate(accelerator);
}

std::optional<std::vector<inference::Accelerator>> loadAccelerators(const QString& path, QString* error) {
    using data::LoadFailure;
    using data::StrictCsv;
    try {
        const StrictCsv csv = data::readStrictCsv(data::readFileBytes(path), path);
        const int cName = csv.requiredColumn("name");
        const int cFlops = csv.requiredColumn("bf16_flops_per_s");
        const int cMem = csv.requiredColumn("memory_bandwidth_bytes_per_s");
        const int cDesc = csv.column("description"), cYear = csv.column("year");
        const int cComm = csv.column("comm_bandwidth_bytes_per_s");
        std::vector<inference::Accelerator> out;
        for (const auto& row : csv.rows) {
            inference::Accelerator a;
            a.name = row.fields[cName].toStdString();
            if (a.name.empty()) csv.fail(row, cName, "expected a name, got an empty field");
            a.description = cDesc >= 0 ? row.fields[cDesc].toStdString() : a.name;
            if (cYear >= 0 && !row.fields[cYear].isEmpty()) {
                const double year = csv.wholeNumber(row, cYear, 0);
                if (year > 9999) csv.fail(row, cYear, QStringLiteral("expected a year, got '%1'").arg(row.fields[cYear]));
                a.year = static_cast<int>(year);
            }
            a.flops = csv.number(row, cFlops);
            if (!(a.flops > 0)) csv.fail(row, cFlops, "expected a positive FLOP/s");
            a.memoryBandwidth = csv.number(row, cMem);
            if (!(a.memoryBandwidth > 0)) csv.fail(row, cMem, "expected a positive byte/s");
            a.commBandwidth = cComm >= 0 && !row.fields[cComm].isEmpty() ? csv.number(row, cComm) : 0;
            if (a.commBandwidth < 0) csv.fail(row, cComm, "expected a non-negative byte/s");
            out.push_back(a);
        }
        if (out.empty()) csv.fail(csv.headerLine, "expected at least one accelerator row");
        return out;
    } catch (const LoadFailure& e) {
        if (error) *error = QString::fromStdString(e.what());
        return std::nullopt;
    }
}

// ---- the runtime-model fit ------------------------------------------------------------------

const RuntimeStageFit* RuntimeFitAnalysis::find(const std::string& model, Stage stage) const {
    for (const auto& m : models)
        if (m.model.model == model)
            for (const auto& s : m.stages)
                if (s.stage == stage) return &s;
    return nullptr;
}

namespace {

// The options of a runtime fit as a key of ResultCache.
QJsonObject keyJson(const RuntimeFitOptions& o, const std::vector<Stage>& stages, const std::string& model) {
    const accounting::FlopConvention& c = o.work.convention;
    RevisionDigest work;  // plain numbers, compared whole
    work.add(std::span<const accounting::OpFactors>(&c.ops, 1)).add(std::span<const accounting::ByteWidths>(&o.work.bytes, 1));
    QJsonArray stageNames;
    for (Stage s : stages) stageNames.append(QString::fromUtf8(analysis::stageName(s)));
    return {{"convention", QString::fromStdString(c.name)},
            {"cell", static_cast<int>(c.cell)},
            {"study_gate_projection", c.studyGateProjection},
            {"six_nd", c.sixNd},
            {"training_multiplier", keyNumber(c.trainingMultiplier)},
            {"work", QString::fromStdString(work.result())},
            {"generated_tokens", keyNumber(o.work.generatedTokens)},
            {"batch_term", o.batchTerm ? QJsonValue(*o.batchTerm) : QJsonValue()},
            {"robust", o.robust},
            {"variable_share", keyNumber(o.variableShare)},
            {"alpha_fraction", keyNumber(o.alphaFraction)},
            {"beta_fraction", keyNumber(o.betaFraction)},
            {"stages", stageNames},
            {"model", QString::fromStdString(model)}};
}

// The revision stamp of measurements: every point and model as the fit reads them.
std::string measurementsRevision(const data::InferenceData& data) {
    RevisionDigest d;
    for (const auto& pt : data.points) {
        const double values[] = {static_cast<double>(pt.family), pt.batch, pt.prefill, pt.numParams, pt.ttftMs, pt.stepMs,
                                 static_cast<double>(pt.line)};
        d.add(pt.model).add(pt.familyTag).add(std::span<const double>(values));
    }
    for (const auto& m : data.models)
        d.add(m.model).add(m.familyTag).add(static_cast<double>(m.family)).add(m.numParams).add(m.architectureSource)
            .add(m.config ? canonicalJson(toJson(*m.config)) : std::string("none"));
    return d.result();
}

}  // namespace

RuntimeFitAnalysis runtimeFitAnalysis(const data::InferenceData& data, const RuntimeFitOptions& options,
                                      const std::vector<Stage>& stages, const std::string& model) {
    const ResultKey key{"runtime-fit", data.source, canonicalJson(keyJson(options, stages, model)), measurementsRevision(data)};
    return *ResultCache::shared().get<RuntimeFitAnalysis>(
        key, [&] { return std::make_shared<const RuntimeFitAnalysis>(computeRuntimeFitAnalysis(data, options, stages, model)); });
}

RuntimeFitAnalysis computeRuntimeFitAnalysis(const data::InferenceData& data, const RuntimeFitOptions& options,
                                             const std::vector<Stage>& stages, const std::string& model) {
    const std::vector<Stage> fitted = stages.empty() ? std::vector<Stage>{Stage::Prefill, Stage::Decode} : stages;
    RuntimeFitAnalysis out;
    for (const auto& m : data.models) {
        if (!model.empty() && m.model != model) continue;
        RuntimeModelFits entry{m, {}};
        if (m.config)
            for (Stage stage : fitted) {
                RuntimeStageFit s;
                s.stage = stage;
                for (const auto& pt : data.points) {
                    if (pt.model != m.model) continue;
                    const double ms = stage == Stage::Prefill ? pt.ttftMs : pt.stepMs;
                    if (ms > 0) {
                        s.samples.push_back({pt.batch, pt.prefill, ms * 1e-3});
                        s.lines.push_back(pt.line);
                    } else {
                        ++s.failed;  // kept in the data, marked, left out of the fit
                    }
                }
                s.fit = inference::fitStage(*m.config, stage, s.samples, options.work, options.fitOptions(m.family, stage));
                entry.stages.push_back(std::move(s));
            }
        out.models.push_back(std::move(entry));
    }
    return out;
}

// ---- rates ----------------------------------------------------------------------------------

inference::RuntimeRates acceleratorRates(const inference::Accelerator& accelerator, const RuntimeFitOptions& options) {
    return inference::ratesFromAccelerator(accelerator, options.alphaFraction, options.betaFraction);
}

std::optional<std::vector<FittedRates>> loadFittedRates(const QString& path, QString* error) {
    auto fail = [&](const QString& what) {
        if (error) *error = what;
        return std::nullopt;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return fail(path + ": cannot open: " + f.errorString());
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError)
        return fail(QStringLiteral("%1: offset %2: %3").arg(path).arg(pe.offset).arg(pe.errorString()));
    if (!doc.object().value("fits").isArray()) return fail(path + ": expected an object with a \"fits\" array");
    std::vector<FittedRates> out;
    const QJsonArray fits = doc.object().value("fits").toArray();
    for (int i = 0; i < fits.size(); ++i) {
        const QJsonObject o = fits[i].toObject();
        const QString where = QStringLiteral("%1: fits[%2]").arg(path).arg(i);
        const auto fam = accounting::parseFamily(o.value("family").toString().toStdString());
        const auto stage = inference::parseStage(o.value("stage").toString().toStdString());
        if (!fam) return fail(where + ".family: expected transformer or xlstm");
        if (!stage) return fail(where + ".stage: expected prefill or decode");
        const char* rateKey = *stage == Stage::Prefill ? "alpha_eff" : "beta_eff";
        FittedRates e{o.value("model").toString().toStdString(), *fam, o.value("num_params").toDouble(), *stage, {}};
        e.rates.rate = o.value(rateKey).toDouble();
        e.rates.overhead = o.value("eps").toDouble(-1);
        e.rates.batchTerm = o.value("batch_term").toDouble(-1);
        if (!(e.rates.rate > 0)) return fail(where + "." + rateKey + ": expected a positive number");
        if (e.rates.overhead < 0) return fail(where + ".eps: expected a non-negative number");
        if (e.rates.batchTerm < 0) return fail(where + ".batch_term: expected a non-negative number");
        if (!(e.params > 0)) return fail(where + ".num_params: expected a positive number");
        out.push_back(e);
    }
    return out;
}

SourcedRates RateSource::rates(const ModelConfig& config) const {
    return fittedRates(static_cast<double>(accounting::countParameters(config).total()), config.family);
}

SourcedRates RateSource::rates(const accounting::ModelSpec& spec) const {
    if (!fits.empty() && fitModel.empty()) {
        SourcedRates out;
        out.fitted = true;
        out.error = "the fits are of the study's models and a spec is of no family: name the fitted model whose rates it takes (--fit-model)";
        return out;
    }
    return fittedRates(static_cast<double>(accounting::paramCounts(spec).total()), std::nullopt);
}

SourcedRates RateSource::fittedRates(double n, std::optional<accounting::Family> family) const {
    SourcedRates out;
    out.rates = acceleratorRates(accelerator, options);
    if (fits.empty()) return out;
    out.fitted = true;
    for (Stage s : {Stage::Prefill, Stage::Decode}) {
        // The fit of the stage nearest in parameters, of the named model or else of the family.
        const FittedRates* e = nullptr;
        double bestDistance = std::numeric_limits<double>::infinity();
        for (const auto& f : fits) {
            if (f.stage != s) continue;
            if (!fitModel.empty() ? f.model != fitModel : f.family != family) continue;
            const double d = std::fabs(std::log(f.params / n));
            if (d < bestDistance) {
                bestDistance = d;
                e = &f;
            }
        }
        if (!e) {
            out.error = "no " + std::string(inference::stageName(s)) + " fit for " +
                        (fitModel.empty() ? "family " + std::string(accounting::familyName(*family)) : "model " + fitModel);
            return out;
        }
        inference::StageModel& target = s == Stage::Prefill ? out.rates.prefill : out.rates.decode;
        target = e->rates;
        std::string used = e->model;
        if (interpolate && fitModel.empty()) {
            std::vector<inference::SizedStageModel> sized;
            for (const auto& f : fits)
                if (f.stage == s && f.family == family) sized.push_back({f.params, f.rates});
            target = inference::interpolateRates(sized, n);
            used = "interpolated in log N over " + std::to_string(sized.size()) + " fits";
        }
        (s == Stage::Prefill ? out.prefillFrom : out.decodeFrom) = used;
    }
    return out;
}

inference::RatesFor fittedOrRooflineRates(const RuntimeFitAnalysis& analysis, Family family,
                                          const inference::Accelerator& accelerator, const RuntimeFitOptions& options) {
    std::vector<inference::SizedStageModel> pre, dec;
    for (const auto& m : analysis.models) {
        if (m.model.family != family || !m.model.config || m.model.familyTag == "llama3") continue;
        const double n = static_cast<double>(accounting::countParameters(*m.model.config).total());
        for (const auto& s : m.stages)
            if (s.fit.ok) (s.stage == Stage::Prefill ? pre : dec).push_back({n, s.fit.model});
    }
    if (pre.empty() || dec.empty()) {
        const auto rates = acceleratorRates(accelerator, options);
        return [rates](const ModelConfig&) { return rates; };
    }
    return [pre, dec](const ModelConfig& c) {
        const double n = static_cast<double>(accounting::countParameters(c).total());
        return inference::RuntimeRates{inference::interpolateRates(pre, n), inference::interpolateRates(dec, n)};
    };
}

// ---- what the runtime model answers ---------------------------------------------------------

double stageSeconds(Stage stage, const inference::StageModel& model, const ModelConfig& config, double batch,
                    double prefill, const RuntimeFitOptions& options) {
    return model.time(inference::stageWork(stage, config, batch, prefill, options.work), batch);
}

inference::Prediction predictRuntime(const ModelConfig& config, double batch, double prefill,
                                     const inference::RuntimeRates& rates, const RuntimeFitOptions& options) {
    return inference::predict(config, batch, prefill, rates, options.work);
}

std::vector<inference::Candidate> appendixCandidates(const std::vector<data::AppendixConfig>& table, Family family,
                                                     bool allSets) {
    std::vector<inference::Candidate> out;
    for (const auto& a : table) {
        if (a.config.family != family || (!allSets && a.experimentSet != "tokenparam")) continue;
        out.push_back({a.sourceTable + " " + std::to_string(static_cast<long long>(a.paramsM)) + "M", a.config});
    }
    return out;
}

std::vector<inference::Candidate> widthSweepCandidates(Family family, std::int64_t dMin, std::int64_t dMax,
                                                       std::int64_t dStep, std::int64_t nLayers, std::int64_t headDim) {
    return inference::widthSweep(family, dMin, dMax, dStep, nLayers, headDim);
}

inference::MaxModelAnswer largestModelWithinBudget(const std::vector<inference::Candidate>& candidates, Stage stage,
                                                   double budgetSeconds, double batch, double prefill,
                                                   const inference::RatesFor& rates, const RuntimeFitOptions& options) {
    return inference::largestWithinBudget(candidates, stage, budgetSeconds, batch, prefill, rates, options.work);
}

inference::CrossoverAnswer xlstmCrossover(const ModelConfig& transformer, const inference::RuntimeRates& transformerRates,
                                          const ModelConfig& xlstm, const inference::RuntimeRates& xlstmRates, Stage stage,
                                          double batch, double factor, const RuntimeFitOptions& options,
                                          double minContext, double maxContext) {
    return inference::advantageCrossover(transformer, transformerRates, xlstm, xlstmRates, stage, batch, factor,
                                         options.work, minContext, maxContext);
}

data::ExportTable runtimeFitTable(const RuntimeFitAnalysis& analysis) {
    data::ExportTable t;
    t.caption = "The runtime model fitted to every measured model and stage: TTFT $= \\mathrm{FLOPs}/\\alpha_{\\mathrm{eff}} + \\varepsilon$ "
                "(prefill), step time $= \\mathrm{bytes}/\\beta_{\\mathrm{eff}} + \\varepsilon\\,(+\\,\\kappa B)$ (decode).";
    t.label = "tab:runtime_fits";
    t.columns = {{"model", "Model", data::CellStyle::Text},
                 {"family", "Family", data::CellStyle::Text},
                 {"stage", "Stage", data::CellStyle::Text},
                 {"alpha_eff", "$\\alpha_{\\mathrm{eff}}$ (FLOP/s)", data::CellStyle::Scientific},
                 {"beta_eff", "$\\beta_{\\mathrm{eff}}$ (byte/s)", data::CellStyle::Scientific},
                 {"eps", "$\\varepsilon$ (s)", data::CellStyle::Scientific},
                 {"batch_term", "$\\kappa$ (s)", data::CellStyle::Scientific},
                 {"rmse", "RMSE (s)", data::CellStyle::Scientific},
                 {"r2", "$R^2$", data::CellStyle::Fixed3},
                 {"n_points", "Points", data::CellStyle::Integer}};
    const double none = std::numeric_limits<double>::quiet_NaN();
    for (const auto& m : analysis.models)
        for (const auto& s : m.stages) {
            const bool prefill = s.stage == inference::Stage::Prefill;
            const inference::StageFit& f = s.fit;
            t.rows.push_back({m.model.model, std::string(accounting::familyName(m.model.family)), std::string(analysis::stageName(s.stage)),
                              prefill ? f.model.rate : none, prefill ? none : f.model.rate, f.model.overhead, f.model.batchTerm, f.rmse, f.r2,
                              static_cast<double>(f.nPoints)});
        }
    return t;
}

inference::Prediction predictRuntime(const accounting::ModelSpec& spec, double batch, double prefill,
                                     const inference::RuntimeRates& rates, const RuntimeFitOptions& options) {
    return inference::predict(spec, batch, prefill, rates, options.work);
}

std::vector<inference::SpecCandidate> ladderCandidates(const accounting::ModelLadder& ladder) {
    std::vector<inference::SpecCandidate> out;
    for (const auto& rung : ladder.rungs) out.push_back({rung.name, rung});
    return out;
}

inference::MaxModelAnswer largestModelWithinBudget(const std::vector<inference::SpecCandidate>& candidates, Stage stage,
                                                   double budgetSeconds, double batch, double prefill,
                                                   const inference::RuntimeRates& rates, const RuntimeFitOptions& options) {
    return inference::largestWithinBudget(candidates, stage, budgetSeconds, batch, prefill, rates, options.work);
}

inference::CrossoverAnswer specCrossover(const accounting::ModelSpec& baseline, const accounting::ModelSpec& model,
                                         const inference::RuntimeRates& rates, Stage stage, double batch, double factor,
                                         const RuntimeFitOptions& options, double minContext, double maxContext) {
    return inference::advantageCrossover(baseline, model, rates, stage, batch, factor, options.work, minContext, maxContext);
}

}  // namespace scalex::analysis
