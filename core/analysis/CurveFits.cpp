#include "core/analysis/CurveFits.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace scalex::analysis {

namespace {

// The files named: a folder stands for the .json files in it, in name order.
std::vector<std::string> expandFiles(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& n : names) {
        const QFileInfo info(QString::fromStdString(n));
        if (info.isDir()) {
            const QDir dir(info.filePath());
            for (const auto& e : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) out.push_back(dir.filePath(e).toStdString());
        } else {
            out.push_back(n);
        }
    }
    return out;
}

// One rate a step is kept for the prefix sums: longer schedules are refused, not allocated.
constexpr long kMaxSteps = 10'000'000;

std::string tooLong() { return "a schedule of more than " + std::to_string(kMaxSteps) + " steps (one rate a step is kept)"; }

data::LoadError optionError(const std::string& option, const std::string& message) { return data::LoadError{"", 0, option, message, true}; }

data::Expected<fit::ScheduleSpec> parseSpec(const std::string& text, const std::string& option) {
    std::string why;
    auto spec = fit::parseScheduleSpec(text, &why);
    if (!spec) return optionError(option, "'" + text + "': " + why);
    if (spec->steps > kMaxSteps) return optionError(option, "'" + text + "': " + tooLong());
    return *spec;
}

// The schedule a tracker config describes (data::trackerScheduleDescription); nothing when the
// config does not say or describes more steps than are kept.
std::optional<fit::ScheduleSpec> scheduleFromConfig(const data::TrackerRun& r) {
    const auto description = data::trackerScheduleDescription(r);
    if (!description) return std::nullopt;
    auto spec = fit::parseScheduleSpec(*description);
    if (!spec || spec->steps > kMaxSteps) return std::nullopt;
    return spec;
}

}  // namespace

data::Expected<std::vector<CurveRun>> loadCurveRuns(const CurveFitOptions& options) {
    const auto dataFiles = expandFiles(options.dataFiles), holdoutFiles = expandFiles(options.holdoutFiles);
    if (dataFiles.empty()) return optionError("--data", "no runs to fit (give tracker JSON files or a folder of them)");
    std::vector<data::TrackerRun> runs;
    for (const auto& f : dataFiles) {
        auto r = data::loadTrackerRun(f);
        if (!r) return r.error();
        runs.push_back(std::move(*r));
    }
    const std::size_t fitted = runs.size();
    for (const auto& f : holdoutFiles) {
        auto r = data::loadTrackerRun(f);
        if (!r) return r.error();
        runs.push_back(std::move(*r));
    }
    const auto unjoined = data::joinCooldownRuns(runs);
    for (const auto& line : unjoined)
        return data::LoadError{line.substr(0, line.find(": ")), 0, "history", line.substr(line.find(": ") + 2), true};
    std::optional<fit::ScheduleSpec> described;
    if (!options.schedule.empty()) {
        auto spec = parseSpec(options.schedule, "--schedule");
        if (!spec) return spec.error();
        described = *spec;
    }
    std::vector<CurveRun> out;
    out.reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto& r = runs[i];
        CurveRun c;
        c.heldOut = i >= fitted;
        const double configWarmup = r.configNumber("warmup_steps");
        const long warmup = options.warmupSteps >= 0 ? options.warmupSteps : (configWarmup >= 0 ? static_cast<long>(configWarmup) : 0);
        const double iterations = r.configNumber("iterations");
        long steps = iterations > 0 ? static_cast<long>(std::min(iterations, 1e12)) : 0;
        if (steps > kMaxSteps) return data::LoadError{r.file, 0, "config.iterations", tooLong(), true};
        for (const auto& p : r.curve.points) {
            if (p.step > static_cast<double>(kMaxSteps)) return data::LoadError{r.file, 0, "history", tooLong(), true};
            steps = std::max(steps, static_cast<long>(p.step));
        }
        fit::CurveLawOptions lawOptions;
        if (r.tokensPerStep > 0) lawOptions.tokensPerStep = r.tokensPerStep;
        std::vector<fit::LrPoint> rates;
        for (const auto& p : r.curve.points)
            if (std::isfinite(p.lr)) rates.push_back({p.step, p.lr});
        // A log that starts after the warm-up does not say what the rate was before: the config's
        // description does (the warm-up of --warmup is the user's answer instead).
        const auto fromConfig = scheduleFromConfig(r);
        const bool lateLog = !rates.empty() && rates.front().step > static_cast<double>(warmup) && r.joinedTo.empty();
        if (described && !c.heldOut) {
            c.schedule = fit::PreparedSchedule(fit::Schedule::fromSpec(*described), lawOptions);
            c.scheduleSource = "--schedule " + scheduleLabel(*described);
        } else if (options.warmupSteps < 0 && fromConfig && (rates.empty() || lateLog)) {
            c.schedule = fit::PreparedSchedule(fit::Schedule::fromSpec(*fromConfig), lawOptions);
            c.scheduleSource = "config " + scheduleLabel(*fromConfig);
        } else {
            c.scheduleSource = r.joinedTo.empty() ? "logged train_lr" : "logged train_lr, joined to " + r.joinedTo;
            if (rates.empty())
                return data::LoadError{r.file, 0, "history.train.train_lr", "no logged learning rate: give the schedule with --schedule", true};
            c.schedule = fit::PreparedSchedule(fit::Schedule::fromLogged(rates, warmup, steps), lawOptions);
        }
        for (const auto& p : r.curve.points) {
            const double loss = options.trainLoss ? p.trainLoss : p.valLoss;
            if (std::isfinite(loss) && p.step >= 1) c.points.push_back({static_cast<long>(p.step), loss});
        }
        if (c.points.empty())
            return data::LoadError{r.file, 0, options.trainLoss ? "history.train.train_loss" : "history.val.val_loss", "no logged loss after step 0", true};
        c.run = std::move(r);
        out.push_back(std::move(c));
    }
    return out;
}

