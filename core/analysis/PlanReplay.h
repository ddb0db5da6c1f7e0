#pragma once
// Replaying a finished study run by run (issue 33, "Simulate before you spend", sequential mode):
// the pool's runs are candidates whose losses are revealed only when a run is picked, the target's
// runs are read only to score the law. Per group, the replay starts from the cheapest pool runs
// that determine the law (the cheapest basis of its Jacobian's rows, fit::determiningRuns) and the
// cheapest other run (free parameters + 1 in all), then picks one run at a time while the budget (a
// fraction of the group's total pool cost) allows, refitting after each pick:
//   planner   the run with the largest expected drop of the target's squared error per unit cost
//             (fit/RunDesign.h: the law's linearisation at the current fit, with an allowance for
//             its misfit); it stops when no affordable run lowers it;
//   random    a run drawn uniformly among those the budget still affords (seeded);
//   cheapest  the cheapest remaining run.
// After each pick the target's R² and mean relative error are recorded; pooled over groups they
// give the curve of error against cost spent, its value at 1 %, 5 % and 10 % of the cost, and at
// the end of the budget.
#include <QJsonObject>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/Condition.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"
#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"
#include "core/fit/RunDesign.h"

namespace scalex::analysis {

enum class PlanStrategy { Planner, Random, Cheapest };
std::string planStrategyName(PlanStrategy s);  // "planner", "random", "cheapest"
std::optional<PlanStrategy> parsePlanStrategy(const std::string& text);

struct PlanReplayOptions {
    std::optional<std::string> groupColumn;  // one replay per value; none: per series and context
    std::vector<RowCondition> pool, target;  // all must hold; required
    std::string cost;                        // expression over columns; empty: 6*N*D
    double budget = 0.1;                     // fraction of the pool's total cost, per group
    std::uint64_t seed = 1;
    PlanStrategy strategy = PlanStrategy::Planner;
    std::vector<double> checkpoints{0.01, 0.05, 0.10};
    fit::DesignModel design;  // what the planner's ranking assumes beyond the law (its misfit)
    fit::LawFitSettings fit = [] {
        fit::LawFitSettings s;
        s.starts = 32;  // each step also restarts from the previous optimum
        return s;
    }();
};

// The target's score after some picks, pooled over groups.
struct PlanPoint {
    double fraction = 0;  // of the pool's cost spent (the largest over groups)
    std::size_t runs = 0; // pool runs revealed, over groups
    double r2 = 0, mape = 0;
};

struct PlanPick {
    std::string run;
    double cost = 0;
    double fraction = 0;  // of the group's pool cost spent with it
    double r2 = 0, mape = 0;  // the group's target after refitting with it
    bool initial = false;     // one of the cheapest runs the replay starts from
    double misfit = std::numeric_limits<double>::quiet_NaN();  // τ / σ the planner's ranking assumed for this pick
};

struct PlanReplayGroup {
    std::string name;
    std::size_t poolRuns = 0, targetRuns = 0;
    double poolCost = 0;
    std::vector<PlanPick> picks;
    std::vector<double> params;  // the last fit
    std::string error;           // the group could not be replayed; nothing else is set
    // Per state (after the initial runs, then after each pick): fraction spent and the target's predictions.
    std::vector<double> stateFraction;
    std::vector<std::vector<double>> statePredicted;
    std::vector<double> targetObserved;
};

struct PlanReplay {
    fit::LawDefinition law;
    std::string target;  // the column the law predicts
    std::string cost;
    PlanReplayOptions options;
    std::vector<PlanReplayGroup> groups;
    PlanPoint final;                     // when the budget is spent
    std::vector<PlanPoint> curve;        // after each pick (pooled)
    std::vector<std::pair<double, PlanPoint>> checkpoints;  // (checkpoint, score there)
    std::vector<std::string> skipped;    // pool runs without a number the law or the cost needs
    std::optional<std::string> error;    // why nothing could be replayed
};

PlanReplay replayPlan(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                      const PlanReplayOptions& options, const fit::FitControl& control = {});

// {law, target, cost, strategy, budget, seed, r2, mape, fraction, runs, checkpoints: [{at, fraction,
// runs, r2, mape}], curve: [{fraction, runs, r2, mape}], groups: [{name, pool, targets, pool_cost,
// picks: [{run, cost, fraction, r2, initial, misfit (planner)}], params, error}], skipped}
QJsonObject toJson(const PlanReplay& replay);

// The replay's curve of the target's error against the cost spent, for the three strategies (the
// issue's figure): the planner (options.seed), cheapest-first, and random over `randomSeeds` seeds
// (options.seed + 1, + 2, ...), each scored (pooled over groups) on one grid of cost fractions:
// 40 log-spaced from where every replay has its initial runs to the budget, and the checkpoints.
inline constexpr std::size_t kReplayCurveRandomSeeds = 20;
struct ReplayCurvePoint {
    double fraction = 0;  // of the pool's cost
    double plannerR2 = 0, cheapestR2 = 0, plannerMape = 0, cheapestMape = 0;
    // Random plans: the median over seeds and the quartiles.
    double randomR2 = 0, randomR2Low = 0, randomR2High = 0, randomMape = 0, randomMapeLow = 0, randomMapeHigh = 0;
};
struct ReplayCurves {
    PlanReplay planner;  // the planner's replay as replayPlan gives it
    std::size_t randomSeeds = 0;
    std::vector<ReplayCurvePoint> points;
    std::optional<std::string> error;  // as replayPlan's
};
ReplayCurves replayCurves(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                          const PlanReplayOptions& options, std::size_t randomSeeds = kReplayCurveRandomSeeds, const fit::FitControl& control = {});
// fraction,planner_mape,cheapest_mape,random_mape,random_mape_low,random_mape_high,planner_r2,cheapest_r2,random_r2,random_r2_low,random_r2_high
std::string replayCurvesCsv(const ReplayCurves& curves);

}  // namespace scalex::analysis
