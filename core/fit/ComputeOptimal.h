#pragma once
// Compute-optimal allocation from a fitted loss surface: for a training budget H, the model size
// N* and data D* that minimise L̂(N, D) on the line C(N, D) = c(N)·D = H, where c(N) is the
// training compute per token of the model of size N (it depends on the architecture and the
// context length, so it is passed in). Also the over-training question: a smaller N than N*
// reaches the same loss with more data; how much more.
#include <functional>
#include <optional>
#include <vector>

#include "core/fit/LossSurface.h"

namespace scalex::fit {

using ComputePerToken = std::function<double(double params)>;

struct OptimalPoint {
    double budget = 0;  // H, FLOPs
    double params = 0;  // N*
    double tokens = 0;  // D* = H / c(N*)
    double loss = 0;    // L̂(N*, D*)
    bool atBoundary = false;  // the minimum sits at an end of the searched N range
};

// N*(H) by golden-section search over ln N in [minParams, maxParams]: along a line of constant
// compute the surface's loss is unimodal in ln N for positive α, β, γ.
OptimalPoint computeOptimal(const LossSurfaceParams& surface, const ComputePerToken& computePerToken, double budget,
                            double minParams = 1e6, double maxParams = 1e13);

// The tokens D at which a model of `params` reaches `targetLoss`:
// D = (((L − E)^(1/γ) − A N^−α) / B)^(−1/β). Empty when the target is below what N can reach.
std::optional<double> tokensForLoss(const LossSurfaceParams& surface, double params, double targetLoss);

// Over-training: fix N (below N*), reach the optimum's loss; the extra data and compute it costs.
struct OverTraining {
    double params = 0;
    double tokens = 0;       // D needed for the same loss
    double compute = 0;      // c(N)·D
    double extraTokens = 0;  // relative to D*, as a factor (tokens / D*)
    double extraCompute = 0; // relative to H, as a factor
};
std::optional<OverTraining> overTrain(const LossSurfaceParams& surface, const ComputePerToken& computePerToken,
                                      const OptimalPoint& optimum, double params);

// A smooth c(N) through sample models: ln(c/N) fitted as a quadratic in ln N by least squares
// (the samples' different depth/width ratios scatter c/N by a few percent; a piecewise
// interpolation would put kinks into c(N) that trap the optimum). Above the largest sample the
// ratio c/N is held at its value there; below the smallest, ln(c/N) follows the fit's tangent, so
// that c(N) and the optima over it stay smooth.
ComputePerToken smoothComputePerToken(const std::vector<std::pair<double, double>>& paramsAndCompute);

}  // namespace scalex::fit