namespace {

// The law's loss with its interval at `samples` steps from `first` (at least after the warm-up) to
// `last` (at most the schedule's end).
CurveBand sampleBand(const fit::CurveFitResult& fit, const fit::PreparedSchedule& schedule, std::string name, int samples, long first = 0,
                     long last = std::numeric_limits<long>::max()) {
    CurveBand band;
    band.name = std::move(name);
    first = std::max(first, schedule.schedule().warmupSteps() + 1);
    last = std::min(last, schedule.schedule().steps());
    const int n = std::max(2, samples);
    long previous = 0;
    for (int i = 0; i < n && first <= last; ++i) {
        const long t = first + static_cast<long>(std::llround(static_cast<double>(last - first) * i / (n - 1)));
        if (t == previous) continue;
        previous = t;
        const auto p = fit::predictCurveLoss(fit, schedule, t);
        if (!std::isfinite(p.loss)) continue;
        band.steps.push_back(t);
        band.loss.push_back(p.loss);
        band.lower.push_back(std::isfinite(p.lower) ? p.lower : p.loss);
        band.upper.push_back(std::isfinite(p.upper) ? p.upper : p.loss);
    }
    return band;
}

}  // namespace

double calibrateMisfit(fit::CurveFitResult& full, std::span<const fit::FitCurve> curves, const fit::CurveFitSettings& settings,
                       const fit::FitControl& control) {
    if (curves.size() < 3 || full.params.empty()) return 0;
    fit::CurveFitSettings refit = settings;
    refit.start = full.params;
    double sum = 0;
    int counted = 0;
    for (std::size_t k = 0; k < curves.size(); ++k) {
        if (control.cancelled()) break;
        std::vector<fit::FitCurve> others;
        for (std::size_t j = 0; j < curves.size(); ++j)
            if (j != k) others.push_back(curves[j]);
        fit::CurveFitResult without;
        try {
            without = fit::fitCurveLaw(others, refit, control);
        } catch (const std::invalid_argument&) {
            continue;  // the others hold too few points: this curve says nothing of the misfit
        }
        if (without.params.empty()) break;  // cancelled
        const auto& left = curves[k];
        double squares = 0;
        int points = 0;
        for (const auto& p : left.points) {
            if (p.step <= left.schedule->schedule().warmupSteps() || !(p.loss > 0)) continue;
            const double v = left.schedule->loss(without.law, without.params, p.step);
            if (!(v > 0) || !std::isfinite(v)) continue;
            const double r = std::log(v) - std::log(p.loss);
            squares += r * r;
            ++points;
        }
        if (points > 0) sum += squares / points, ++counted;
    }
    full.misfitSd = counted > 0 ? std::sqrt(sum / counted) : 0.0;
    full.misfitCurves = counted;
    for (std::size_t i = 0; i < curves.size() && i < full.curves.size(); ++i) full.curves[i] = fit::scoreCurve(full, curves[i]);
    return full.misfitSd;
}

