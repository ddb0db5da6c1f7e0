// The parametric L(N, D) fit against the authors' stored fits (reference README (b),
// lnd_fit_best.csv) on the paper's token/param runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>

#include "core/analysis/RunSelection.h"
#include "core/fit/LossSurface.h"
#include "tests/unit/fit_test_support.h"

using namespace scalex;
using namespace scalex::fit;

namespace {

std::vector<LossPoint> tokenParamPoints(accounting::Family family) {
    static const data::RunTable table = test::readTokenParamRuns();
    analysis::RunFilter filter;
    filter.family = family;
    return analysis::lossSurfacePoints(table, filter).points;
}

// The authors' best start for a configuration (lnd_fit_best.csv, tokenparam / 0-5000, LSE, δ = 1e-3).
struct Reference {
    LossSurfaceParams params;
    double objective = 0;
};

Reference referenceFit(const QString& modelType, bool fitGamma) {
    const auto csv = test::readSimpleCsv(test::sharedPath("reference/lnd_fit_best.csv"));
    for (int r = 0; r < csv.rows.size(); ++r) {
        if (csv.at(r, "cfg_use_logsumexp") != "True" || csv.at(r, "cfg_huber_delta") != "0.001" ||
            csv.at(r, "cfg_fit_gamma") != (fitGamma ? "True" : "False") || csv.at(r, "experiment_set") != "tokenparam" ||
            csv.at(r, "token_param_range") != "0-5000" || csv.at(r, "model_type") != modelType)
            continue;
        Reference ref;
        ref.params = {csv.number(r, "fit_a"), csv.number(r, "fit_b"),     csv.number(r, "fit_e"),
                      csv.number(r, "fit_alpha"), csv.number(r, "fit_beta"), fitGamma ? csv.number(r, "fit_gamma") : 1.0};
        ref.objective = csv.number(r, "objective");
        return ref;
    }
    ADD_FAILURE() << "no reference row for " << modelType.toStdString();
    return {};
}

// A 96-start subset of the paper's grid that contains the authors' winning starts for both
// families (llama: init_idx 6579 = (0, 20, 0.5, 0, 0.2, 1.5); mlstm: 1431 = (5, 5, 0, 1, 0.5, 0)).
// The full 8000-start grid runs in tests/bench/fit_bench.cpp.
InitGrid subsetGrid() { return InitGrid{{0, 5, 20}, {5, 20}, {0, 0.5}, {0, 1}, {0.2, 0.5}, {0, 1.5}}; }

// Largest relative difference of the two surfaces over a 12 × 12 log grid spanning the data.
double maxRelativeDifference(const std::vector<LossPoint>& pts, const LossSurfaceParams& x, const LossSurfaceParams& y) {
    double nLo = INFINITY, nHi = 0, dLo = INFINITY, dHi = 0;
    for (const auto& p : pts) {
        nLo = std::min(nLo, p.params), nHi = std::max(nHi, p.params);
        dLo = std::min(dLo, p.tokens), dHi = std::max(dHi, p.tokens);
    }
    double worst = 0;
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            const double n = nLo * std::pow(nHi / nLo, i / 11.0), d = dLo * std::pow(dHi / dLo, j / 11.0);
            worst = std::max(worst, std::abs(x.loss(n, d) / y.loss(n, d) - 1));
        }
    for (const auto& p : pts) worst = std::max(worst, std::abs(x.loss(p.params, p.tokens) / y.loss(p.params, p.tokens) - 1));
    return worst;
}

}  // namespace

TEST(LossSurface, PaperGridFollowsTheAuthorsStartOrder) {
    const InitGrid g = InitGrid::paper();
    EXPECT_EQ(g.size(true), 8000u);
    EXPECT_EQ(g.size(false), 2000u);
    const auto llama = g.start(6579, true), mlstm = g.start(1431, true), fixed = g.start(344, false);
    EXPECT_EQ(llama.asArray(), (std::array<double, 6>{0, 20, 0.5, 0, 0.2, 1.5}));
    EXPECT_EQ(mlstm.asArray(), (std::array<double, 6>{5, 5, 0, 1, 0.5, 0}));
    EXPECT_EQ(fixed.asArray(), (std::array<double, 6>{15, 20, 0.5, 0.5, 0, 1}));
}

