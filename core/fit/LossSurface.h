#pragma once
// The parametric loss surface L̂(N, D) = E + (A·N^-α + B·D^-β)^γ (paper Eq. "eq:l_nd", γ from
// Busbridge et al.), fitted as in App. "Details on the Parametric Loss Surface Fit": the SUM over
// runs of Huber_δ(ln L − ln L̂) with ln L̂ = LSE(γ·LSE(a − α ln N, b − β ln D), e), a, b, e = ln A,
// ln B, ln E, minimised by L-BFGS from every point of a grid of initialisations (8000 in the paper).
// The optimiser itself lives in LossSurface.cpp so that dlib stays out of this header.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/fit/FitControl.h"
#include "core/fit/FitQuality.h"

namespace scalex::fit {

struct LossSurfaceParams {
    double logA = 0, logB = 0, logE = 0;  // natural logs, as in tab:lnd_fit_params
    double alpha = 0, beta = 0;
    double gamma = 1;

    double logLoss(double params, double tokens) const;  // ln L̂(N, D), evaluated stably with log-sum-exp
    double loss(double params, double tokens) const;     // L̂(N, D)
    std::array<double, 6> asArray() const { return {logA, logB, logE, alpha, beta, gamma}; }
    static LossSurfaceParams fromArray(const std::array<double, 6>& v) { return {v[0], v[1], v[2], v[3], v[4], v[5]}; }
};

// One run as the fit sees it: N, D and the (natural-log cross-entropy) loss L.
struct LossPoint {
    double params = 0;
    double tokens = 0;
    double loss = 0;
};

// Huber_δ(r) = r²/2 for |r| ≤ δ, δ(|r| − δ/2) otherwise (the authors' huber_loss).
double huber(double residual, double delta);
// Σ Huber_δ(ln L − ln L̂) over the points: the paper's objective.
double lossSurfaceObjective(std::span<const LossPoint> points, const LossSurfaceParams& p, double delta);

// The grid of starting points: every combination of the listed values (the paper's grid has
// 5·5·5·4·4·4 = 8000). With γ fixed the γ axis is ignored.
struct InitGrid {
    std::vector<double> logA, logB, logE, alpha, beta, gamma;

