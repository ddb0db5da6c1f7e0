#pragma once
// Checkpoints in scaling laws (issue 43, item 5): a model's curves (constant-rate or WSD runs)
// and its fitted schedule-aware law (CurveFits.h) stand in for separate cooldown runs. For each
// token count asked, the law predicts the loss at the end of a warm-up–stable–decay schedule of
// that length (the best cooldown for that budget, bestCooldown, or a cooldown fraction given), at
// the fitted runs' peak rate and warm-up; each prediction is a run (N, D, C, loss) marked
// predicted, with the standard deviation of its ln L. The L(N,D) fit then takes such runs, with or
// without measured ones, and carries their intervals into its parameters' by a bootstrap that
// redraws every predicted point within its interval as it resamples the measured runs. An IsoFLOP
// analysis takes checkpoints at compute budgets instead: per model D = H/(6N) for each budget H,
// and its parabolas and N*(H), D*(H) laws carry the checkpoints' intervals the same way.
#include <QJsonObject>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/analysis/CurveFits.h"
#include "core/data/LoadError.h"
#include "core/data/Project.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"

namespace scalex::analysis {

// One model's curves: tracker exports (files or folders of .json) and its parameter count N.
struct CheckpointModel {
    std::vector<std::string> files;
    double params = std::numeric_limits<double>::quiet_NaN();  // NaN: the first run's config `n_params` (or `params`, `num_params`)
};

struct PredictedCheckpointOptions {
    std::vector<CheckpointModel> models;
    std::vector<double> tokens;     // D of each predicted checkpoint (tokens at the end of its cooldown)
    std::vector<double> budgets;    // compute budgets H: per model a checkpoint at D = H/(6N) (C = 6ND, Kaplan et al. 2020, Eq. 2.1)
    double cooldownFraction = -1;   // < 0: the best cooldown of each budget (bestCooldown's defaults);
                                    // else a WSD cooldown of this fraction, linear to 0
    CurveFitOptions curves;         // the law and its fit (dataFiles and holdoutFiles are the models')
    int minCurves = 3;              // curves a model needs: the law's misfit is measured on 3 (calibrateMisfit)
};

// A run the law predicts: N, D, C and its loss at the end of `schedule`, marked predicted.
struct PredictedCheckpoint {
    std::string model;  // the model's name: its first run's
    double params = 0, tokens = 0;
    double flops = 0;   // C = 6·N·D (Kaplan et al. 2020, Eq. 2.1's approximation, as data/ derives C)
    double budget = 0;  // the budget H it was asked at (budgets), 0 when asked by tokens
    fit::ScheduleSpec schedule;
    double loss = 0, lower = 0, upper = 0;  // at the curve fit's level
    double lnSd = 0;    // standard deviation of ln L: the delta method and the law's misfit in quadrature
    bool predicted = true;
};

struct PredictedCheckpointsResult {
    std::vector<PredictedCheckpoint> checkpoints;  // model by model, tokens in the order asked
    std::vector<std::string> notes;                // per model: the law's fit, and each checkpoint beyond its longest curve (extrapolated)
    double level = 0.95;
};

// Fits the law to each model's curves and predicts its checkpoints (the token counts', then the
// budgets'). Errors: no model, and no token count or budget (naming the option), a model with fewer than minCurves curves or no parameter count
// (naming its first file and the key), a token count no longer than the warm-up, and every error
// of fitCurves.
data::Expected<PredictedCheckpointsResult> predictCheckpoints(const PredictedCheckpointOptions& options,
                                                              const fit::FitControl& control = {});

// Where predictStudyCheckpoints puts a study's checkpoints when none are asked: token counts (the
// L(N,D) view) or compute budgets (the IsoFLOP view).
enum class CheckpointPlacement { Tokens, Budgets };
// The fractions of the longest curve's tokens those checkpoints are placed at.
inline constexpr double kStudyCheckpointFractions[] = {0.25, 0.5, 0.75, 1.0};

// The checkpoints of a study's loss curves, as the window's L(N,D) and IsoFLOP views draw them: the
// curves grouped into models by the parameter count N of their run in `runs` (the row of the same
// run id, e.g. a tracker export's config n_params), each model's law fitted to its curves as the
// Schedules view fits them (fitStudyCurves, tokens a step from the curve's tokens column) and its
// checkpoints predicted as predictCheckpoints predicts them, with the same options and defaults
// (options.models is not read). With no token counts and no budgets: at kStudyCheckpointFractions of
// the longest curve's tokens (Tokens), or at the budgets 6·N·D of those token counts with N the
// geometric middle of the models' smallest and largest (Budgets). Curves whose run gives no N and
// models with fewer than minCurves curves are left out and noted; none left is an error naming `curves`.
data::Expected<PredictedCheckpointsResult> predictStudyCheckpoints(const std::vector<data::ProjectCurves>& sets, const data::RunTable& runs,
                                                                   PredictedCheckpointOptions options,
                                                                   CheckpointPlacement placement = CheckpointPlacement::Tokens,
                                                                   const fit::FitControl& control = {});

struct CheckpointSurfaceOptions {
    int replicates = 200;            // bootstrap replicates for the parameters' intervals
    std::uint64_t seed = 20250301;   // of the replicates' draws (SplitMix64 streams)
    double level = 0.95;
};

struct CheckpointSurfaceResult {
    fit::LossSurfaceFit fit;                      // on the measured runs and the predicted checkpoints
    std::vector<fit::LossPoint> measured;
    std::vector<PredictedCheckpoint> predicted;
    fit::LossSurfaceParams lower, upper;          // percentile intervals at `level`
    int replicates = 0;                           // replicates whose refit ran
    double level = 0.95;
};

// L(N,D) (fit::fitLossSurface with `settings`) on measured runs and predicted checkpoints. The
// intervals: in each replicate the measured runs are resampled with replacement and each model's
// predicted points are moved together by one normal draw times their lnSd (one law predicts all
// of a model's checkpoints, so their errors share its parameters' and its misfit's), and the
// surface is refitted from the full fit's optima (fit::refitLossSurface). Fewer than 6 points in
// all is an error naming `--checkpoints`.
data::Expected<CheckpointSurfaceResult> fitSurfaceWithCheckpoints(std::span<const fit::LossPoint> measured,
                                                                  const std::vector<PredictedCheckpoint>& predicted,
                                                                  const fit::LossSurfaceSettings& settings,
                                                                  const CheckpointSurfaceOptions& options = {},
                                                                  const fit::FitControl& control = {});

struct CheckpointIsoFlopResult {
    fit::IsoFlopResult fit;                       // profiles over the measured runs, then the checkpoints
    std::vector<fit::IsoFlopRun> measured;
    std::vector<PredictedCheckpoint> predicted;
    // Percentile intervals at `level` of N*(H) = A'·H^a and D*(H) = B'·H^b (NaN without the law).
    fit::PowerLaw nOptLower, nOptUpper, dOptLower, dOptUpper;
    int replicates = 0;                           // replicates whose laws were fitted
    double level = 0.95;
};

// IsoFLOP profiles and power laws (fit::fitIsoFlop with `settings`) on measured runs and predicted
// checkpoints. The intervals: in each replicate the measured runs are resampled within their
// budget and each model's predicted points are moved together by one normal draw times their lnSd
// (as fitSurfaceWithCheckpoints does), and the profiles and laws are fitted again. Fewer than 3
// points in all is an error naming `--budgets`.
data::Expected<CheckpointIsoFlopResult> fitIsoFlopWithCheckpoints(std::span<const fit::IsoFlopRun> measured,
                                                                  const std::vector<PredictedCheckpoint>& predicted,
                                                                  const fit::IsoFlopSettings& settings,
                                                                  const CheckpointSurfaceOptions& options = {},
                                                                  const fit::FitControl& control = {});

QJsonObject predictedCheckpointJson(const PredictedCheckpoint& c);
// {"checkpoints": [...], "notes": [...], "level"}.
QJsonObject predictedCheckpointsJson(const PredictedCheckpointsResult& result);
// {"params": {log_a: {value, lower, upper}, ...}, "points": [measured runs with predicted false,
// then the checkpoints], "replicates", "level", "objective", "r2", "warnings"}.
QJsonObject checkpointSurfaceJson(const CheckpointSurfaceResult& result);
// {"profiles": [{budget, flops_mean, n_runs, n_opt, d_opt, loss, in_power_law, left_out}], "n_opt_law",
// "d_opt_law": {coefficient, exponent, lower, upper: {coefficient, exponent}}, "points" (as above),
// "replicates", "level", "warnings"}.
QJsonObject checkpointIsoFlopJson(const CheckpointIsoFlopResult& result);

}  // namespace scalex::analysis