namespace {

data::Expected<CurveFitsResult> fitCurveRuns(std::vector<CurveRun> runs, const CurveFitOptions& options, const fit::FitControl& control,
                                             std::vector<std::string> notes = {}) {
    CurveFitsResult result;
    result.runs = std::move(runs);
    result.notes = std::move(notes);
    std::vector<fit::FitCurve> fitted, heldOut;
    for (const auto& c : result.runs) {
        fit::FitCurve curve{c.run.name, &c.schedule, c.points};
        // A held-out branch is scored on its own points only: below its join they are the base
        // run's, which may be among the fitted curves.
        if (c.heldOut && !c.run.joinedTo.empty())
            std::erase_if(curve.points, [&](const fit::CurveObservation& p) { return p.step < c.run.joinStep; });
        (c.heldOut ? heldOut : fitted).push_back(std::move(curve));
        if (!c.run.joinedTo.empty())
            result.notes.push_back(c.run.name + ": joined to " + c.run.joinedTo + " below step " + std::to_string(c.run.joinStep));
        if (c.scheduleSource.rfind("config ", 0) == 0)
            result.notes.push_back(c.run.name + ": logs from step " + std::to_string(c.run.firstLoggedStep()) + "; schedule from its " + c.scheduleSource);
        if (c.run.duplicateSteps > 0)
            result.notes.push_back(c.run.name + ": " + std::to_string(c.run.duplicateSteps) + " steps logged twice (resumed); the later entry kept");
    }
    fit::CurveFitSettings settings;
    settings.law = options.law;
    settings.huberDelta = options.huberDelta;
    settings.maxPointsPerCurve = options.maxPointsPerCurve;
    settings.level = options.level;
    settings.maxIterations = options.maxIterations;
    try {
        result.fit = fit::fitCurveLaw(fitted, settings, control);
    } catch (const std::invalid_argument& e) {
        return optionError("--data", e.what());
    }
    if (result.fit.params.empty()) return optionError("--data", "cancelled");
    if (options.calibrateIntervals) {
        if (calibrateMisfit(result.fit, fitted, settings, control) > 0)
            result.notes.push_back("intervals: the law's misfit, a standard deviation of ln L of " + std::to_string(result.fit.misfitSd) +
                                   " measured by predicting each of the " + std::to_string(fitted.size()) +
                                   " fitted curves from the others, added to each prediction's (at Student's t quantile)");
        else
            result.notes.push_back("intervals: without the law's misfit (it is measured on 3 or more fitted curves)");
    }
    for (const auto& h : heldOut) result.heldOut.push_back(fit::scoreCurve(result.fit, h));
    auto& mean = result.heldOutMean;
    mean.name = "held_out_mean";
    for (const auto& s : result.heldOut) {
        const double n = static_cast<double>(result.heldOut.size());
        mean.points += s.points;
        mean.r2 += s.r2 / n, mean.mae += s.mae / n, mean.rmse += s.rmse / n, mean.predE += s.predE / n;
        mean.worstE += s.worstE / n;
    }
    return result;
}

}  // namespace

