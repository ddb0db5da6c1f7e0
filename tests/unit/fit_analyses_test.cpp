// Over-training slopes (tab:tokenparam_slopes), Pareto frontiers (Fig. 1 left) and bootstrap
// intervals, on the study's token/param runs and on synthetic data with known parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/OvertrainingSlopes.h"
#include "core/fit/Pareto.h"
#include "tests/unit/fit_test_support.h"

using namespace scalex;
using namespace scalex::fit;

namespace {

const data::RunTable& tokenParam() {
    static const data::RunTable t = test::readTokenParamRuns();
    return t;
}

std::vector<ComputeLossPoint> computeLoss(accounting::Family family) {
    analysis::RunFilter f;
    f.family = family;
    return analysis::computeLossPoints(tokenParam(), f).points;
}

}  // namespace

TEST(OvertrainingSlopes, RatiosGoToTheNearestNominalValueWithinEighteenPercent) {
    EXPECT_EQ(nominalRatio(25.79), 22);   // 400M, 10k steps
    EXPECT_EQ(nominalRatio(51.71), 44);   // 160M, 8k steps
    EXPECT_EQ(nominalRatio(1118.25), 1100);
    EXPECT_FALSE(nominalRatio(32.3));     // 160M, 5k steps: between 22 and 44
    EXPECT_FALSE(nominalRatio(305.5));    // the 7B long run
    EXPECT_FALSE(nominalRatio(-1));
}

TEST(OvertrainingSlopes, ReproduceThePapersExponentTable) {
    SCALEX_REQUIRE_SHARED();
    const auto table = test::readSimpleCsv(test::sourcePath("datasets/paper/tokenparam_slopes.csv"));
    ASSERT_EQ(table.rows.size(), 6);
    const auto transformer = fitOvertrainingSlopes(computeLoss(accounting::Family::Transformer));
    const auto xlstm = fitOvertrainingSlopes(computeLoss(accounting::Family::Xlstm));
    auto group = [](const SlopeResult& r, double m) -> const SlopeGroup* {
        for (const auto& g : r.groups)
            if (g.ratio == m) return &g;
        return nullptr;
    };
    for (int r = 0; r < table.rows.size(); ++r) {
        const double m = table.number(r, "tokens_per_param");
        for (const auto& [column, result] : {std::pair{"eta_transformer", &transformer}, std::pair{"eta_xlstm", &xlstm}}) {
            const SlopeGroup* g = group(*result, m);
            ASSERT_NE(g, nullptr) << column << " M=" << m;
            if (table.at(r, column).isEmpty()) {
                EXPECT_FALSE(g->fitted) << column << " M=" << m;  // the paper's "-"
                EXPECT_EQ(g->note, "2 run(s); at least 3 needed");
            } else {
                ASSERT_TRUE(g->fitted) << column << " M=" << m;
                EXPECT_NEAR(g->eta, table.number(r, column), 0.003) << column << " M=" << m;
                EXPECT_GT(g->quality.r2, 0.99);
            }
        }
    }
    // xLSTM has one run at M = 2200 (listed, not fitted); the 7B long run and M ≈ 32 belong nowhere.
    ASSERT_NE(group(xlstm, 2200), nullptr);
    EXPECT_FALSE(group(xlstm, 2200)->fitted);
    EXPECT_EQ(xlstm.ungrouped.size(), 2u);
}

TEST(Pareto, FrontierIsTheLowerEnvelope) {
    const std::vector<ComputeLossPoint> pts{{1, 5, 0}, {2, 4, 0}, {2, 4.5, 0}, {3, 4.2, 0}, {4, 3, 0}, {4, 3, 0}, {0, 1, 0}, {8, 3.5, 0}};
    const auto f = paretoFrontier(pts);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[0].index, 0u);
    EXPECT_EQ(f[1].index, 1u);
    EXPECT_EQ(f[2].index, 4u);
    EXPECT_NEAR(*frontierLossAt(f, 1.5), std::exp(std::log(5) + std::log(1.5) / std::log(2) * std::log(0.8)), 1e-12);
    EXPECT_FALSE(frontierLossAt(f, 5));
    EXPECT_NEAR(*frontierComputeAt(f, 4), 2, 1e-12);
    EXPECT_FALSE(frontierComputeAt(f, 2.9));
}

