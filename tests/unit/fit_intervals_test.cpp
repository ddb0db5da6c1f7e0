// Intervals and extrapolation checks: the bootstrap of the Pareto compute ratio, the L(N, D)
// bootstrap refitting from the full fit's distinct optima against refitting from the whole grid,
// and each law fitted without its largest budgets or models, predicting them.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/fit/Bootstrap.h"
#include "core/fit/Extrapolation.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"
#include "core/fit/Pareto.h"
#include "tests/support/TestData.h"
#include "tests/unit/fit_synthetic.h"

using namespace scalex;
using namespace scalex::fit;

namespace {

// tokenparam_runs_ctx8192.csv read directly: N, D, C and the fitted loss per family.
struct TokenParamRuns {
    std::vector<LossPoint> surface;
    std::vector<ComputeLossPoint> compute;
};

TokenParamRuns tokenParamRuns(const QString& family) {
    TokenParamRuns out;
    const auto csv = test::readSimpleCsv(test::sharedPath("data/xlstm/tokenparam_runs_ctx8192.csv"));
    for (int r = 0; r < csv.rows.size(); ++r) {
        if (csv.at(r, "model_type") != family) continue;
        const double n = csv.number(r, "num_params"), d = csv.number(r, "num_tokens_training"), c = csv.number(r, "num_flops_training");
        const double l = csv.number(r, "val_dclm_loss");
        out.surface.push_back({n, d, l});
        out.compute.push_back({c, l, d / n});
    }
    return out;
}

// The study's Transformer ctx-8192 IsoFLOP runs the paper fitted (selected_in_paper).
std::vector<IsoFlopRun> selectedLlamaCtx8192() {
    std::vector<IsoFlopRun> runs;
    const auto csv = test::readSimpleCsv(test::sharedPath("data/xlstm/runs_isoflop_llama_ctx8192.csv"));
    for (int r = 0; r < csv.rows.size(); ++r)
        if (csv.at(r, "selected_in_paper") == "True")
            runs.push_back({csv.number(r, "num_params"), csv.number(r, "num_tokens_training"), csv.number(r, "num_flops_training"),
                            csv.number(r, "val_loss")});
    return runs;
}

IsoFlopProfile exactProfile(double flops, double nOpt, double dOpt) {
    IsoFlopProfile p;
    p.budget = flops;
    p.flopsMean = flops;
    p.nOpt = nOpt;
    p.dOpt = dOpt;
    p.fitted = true;
    p.inPowerLaw = true;
    return p;
}

}  // namespace

TEST(ParetoBootstrap, StudyComputeRatioHasAnIntervalAroundItsEstimate) {
    SCALEX_REQUIRE_SHARED();
    const auto x = tokenParamRuns("xlstm").compute, t = tokenParamRuns("transformer").compute;
    ASSERT_EQ(x.size(), 35u);
    ASSERT_EQ(t.size(), 31u);
    const auto cmp = compareFrontiers(paretoFrontier(x), paretoFrontier(t));
    BootstrapSettings b;
    b.resamples = 400;
    const std::vector<double> losses{2.6};
    FitControl one, two;
    one.threads = 1;
    two.threads = 2;
    const auto boot = bootstrapParetoRatio(x, t, losses, b, two);
    ASSERT_EQ(boot.intervals.size(), 6u);
    const auto* ratio = boot.find("geomean_compute_ratio");
    ASSERT_NE(ratio, nullptr);
    EXPECT_EQ(ratio->estimate, cmp.geomeanComputeRatio);
    EXPECT_GT(ratio->nValid, 380);
    EXPECT_LT(ratio->lower, ratio->upper);
    EXPECT_LE(ratio->lower, ratio->estimate * 1.05);
    EXPECT_GE(ratio->upper, ratio->estimate * 0.95);
    EXPECT_GT(ratio->lower, 1.0);  // the Transformer needs more compute in (nearly) every resample
    ASSERT_NE(boot.find("compute_ratio(2.6)"), nullptr);
    EXPECT_EQ(boot.find("min_loss_gap")->estimate, cmp.minLossGap);
    ::testing::Test::RecordProperty("geomean_compute_ratio",
                                    std::to_string(ratio->estimate) + " [" + std::to_string(ratio->lower) + ", " + std::to_string(ratio->upper) + "]");
    // Same intervals whatever the thread count.
    const auto again = bootstrapParetoRatio(x, t, losses, b, one);
    for (std::size_t k = 0; k < boot.intervals.size(); ++k) {
        EXPECT_EQ(boot.intervals[k].lower, again.intervals[k].lower) << boot.intervals[k].name;
        EXPECT_EQ(boot.intervals[k].upper, again.intervals[k].upper) << boot.intervals[k].name;
    }
}

