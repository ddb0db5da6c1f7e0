#pragma once
// How well each law extrapolates: fit it without its largest budgets (or largest models, or
// largest-compute runs), predict what was left out, report the error. A scaling law is used to
// predict beyond the data, so its error one step beyond the data is the honest measure of it.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/fit/FitControl.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"
#include "core/fit/OvertrainingSlopes.h"
#include "core/fit/PowerLaw.h"

namespace scalex::fit {

// ---- IsoFLOP power laws ----------------------------------------------------------------------

struct BudgetPrediction {
    double budget = 0, flopsMean = 0;
    double nOptObserved = 0, nOptPredicted = 0;
    double dOptObserved = 0, dOptPredicted = 0;
    double nOptError = 0, dOptError = 0;  // predicted / observed − 1
};

struct IsoFlopExtrapolation {
    std::optional<PowerLaw> nOptLaw, dOptLaw;  // fitted without the held-out budgets
    int nBudgetsFitted = 0;
    std::vector<BudgetPrediction> heldOut;     // ascending budget
    std::string note;                          // why there is no check, when there is none
};

// The laws of `result` refitted on its power-law profiles without the `holdOut` largest (by
// flopsMean), predicting those. Needs 2 profiles left to fit.
IsoFlopExtrapolation extrapolateIsoFlop(const IsoFlopResult& result, int holdOut = 1);

// ---- L(N, D) ------------------------------------------------------------------------------------

struct LossSurfaceHoldOut {
    enum class By { Params, Compute };  // N, or compute ∝ N·D (C ≈ 6ND, Kaplan et al. 2020)
    By by = By::Params;
    // 0: hold out the runs at the largest value (within `sameSize` of it: one model size, or one
    // budget); otherwise the largest `fraction` of the runs by that value.
    double fraction = 0;
    double sameSize = 0.05;  // relative
};

struct RunPrediction {
    std::size_t index = 0;  // into the input
    double params = 0, tokens = 0;
    double observed = 0, predicted = 0;
    double error = 0;  // predicted / observed − 1
};

struct LossSurfaceExtrapolation {
    LossSurfaceFit fit;                 // on the runs that were kept
    std::vector<RunPrediction> heldOut; // ascending index
    double meanError = 0;               // mean of the signed errors (bias)
    double meanAbsError = 0, maxAbsError = 0;
    std::string note;                   // why there is no check, when there is none
};

// Needs enough runs left for the fit (5 or 6); the settings and control are those of the fit.
// With `fitOnEvery` (the fit of `points`), the fit without the held-out runs starts from its
// optima (refitLossSurface) instead of searching the grid again.
LossSurfaceExtrapolation extrapolateLossSurface(std::span<const LossPoint> points, const LossSurfaceSettings& settings,
                                                const LossSurfaceHoldOut& holdOut = {}, const FitControl& control = {},
                                                const LossSurfaceFit* fitOnEvery = nullptr);

// ---- Over-training slopes ------------------------------------------------------------------------

struct SlopePrediction {
    double ratio = 0;        // nominal M
    std::size_t index = 0;   // the held-out run (largest compute of the group)
    double flops = 0, observed = 0, predicted = 0;
    double error = 0;        // predicted / observed − 1
    PowerLaw law;            // fitted without it
};

// Every ratio group with at least settings.minRuns runs besides its largest-compute run: the line
// fitted without that run, predicting it.
std::vector<SlopePrediction> extrapolateSlopes(std::span<const ComputeLossPoint> points, const SlopeSettings& settings = {});

}  // namespace scalex::fit