TEST(Pareto, XlstmDominatesTheTransformerFrontier) {
    SCALEX_REQUIRE_SHARED();
    const auto x = computeLoss(accounting::Family::Xlstm), t = computeLoss(accounting::Family::Transformer);
    const auto fx = paretoFrontier(x), ft = paretoFrontier(t);
    ASSERT_GE(fx.size(), 5u);
    // Every run is on the frontier or beaten in both C and L by a frontier run.
    for (const auto& p : x) {
        bool covered = false;
        for (const auto& q : fx) covered |= (q.flops <= p.flops && q.loss <= p.loss);
        EXPECT_TRUE(covered);
    }
    for (std::size_t k = 1; k < fx.size(); ++k) {
        EXPECT_GT(fx[k].flops, fx[k - 1].flops);
        EXPECT_LT(fx[k].loss, fx[k - 1].loss);
    }
    // Sec. "Loss vs. Compute": xLSTM is strictly dominant across the compute both cover.
    const auto cmp = compareFrontiers(fx, ft);
    ASSERT_TRUE(cmp.overlap);
    EXPECT_TRUE(cmp.aDominates);
    EXPECT_GT(cmp.minLossGap, 0);
    EXPECT_GT(cmp.minComputeRatio, 1);
    EXPECT_EQ(cmp.atEqualCompute.size(), 50u);
    for (const auto& s : cmp.atEqualLoss) EXPECT_NEAR(*frontierLossAt(ft, s.computeB), s.loss, 1e-9 * s.loss);
}

TEST(Bootstrap, ResamplingIsDeterministicAndRespectsStrata) {
    const std::vector<int> strata{0, 0, 0, 1, 1, 2};
    const auto a = resampleIndices(6, strata, 7, 3), b = resampleIndices(6, strata, 7, 3), c = resampleIndices(6, strata, 7, 4);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, resampleIndices(6, strata, 8, 3));
    for (const auto& r : {a, c}) {
        for (int k = 0; k < 3; ++k) EXPECT_EQ(strata[r[k]], 0);
        for (int k = 3; k < 5; ++k) EXPECT_EQ(strata[r[k]], 1);
        EXPECT_EQ(r[5], 5u);
    }
    const std::vector<double> sorted{1, 2, 3, 4};
    EXPECT_DOUBLE_EQ(percentile(sorted, 0.25), 1.75);  // numpy.percentile(..., 25), linear
    EXPECT_DOUBLE_EQ(percentile(sorted, 1.0), 4);
}

TEST(Bootstrap, IsoFlopIntervalsAreTheSameForAnyThreadCount) {
    SCALEX_REQUIRE_SHARED();
    const auto runs = test::readIsoFlopRuns("llama_ctx8192");
    analysis::RunFilter f;
    f.selectedOnly = true;
    const auto sel = analysis::isoFlopRuns(runs, f);
    IsoFlopSettings s;
    s.fitMin = 5e18;
    s.fitMax = 2e20;
    BootstrapSettings b;
    b.resamples = 200;
    FitControl one, three;
    one.threads = 1;
    three.threads = 3;
    const std::vector<double> budgets{1e21};
    const auto x = bootstrapIsoFlop(sel.points, s, budgets, b, one), y = bootstrapIsoFlop(sel.points, s, budgets, b, three);
    ASSERT_EQ(x.intervals.size(), 6u);
    for (std::size_t k = 0; k < x.intervals.size(); ++k) {
        EXPECT_EQ(x.intervals[k].lower, y.intervals[k].lower) << x.intervals[k].name;
        EXPECT_EQ(x.intervals[k].upper, y.intervals[k].upper) << x.intervals[k].name;
    }
    const auto* a = x.find("a");
    ASSERT_NE(a, nullptr);
    EXPECT_NEAR(a->estimate, 0.574909, 1e-5);
    EXPECT_LT(a->lower, a->estimate);
    EXPECT_GT(a->upper, a->estimate);
    EXPECT_LT(a->upper - a->lower, 0.2);
    EXPECT_EQ(a->nValid, 200);
    ASSERT_NE(x.find("n_opt(1e+21)"), nullptr);
    EXPECT_GT(x.find("n_opt(1e+21)")->lower, 1e9);
}

