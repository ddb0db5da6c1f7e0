#pragma once
// "Best cooldown for this budget": the warm-up–stable–decay schedule of a given length (the step
// budget) whose final loss a fitted schedule-aware law predicts lowest, found over the schedule's
// free parameters — the cooldown fraction, the decay shape and the final rate as a fraction of the
// peak (and the peak itself when asked) — as MPL's authors optimise a schedule by minimising the
// law's predicted final loss (Luo et al., ICLR 2025, arXiv:2503.12811: the schedule minimising the fitted law's final loss).
// The search: a grid over fraction × final rate (× peak) for each decay shape, then a compass search
// from the best grid point of each shape, halving its steps down to `fractionTolerance`.
#include <QJsonObject>
#include <vector>

#include "core/analysis/CurveFits.h"

namespace scalex::analysis {

struct BestCooldownOptions {
    std::vector<fit::DecayShape> decays{fit::DecayShape::Linear, fit::DecayShape::Sqrt, fit::DecayShape::Exponential};
    double minFraction = 0.01, maxFraction = 1.0;  // the cooldown fraction searched
    double maxFinalRatio = 0.5;  // the final rate searched in [0, maxFinalRatio]·peak (0 pins it at 0)
    bool freePeak = false;       // search the peak rate too (otherwise the budget's peak is held)
    double peakFactor = 4;       // ... within [peak/peakFactor, peak·peakFactor], in log
    int fractionGrid = 25, finalGrid = 6, peakGrid = 9;  // grid points of each searched parameter
    double fractionTolerance = 1e-3;  // the compass search stops when its fraction step is below this
};

struct CooldownCandidate {
    fit::ScheduleSpec schedule;
    fit::CurvePrediction final;  // the law's loss at the budget's last step, with its interval
};

struct BestCooldownResult {
    fit::ScheduleSpec budget;  // as given: its steps, warm-up and peak rate
    CooldownCandidate best;
    std::vector<CooldownCandidate> bestPerDecay;  // in BestCooldownOptions::decays order
    CooldownCandidate given;                      // the budget's own schedule, for comparison
    int evaluations = 0;                          // schedules whose final loss was evaluated
};

// The best WSD schedule of `budget.steps` steps after `budget.warmupSteps` of warm-up at
// `budget.peakLr` for the law of `fit`. Tokens per step are those of the fitted runs (the power
// law's D). A budget without steps, or a fit without parameters, gives an empty result (best.final
// NaN).
BestCooldownResult bestCooldown(const CurveFitsResult& fit, const fit::ScheduleSpec& budget, const BestCooldownOptions& options = {});

QJsonObject bestCooldownJson(const BestCooldownResult& result, double level);

}  // namespace scalex::analysis
