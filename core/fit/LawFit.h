#pragma once
// Fitting a law (LawDefinition.h) to runs: the objective Σ ρ(r_i) with r_i the residual in the
// law's space (linear: y − ŷ; log: ln y − ln ŷ) and ρ squared (r²) or Huber_δ (Hoffmann et al.
// 2022, App. D.2), minimised by L-BFGS in the parameters' box (dlib find_min_box_constrained) with
// the exact gradient of the expression tree, from many starts:
//   - declared starts first, then a Halton sequence (Halton 1960) under a seeded random shift
//     (Cranley & Patterson 1976) over the box, log-uniform over a positive range, uniform over one
//     that reaches zero (as the scalebench baseline draws its starts); ordered by their objective so that the most promising run first;
//   - every start runs to a loose stop, only the best `refineCount` continue to the tight one
//     (starts that cannot win stop early), across cores (FitControl);
//   - in rounds of `batch` starts, more while fewer than `agree` of them reach the best (the budget
//     is `starts`); with a squared loss the refined leaders are then polished by Levenberg–Marquardt
//     (Moré 1978: Marquardt's diagonal scaling of JᵀJ, steps projected onto the box, the bound
//     parameters that the gradient pushes outward held) with the exact Jacobian of the residuals,
//     on every parameter (the projected coefficients included);
//   - the result says when its optimum is doubtful (LawFitResult::doubt).
// Variable projection (Golub & Pereyra 1973; the VPNLS of Open-Athena's Chinchilla refit): where
// the law is a sum with terms c·f(θ) whose coefficients c enter nowhere else, and the objective is
// squared residuals in linear space, c is solved by non-negative least squares (Lawson–Hanson, in
// the shifted variable c − lower) for each θ inside the search over θ alone; the gradient in θ is
// that of the full objective at the solved c (Danskin's theorem). With a log space or a Huber loss
// the projection's premise (a linear least-squares subproblem) does not hold, so every parameter
// is searched. The fitted coefficients are clamped to their upper bounds (a warning says so).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/fit/FitControl.h"
#include "core/fit/LawDefinition.h"

namespace scalex::fit {

// The runs as the law reads them: per run, the value of each of the law's variables (in
// CompiledLaw::variables order) and the observed target.
struct LawData {
    std::size_t variableCount = 0;
    std::vector<double> values;  // run-major: run i's variables at [i·variableCount, (i+1)·variableCount)
    std::vector<double> target;

