#pragma once
// Fitting the runtime model (Eq. runtimes) to measured TTFTs or step times of one model
// configuration over batch sizes and prefill lengths (App. "Prefill Stage: Time To First
// Token", "Generation Stage: Step Time").
//
// time = W * (1 / rate) + eps (+ kappa * B) is linear in (1/rate, eps, kappa), so it is a linear
// least-squares problem. Measured times span four orders of magnitude (0.7 ms to 10 s), and an
// unweighted fit would follow the few slowest points and leave the short prefills, where the
// constant overhead shows, tens of percent off. Each residual is therefore divided by the
// measured time (relative-error weighting), which is what the paper's log-scale fit figures show.
// By default the absolute, not squared, relative residuals are minimised (iteratively reweighted
// least squares): the measurements contain kernel regime changes that one rate cannot follow
// (the Transformer's prefill rate drops at prefill >= 2048, its KV-cache reads are several times
// slower at batch 1 than at batch 64), and a squared loss lets those few points pull the rate
// away from the majority. On the study's data this halves the Transformer step-time median error.
// Coefficients are kept non-negative (a negative overhead or batch term has no meaning): the
// best feasible subset of the terms is taken.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/inference/RuntimeModel.h"

namespace scalex::inference {

struct RuntimeSample {
    double batch = 1;
    double prefill = 0;
    double seconds = 0;  // measured TTFT or step time
};

struct FitOptions {
    bool overhead = true;            // fit eps (else eps = 0)
    bool batchTerm = false;          // fit kappa * B (the paper adds it for Transformer step times)
    bool relativeWeights = true;     // weight residuals by 1 / measured time
    bool robust = true;              // minimise absolute instead of squared (relative) residuals
    // A point counts as "not dominated by the constant overhead" when the modelled variable
    // term W / rate is at least this share of the modelled total.
    double variableShare = 0.5;
};

// The paper's choice: the batch term only for Transformer generation.
FitOptions defaultFitOptions(accounting::Family family, Stage stage);

struct StageFit {
    bool ok = false;
    std::string error;  // why the fit failed, when !ok
    StageModel model;
    std::size_t nPoints = 0;
    double rmse = 0;            // [s]
    double r2 = 0;              // on the times themselves
    double medianRelError = 0;  // median |pred - t| / t over all points
    // The same over the points whose modelled variable term is >= variableShare of the total.
    double medianRelErrorVariable = 0;
    std::size_t nVariable = 0;
    std::vector<double> work;       // W per sample
    std::vector<double> predicted;  // [s] per sample
};

// Fits from work values directly: work[i] FLOPs (prefill) or bytes (decode), batch[i], seconds[i].
StageFit fitRuntime(std::span<const double> work, std::span<const double> batch, std::span<const double> seconds,
                    const FitOptions& options);

// Counts the work of every sample for `config` and fits.
StageFit fitStage(const accounting::ModelConfig& config, Stage stage, std::span<const RuntimeSample> samples,
                  const WorkSettings& settings, const FitOptions& options);

}  // namespace scalex::inference