data::Expected<CurveFitsResult> fitCurves(const CurveFitOptions& options, const fit::FitControl& control) {
    auto runs = loadCurveRuns(options);
    if (!runs) return runs.error();
    return fitCurveRuns(std::move(*runs), options, control);
}

data::Expected<CurveFitsResult> fitStudyCurves(const std::vector<data::ProjectCurves>& sets, const CurveFitOptions& options,
                                               const fit::FitControl& control) {
    std::vector<CurveRun> runs;
    std::vector<std::string> notes;
    for (const auto& set : sets)
        for (const auto& curve : set.curves.curves) {
            CurveRun c;
            std::vector<fit::LrPoint> rates;
            for (const auto& p : curve.points) {
                if (std::isfinite(p.lr)) rates.push_back({p.step, p.lr});
                const double loss = options.trainLoss ? p.trainLoss : p.valLoss;
                if (std::isfinite(loss) && p.step >= 1 && p.step <= static_cast<double>(kMaxSteps)) c.points.push_back({static_cast<long>(p.step), loss});
            }
            // A schedule described for the run (its tracker config's, or the user's) where it logs no
            // rate or starts logging after the warm-up.
            std::optional<fit::ScheduleSpec> described;
            if (const auto it = set.schedules.find(curve.runId); it != set.schedules.end()) {
                std::string why;
                described = fit::parseScheduleSpec(it->second, &why);
                if (!described) return data::LoadError{set.source, 0, "schedules." + curve.runId, "'" + it->second + "': " + why};
                if (described->steps > kMaxSteps) return data::LoadError{set.source, 0, "schedules." + curve.runId, "'" + it->second + "': " + tooLong()};
                if (!rates.empty() && rates.front().step <= static_cast<double>(described->warmupSteps)) described.reset();
            }
            if ((rates.empty() && !described) || c.points.empty() || (!rates.empty() && rates.back().step > static_cast<double>(kMaxSteps))) {
                notes.push_back(curve.runId + " (" + set.name + "): " + (rates.empty() ? "no logged lr" : "no usable loss") + ", left out");
                continue;
            }
            fit::CurveLawOptions lawOptions;
            if (curve.points.back().tokens > 0 && curve.points.back().step > 0)
                lawOptions.tokensPerStep = curve.points.back().tokens / curve.points.back().step;
            c.run.file = set.source;
            c.run.name = curve.runId;
            c.run.curve = curve;
            if (described) {
                c.schedule = fit::PreparedSchedule(fit::Schedule::fromSpec(*described), lawOptions);
                c.scheduleSource = "described " + scheduleLabel(*described);
                notes.push_back(curve.runId + " (" + set.name + "): schedule described as " + scheduleLabel(*described));
                runs.push_back(std::move(c));
                continue;
            }
            // Without --warmup, the warm-up is where the logged rate first reaches its peak (the laws
            // count their steps after it), when that is in the curve's first fifth.
            long warmup = std::max(0L, options.warmupSteps);
            if (options.warmupSteps < 0) {
                double peak = 0;
                for (const auto& r : rates) peak = std::max(peak, r.lr);
                for (const auto& r : rates)
                    if (r.lr >= 0.999 * peak) {
                        if (r.step <= 0.2 * rates.back().step) warmup = static_cast<long>(r.step);
                        break;
                    }
            }
            c.schedule = fit::PreparedSchedule(fit::Schedule::fromLogged(rates, warmup), lawOptions);
            c.scheduleSource = "logged lr";
            runs.push_back(std::move(c));
        }
    if (runs.empty()) return optionError("curves", "no loss curve with a logged learning rate (an lr column) or a described schedule to fit");
    return fitCurveRuns(std::move(runs), options, control, std::move(notes));
}