    std::size_t size() const { return target.size(); }
    std::span<const double> row(std::size_t i) const { return {values.data() + i * variableCount, variableCount}; }
    void add(std::span<const double> variables, double observed);
    LawData subset(std::span<const std::size_t> rows) const;
};

struct LawFitSettings {
    // The budget of space-filling starts (besides the declared ones): they run in rounds of `batch`
    // until `agree` starts end within spreadTolerance of the best objective, or the budget is spent.
    int starts = 256;
    int batch = 64;
    int agree = 3;
    bool polish = true;           // squared losses: the refined leaders polished by Levenberg–Marquardt
    std::uint64_t seed = 20250601;
    bool projection = true;       // variable projection where the law allows it
    double screenStop = 1e-6;     // relative change of the objective that ends a start's screening
    double stopDelta = 1e-12;     // relative change that ends the refinement
    int refineCount = 8;          // starts refined to stopDelta
    int maxIterations = 2000;
    double spreadTolerance = 1e-4;  // starts within this relative distance of the best "reach" it
};

// A start's end point after refinement.
struct LawOptimum {
    std::vector<double> params;
    double objective = 0;  // of this group (as LawFitResult::objective)
};

struct LawFitResult {
    std::vector<double> params;      // in CompiledLaw parameter order
    double objective = 0;            // Σ ρ(r) over the runs (of this group)
    double jointObjective = 0;       // summed over every group fitted together (fitLawJoint); else objective
    std::vector<std::string> sharedParameters;  // one value for every group fitted together
    bool projected = false;          // variable projection was used
    std::vector<std::string> linearCoefficients;  // solved by least squares when projected
    std::size_t nStarts = 0;
    std::size_t nConverged = 0;
    std::size_t nNearBest = 0;       // starts ending within spreadTolerance of the best objective
    // Why the optimum may not be the best the law has at these runs (one start alone reached it, or
    // it sits on a bound of a parameter's range); empty when several starts agree inside the box.
    std::string doubt;
    // The refined starts' end points (up to refineCount), best first, the best among them: where
    // several lie close in objective but apart in parameters, the runs do not decide between them.
    std::vector<LawOptimum> optima;
    int iterations = 0;              // of the best start
    double seconds = 0;
    bool cancelled = false;
    std::vector<std::string> warnings;  // a parameter at its bound, no start converged, ...
};

// How well the law fits the runs it was fitted on.
struct LawFitQuality {
    std::size_t n = 0;
    std::size_t k = 0;        // free parameters (lower < upper)
    double rss = 0;           // Σ r² in the fit's space
    double aic = 0, bic = 0;  // n ln(RSS/n) + 2k, n ln(RSS/n) + k ln n (Gaussian residuals in the fit's space)
    double r2 = 0;            // of the target in its own units
    double rmse = 0;
};

// Predictions of the law at every run of `data`.
std::vector<double> predictLaw(const CompiledLaw& law, const LawData& data, std::span<const double> params);
// The objective at `params`.
double lawObjective(const CompiledLaw& law, const LawData& data, std::span<const double> params);
// ∂objective/∂params at `params` (exact), returned with the objective.
double lawObjectiveGradient(const CompiledLaw& law, const LawData& data, std::span<const double> params, std::vector<double>& gradient);
LawFitQuality assessLawFit(const CompiledLaw& law, const LawData& data, std::span<const double> params);

// Whether the fit will use variable projection (see above) for this law and settings.
bool lawUsesProjection(const CompiledLaw& law, const LawFitSettings& settings);

// The multi-start fit. Throws std::invalid_argument when there are fewer runs than free parameters
// or a target is not finite (or not positive in log space).
LawFitResult fitLaw(const CompiledLaw& law, const LawData& data, const LawFitSettings& settings = {}, const FitControl& control = {});
// Several groups at once: the parameters named in `shared` take one value for every group (e.g.
// exponents common to several datasets), the others one per group; the objective is the sum over
// the groups. One result per group, each with its own part of the objective. Projection solves
// the linear coefficients per group (a shared one is searched). Throws std::invalid_argument as
// fitLaw, and for a shared name that is no parameter.
std::vector<LawFitResult> fitLawJoint(const CompiledLaw& law, std::span<const LawData> groups, const std::vector<std::string>& shared,
                                      const LawFitSettings& settings = {}, const FitControl& control = {});
// One L-BFGS run from `start` (bootstrap replicates refit from the best optimum).
LawFitResult fitLawFrom(const CompiledLaw& law, const LawData& data, std::span<const double> start, const LawFitSettings& settings = {});

// How well predictions match held-out observations (relative errors |ŷ − y| / |y|).
struct HeldOutScore {
    std::size_t n = 0;       // 0: nothing scored (the rest is meaningless)
    double r2 = 0;
    double mape = 0;         // mean relative error
    double maxRelError = 0;
};
HeldOutScore scoreHeldOut(std::span<const double> observed, std::span<const double> predicted);

// The bootstrap over runs: the training runs resampled with replacement `resamples` times, each
// replicate refitted from `best`. One parameter vector per replicate, empty where the replicate
// gave no fit (too few distinct runs, no finite objective). Replicate b depends only on seed and b.
std::vector<std::vector<double>> bootstrapLawFits(const CompiledLaw& law, const LawData& train, std::span<const double> best, int resamples,
                                                  std::uint64_t seed, const LawFitSettings& settings = {}, const FitControl& control = {});

// 95 % (or `level`) prediction intervals at the runs of `at`: the training runs resampled with
// replacement `resamples` times, each replicate refitted from `best`, its prediction plus a
// residual of the full fit drawn at random (in the fit's space), the percentiles of those.
struct LawIntervals {
    std::vector<double> lower, upper;
    int resamples = 0;  // replicates that gave a fit
};
LawIntervals lawPredictionIntervals(const CompiledLaw& law, const LawData& train, std::span<const double> best, const LawData& at,
                                    int resamples, std::uint64_t seed, double level, const LawFitSettings& settings = {},
                                    const FitControl& control = {});

}  // namespace scalex::fit
