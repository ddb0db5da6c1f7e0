#pragma once
// Schedule-aware laws of loss curves (core/fit/ScheduleLaws.h) fitted to runs read from tracker
// exports (core/data/TrackerJson.h): one function per result (DESIGN.md "The shape"), each with
// one options struct whose defaults are written here once. `scalex fit curves` and
// `scalex predict curve` only parse their flags into these options and print the results.
#include <QJsonObject>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/data/LoadError.h"
#include "core/data/Project.h"
#include "core/data/TrackerJson.h"
#include "core/fit/FitControl.h"
#include "core/fit/Schedule.h"
#include "core/fit/ScheduleLaws.h"

namespace scalex::analysis {

struct CurveFitOptions {
    std::vector<std::string> dataFiles;     // runs whose curves are fitted (files or folders of .json)
    std::vector<std::string> holdoutFiles;  // runs whose curves are predicted and scored
    fit::CurveLaw law = fit::CurveLaw::MultiPower;
    long warmupSteps = -1;     // warm-up steps before the first logged rate; −1: the run's config
                               // `warmup_steps`, else 0
    std::string schedule;      // a description (fit::parseScheduleSpec) replacing every fitted
                               // run's logged rates; empty: each run's logged `train_lr`, or its
                               // config's description where the log starts after the warm-up
    bool trainLoss = false;    // fit the training loss instead of the validation loss
    double huberDelta = 1e-3;  // as MPL's authors fit
    int maxPointsPerCurve = 120;
    double level = 0.95;
    int maxIterations = 1000;  // L-BFGS iterations of each start; fewer stop the fit early
    // Widen every prediction interval by the law's own misfit, measured by refitting without each
    // fitted curve in turn and predicting it (needs 3 fitted curves; see calibrateMisfit).
    bool calibrateIntervals = true;
};

// A run as the laws see it: its curve's losses and its schedule.
struct CurveRun {
    data::TrackerRun run;
    fit::PreparedSchedule schedule;
    std::vector<fit::CurveObservation> points;
    bool heldOut = false;
    std::string scheduleSource;  // "logged train_lr", "config <description>" or "--schedule <description>"
};

struct CurveFitsResult {
    fit::CurveFitResult fit;            // with its per-curve scores on the fitted runs
    std::vector<fit::CurveScore> heldOut;
    fit::CurveScore heldOutMean;        // the mean of each score (worst_e too) over the held-out curves
    std::vector<std::string> notes;     // joins made, runs left unjoined
    std::vector<CurveRun> runs;         // fitted first, then held out
};

// The law's misfit on curves it was not fitted to, as a standard deviation of ln L: for each of the
// curves in turn, the law refitted to the others (one start, from `full`'s optimum) predicts its
// points after warm-up; the root of the mean over curves of each curve's mean squared log error.
// 0 with fewer than 3 curves. Sets full.misfitSd and rescores full.curves with it.
double calibrateMisfit(fit::CurveFitResult& full, std::span<const fit::FitCurve> curves, const fit::CurveFitSettings& settings,
                       const fit::FitControl& control = {});

// Loads the runs of `options` (joining cooldown branches to their base runs among all given
// files) with their schedules and losses. Errors name the file and key, or the option.
data::Expected<std::vector<CurveRun>> loadCurveRuns(const CurveFitOptions& options);
// Fits the law to the data runs and scores it on the held-out runs.
data::Expected<CurveFitsResult> fitCurves(const CurveFitOptions& options, const fit::FitControl& control = {});

// A curve as a figure draws it: its logged losses and the law's loss with its interval at evenly
// spaced steps of its schedule.
struct CurveBand {
    std::string name;
    bool heldOut = false;
    std::vector<fit::CurveObservation> observed;
    std::vector<long> steps;
    std::vector<double> loss, lower, upper;
};

// The fitted and held-out curves of a fit, each sampled at `samples` steps.
std::vector<CurveBand> curveBands(const CurveFitsResult& result, int samples = 200);

// Fits the law to every curve of a study's curve sets (curves files and tracker exports) under its
// logged `lr`, or under the schedule described for its run in the set (ProjectCurves::schedules)
// where it logs no rate or starts logging after that schedule's warm-up; curves with neither are
// left out and named in the notes; nothing held out. A description that does not parse is an error
// naming the set's file and `schedules.<run>`.
// Without options.warmupSteps, a curve's warm-up ends where its logged rate first reaches its peak.
data::Expected<CurveFitsResult> fitStudyCurves(const std::vector<data::ProjectCurves>& sets, const CurveFitOptions& options,
                                               const fit::FitControl& control = {});

// A schedule on the scale of the fitted curves (their peak rate, the warm-up of the longest, and
// `lengthFactor` times its length) of the given shape: what the schedule editor describes.
fit::ScheduleSpec scheduleForCurves(const CurveFitsResult& result, fit::ScheduleShape shape, double cooldownFraction, fit::DecayShape decay,
                                    double lengthFactor);

// The law's loss with its interval under a described schedule, at `samples` steps after its warm-up.
CurveBand scheduleBand(const CurveFitsResult& result, const fit::ScheduleSpec& spec, int samples = 300);

struct CurvePredictOptions {
    CurveFitOptions fit;
    std::string schedule;      // the schedule to predict under (a description); required
    std::vector<long> steps;   // steps to predict at; empty: the schedule's last step
};

struct CurvePointPrediction {
    long step = 0;
    double lr = 0;
    fit::CurvePrediction loss;
};

struct CurvePredictionResult {
    CurveFitsResult fitted;
    fit::ScheduleSpec schedule;
    std::vector<CurvePointPrediction> points;
    CurveBand predicted;  // the loss under the schedule from its start to its end
};

// Fits as fitCurves, then predicts the loss under `schedule` at `steps`, each with its interval.
data::Expected<CurvePredictionResult> predictCurve(const CurvePredictOptions& options, const fit::FitControl& control = {});

// The law's and schedule's names as the verbs and views print them (app/ reaches core/fit only here).
std::optional<fit::CurveLaw> curveLawFromName(const std::string& name);
std::string curveLawLabel(fit::CurveLaw law);
// Why a schedule description (fit::parseScheduleSpec's grammar) cannot be read, as the parser
// says it (naming the key), or that it is longer than a fit keeps; empty when it can be.
std::string scheduleDescriptionProblem(const std::string& text);
// A description as describeSchedule writes what it reads (each number the shortest text of the same
// double: 0.00029999999999999997 reads 0.0003); the text itself when it does not read.
std::string normalScheduleDescription(const std::string& text);
// For people: float32 rates at float precision (fit::ScheduleNumbers::Shown); JSON and projects keep
// fit::describeSchedule's exact text.
std::string scheduleLabel(const fit::ScheduleSpec& spec);

QJsonObject curveScoreJson(const fit::CurveScore& score);
QJsonObject curveFitsJson(const CurveFitsResult& result);
QJsonObject curvePredictionJson(const CurvePredictionResult& result);

}  // namespace scalex::analysis