TEST(Bootstrap, SyntheticLossSurfaceIsRecoveredWithinItsInterval) {
    // Known parameters (the paper's xLSTM fit, tab:lnd_fit_params), 6 sizes × 6 ratios, 0.3 %
    // multiplicative noise from a fixed seed.
    const LossSurfaceParams truth{16.22, 17.31, 0.11, 0.73, 0.67, 0.24};
    std::mt19937_64 rng(42);
    std::normal_distribution<double> noise(0.0, 0.003);
    std::vector<LossPoint> pts;
    for (double n : {1.6e8, 4e8, 8.3e8, 1.4e9, 2.7e9, 7e9})
        for (double m : {22.0, 44.0, 110.0, 220.0, 550.0, 1100.0}) pts.push_back({n, m * n, truth.loss(n, m * n) * std::exp(noise(rng))});
    LossSurfaceSettings s;
    s.grid = InitGrid{{0, 5, 20}, {5, 20}, {0, 0.5}, {0, 1}, {0.2, 0.5}, {0, 1.5}};
    const auto fit = fitLossSurface(pts, s);
    const std::vector<SurfaceQuery> queries{{1e9, 2.2e10}, {7e9, 2e12}};
    BootstrapSettings b;
    b.resamples = 100;
    b.level = 0.99;
    const auto boot = bootstrapLossSurface(pts, fit, s, queries, b);
    ASSERT_EQ(boot.intervals.size(), 8u);
    const auto want = truth.asArray();
    for (std::size_t k = 0; k < 6; ++k) {
        const auto& in = boot.intervals[k];
        EXPECT_GE(in.nValid, 95) << in.name;
        EXPECT_LE(in.lower, want[k]) << in.name;
        EXPECT_GE(in.upper, want[k]) << in.name;
    }
    for (std::size_t q = 0; q < queries.size(); ++q) {
        const auto& in = boot.intervals[6 + q];
        const double l = truth.loss(queries[q].params, queries[q].tokens);
        EXPECT_LE(in.lower, l) << in.name;
        EXPECT_GE(in.upper, l) << in.name;
        EXPECT_LT(in.upper - in.lower, 0.02 * l) << in.name;  // the loss itself is well determined
    }
}

TEST(Bootstrap, SyntheticSlopesAreRecoveredWithinTheirIntervals) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, 0.002);
    std::vector<ComputeLossPoint> pts;
    const double eta[2] = {0.05, 0.04};
    const double ratio[2] = {22, 220};
    for (int g = 0; g < 2; ++g)
        for (double c : {1e19, 3e19, 1e20, 3e20, 1e21, 3e21}) pts.push_back({c, 40.0 * std::pow(c, -eta[g]) * std::exp(noise(rng)), ratio[g]});
    BootstrapSettings b;
    b.resamples = 300;
    const auto boot = bootstrapSlopes(pts, SlopeSettings{}, b);
    ASSERT_EQ(boot.intervals.size(), 2u);
    for (int g = 0; g < 2; ++g) {
        const auto& in = boot.intervals[static_cast<std::size_t>(g)];
        EXPECT_LE(in.lower, eta[g]) << in.name;
        EXPECT_GE(in.upper, eta[g]) << in.name;
        EXPECT_LT(in.upper - in.lower, 0.01) << in.name;
    }
    EXPECT_EQ(boot.intervals[0].name, "eta(22)");
}