TEST(ParetoBootstrap, IdenticalFamiliesGiveARatioIntervalAroundOne) {
    std::vector<ComputeLossPoint> a;
    test::SyntheticRng rng{3};
    for (int i = 0; i < 40; ++i) {
        const double c = 1e18 * std::pow(10.0, rng.uniform(0, 4));
        a.push_back({c, 30 * std::pow(c, -0.05) * std::exp(0.01 * std::abs(rng.normal())), 20});
    }
    BootstrapSettings b;
    b.resamples = 300;
    const auto boot = bootstrapParetoRatio(a, a, {}, b);
    const auto* ratio = boot.find("geomean_compute_ratio");
    EXPECT_EQ(ratio->estimate, 1.0);
    EXPECT_LT(ratio->lower, 1.0);
    EXPECT_GT(ratio->upper, 1.0);
}

TEST(LossSurfaceBootstrap, DistinctOptimaGiveTheGridsIntervalsOnTheStudy) {
    SCALEX_REQUIRE_SHARED();
    // The paper's fit (γ free, the 8000-start grid) of the xLSTM token/param runs; each replicate
    // refitted once from the full fit's distinct optima and once from the whole grid.
    const auto pts = tokenParamRuns("xlstm").surface;
    const LossSurfaceSettings s;
    FitControl two;
    two.threads = 2;
    const auto full = fitLossSurface(pts, s, two);
    ASSERT_FALSE(full.basins.empty());
    const std::vector<SurfaceQuery> queries{{7e9, 1.4e11}, {1e11, 2e12}};
    BootstrapSettings fromBasins;
    fromBasins.resamples = 20;
    BootstrapSettings fromGrid = fromBasins;
    fromGrid.refitFromGrid = true;
    const auto a = bootstrapLossSurface(pts, full, s, queries, fromBasins, two);
    const auto b = bootstrapLossSurface(pts, full, s, queries, fromGrid, two);
    ASSERT_EQ(a.intervals.size(), b.intervals.size());
    for (std::size_t k = 0; k < a.intervals.size(); ++k) {
        const auto &x = a.intervals[k], &y = b.intervals[k];
        EXPECT_EQ(x.nValid, y.nValid) << x.name;
        if (x.name == "alpha" || x.name == "beta" || x.name == "gamma" || x.name.rfind("loss(", 0) == 0) {
            EXPECT_NEAR(x.lower, y.lower, 1e-3 * std::abs(y.lower)) << x.name;
            EXPECT_NEAR(x.median, y.median, 1e-3 * std::abs(y.median)) << x.name;
            EXPECT_NEAR(x.upper, y.upper, 1e-3 * std::abs(y.upper)) << x.name;
        }
    }
}

TEST(Extrapolation, ExactPowerLawsPredictTheirLargestBudget) {
    IsoFlopResult r;
    for (double c : {6e18, 1e19, 3e19, 1e20}) r.profiles.push_back(exactProfile(c, 0.1 * std::pow(c, 0.5), 1.6 * std::pow(c, 0.5)));
    const auto e = extrapolateIsoFlop(r);
    ASSERT_TRUE(e.nOptLaw);
    EXPECT_EQ(e.nBudgetsFitted, 3);
    ASSERT_EQ(e.heldOut.size(), 1u);
    EXPECT_EQ(e.heldOut[0].budget, 1e20);
    EXPECT_NEAR(e.heldOut[0].nOptError, 0, 1e-9);
    EXPECT_NEAR(e.heldOut[0].dOptError, 0, 1e-9);
    const auto two = extrapolateIsoFlop(r, 2);
    EXPECT_EQ(two.heldOut.size(), 2u);
    const auto three = extrapolateIsoFlop(r, 3);
    EXPECT_TRUE(three.heldOut.empty());
    EXPECT_EQ(three.note, "the power laws have 4 budgets; holding out 3 needs at least 5");
}

