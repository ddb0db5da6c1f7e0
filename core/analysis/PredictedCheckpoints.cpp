#include "core/analysis/PredictedCheckpoints.h"

#include <QJsonArray>
#include <algorithm>
#include <map>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "core/analysis/BestCooldown.h"
#include "core/fit/SplitMix64.h"

namespace scalex::analysis {

namespace {

data::LoadError optionError(const std::string& option, const std::string& message) { return data::LoadError{"", 0, option, message, true}; }

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// N of a model: given, else its first run's config.
double paramsOf(const CheckpointModel& model, const data::TrackerRun& first) {
    if (std::isfinite(model.params)) return model.params;
    for (const char* key : {"n_params", "params", "num_params"})
        if (const double v = first.configNumber(key); std::isfinite(v)) return v;
    return std::numeric_limits<double>::quiet_NaN();
}

// The interval of ln L at one standard deviation: the level erf(1/√2) puts the normal quantile at
// 1, and without misfitCurves the misfit takes the normal quantile too (predictCurveLoss).
double lnSdOf(const fit::CurveFitResult& fit, const fit::PreparedSchedule& schedule, long step) {
    fit::CurveFitResult oneSd = fit;
    oneSd.level = std::erf(M_SQRT1_2);
    oneSd.misfitCurves = 0;
    const auto p = fit::predictCurveLoss(oneSd, schedule, step);
    return p.upper > 0 && p.loss > 0 ? std::log(p.upper / p.loss) : 0.0;
}

// Each checkpoint's model as an index, models in the order their checkpoints come: one draw each
// per replicate (one law predicts all of a model's checkpoints).
std::vector<std::size_t> modelIndices(const std::vector<PredictedCheckpoint>& predicted, std::size_t& models) {
    std::vector<std::size_t> modelOf;
    std::vector<std::string> names;
    for (const auto& c : predicted) {
        auto it = std::find(names.begin(), names.end(), c.model);
        if (it == names.end()) it = names.insert(names.end(), c.model);
        modelOf.push_back(static_cast<std::size_t>(it - names.begin()));
    }
    models = names.size();
    return modelOf;
}

// One replicate's predicted losses: each model's moved together by exp(z·lnSd), z one normal draw.
std::vector<double> redrawnLosses(const std::vector<PredictedCheckpoint>& predicted, const std::vector<std::size_t>& modelOf, std::size_t models,
                                  fit::SplitMix64& rng) {
    std::vector<double> shift(models), out;
    for (auto& z : shift) z = rng.normal();
    for (std::size_t i = 0; i < predicted.size(); ++i) out.push_back(predicted[i].loss * std::exp(shift[modelOf[i]] * predicted[i].lnSd));
    return out;
}

// The percentile interval at `level` of draws (sorted here); the nearest rank, as the bootstraps do.
std::pair<double, double> percentileInterval(std::vector<double>& d, double level) {
    if (d.size() < 2) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    std::sort(d.begin(), d.end());
    const double tail = 0.5 * (1 - level);
    const auto at = [&](double q) { return d[static_cast<std::size_t>(std::lround(q * static_cast<double>(d.size() - 1)))]; };
    return {at(tail), at(1 - tail)};
}

// One model's checkpoints from the law fitted to its curves (the token counts', then the budgets'),
// appended to `out` with the model's notes; the CLI's files and the window's study both come here.
std::optional<data::LoadError> predictModelCheckpoints(const CurveFitsResult& fitted, const std::string& name, double params, double tokensPerStep,
                                                       const PredictedCheckpointOptions& options, PredictedCheckpointsResult& out) {
    out.notes.push_back(name + ": " + curveLawLabel(fitted.fit.law) + " fitted to " + std::to_string(fitted.fit.curves.size()) +
                        " curves, N = " + number(params) + ", " + number(tokensPerStep) + " tokens a step");
    // The runs' scale: their peak rate and the warm-up of the longest (scheduleForCurves).
    const fit::ScheduleSpec scale = scheduleForCurves(fitted, fit::ScheduleShape::Wsd, std::max(0.0, options.cooldownFraction),
                                                      fit::DecayShape::Linear, 1.0);
    fit::CurveLawOptions lawOptions;
    lawOptions.tokensPerStep = tokensPerStep;
    // The token counts asked, then each budget's D = H/(6N) (C = 6ND, Kaplan et al. 2020, Eq. 2.1).
    std::vector<std::pair<double, double>> asked;  // (D, H or 0)
    for (double d : options.tokens) asked.emplace_back(d, 0.0);
    for (double h : options.budgets) asked.emplace_back(h / (6 * params), h);
    for (const auto& [d, budget] : asked) {
        fit::ScheduleSpec spec = scale;
        spec.steps = std::lround(d / tokensPerStep);
        if (spec.steps <= spec.warmupSteps)
            return optionError(budget > 0 ? "--budgets" : "--checkpoints",
                               "model '" + name + "': " + (budget > 0 ? "budget " + number(budget) + " gives " : std::string()) + number(d) +
                                   " tokens, " + std::to_string(spec.steps) + " steps, no longer than its warm-up of " +
                                   std::to_string(spec.warmupSteps));
        if (spec.steps > scale.steps)
            out.notes.push_back(name + ": " + number(d) + " tokens (" + std::to_string(spec.steps) + " steps) lie beyond its longest curve (" +
                                std::to_string(scale.steps) + " steps): extrapolated");
        if (options.cooldownFraction < 0) spec = bestCooldown(fitted, spec).best.schedule;
        const fit::PreparedSchedule schedule(fit::Schedule::fromSpec(spec), lawOptions);
        const auto p = fit::predictCurveLoss(fitted.fit, schedule, spec.steps);
        PredictedCheckpoint c;
        c.model = name;
        c.params = params;
        c.tokens = static_cast<double>(spec.steps) * tokensPerStep;
        c.flops = 6 * c.params * c.tokens;
        c.budget = budget;
        c.schedule = spec;
        c.loss = p.loss, c.lower = p.lower, c.upper = p.upper;
        c.lnSd = lnSdOf(fitted.fit, schedule, spec.steps);
        out.checkpoints.push_back(c);
    }
    return std::nullopt;
}

// Why the token counts, budgets or cooldown asked cannot be used; none when they can.
std::optional<data::LoadError> askedError(const PredictedCheckpointOptions& options) {
    if (options.tokens.empty() && options.budgets.empty()) return optionError("--checkpoints", "no token counts (or --budgets) to predict at");
    for (double d : options.tokens)
        if (!(d > 0) || !std::isfinite(d)) return optionError("--checkpoints", "token count " + number(d) + " is not a positive number");
    for (double h : options.budgets)
        if (!(h > 0) || !std::isfinite(h)) return optionError("--budgets", "budget " + number(h) + " is not a positive number");
    if (options.cooldownFraction > 1) return optionError("--cooldown", "fraction " + number(options.cooldownFraction) + " is above 1");
    return std::nullopt;
}

}  // namespace

data::Expected<PredictedCheckpointsResult> predictCheckpoints(const PredictedCheckpointOptions& options, const fit::FitControl& control) {
    if (options.models.empty()) return optionError("--from-curves", "no model's curves given");
    if (auto e = askedError(options)) return *e;
    PredictedCheckpointsResult out;
    out.level = options.curves.level;
    for (const auto& model : options.models) {
        CurveFitOptions curveOptions = options.curves;
        curveOptions.dataFiles = model.files;
        curveOptions.holdoutFiles.clear();
        auto runs = loadCurveRuns(curveOptions);
        if (!runs) return runs.error();
        const data::TrackerRun& first = runs->front().run;
        const std::string name = first.name;
        if (static_cast<int>(runs->size()) < options.minCurves)
            return data::LoadError{first.file, 0, "--from-curves",
                                   "model '" + name + "' has " + std::to_string(runs->size()) + " curve" + (runs->size() == 1 ? "" : "s") +
                                       "; its law needs at least " + std::to_string(options.minCurves) +
                                       " (a constant-rate run and cooldowns or other schedules) to be fitted and its misfit measured",
                                   true};
        const double params = paramsOf(model, first);
        if (!(params > 0))
            return data::LoadError{first.file, 0, "config.n_params",
                                   "model '" + name + "': no parameter count (give N=<params>: before its files, or config n_params)", true};
        const double tokensPerStep = first.tokensPerStep;
        if (!(tokensPerStep > 0))
            return data::LoadError{first.file, 0, "config.sequence_length",
                                   "model '" + name + "': no tokens per step (config batch_size, acc_steps, world_size, sequence_length)", true};
        auto fitted = fitCurves(curveOptions, control);
        if (!fitted) return fitted.error();
        if (control.cancelled()) return optionError("--from-curves", "cancelled");
        if (auto e = predictModelCheckpoints(*fitted, name, params, tokensPerStep, options, out)) return *e;
    }
    return out;
}

data::Expected<PredictedCheckpointsResult> predictStudyCheckpoints(const std::vector<data::ProjectCurves>& sets, const data::RunTable& runs,
                                                                   PredictedCheckpointOptions options, CheckpointPlacement placement,
                                                                   const fit::FitControl& control) {
    PredictedCheckpointsResult out;
    out.level = options.curves.level;
    // N of each run id: the first row of the run that gives one.
    std::map<std::string, double> paramsOfRun;
    for (const auto& r : runs.runs)
        if (data::known(r.params) && r.params > 0) paramsOfRun.emplace(r.runId, r.params);
    // The study's curves by model (N), models in the order their first curve comes.
    std::vector<std::pair<double, std::vector<data::ProjectCurves>>> models;
    double longestTokens = 0;
    for (const auto& set : sets)
        for (const auto& curve : set.curves.curves) {
            const auto n = paramsOfRun.find(curve.runId);
            if (n == paramsOfRun.end()) {
                out.notes.push_back(curve.runId + " (" + set.name + "): no run with a parameter count N in the run table, left out");
                continue;
            }
            auto model = std::find_if(models.begin(), models.end(), [&](const auto& m) { return m.first == n->second; });
            if (model == models.end()) model = models.insert(models.end(), {n->second, {}});
            auto& own = model->second;
            if (own.empty() || own.back().name != set.name) {
                data::ProjectCurves part{set.name, set.source, {}, {}, {}};
                part.curves.source = set.curves.source;
                own.push_back(std::move(part));
            }
            own.back().curves.curves.push_back(curve);
            if (const auto it = set.schedules.find(curve.runId); it != set.schedules.end()) own.back().schedules.insert(*it);
            for (const auto& p : curve.points)
                if (std::isfinite(p.tokens)) longestTokens = std::max(longestTokens, p.tokens);
        }
    std::erase_if(models, [&](const auto& m) {
        std::size_t curves = 0;
        for (const auto& set : m.second) curves += set.curves.curves.size();
        if (static_cast<int>(curves) >= options.minCurves) return false;
        out.notes.push_back("N = " + number(m.first) + ": " + std::to_string(curves) + " curve" + (curves == 1 ? "" : "s") + ", its law needs at least " +
                            std::to_string(options.minCurves) + ", left out");
        return true;
    });
    if (models.empty())
        return optionError("curves", "no model with " + std::to_string(options.minCurves) +
                                         " loss curves whose runs give a parameter count N (a tracker export's config n_params)");
    if (options.tokens.empty() && options.budgets.empty()) {
        if (!(longestTokens > 0)) return optionError("curves", "the curves log no tokens: no token counts to place checkpoints at");
        double nMin = models.front().first, nMax = nMin;
        for (const auto& m : models) nMin = std::min(nMin, m.first), nMax = std::max(nMax, m.first);
        for (const double f : kStudyCheckpointFractions) {
            if (placement == CheckpointPlacement::Tokens) options.tokens.push_back(f * longestTokens);
            else options.budgets.push_back(6 * std::sqrt(nMin * nMax) * f * longestTokens);  // C = 6ND (Kaplan et al. 2020, Eq. 2.1)
        }
    }
    if (auto e = askedError(options)) return *e;
    for (const auto& [params, own] : models) {
        auto fitted = fitStudyCurves(own, options.curves, control);
        if (!fitted) return fitted.error();
        if (control.cancelled()) return optionError("curves", "cancelled");
        const CurveRun& first = fitted->runs.front();
        const double tokensPerStep = first.schedule.options().tokensPerStep;
        const bool logsTokens = std::any_of(first.run.curve.points.begin(), first.run.curve.points.end(), [](const auto& p) { return std::isfinite(p.tokens); });
        if (!logsTokens || !(tokensPerStep > 0))
            return data::LoadError{first.run.file, 0, "tokens", "run '" + first.run.name + "': no tokens logged, so no tokens per step", true};
        if (auto e = predictModelCheckpoints(*fitted, first.run.name, params, tokensPerStep, options, out)) return *e;
    }
    return out;
}

data::Expected<CheckpointSurfaceResult> fitSurfaceWithCheckpoints(std::span<const fit::LossPoint> measured,
                                                                  const std::vector<PredictedCheckpoint>& predicted,
                                                                  const fit::LossSurfaceSettings& settings,
                                                                  const CheckpointSurfaceOptions& options, const fit::FitControl& control) {
    CheckpointSurfaceResult out;
    out.measured.assign(measured.begin(), measured.end());
    out.predicted = predicted;
    out.level = options.level;
    std::vector<fit::LossPoint> points = out.measured;
    for (const auto& c : predicted) points.push_back({c.params, c.tokens, c.loss});
    const std::size_t needed = settings.fitGamma ? 6 : 5;
    if (points.size() < needed)
        return optionError("--checkpoints", std::to_string(points.size()) + " runs and predicted checkpoints; L(N,D) needs at least " +
                                                std::to_string(needed));
    try {
        out.fit = fit::fitLossSurface(points, settings, control);
    } catch (const std::invalid_argument& e) {
        return optionError("--checkpoints", e.what());
    }
    if (out.fit.cancelled) return out;
    std::size_t models = 0;
    const auto modelOf = modelIndices(predicted, models);
    std::array<std::vector<double>, 6> draws;
    for (int b = 0; b < options.replicates && !control.cancelled(); ++b) {
        auto rng = fit::SplitMix64::stream(options.seed, static_cast<std::uint64_t>(b));
        std::vector<fit::LossPoint> resample;
        for (std::size_t i = 0; i < out.measured.size(); ++i) resample.push_back(out.measured[rng.below(out.measured.size())]);
        const auto losses = redrawnLosses(predicted, modelOf, models, rng);
        for (std::size_t i = 0; i < predicted.size(); ++i) resample.push_back({predicted[i].params, predicted[i].tokens, losses[i]});
        const auto refit = fit::refitLossSurface(resample, out.fit, settings, control);
        if (refit.cancelled) break;
        const auto v = refit.best.asArray();
        for (std::size_t k = 0; k < 6; ++k) draws[k].push_back(v[k]);
        ++out.replicates;
    }
    std::array<double, 6> lo = out.fit.best.asArray(), hi = lo;
    for (std::size_t k = 0; k < 6 && out.replicates > 1; ++k) std::tie(lo[k], hi[k]) = percentileInterval(draws[k], options.level);
    out.lower = fit::LossSurfaceParams::fromArray(lo);
    out.upper = fit::LossSurfaceParams::fromArray(hi);
    return out;
}

data::Expected<CheckpointIsoFlopResult> fitIsoFlopWithCheckpoints(std::span<const fit::IsoFlopRun> measured,
                                                                  const std::vector<PredictedCheckpoint>& predicted,
                                                                  const fit::IsoFlopSettings& settings,
                                                                  const CheckpointSurfaceOptions& options, const fit::FitControl& control) {
    CheckpointIsoFlopResult out;
    out.measured.assign(measured.begin(), measured.end());
    out.predicted = predicted;
    out.level = options.level;
    std::vector<fit::IsoFlopRun> points = out.measured;
    for (const auto& c : predicted) points.push_back({c.params, c.tokens, c.flops, c.loss});
    if (points.size() < 3)
        return optionError("--budgets", std::to_string(points.size()) + " runs and predicted checkpoints; an IsoFLOP profile needs at least 3");
    out.fit = fit::fitIsoFlop(points, settings);
    // The measured runs by budget, resampled within it (as isoFlopBootstrap does); runs in no budget stay out.
    std::vector<std::vector<std::size_t>> byBudget(settings.budgets.size());
    for (std::size_t i = 0; i < out.measured.size(); ++i)
        if (const auto b = fit::assignBudget(out.measured[i].flops, settings)) {
            const auto k = static_cast<std::size_t>(std::find(settings.budgets.begin(), settings.budgets.end(), *b) - settings.budgets.begin());
            byBudget[k].push_back(i);
        }
    std::size_t models = 0;
    const auto modelOf = modelIndices(predicted, models);
    std::array<std::vector<double>, 4> draws;  // a, ln A', b, ln B'
    for (int r = 0; r < options.replicates && !control.cancelled(); ++r) {
        auto rng = fit::SplitMix64::stream(options.seed, static_cast<std::uint64_t>(r));
        std::vector<fit::IsoFlopRun> resample;
        for (const auto& runs : byBudget)
            for (std::size_t i = 0; i < runs.size(); ++i) resample.push_back(out.measured[runs[rng.below(runs.size())]]);
        const auto losses = redrawnLosses(predicted, modelOf, models, rng);
        for (std::size_t i = 0; i < predicted.size(); ++i) resample.push_back({predicted[i].params, predicted[i].tokens, predicted[i].flops, losses[i]});
        const auto refit = fit::fitIsoFlop(resample, settings);
        if (!refit.nOptLaw || !refit.dOptLaw) continue;
        draws[0].push_back(refit.nOptLaw->exponent), draws[1].push_back(std::log(refit.nOptLaw->coefficient));
        draws[2].push_back(refit.dOptLaw->exponent), draws[3].push_back(std::log(refit.dOptLaw->coefficient));
        ++out.replicates;
    }
    const auto bounds = [&](std::size_t exponent, fit::PowerLaw& lower, fit::PowerLaw& upper) {
        const auto [a0, a1] = percentileInterval(draws[exponent], options.level);
        const auto [c0, c1] = percentileInterval(draws[exponent + 1], options.level);
        lower.exponent = a0, upper.exponent = a1;
        lower.coefficient = std::exp(c0), upper.coefficient = std::exp(c1);
    };
    bounds(0, out.nOptLower, out.nOptUpper);
    bounds(2, out.dOptLower, out.dOptUpper);
    return out;
}

QJsonObject predictedCheckpointJson(const PredictedCheckpoint& c) {
    const auto finite = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); };
    return QJsonObject{{"model", QString::fromStdString(c.model)},
                       {"params", c.params},
                       {"tokens", c.tokens},
                       {"flops", c.flops},
                       {"loss", finite(c.loss)},
                       {"lower", finite(c.lower)},
                       {"upper", finite(c.upper)},
                       {"ln_sd", finite(c.lnSd)},
                       {"budget", c.budget > 0 ? QJsonValue(c.budget) : QJsonValue()},
                       {"steps", static_cast<double>(c.schedule.steps)},
                       {"schedule", QString::fromStdString(fit::describeSchedule(c.schedule))},
                       {"predicted", c.predicted}};
}

