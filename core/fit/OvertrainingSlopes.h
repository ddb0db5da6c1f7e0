#pragma once
// Over-training slopes (paper Sec. "xLSTM in the Overtraining Regime", App. Tab.
// "tab:tokenparam_slopes"): for each token/param ratio M a power law L̂(C) = λ·C^-η through the
// runs trained at that M, fitted by least squares of ln L on ln C (the authors fit a line in
// log-log space). Runs are grouped by the nearest nominal ratio of the study's grid
// (22, 44, 110, 220, 550, 1100, 2200) within a relative tolerance of 0.18 (their
// round_to_categorical_vals); runs further from every nominal ratio belong to no group.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/fit/FitQuality.h"
#include "core/fit/PowerLaw.h"

namespace scalex::fit {

struct ComputeLossPoint {
    double flops = 0;           // C
    double loss = 0;            // L
    double tokensPerParam = 0;  // M = D/N (NaN when unknown; only the slopes need it)
};

struct SlopeSettings {
    std::vector<double> ratios{22, 44, 110, 220, 550, 1100, 2200};
    double tolerance = 0.18;  // |M − m| < tolerance·m
    // The paper's table gives no η for a ratio with two runs (Transformer, M = 1100): a line through
    // two points is no fit. Fewer runs than this: the group is listed but not fitted.
    int minRuns = 3;
};

struct SlopeGroup {
    double ratio = 0;  // nominal M
    std::vector<std::size_t> runs;
    bool fitted = false;
    double eta = 0;     // η
    double lambda = 0;  // λ
    PowerLaw law;       // L = λ·C^(−η): law.exponent = −η
    FitQuality quality;
    std::string note;   // why it was not fitted
};

struct SlopeResult {
    std::vector<SlopeGroup> groups;       // ascending M, only ratios with runs
    std::vector<std::size_t> ungrouped;   // runs near no nominal ratio
};

std::optional<double> nominalRatio(double tokensPerParam, const SlopeSettings& settings = {});

SlopeResult fitOvertrainingSlopes(std::span<const ComputeLossPoint> points, const SlopeSettings& settings = {});

}  // namespace scalex::fit