TEST(LossSurface, ObjectiveOfThePapersParametersOnTheStudyData) {
    SCALEX_REQUIRE_SHARED();
    // data README: the paper's best parameters give 7.147463e-05 (Transformer), 8.557079e-05 (xLSTM).
    const auto llama = tokenParamPoints(accounting::Family::Transformer);
    const auto mlstm = tokenParamPoints(accounting::Family::Xlstm);
    ASSERT_EQ(llama.size(), 31u);
    ASSERT_EQ(mlstm.size(), 35u);
    EXPECT_NEAR(lossSurfaceObjective(llama, referenceFit("llama", true).params, 1e-3), 7.147463e-05, 1e-11);
    EXPECT_NEAR(lossSurfaceObjective(mlstm, referenceFit("mlstm", true).params, 1e-3), 8.557079e-05, 1e-11);
}

TEST(LossSurface, GammaFreeReproducesThePapersTransformerFit) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamPoints(accounting::Family::Transformer);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    const auto fit = fitLossSurface(pts, s);
    EXPECT_LE(fit.objective, 7.1475e-05);
    EXPECT_EQ(fit.nStarts, 96u);
    EXPECT_GT(fit.nConverged, 48u);
    EXPECT_LT(maxRelativeDifference(pts, fit.best, referenceFit("llama", true).params), 1e-3);
    EXPECT_NEAR(fit.best.gamma, 0.2934, 0.005);  // tab:lnd_fit_params: 0.29
    EXPECT_TRUE(fit.warnings.empty()) << fit.warnings.front();
    EXPECT_LT(fit.quality.rmse, 0.015);  // loss units
    EXPECT_GT(fit.quality.r2, 0.99);
    ASSERT_FALSE(fit.bestStarts.empty());
    EXPECT_EQ(fit.bestStarts.front().objective, fit.objective);
}

TEST(LossSurface, GammaFreeReproducesThePapersXlstmFit) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamPoints(accounting::Family::Xlstm);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    const auto fit = fitLossSurface(pts, s);
    EXPECT_LE(fit.objective, 8.5572e-05);
    EXPECT_LT(maxRelativeDifference(pts, fit.best, referenceFit("mlstm", true).params), 1e-3);
    EXPECT_NEAR(fit.best.alpha, 0.7275, 0.005);  // tab:lnd_fit_params: 0.73
}

TEST(LossSurface, GammaOneOnTheFullGridMatchesTheAuthorsFits) {
    SCALEX_REQUIRE_SHARED();
    for (const auto& [family, name] : {std::pair{accounting::Family::Transformer, QString("llama")},
                                       std::pair{accounting::Family::Xlstm, QString("mlstm")}}) {
        const auto pts = tokenParamPoints(family);
        LossSurfaceSettings s;
        s.fitGamma = false;  // the full paper grid without its γ axis: 2000 starts
        const auto fit = fitLossSurface(pts, s);
        const Reference ref = referenceFit(name, false);
        EXPECT_EQ(fit.nStarts, 2000u);
        // The stored objective comes from the full-precision runs; the shared CSV carries display
        // precision. On this data our optimum must be at least as good as the authors' parameters
        // and agree with their stored objective to 1e-5.
        EXPECT_LE(fit.objective, lossSurfaceObjective(pts, ref.params, 1e-3) * (1 + 1e-9)) << name.toStdString();
        EXPECT_NEAR(fit.objective, ref.objective, 1e-5 * ref.objective) << name.toStdString();
        EXPECT_EQ(fit.best.gamma, 1.0);
        const auto got = fit.best.asArray(), want = ref.params.asArray();
        for (std::size_t k = 0; k < 5; ++k) EXPECT_NEAR(got[k], want[k], 2e-3) << name.toStdString() << " parameter " << k;
        EXPECT_LT(maxRelativeDifference(pts, fit.best, ref.params), 1e-4);
    }
}