QJsonObject predictedCheckpointsJson(const PredictedCheckpointsResult& result) {
    QJsonArray checkpoints, notes;
    for (const auto& c : result.checkpoints) checkpoints.append(predictedCheckpointJson(c));
    for (const auto& n : result.notes) notes.append(QString::fromStdString(n));
    return QJsonObject{{"checkpoints", checkpoints}, {"notes", notes}, {"level", result.level}};
}

QJsonObject checkpointSurfaceJson(const CheckpointSurfaceResult& r) {
    static const char* names[6] = {"log_a", "log_b", "log_e", "alpha", "beta", "gamma"};
    const auto v = r.fit.best.asArray(), lo = r.lower.asArray(), hi = r.upper.asArray();
    QJsonObject params;
    for (std::size_t k = 0; k < 6; ++k) params.insert(names[k], QJsonObject{{"value", v[k]}, {"lower", lo[k]}, {"upper", hi[k]}});
    QJsonArray points, warnings;
    for (const auto& p : r.measured)
        points.append(QJsonObject{{"params", p.params}, {"tokens", p.tokens}, {"loss", p.loss}, {"predicted", false}});
    for (const auto& c : r.predicted) points.append(predictedCheckpointJson(c));
    for (const auto& w : r.fit.warnings) warnings.append(QString::fromStdString(w));
    return QJsonObject{{"params", params},        {"points", points},           {"replicates", r.replicates}, {"level", r.level},
                       {"objective", r.fit.objective}, {"r2", r.fit.quality.r2}, {"warnings", warnings}};
}

