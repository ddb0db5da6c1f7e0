#pragma once
// Pareto frontier of loss over compute (paper Sec. "Loss vs. Compute: xLSTM is Pareto-Dominant",
// Fig. 1 left): the runs no other run beats in both compute and loss, and the comparison of two
// families' frontiers — the compute ratio at equal loss and the loss gap at equal compute, with
// the frontiers interpolated piecewise-linearly in log C and log L.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "core/fit/OvertrainingSlopes.h"  // ComputeLossPoint

namespace scalex::fit {

struct FrontierPoint {
    double flops = 0, loss = 0;
    std::size_t index = 0;  // into the input
};

// The lower envelope: a run is on it when no other run has C' ≤ C and L' ≤ L with one strictly
// smaller. Ascending compute, strictly descending loss. Runs with non-positive or non-finite
// C or L are ignored.
std::vector<FrontierPoint> paretoFrontier(std::span<const ComputeLossPoint> points);

// Loss of the frontier at compute C, interpolated in log-log between its points (nothing
// outside its compute range).
std::optional<double> frontierLossAt(std::span<const FrontierPoint> frontier, double flops);
// Compute the frontier needs to reach loss L (nothing outside its loss range).
std::optional<double> frontierComputeAt(std::span<const FrontierPoint> frontier, double loss);

struct FrontierSample {
    double flops = 0;    // for the loss gap
    double lossA = 0, lossB = 0;
    double loss = 0;     // for the compute ratio
    double computeA = 0, computeB = 0;
};

struct FrontierComparison {
    // Sampled on log-uniform grids over the overlap of the two frontiers' ranges.
    std::vector<FrontierSample> atEqualCompute;  // flops, lossA, lossB
    std::vector<FrontierSample> atEqualLoss;     // loss, computeA, computeB
    // Summaries: gap = L_B − L_A at equal compute; ratio = C_B / C_A at equal loss.
    double minLossGap = 0, maxLossGap = 0;
    double minComputeRatio = 0, maxComputeRatio = 0, geomeanComputeRatio = 0;
    bool aDominates = false;  // A's frontier lies below B's over the whole compute overlap
    bool overlap = false;     // the frontiers share a compute and a loss range
};

FrontierComparison compareFrontiers(std::span<const FrontierPoint> a, std::span<const FrontierPoint> b, int samples = 50);

}  // namespace scalex::fit
