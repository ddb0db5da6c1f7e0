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
#include "core/fit/Pareto.h"

namespace scalex::fit {

struct BootstrapSettings {
    int resamples = 1000;
    std::uint64_t seed = 20250601;
    double level = 0.95;  // central percentile interval
    // L(N, D) only: each replicate runs the whole grid (fitLossSurface) instead of refitting from
    // the full fit's distinct optima. The unit tests show both give the same intervals on the
    // study's token/param runs; the grid is the check.
    bool refitFromGrid = false;
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
// The same of the finite values among `values` (any order); NaN when none is finite.
double finitePercentile(std::vector<double> values, double q);

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

// L(N, D): each replicate refits from every distinct optimum the full fit found (its `basins`)
// and from its `bestStarts`, the best of those refits being the replicate's fit; with
// refitFromGrid, from the whole grid. A resample moves the optima a little but does not create
// new basins far from all of the full data's, so the distinct optima are enough starts (the unit
// tests compare with the grid). Intervals for logA, logB, logE, alpha, beta, gamma and
// "loss(N,D)" at each query.
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

// Pareto comparison of two families (compareFrontiers(a, b)): each family's runs resampled within
// the family, both frontiers recomputed and compared. Intervals for "geomean_compute_ratio",
// "min_compute_ratio", "max_compute_ratio" (C_B / C_A at equal loss), "min_loss_gap",
// "max_loss_gap" (L_B − L_A at equal compute) and "compute_ratio(L)" at each query loss.
// A replicate whose frontiers do not overlap counts as undefined (nValid says how many were).
BootstrapResult bootstrapParetoRatio(std::span<const ComputeLossPoint> a, std::span<const ComputeLossPoint> b,
                                     std::span<const double> queryLosses, const BootstrapSettings& bootstrap,
                                     const FitControl& control = {}, int samples = 50);

}  // namespace scalex::fit