QJsonObject checkpointIsoFlopJson(const CheckpointIsoFlopResult& r) {
    const auto finite = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); };
    const auto law = [&](const std::optional<fit::PowerLaw>& l, const fit::PowerLaw& lo, const fit::PowerLaw& hi) {
        if (!l) return QJsonValue();
        return QJsonValue(QJsonObject{{"coefficient", l->coefficient},
                                      {"exponent", l->exponent},
                                      {"lower", QJsonObject{{"coefficient", finite(lo.coefficient)}, {"exponent", finite(lo.exponent)}}},
                                      {"upper", QJsonObject{{"coefficient", finite(hi.coefficient)}, {"exponent", finite(hi.exponent)}}}});
    };
    QJsonArray profiles, points, warnings;
    for (const auto& p : r.fit.profiles)
        profiles.append(QJsonObject{{"budget", p.budget},
                                    {"flops_mean", p.flopsMean},
                                    {"n_runs", p.nRuns},
                                    {"n_opt", p.fitted ? QJsonValue(p.nOpt) : QJsonValue()},
                                    {"d_opt", p.fitted ? QJsonValue(p.dOpt) : QJsonValue()},
                                    {"loss", p.fitted ? QJsonValue(p.lossAtNOpt) : QJsonValue()},
                                    {"in_power_law", p.inPowerLaw},
                                    {"left_out", QString::fromStdString(p.leftOut)}});
    for (const auto& m : r.measured)
        points.append(QJsonObject{{"params", m.params}, {"tokens", m.tokens}, {"flops", m.flops}, {"loss", m.loss}, {"predicted", false}});
    for (const auto& c : r.predicted) points.append(predictedCheckpointJson(c));
    for (const auto& w : r.fit.warnings) warnings.append(QString::fromStdString(w));
    return QJsonObject{{"profiles", profiles},
                       {"n_opt_law", law(r.fit.nOptLaw, r.nOptLower, r.nOptUpper)},
                       {"d_opt_law", law(r.fit.dOptLaw, r.dOptLower, r.dOptUpper)},
                       {"points", points},
                       {"replicates", r.replicates},
                       {"level", r.level},
                       {"warnings", warnings}};
}

}  // namespace scalex::analysis