fit::ScheduleSpec scheduleForCurves(const CurveFitsResult& result, fit::ScheduleShape shape, double cooldownFraction, fit::DecayShape decay,
                                    double lengthFactor) {
    double peak = 0;
    long longest = 0, warmup = 0;
    for (const auto& c : result.runs) {
        peak = std::max(peak, c.schedule.schedule().peak());
        if (c.schedule.schedule().steps() > longest) longest = c.schedule.schedule().steps(), warmup = c.schedule.schedule().warmupSteps();
    }
    fit::ScheduleSpec spec;
    spec.shape = shape;
    spec.peakLr = peak;
    spec.steps = std::clamp(std::lround(static_cast<double>(longest) * lengthFactor), 1L, kMaxSteps);
    spec.warmupSteps = std::min(warmup, spec.steps);
    spec.finalLr = shape == fit::ScheduleShape::Cosine ? 0.1 * peak : 0;  // cosine to 10 % of the peak, as is usual
    spec.cooldownFraction = std::clamp(cooldownFraction, 0.0, 1.0);
    spec.decay = decay;
    return spec;
}

CurveBand scheduleBand(const CurveFitsResult& result, const fit::ScheduleSpec& spec, int samples) {
    fit::CurveLawOptions lawOptions;
    if (!result.runs.empty()) lawOptions.tokensPerStep = result.runs.front().schedule.options().tokensPerStep;
    const fit::PreparedSchedule schedule(fit::Schedule::fromSpec(spec), lawOptions);
    CurveBand band = sampleBand(result.fit, schedule, scheduleLabel(spec), samples);
    band.heldOut = true;
    return band;
}



std::vector<CurveBand> curveBands(const CurveFitsResult& result, int samples) {
    std::vector<CurveBand> out;
    for (const auto& c : result.runs) {
        // Over the curve's own observations: a held-out branch from its join (below it the
        // points are its base run's).
        const long from = c.heldOut && !c.run.joinedTo.empty() ? c.run.joinStep : 0;
        std::vector<fit::CurveObservation> observed;
        for (const auto& p : c.points)
            if (p.step >= from) observed.push_back(p);
        if (observed.empty()) continue;
        CurveBand band = sampleBand(result.fit, c.schedule, c.run.name, samples, from, observed.back().step);
        band.heldOut = c.heldOut;
        band.observed = std::move(observed);
        out.push_back(std::move(band));
    }
    return out;
}

data::Expected<CurvePredictionResult> predictCurve(const CurvePredictOptions& options, const fit::FitControl& control) {
    auto spec = parseSpec(options.schedule, "--schedule");
    if (!spec) return spec.error();
    auto fitted = fitCurves(options.fit, control);
    if (!fitted) return fitted.error();
    CurvePredictionResult out;
    out.schedule = *spec;
    out.fitted = std::move(*fitted);
    fit::CurveLawOptions lawOptions;
    if (!out.fitted.runs.empty() && out.fitted.runs.front().run.tokensPerStep > 0) lawOptions.tokensPerStep = out.fitted.runs.front().run.tokensPerStep;
    const fit::PreparedSchedule schedule(fit::Schedule::fromSpec(*spec), lawOptions);
    std::vector<long> steps = options.steps;
    if (steps.empty()) steps.push_back(spec->steps);
    for (long t : steps) {
        if (t < 1 || t > spec->steps)
            return optionError("--at", "step " + std::to_string(t) + " is outside the schedule's 1.." + std::to_string(spec->steps));
        out.points.push_back({t, schedule.schedule().lr(t), fit::predictCurveLoss(out.fitted.fit, schedule, t)});
    }
    out.predicted = sampleBand(out.fitted.fit, schedule, scheduleLabel(*spec), 300);
    out.predicted.heldOut = true;
    return out;
}