    static InitGrid paper();  // App. "Details on the Parametric Loss Surface Fit"
    std::size_t size(bool fitGamma) const;
    // Start i in the authors' order (numpy meshgrid(...).T.reshape(-1, 6) with 'xy' indexing: ln B
    // varies fastest, then ln A, ln E, α, β, γ), so indices match their stored init_idx.
    LossSurfaceParams start(std::size_t i, bool fitGamma) const;
};

// Reads a grid from text: one axis per line, `name: v1 v2 ...` or `name v1, v2, ...` with names
// logA, logB, logE, alpha, beta, gamma ('#' starts a comment). Every axis must be given and
// non-empty (gamma may be omitted when γ is fixed; it then defaults to {1}). On error returns
// nothing and sets `error` to "line L: what was expected".
std::optional<InitGrid> parseInitGrid(std::string_view text, std::string* error = nullptr);

// Box the optimiser stays in; generous on purpose: reaching a side is reported as a warning.
struct LossSurfaceBounds {
    LossSurfaceParams lower{-50, -50, -20, -5, -5, 0};
    LossSurfaceParams upper{100, 100, 20, 20, 20, 20};
};

struct LossSurfaceSettings {
    double huberDelta = 1e-3;
    bool fitGamma = true;  // false: γ fixed at 1 (Hoffmann et al.)
    InitGrid grid = InitGrid::paper();
    LossSurfaceBounds bounds;
    // L-BFGS stops when the scaled objective (objective / min(δ, 0.01)²) changes by less than this
    // between iterations; the scaling makes the absolute threshold meaningful for tiny Huber values.
    double stopDelta = 1e-10;
    // Screening: every start first runs to this looser stop; only the best `refineCount` then
    // continue to stopDelta. screenStopDelta <= stopDelta runs every start to the tight stop.
    double screenStopDelta = 1e-2;
    std::size_t refineCount = 128;
    // Many runs: with screening on and more runs than `screenPoints`, the screening and the
    // refinement of the leaders run on a subsample of that many runs, stratified over (ln N, ln D)
    // so that it covers the data's whole range; the leaders are merged into basins (starts whose
    // surfaces agree within `basinTolerance` in ln L̂ on every subsampled run are one optimum), and
    // only the best `basinRefineCount` basins are refined on every run. The cost of the grid then
    // no longer grows with the runs; the unit tests and tests/bench/fit_bench.cpp compare the
    // objective with running every start on every run. 0: screen on every run.
    std::size_t screenPoints = 128;
    double basinTolerance = 1e-4;
    std::size_t basinRefineCount = 8;
    int maxIterations = 2000;
    int keepBest = 5;  // how many of the best starts to report
    // Starts whose objective is within this relative distance of the best count as "reaching the
    // optimum" for the parameter spread.
    double spreadTolerance = 1e-4;
};

struct LossSurfaceStart {
    std::size_t index = 0;  // index into the grid
    LossSurfaceParams init;
    LossSurfaceParams fitted;
    double objective = 0;
    int iterations = 0;      // screening plus refinement
    bool converged = false;  // stopped by the objective criterion (not the iteration cap), finite
                             // (starts that were not refined: objective and parameters are the
                             // screening's, good to about screenStopDelta·min(δ, 0.01)²)
};

struct LossSurfaceFit {
    LossSurfaceParams best;
    double objective = 0;
    std::size_t bestStart = 0;
    int nPoints = 0;
    std::size_t nStarts = 0;      // starts that ran (fewer than the grid when cancelled)
    std::size_t nConverged = 0;   // starts that stopped by the objective criterion
    bool cancelled = false;
    double seconds = 0;
    std::vector<LossSurfaceStart> bestStarts;  // best first, at most settings.keepBest
    // The distinct optima among the refined starts (surfaces that differ by more than
    // settings.basinTolerance in ln L̂ somewhere on the runs), best first, at most
    // settings.basinRefineCount; `index` is the grid start that found each. Bootstrap replicates
    // refit from these.
    std::vector<LossSurfaceStart> basins;
    std::size_t nScreenPoints = 0;  // runs the screening saw (all of them, or the subsample)
    // Over the starts within spreadTolerance of the best objective: how many, and the range
    // (max − min) of each parameter. A flat surface shows a large spread at equal objective.
    std::size_t nNearBest = 0;
    LossSurfaceParams spread;
    FitQuality quality;  // in loss (not log) units
    std::vector<std::string> warnings;
    // > 0: this fit did not search the grid itself but started from this many optima of an earlier
    // grid fit on a superset of the runs (refitLossSurface); nStarts, nConverged and
    // nScreenPoints then describe that earlier search.
    std::size_t refitFrom = 0;
};

// Multi-start fit. Needs at least 5 (γ fixed) or 6 points with positive N, D, L; throws
// std::invalid_argument otherwise. Deterministic for given inputs regardless of thread count.
LossSurfaceFit fitLossSurface(std::span<const LossPoint> points, const LossSurfaceSettings& settings = {},
                              const FitControl& control = {});

// The distinct optima of a fit, then its best starts, without repeats: where a fit on a subset or
// resample of the runs starts from (several points of the best basin reach a changed optimum more
// surely than one). Never empty for a fit that ran.
std::vector<LossSurfaceParams> optimaOf(const LossSurfaceFit& fit);

// The fit of `points`, a subset of the runs `earlier` was fitted to (outliers or the largest model
// left out), started from every optimum of `earlier` instead of the whole grid: the grid's basins
// move little when a few runs go, and each is refitted to the tight stop on the new runs. The
// tests compare its objective with a fresh grid fit on the paper's runs. Same requirements as
// fitLossSurface.
LossSurfaceFit refitLossSurface(std::span<const LossPoint> points, const LossSurfaceFit& earlier, const LossSurfaceSettings& settings,
                                const FitControl& control = {});

// One L-BFGS run from `init` (used by the multi-start fit and by bootstrap refits).
LossSurfaceStart fitLossSurfaceFrom(std::span<const LossPoint> points, const LossSurfaceParams& init,
                                    const LossSurfaceSettings& settings);

}  // namespace scalex::fit