TEST(LossSurface, ScreeningReachesTheSameOptimumAsRunningEveryStartToTheEnd) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamPoints(accounting::Family::Xlstm);
    LossSurfaceSettings screened;
    screened.grid = subsetGrid();
    LossSurfaceSettings exhaustive = screened;
    exhaustive.screenStopDelta = exhaustive.stopDelta;
    const auto a = fitLossSurface(pts, screened), b = fitLossSurface(pts, exhaustive);
    EXPECT_NEAR(a.objective, b.objective, 1e-9 * b.objective);
    EXPECT_LT(maxRelativeDifference(pts, a.best, b.best), 1e-4);
}

TEST(LossSurface, SameResultForAnyThreadCount) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamPoints(accounting::Family::Transformer);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    FitControl one, three;
    one.threads = 1;
    three.threads = 3;
    const auto a = fitLossSurface(pts, s, one), b = fitLossSurface(pts, s, three);
    EXPECT_EQ(a.bestStart, b.bestStart);
    EXPECT_EQ(a.best.asArray(), b.best.asArray());
    EXPECT_EQ(a.objective, b.objective);
    EXPECT_EQ(a.nConverged, b.nConverged);
}

TEST(LossSurface, CancelStopsHandingOutStartsAndReportsProgress) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamPoints(accounting::Family::Transformer);
    std::atomic<bool> cancel{false};
    std::size_t lastDone = 0, lastTotal = 0;
    FitControl control;
    control.threads = 2;
    control.cancel = &cancel;
    control.progress = [&](std::size_t done, std::size_t total) {
        lastDone = done;
        lastTotal = total;
        if (done >= 20) cancel = true;
    };
    const auto fit = fitLossSurface(pts, LossSurfaceSettings{}, control);
    EXPECT_TRUE(fit.cancelled);
    EXPECT_GE(fit.nStarts, 20u);
    EXPECT_LT(fit.nStarts, 100u);
    EXPECT_EQ(lastTotal, 8000u);
    EXPECT_EQ(lastDone, fit.nStarts);
    ASSERT_FALSE(fit.warnings.empty());
    EXPECT_EQ(fit.warnings.front(), "cancelled: " + std::to_string(fit.nStarts) + " of 8000 starts ran");
}

TEST(LossSurface, TooFewRunsIsAnError) {
    std::vector<LossPoint> pts{{1e8, 1e9, 3.0}, {2e8, 2e9, 2.9}, {4e8, 4e9, 2.8}, {8e8, 8e9, 2.7}, {1.6e9, 1.6e10, 2.6}};
    try {
        fitLossSurface(pts);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "the L(N,D) fit needs at least 6 runs, got 5");
    }
    pts.push_back({1e9, -1, 2.5});
    try {
        fitLossSurface(pts);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "run 5: N, D and loss must be positive and finite");
    }
}

TEST(LossSurface, GridFilesParseAndBadOnesNameTheLine) {
    std::string error;
    const auto g = parseInitGrid("# my grid\nlogA: 0 5\nlogB 1, 2, 3\nlogE 0\nalpha 0.5\nbeta 0.5 1\ngamma 1\n", &error);
    ASSERT_TRUE(g) << error;
    EXPECT_EQ(g->size(true), 12u);
    EXPECT_EQ(g->logB, (std::vector<double>{1, 2, 3}));
    const auto noGamma = parseInitGrid("logA 0\nlogB 0\nlogE 0\nalpha 0\nbeta 0\n", &error);
    ASSERT_TRUE(noGamma);
    EXPECT_EQ(noGamma->gamma, std::vector<double>{1.0});
    EXPECT_FALSE(parseInitGrid("logA 0\nlogB x1\n", &error));
    EXPECT_EQ(error, "line 2: expected a number for logB, got 'x1'");
    EXPECT_FALSE(parseInitGrid("logA 0\ndelta 1\n", &error));
    EXPECT_EQ(error, "line 2: expected an axis name (logA, logB, logE, alpha, beta or gamma), got 'delta'");
    EXPECT_FALSE(parseInitGrid("logA 0\nlogB 0\nlogE 0\nalpha 0\n", &error));
    EXPECT_EQ(error, "line 5: axis beta is missing");
    EXPECT_FALSE(parseInitGrid("logA 0\nlogA 1\n", &error));
    EXPECT_EQ(error, "line 2: axis logA given twice");
}