TEST(RunAnalyses, FiltersTogglesAndSkippedRuns) {
    data::RunTable t;
    auto run = [](const char* id, accounting::Family f, double ctx, double n, double d, double c, double loss) {
        data::Run r;
        r.runId = id;
        r.family = f;
        r.context = ctx;
        r.params = n;
        r.tokens = d;
        r.flops = c;
        r.valLoss = loss;
        return r;
    };
    t.runs.push_back(run("a", accounting::Family::Xlstm, 8192, 1e8, 2e9, 1.2e18, 3.1));
    t.runs.push_back(run("b", accounting::Family::Xlstm, 2048, 2e8, 4e9, 4.8e18, 2.9));
    t.runs.push_back(run("c", accounting::Family::Transformer, 8192, 1e8, 2e9, 1.5e18, 3.2));
    auto noLoss = run("d", accounting::Family::Xlstm, 8192, 4e8, 8e9, 2e19, data::kUnknown);
    noLoss.trainLoss = 2.7;  // validation loss missing: the training loss stands in
    t.runs.push_back(noLoss);
    auto noTokens = run("e", accounting::Family::Xlstm, 8192, 4e8, data::kUnknown, 2e19, 2.8);
    noTokens.sourceLine = 6;
    t.runs.push_back(noTokens);
    auto problem = run("f", accounting::Family::Xlstm, 8192, 1e9, 2e10, 1.2e20, 2.5);
    problem.problems.push_back("loss spike");
    t.runs.push_back(problem);
    auto excluded = run("g", accounting::Family::Xlstm, 8192, 1e9, 2e10, 1.2e20, 2.5);
    excluded.userIncluded = false;
    t.runs.push_back(excluded);

    analysis::RunFilter f;
    f.family = accounting::Family::Xlstm;
    f.context = 8192;
    const auto sel = analysis::lossSurfacePoints(t, f);
    ASSERT_EQ(sel.points.size(), 2u);  // a and d; e lacks D; f has a problem; g is switched off
    EXPECT_EQ(sel.runs[1]->runId, "d");
    EXPECT_EQ(sel.points[1].loss, 2.7);
    EXPECT_EQ(sel.skipped, std::vector<std::string>{"run e (line 6): needs positive N, D and loss"});
    // C and loss suffice for the frontier and the slopes; D/N is unknown for e.
    const auto cl = analysis::computeLossPoints(t, f);
    ASSERT_EQ(cl.points.size(), 3u);
    EXPECT_TRUE(std::isnan(cl.points[2].tokensPerParam));
    // The user's toggle wins over a problem.
    t.runs[5].userIncluded = true;
    EXPECT_EQ(analysis::lossSurfacePoints(t, f).points.size(), 3u);
    // selected_in_paper: runs the study deselected drop out; runs without the flag stay.
    t.runs[0].selectedInPaper = true;
    t.runs[3].selectedInPaper = false;
    f.selectedOnly = true;
    const auto selected = analysis::lossSurfacePoints(t, f);
    ASSERT_EQ(selected.points.size(), 2u);
    EXPECT_EQ(selected.runs[0]->runId, "a");
    EXPECT_EQ(selected.runs[1]->runId, "f");
    EXPECT_EQ(analysis::contextLengths(t, analysis::RunFilter{}), (std::vector<double>{2048, 8192}));
    // The study's main context where the runs have it, else the one with the most IsoFLOP runs.
    EXPECT_EQ(analysis::preferredContext(t, analysis::RunFilter{}), 8192.0);
    for (auto& r : t.runs)
        if (r.context == 8192) r.context = 4096;
    t.runs.push_back(run("h", accounting::Family::Xlstm, 2048, 4e8, 8e9, 2e19, 2.8));
    t.runs.push_back(run("i", accounting::Family::Xlstm, 2048, 8e8, 8e9, 4e19, 2.7));
    t.runs.push_back(run("j", accounting::Family::Xlstm, 2048, 9e8, 8e9, 4.5e19, 2.7));
    t.runs.push_back(run("k", accounting::Family::Xlstm, 2048, 9e8, 9e9, 5e19, 2.7));
    EXPECT_EQ(analysis::preferredContext(t, analysis::RunFilter{}), 2048.0);
    analysis::RunFilter transformer;
    transformer.family = accounting::Family::Transformer;
    EXPECT_EQ(analysis::preferredContext(t, transformer), 4096.0);
    analysis::RunFilter none;
    none.family = accounting::Family::Transformer;
    none.where.push_back(*analysis::parseCondition("params>1e12"));
    EXPECT_FALSE(analysis::preferredContext(t, none));    // The family a group of runs shares, if any.
    EXPECT_EQ(analysis::sharedFamily({&t.runs[0], &t.runs[1]}), accounting::Family::Xlstm);
    EXPECT_FALSE(analysis::sharedFamily({&t.runs[0], &t.runs[2]}));
    EXPECT_FALSE(analysis::sharedFamily({}));
}

