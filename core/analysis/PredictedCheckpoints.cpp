#include "core/analysis/PredictedCheckpoints.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <stdexcept>

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

}  // namespace

data::Expected<PredictedCheckpointsResult> predictCheckpoints(const PredictedCheckpointOptions& options, const fit::FitControl& control) {
    if (options.models.empty()) return optionError("--from-curves", "no model's curves given");
    if (options.tokens.empty()) return optionError("--checkpoints", "no token counts to predict at");
    for (double d : options.tokens)
        if (!(d > 0) || !std::isfinite(d)) return optionError("--checkpoints", "token count " + number(d) + " is not a positive number");
    if (options.cooldownFraction > 1) return optionError("--cooldown", "fraction " + number(options.cooldownFraction) + " is above 1");
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
        out.notes.push_back(name + ": " + curveLawLabel(fitted->fit.law) + " fitted to " + std::to_string(fitted->fit.curves.size()) +
                            " curves, N = " + number(params) + ", " + number(tokensPerStep) + " tokens a step");
        // The runs' scale: their peak rate and the warm-up of the longest (scheduleForCurves).
        const fit::ScheduleSpec scale = scheduleForCurves(*fitted, fit::ScheduleShape::Wsd, std::max(0.0, options.cooldownFraction),
                                                          fit::DecayShape::Linear, 1.0);
        fit::CurveLawOptions lawOptions;
        lawOptions.tokensPerStep = tokensPerStep;
        for (double d : options.tokens) {
            fit::ScheduleSpec spec = scale;
            spec.steps = std::lround(d / tokensPerStep);
            if (spec.steps <= spec.warmupSteps)
                return optionError("--checkpoints", "model '" + name + "': " + number(d) + " tokens are " + std::to_string(spec.steps) +
                                                        " steps, no longer than its warm-up of " + std::to_string(spec.warmupSteps));
            if (spec.steps > scale.steps)
                out.notes.push_back(name + ": " + number(d) + " tokens (" + std::to_string(spec.steps) + " steps) lie beyond its longest curve (" +
                                    std::to_string(scale.steps) + " steps): extrapolated");
            if (options.cooldownFraction < 0) spec = bestCooldown(*fitted, spec).best.schedule;
            const fit::PreparedSchedule schedule(fit::Schedule::fromSpec(spec), lawOptions);
            const auto p = fit::predictCurveLoss(fitted->fit, schedule, spec.steps);
            PredictedCheckpoint c;
            c.model = name;
            c.params = params;
            c.tokens = static_cast<double>(spec.steps) * tokensPerStep;
            c.flops = 6 * c.params * c.tokens;
            c.schedule = spec;
            c.loss = p.loss, c.lower = p.lower, c.upper = p.upper;
            c.lnSd = lnSdOf(fitted->fit, schedule, spec.steps);
            out.checkpoints.push_back(c);
        }
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
    // Models in the order their checkpoints come: one draw each per replicate.
    std::vector<std::size_t> modelOf;
    std::vector<std::string> models;
    for (const auto& c : predicted) {
        auto it = std::find(models.begin(), models.end(), c.model);
        if (it == models.end()) it = models.insert(models.end(), c.model);
        modelOf.push_back(static_cast<std::size_t>(it - models.begin()));
    }
    std::array<std::vector<double>, 6> draws;
    for (int b = 0; b < options.replicates && !control.cancelled(); ++b) {
        auto rng = fit::SplitMix64::stream(options.seed, static_cast<std::uint64_t>(b));
        std::vector<fit::LossPoint> resample;
        for (std::size_t i = 0; i < out.measured.size(); ++i) resample.push_back(out.measured[rng.below(out.measured.size())]);
        std::vector<double> shift(models.size());
        for (auto& z : shift) z = rng.normal();
        for (std::size_t i = 0; i < predicted.size(); ++i)
            resample.push_back({predicted[i].params, predicted[i].tokens, predicted[i].loss * std::exp(shift[modelOf[i]] * predicted[i].lnSd)});
        const auto refit = fit::refitLossSurface(resample, out.fit, settings, control);
        if (refit.cancelled) break;
        const auto v = refit.best.asArray();
        for (std::size_t k = 0; k < 6; ++k) draws[k].push_back(v[k]);
        ++out.replicates;
    }
    std::array<double, 6> lo = out.fit.best.asArray(), hi = lo;
    const double tail = 0.5 * (1 - options.level);
    for (std::size_t k = 0; k < 6 && out.replicates > 1; ++k) {
        auto& d = draws[k];
        std::sort(d.begin(), d.end());
        const auto at = [&](double q) { return d[static_cast<std::size_t>(std::lround(q * static_cast<double>(d.size() - 1)))]; };
        lo[k] = at(tail), hi[k] = at(1 - tail);
    }
    out.lower = fit::LossSurfaceParams::fromArray(lo);
    out.upper = fit::LossSurfaceParams::fromArray(hi);
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
                       {"steps", static_cast<double>(c.schedule.steps)},
                       {"schedule", QString::fromStdString(scheduleLabel(c.schedule))},
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

}  // namespace scalex::analysis
