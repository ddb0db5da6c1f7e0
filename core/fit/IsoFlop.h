#pragma once
// IsoFLOP analysis (paper Sec. "Compute-Optimal xLSTM Models are Larger", Chinchilla approach 2,
// done as in the authors' analysis/isoflop code, reference README (a)):
//  1. runs go to the nominal budget B with |C − B| < 0.1·B; the compute of a profile is the MEAN C
//     of its runs (flops_mean), not B;
//  2. per profile, an unweighted least-squares parabola of the loss (linear, not log) in
//     x = log10 N gives N* = 10^(−b/2a), and an independent one in x = log10 D gives D*;
//  3. power laws N*(H) = A'·H^a and D*(H) = B'·H^b (Eq. "eq:nd_opt") by least squares in log
//     space over the profiles whose flops_mean lies in a chosen range.
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/fit/FitQuality.h"
#include "core/fit/PowerLaw.h"

namespace scalex::fit {

struct IsoFlopRun {
    double params = 0;  // N
    double tokens = 0;  // D
    double flops = 0;   // C
    double loss = 0;
};

struct IsoFlopSettings {
    std::vector<double> budgets{6e18, 1e19, 3e19, 1e20, 6e20, 3e21};  // the study's nominal budgets
    double tolerance = 0.1;  // |C − B| < tolerance·B
    // Profiles whose flops_mean lies in [fitMin, fitMax] enter the power laws (the paper uses
    // [5e18, 2e20] for Fig. 4 and [5e18, 5e19] for the per-context tables).
    double fitMin = 0;
    double fitMax = std::numeric_limits<double>::infinity();
    int minRunsPerProfile = 5;  // fewer runs: a warning (a parabola needs 3)
    // A profile whose minimum lies outside the model sizes (or token counts) it sampled gives an
    // extrapolated optimum, not a measured one: it is left out of the power laws with that reason,
    // unless its budget is taken back here (as a user ticks an outlier run back in).
    std::vector<double> keptBudgets;
};

struct Parabola {
    double a = 0, b = 0, c = 0;  // y = a x² + b x + c
    double operator()(double x) const { return (a * x + b) * x + c; }
    double vertex() const { return -b / (2 * a); }
};

struct IsoFlopProfile {
    double budget = 0;     // nominal B
    double flopsMean = 0;  // mean C of its runs
    int nRuns = 0;
    std::vector<std::size_t> runs;  // indices into the input
    bool fitted = false;            // at least 3 runs with distinct N (and D)
    Parabola inN, inD;              // loss over log10 N and over log10 D
    double nOpt = 0, dOpt = 0;      // 10^vertex
    double lossAtNOpt = 0, lossAtDOpt = 0;
    double log10NMin = 0, log10NMax = 0, log10DMin = 0, log10DMax = 0;  // sampled range
    FitQuality qualityN, qualityD;
    bool inPowerLaw = false;  // flopsMean inside the settings' range and fitted
    // Why a fitted profile inside the range is not in the power laws (no minimum, an extrapolated
    // optimum); empty when it is in, or outside the range.
    std::string leftOut;
    std::vector<std::string> warnings;
};

struct IsoFlopResult {
    std::vector<IsoFlopProfile> profiles;  // in the order of settings.budgets, empty budgets left out
    std::vector<std::size_t> unassigned;   // runs in no budget
    std::optional<PowerLaw> nOptLaw;       // N*(H) = A'·H^a
    std::optional<PowerLaw> dOptLaw;       // D*(H) = B'·H^b
    int nBudgetsInLaw = 0;
    std::vector<std::string> warnings;
};

// Unweighted least squares y = a x² + b x + c (needs 3 distinct x).
std::optional<Parabola> fitParabola(std::span<const double> x, std::span<const double> y);

// The nominal budget a run of compute C belongs to (nearest by relative distance among those
// within tolerance), if any.
std::optional<double> assignBudget(double flops, const IsoFlopSettings& settings);

IsoFlopResult fitIsoFlop(std::span<const IsoFlopRun> runs, const IsoFlopSettings& settings = {});

// Leave-one-budget-out check of the power laws: each budget of the law left out in turn, the law
// refitted on the others and its prediction compared with the left-out optimum.
struct LeaveOneBudgetOut {
    double budget = 0, flopsMean = 0;
    PowerLaw nOptLaw, dOptLaw;           // fitted without this budget
    double nOptObserved = 0, nOptPredicted = 0;
    double dOptObserved = 0, dOptPredicted = 0;
};
// Needs at least 3 budgets in the law (2 remain for each refit); fewer gives an empty list.
std::vector<LeaveOneBudgetOut> leaveOneBudgetOut(const IsoFlopResult& result);

// N*(T), D*(T) across context lengths: the optimum at one compute budget H from each context's
// power laws, and power laws in T through those optima.
struct ContextOptimum {
    double context = 0;
    double nOpt = 0, dOpt = 0;
};
struct ContextTrend {
    double budget = 0;
    std::vector<ContextOptimum> optima;
    std::optional<PowerLaw> nOptOverContext, dOptOverContext;  // needs 2 contexts
};
ContextTrend contextTrend(std::span<const double> contexts, std::span<const IsoFlopResult> results, double budget);

}  // namespace scalex::fit