// The runs the loss-surface view draws for a series: in the filter, with N and D; those the fit
// left out apart; the box around them with a factor of two to spare.
TEST(LossGrid, SurfaceRunPointsAreTheSeriesRunsWithNAndD) {
    data::RunTable t;
    auto run = [](const char* series, double n, double d) {
        data::Run r;
        r.series = series;
        r.params = n;
        r.tokens = d;
        r.valLoss = 3.0;
        return r;
    };
    t.runs.push_back(run("a", 1e8, 2e9));
    t.runs.push_back(run("b", 5e7, 1e9));  // another series
    t.runs.push_back(run("a", 4e8, data::kUnknown));  // no tokens
    t.runs.push_back(run("a", 8e8, 3e10));
    t.runs.push_back(run("a", 2e8, 4e9));
    analysis::RunFilter a;
    a.series = "a";
    const analysis::SurfaceRunPoints p = analysis::surfaceRunPoints(t, a, {4});
    EXPECT_EQ(p.fitted, (std::vector<int>{0, 3}));
    EXPECT_EQ(p.leftOut, (std::vector<int>{4}));
    EXPECT_DOUBLE_EQ(p.nLo, 5e7);
    EXPECT_DOUBLE_EQ(p.nHi, 1.6e9);
    EXPECT_DOUBLE_EQ(p.dLo, 1e9);
    EXPECT_DOUBLE_EQ(p.dHi, 6e10);
    analysis::RunFilter none;
    none.series = "c";
    const analysis::SurfaceRunPoints empty = analysis::surfaceRunPoints(t, none, {});
    EXPECT_TRUE(empty.fitted.empty() && empty.leftOut.empty());
    EXPECT_DOUBLE_EQ(empty.nLo, 5e7);
    EXPECT_DOUBLE_EQ(empty.dHi, 2e10);
}

TEST(LossGrid, IsTheSurfaceAtEveryCellCentreWithItsRange) {
    // The paper's Transformer surface (Tab. lnd_fit_params, delta 1e-3), drawn as the loss surface
    // view's colour map: N along a row, D falling down a column.
    const LossSurfaceParams p{6.06, 5.72, 0.29, 0.53, 0.51, 0.29};
    const double nLo = 8e7, nHi = 1.4e10, dLo = 1e9, dHi = 6e11;
    const int w = 37, h = 23;
    const analysis::LossGrid g = analysis::lossGrid(p, nLo, nHi, dLo, dHi, w, h);
    ASSERT_EQ(g.width, w);
    ASSERT_EQ(g.height, h);
    ASSERT_EQ(g.values.size(), static_cast<std::size_t>(w * h));
    double lo = INFINITY, hi = -INFINITY;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double n = nLo * std::pow(nHi / nLo, (x + 0.5) / w);
            const double d = dHi * std::pow(dLo / dHi, (y + 0.5) / h);
            const double want = p.loss(n, d);
            EXPECT_NEAR(g.values[static_cast<std::size_t>(y * w + x)], want, 1e-12 * want) << x << ", " << y;
            lo = std::min(lo, want), hi = std::max(hi, want);
        }
    EXPECT_NEAR(g.lo, lo, 1e-12);
    EXPECT_NEAR(g.hi, hi, 1e-12);
    // Largest model, most tokens: the lowest loss, in the top right corner.
    EXPECT_EQ(g.values[static_cast<std::size_t>(w - 1)], g.lo);
    EXPECT_EQ(g.values[static_cast<std::size_t>((h - 1) * w)], g.hi);
    // Terms past double range (tiny N and D) still give the surface's value, through logarithms.
    const analysis::LossGrid far = analysis::lossGrid({800.0, 800.0, 0.3, 0.5, 0.5, 0.3}, 1, 10, 1, 10, 3, 3);
    for (double v : far.values) EXPECT_TRUE(std::isfinite(v)) << v;
    EXPECT_TRUE(analysis::lossGrid(p, nLo, nHi, dLo, dHi, 0, 5).values.empty());
}