TEST(Extrapolation, StudyIsoFlopLawPredictsItsLargestBudget) {
    SCALEX_REQUIRE_SHARED();
    IsoFlopSettings s;
    s.fitMin = 5e18;
    s.fitMax = 2e20;
    const auto result = fitIsoFlop(selectedLlamaCtx8192(), s);
    const auto e = extrapolateIsoFlop(result);
    ASSERT_EQ(e.heldOut.size(), 1u);
    EXPECT_EQ(e.heldOut[0].budget, 1e20);
    EXPECT_EQ(e.nBudgetsFitted, 3);
    const IsoFlopProfile* last = nullptr;
    for (const auto& p : result.profiles)
        if (p.budget == 1e20) last = &p;
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(e.heldOut[0].nOptObserved, last->nOpt);
    // From 6e18–3e19 alone the law lands within 15 % of the 1e20 optimum.
    EXPECT_LT(std::abs(e.heldOut[0].nOptError), 0.15);
    EXPECT_NEAR(e.heldOut[0].nOptPredicted / e.heldOut[0].nOptObserved - 1, e.heldOut[0].nOptError, 1e-12);
    ::testing::Test::RecordProperty("n_opt_error_1e20", std::to_string(e.heldOut[0].nOptError));
}

TEST(Extrapolation, SurfaceWithoutItsLargestModelsPredictsThem) {
    // Noise-free runs of the paper's surface: the fit without the largest size predicts it.
    std::vector<LossPoint> pts;
    const auto truth = test::paperTransformerSurface();
    for (double n : {1.6e8, 4e8, 8.3e8, 1.4e9, 2.8e9, 6.9e9})
        for (double m : {22.0, 44.0, 110.0, 220.0, 550.0}) pts.push_back({n, m * n, truth.loss(n, m * n)});
    LossSurfaceSettings s;
    s.grid = InitGrid{{0, 5, 20}, {5, 20}, {0, 0.5}, {0, 1}, {0.2, 0.5}, {0, 1.5}};
    const auto e = extrapolateLossSurface(pts, s);
    ASSERT_EQ(e.heldOut.size(), 5u);
    for (const auto& p : e.heldOut) EXPECT_EQ(p.params, 6.9e9);
    EXPECT_EQ(e.fit.nPoints, 25);
    EXPECT_LT(e.maxAbsError, 2e-3);
    LossSurfaceHoldOut byCompute;
    byCompute.by = LossSurfaceHoldOut::By::Compute;
    byCompute.fraction = 0.2;
    const auto c = extrapolateLossSurface(pts, s, byCompute);
    EXPECT_EQ(c.heldOut.size(), 6u);
    EXPECT_EQ(c.fit.nPoints, 24);
    LossSurfaceHoldOut all;
    all.fraction = 1.0;
    EXPECT_EQ(extrapolateLossSurface(pts, s, all).note, "holding out 30 of 30 runs leaves 0; the fit needs 6 and at least one held out");
}

TEST(Extrapolation, StudySurfaceWithoutThe7BModelsPredictsThem) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamRuns("xlstm").surface;
    LossSurfaceSettings s;
    s.grid = InitGrid{{0, 5, 20}, {5, 20}, {0, 0.5}, {0, 1}, {0.2, 0.5}, {0, 1.5}};
    const auto e = extrapolateLossSurface(pts, s);
    ASSERT_EQ(e.heldOut.size(), 4u);  // the four 6.87B xLSTM runs
    for (const auto& p : e.heldOut) EXPECT_GT(p.params, 6e9);
    EXPECT_LT(e.maxAbsError, 0.03);
    ::testing::Test::RecordProperty("mean_abs_error", std::to_string(e.meanAbsError));
}

TEST(Extrapolation, SlopeLinesPredictTheirLargestRun) {
    std::vector<ComputeLossPoint> pts;
    for (double m : {22.0, 110.0})
        for (int i = 0; i < 5; ++i) {
            const double c = 1e19 * std::pow(4.0, i);
            pts.push_back({c, (m == 22 ? 40 : 35) * std::pow(c, -0.05), m});
        }
    pts.push_back({1e20, 3.0, 550.0});  // a group of one: no check
    const auto e = extrapolateSlopes(pts);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].ratio, 22.0);
    EXPECT_EQ(e[0].index, 4u);
    EXPECT_EQ(e[1].index, 9u);
    for (const auto& p : e) {
        EXPECT_NEAR(p.error, 0, 1e-9);
        EXPECT_NEAR(p.law.exponent, -0.05, 1e-9);
    }
}