TEST(LossSurface, WarnsWhenTheOptimumSitsOnTheBox) {
    SCALEX_REQUIRE_SHARED();
    const auto pts = tokenParamPoints(accounting::Family::Xlstm);
    LossSurfaceSettings s;
    s.grid = subsetGrid();
    s.bounds.upper.alpha = 0.3;  // the free optimum has alpha = 0.73
    const auto fit = fitLossSurface(pts, s);
    EXPECT_LE(fit.best.alpha, 0.3);
    EXPECT_GT(fit.objective, 8.5572e-05);
    EXPECT_NE(std::find(fit.warnings.begin(), fit.warnings.end(), "alpha hit a bound of the fit box"), fit.warnings.end());
}

// The checks after a fit (outliers left out, the largest model held out) refit from the first
// fit's optima instead of searching the grid again; on the paper's runs that must reach the
// objective a fresh search of the whole grid reaches on the same runs.
TEST(LossSurface, RefitFromTheOptimaReachesTheGridsObjectiveOnSubsets) {
    SCALEX_REQUIRE_SHARED();
    std::vector<std::pair<std::string, std::vector<LossPoint>>> studies;
    studies.emplace_back("tokenparam transformer", tokenParamPoints(accounting::Family::Transformer));
    studies.emplace_back("tokenparam xlstm", tokenParamPoints(accounting::Family::Xlstm));
    {
        static const data::RunTable isoflop = test::readIsoFlopRuns("llama_ctx8192");
        analysis::RunFilter filter;
        filter.selectedOnly = true;
        studies.emplace_back("isoflop transformer ctx 8192", analysis::lossSurfacePoints(isoflop, filter).points);
    }
    const LossSurfaceSettings s;  // the paper's 8000-start grid, γ free
    for (const auto& [name, pts] : studies) {
        ASSERT_GT(pts.size(), 30u) << name;
        const auto full = fitLossSurface(pts, s);
        // Subsets: without the largest model size; without the three runs farthest from the fit;
        // without every fifth run.
        double nMax = 0;
        for (const auto& p : pts) nMax = std::max(nMax, p.params);
        std::vector<std::size_t> byResidual(pts.size());
        std::iota(byResidual.begin(), byResidual.end(), std::size_t{0});
        std::sort(byResidual.begin(), byResidual.end(), [&](std::size_t a, std::size_t b) {
            return std::abs(std::log(pts[a].loss) - full.best.logLoss(pts[a].params, pts[a].tokens)) >
                   std::abs(std::log(pts[b].loss) - full.best.logLoss(pts[b].params, pts[b].tokens));
        });
        std::vector<std::vector<LossPoint>> subsets(3);
        for (std::size_t i = 0; i < pts.size(); ++i) {
            if (pts[i].params < nMax * 0.95) subsets[0].push_back(pts[i]);
            if (std::find(byResidual.begin(), byResidual.begin() + 3, i) == byResidual.begin() + 3) subsets[1].push_back(pts[i]);
            if (i % 5 != 0) subsets[2].push_back(pts[i]);
        }
        for (std::size_t k = 0; k < subsets.size(); ++k) {
            const auto grid = fitLossSurface(subsets[k], s);
            const auto refit = refitLossSurface(subsets[k], full, s);
            EXPECT_LE(refit.objective, grid.objective * (1 + 1e-6)) << name << ", subset " << k;
            EXPECT_LT(maxRelativeDifference(subsets[k], refit.best, grid.best), 1e-3) << name << ", subset " << k;
            EXPECT_EQ(refit.refitFrom, optimaOf(full).size());
            EXPECT_EQ(refit.nPoints, static_cast<int>(subsets[k].size()));
            EXPECT_GE(refit.seconds, full.seconds);
        }
    }
}