std::optional<fit::CurveLaw> curveLawFromName(const std::string& name) { return fit::parseCurveLaw(name); }
std::string curveLawLabel(fit::CurveLaw law) { return fit::curveLawName(law); }
std::string normalScheduleDescription(const std::string& text) {
    const auto spec = fit::parseScheduleSpec(text);
    return spec ? fit::describeSchedule(*spec) : text;
}

std::string scheduleDescriptionProblem(const std::string& text) {
    std::string why;
    const auto spec = fit::parseScheduleSpec(text, &why);
    if (!spec) return why.empty() ? "not a schedule description" : why;
    return spec->steps > kMaxSteps ? tooLong() : std::string();
}
std::string scheduleLabel(const fit::ScheduleSpec& spec) { return fit::describeSchedule(spec, fit::ScheduleNumbers::Shown); }

QJsonObject curveScoreJson(const fit::CurveScore& s) {
    const auto number = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); };
    QJsonObject o{{"name", QString::fromStdString(s.name)}, {"points", s.points}, {"r2", number(s.r2)},   {"mae", number(s.mae)},
                  {"rmse", number(s.rmse)},                 {"pred_e", number(s.predE)}, {"worst_e", number(s.worstE)}};
    if (s.finalStep > 0)
        o.insert("final", QJsonObject{{"step", static_cast<double>(s.finalStep)},
                                      {"observed", number(s.finalObserved)},
                                      {"predicted", number(s.finalPredicted)},
                                      {"lower", number(s.finalLower)},
                                      {"upper", number(s.finalUpper)}});
    return o;
}

QJsonObject curveFitsJson(const CurveFitsResult& r) {
    QJsonArray params, fitted, heldOut, warnings, notes;
    for (const auto& e : r.fit.estimates)
        params.append(QJsonObject{{"name", QString::fromStdString(e.name)}, {"value", e.value}, {"lower", e.lower}, {"upper", e.upper}});
    for (const auto& s : r.fit.curves) fitted.append(curveScoreJson(s));
    for (const auto& s : r.heldOut) heldOut.append(curveScoreJson(s));
    for (const auto& w : r.fit.warnings) warnings.append(QString::fromStdString(w));
    for (const auto& n : r.notes) notes.append(QString::fromStdString(n));
    QJsonObject o{{"law", QString::fromStdString(fit::curveLawName(r.fit.law))},
                  {"level", r.fit.level},
                  {"parameters", params},
                  {"objective", r.fit.objective},
                  {"residual_autocorrelation", r.fit.residualAutocorrelation},
                  {"misfit_sd", r.fit.misfitSd},
                  {"points", r.fit.nPoints},
                  {"starts", static_cast<double>(r.fit.nStarts)},
                  {"converged", static_cast<double>(r.fit.nConverged)},
                  {"seconds", r.fit.seconds},
                  {"fitted", fitted},
                  {"held_out", heldOut},
                  {"warnings", warnings},
                  {"notes", notes}};
    if (!r.heldOut.empty()) {
        QJsonObject mean = curveScoreJson(r.heldOutMean);
        mean.remove("name");
        mean.remove("final");
        o.insert("held_out_mean", mean);
    }
    return o;
}

QJsonObject curvePredictionJson(const CurvePredictionResult& r) {
    QJsonArray points;
    for (const auto& p : r.points)
        points.append(QJsonObject{{"step", static_cast<double>(p.step)}, {"lr", p.lr}, {"loss", p.loss.loss}, {"lower", p.loss.lower}, {"upper", p.loss.upper}});
    QJsonObject o = curveFitsJson(r.fitted);
    o.insert("schedule", QString::fromStdString(fit::describeSchedule(r.schedule)));
    o.insert("predictions", points);
    return o;
}

}  // namespace scalex::analysis
