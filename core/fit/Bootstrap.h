#pragma once
// Bootstrap over runs: resample the runs with replacement (within strata when given, e.g. the
// IsoFLOP budgets, so every profile keeps its size), refit, and report percentile intervals of
// every parameter and derived prediction. Replicate r draws from its own generator seeded by
// (seed, r), so the result for a seed is the same whatever the thread count.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/fit/FitControl.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"
#include "core/fit/OvertrainingSlopes.h"

namespace scalex::fit {

struct BootstrapSettings {
    int resamples = 1000;
    std::uint64_t seed = 20250601;
    double level = 0.95;  // central percentile interval
};

struct BootstrapInterval {
    std::string name;
    double estimate = 0;  // on the full data
    double lower = 0, upper = 0, median = 0;
    int nValid = 0;       // replicates where the statistic was defined
};

struct BootstrapResult {
    std::vector<BootstrapInterval> intervals;
    int nResamples = 0;  // replicates that ran (fewer when cancelled)
    bool cancelled = false;
    const BootstrapInterval* find(const std::string& name) const;
};

// Indices of one replicate: n draws with replacement from [0, n), or within each stratum
// (strata[i] is item i's stratum) when strata is not empty.
std::vector<std::size_t> resampleIndices(std::size_t n, std::span<const int> strata, std::uint64_t seed, std::uint64_t replicate);

// Percentile of sorted values with linear interpolation (numpy's default).
double percentile(std::span<const double> sorted, double q);

// The generic engine: `statistic` maps the indices of a replicate to named values (NaN when
// undefined for that replicate); `estimate` are the values on the full data, in the same order
// as `names`. statistic must be thread-safe.
using BootstrapStatistic = std::function<std::vector<double>(std::span<const std::size_t> indices)>;
BootstrapResult bootstrap(std::size_t nItems, std::span<const int> strata, const std::vector<std::string>& names,
                          const std::vector<double>& estimate, const BootstrapStatistic& statistic,
                          const BootstrapSettings& settings, const FitControl& control = {});

// A point (N, D) at which to report the fitted surface's loss.
struct SurfaceQuery {
    double params = 0, tokens = 0;
};

// L(N, D): each replicate refits from the full fit's best few starts (its `bestStarts`), not the
// whole grid — the replicate's optimum lies next to the full data's. Intervals for logA, logB,
// logE, alpha, beta, gamma and "loss(N,D)" at each query.
BootstrapResult bootstrapLossSurface(std::span<const LossPoint> points, const LossSurfaceFit& full,
                                     const LossSurfaceSettings& settings, std::span<const SurfaceQuery> queries,
                                     const BootstrapSettings& bootstrap, const FitControl& control = {});

// IsoFLOP: runs resampled within each budget; intervals for a, A, b, B of the power laws and
// "n_opt(H)", "d_opt(H)" at each query budget H.
BootstrapResult bootstrapIsoFlop(std::span<const IsoFlopRun> runs, const IsoFlopSettings& settings,
                                 std::span<const double> queryBudgets, const BootstrapSettings& bootstrap,
                                 const FitControl& control = {});

// Over-training slopes: runs resampled within each ratio group; intervals for "eta(M)".
BootstrapResult bootstrapSlopes(std::span<const ComputeLossPoint> points, const SlopeSettings& settings,
                                const BootstrapSettings& bootstrap, const FitControl& control = {});

}  // namespace scalex::fit
