// The L(N, D) fit on many runs: screening on a stratified subsample, basins refined on every run,
// against running every start to the end on every run (the exhaustive setting). Speed is
// measured in tests/bench/fit_bench.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "core/fit/LossSurface.h"
#include "tests/unit/fit_synthetic.h"

using namespace scalex;
using namespace scalex::fit;

namespace {

// 96 starts of the paper's grid (as in fit_loss_surface_test.cpp), so that the exhaustive fit
// of several hundred runs stays quick; the full grid runs in the benchmark.
InitGrid subsetGrid() { return InitGrid{{0, 5, 20}, {5, 20}, {0, 0.5}, {0, 1}, {0.2, 0.5}, {0, 1.5}}; }

double maxRelativeDifference(const std::vector<LossPoint>& pts, const LossSurfaceParams& x, const LossSurfaceParams& y) {
    double worst = 0;
    for (const auto& p : pts) worst = std::max(worst, std::abs(x.loss(p.params, p.tokens) / y.loss(p.params, p.tokens) - 1));
    return worst;
}

}  // namespace

TEST(LossSurfaceScaling, ManyRunsReachTheExhaustiveObjective) {
    for (const bool fitGamma : {true, false}) {
        const auto pts = test::syntheticSurfaceRuns(7, 800);
        LossSurfaceSettings fast;
        fast.grid = subsetGrid();
        fast.fitGamma = fitGamma;
        LossSurfaceSettings exhaustive = fast;
        exhaustive.screenStopDelta = exhaustive.stopDelta;
        const auto a = fitLossSurface(pts, fast), b = fitLossSurface(pts, exhaustive);
        EXPECT_EQ(a.nScreenPoints, 128u);
        EXPECT_EQ(b.nScreenPoints, 800u);
        EXPECT_LE(a.objective, b.objective * (1 + 1e-9)) << "gamma free: " << fitGamma;
        EXPECT_NEAR(a.objective, b.objective, 1e-9 * b.objective) << "gamma free: " << fitGamma;
        EXPECT_LT(maxRelativeDifference(pts, a.best, b.best), 1e-5);
        EXPECT_NEAR(a.objective, lossSurfaceObjective(pts, a.best, fast.huberDelta), 1e-12 * a.objective);
        EXPECT_EQ(a.nStarts, fitGamma ? 96u : 48u);
        EXPECT_TRUE(a.warnings.empty()) << a.warnings.front();
    }
}

TEST(LossSurfaceScaling, FewRunsScreenOnEveryRun) {
    const auto pts = test::syntheticSurfaceRuns(8, 100);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    const auto fit = fitLossSurface(pts, s);
    EXPECT_EQ(fit.nScreenPoints, 100u);
    ASSERT_FALSE(fit.basins.empty());
    EXPECT_EQ(fit.basins.front().objective, fit.objective);
    EXPECT_EQ(fit.basins.front().index, fit.bestStart);
}

TEST(LossSurfaceScaling, BasinsAreDistinctOptimaBestFirst) {
    const auto pts = test::syntheticSurfaceRuns(9, 1000);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    const auto fit = fitLossSurface(pts, s);
    ASSERT_FALSE(fit.basins.empty());
    EXPECT_LE(fit.basins.size(), s.basinRefineCount);
    EXPECT_EQ(fit.basins.front().objective, fit.objective);
    EXPECT_EQ(fit.bestStarts.front().objective, fit.objective);
    for (std::size_t k = 1; k < fit.basins.size(); ++k) {
        EXPECT_GE(fit.basins[k].objective, fit.basins[k - 1].objective);
        // Distinct: the surfaces differ by more than the tolerance somewhere.
        EXPECT_GT(maxRelativeDifference(pts, fit.basins[k].fitted, fit.basins[0].fitted), 0.5 * s.basinTolerance);
    }
    EXPECT_GE(fit.nNearBest, 1u);
    // The fit recovers the surface it was drawn from (0.5 % noise on 1000 runs).
    EXPECT_LT(maxRelativeDifference(pts, fit.best, test::paperTransformerSurface()), 4e-3);
}

TEST(LossSurfaceScaling, SameResultForAnyThreadCount) {
    const auto pts = test::syntheticSurfaceRuns(10, 700);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    FitControl one, three;
    one.threads = 1;
    three.threads = 3;
    const auto a = fitLossSurface(pts, s, one), b = fitLossSurface(pts, s, three);
    EXPECT_EQ(a.bestStart, b.bestStart);
    EXPECT_EQ(a.best.asArray(), b.best.asArray());
    EXPECT_EQ(a.objective, b.objective);
    ASSERT_EQ(a.basins.size(), b.basins.size());
    for (std::size_t k = 0; k < a.basins.size(); ++k) EXPECT_EQ(a.basins[k].objective, b.basins[k].objective);
}
