// Compute-optimal allocation on a loss surface, against closed forms.
#include <gtest/gtest.h>

#include <cmath>

#include "core/fit/ComputeOptimal.h"

using namespace scalex::fit;

namespace {
// Hoffmann et al.'s Approach 3 closed form holds for γ = 1 and C = 6ND:
// N* = G (C/6)^(β/(α+β)), G = (α A / (β B))^(1/(α+β)).
LossSurfaceParams chinchillaLike() { return {std::log(406.4), std::log(410.7), std::log(1.69), 0.34, 0.28, 1.0}; }
}  // namespace

TEST(ComputeOptimal, MatchesChinchillaClosedFormForGammaOne) {
    const LossSurfaceParams p = chinchillaLike();
    const ComputePerToken sixN = [](double n) { return 6 * n; };
    for (double H : {1e18, 1e20, 1e22, 1e24}) {
        const OptimalPoint o = computeOptimal(p, sixN, H);
        const double A = std::exp(p.logA), B = std::exp(p.logB);
        const double G = std::pow(p.alpha * A / (p.beta * B), 1 / (p.alpha + p.beta));
        const double expected = G * std::pow(H / 6, p.beta / (p.alpha + p.beta));
        EXPECT_NEAR(o.params / expected, 1.0, 1e-6) << H;
        EXPECT_NEAR(6 * o.params * o.tokens / H, 1.0, 1e-12);
        EXPECT_FALSE(o.atBoundary);
        EXPECT_NEAR(o.loss, p.loss(o.params, o.tokens), 1e-12);
    }
}

TEST(ComputeOptimal, OptimumIsBelowNeighboursOnTheIsoFlopLine) {
    // The paper's Transformer surface (Tab. lnd_fit_params, delta 1e-3): gamma != 1.
    const LossSurfaceParams p{11.99, 13.35, 0.01, 0.53, 0.51, 0.29};
    const ComputePerToken c = [](double n) { return 6.5 * n; };
    const OptimalPoint o = computeOptimal(p, c, 1e21);
    for (double f : {0.8, 1.25}) {
        const double n = o.params * f;
        EXPECT_GT(p.loss(n, 1e21 / c(n)), o.loss);
    }
}

TEST(ComputeOptimal, TokensForLossInvertsTheSurface) {
    const LossSurfaceParams p{16.22, 17.31, 0.11, 0.73, 0.67, 0.24};
    for (double n : {1e8, 1e9, 7e9})
        for (double d : {1e9, 1e11, 1e12}) {
            const double l = p.loss(n, d);
            const auto back = tokensForLoss(p, n, l);
            ASSERT_TRUE(back);
            EXPECT_NEAR(*back / d, 1.0, 1e-8);
        }
    // Below the loss N can ever reach (D -> infinity): no answer.
    const double floor = std::exp(p.logE) + std::pow(std::exp(p.logA) * std::pow(1e8, -p.alpha), p.gamma);
    EXPECT_FALSE(tokensForLoss(p, 1e8, floor * 0.999));
}

TEST(ComputeOptimal, OverTrainingCostsMoreDataAndCompute) {
    const LossSurfaceParams p = chinchillaLike();
    const ComputePerToken sixN = [](double n) { return 6 * n; };
    const OptimalPoint o = computeOptimal(p, sixN, 1e22);
    const auto same = overTrain(p, sixN, o, o.params);
    ASSERT_TRUE(same);
    EXPECT_NEAR(same->extraTokens, 1.0, 1e-6);
    EXPECT_NEAR(same->extraCompute, 1.0, 1e-6);
    const auto small = overTrain(p, sixN, o, o.params / 4);
    ASSERT_TRUE(small);
    EXPECT_GT(small->extraTokens, 4.0);  // a quarter of the parameters needs more than 4x the data
    EXPECT_GT(small->extraCompute, 1.0);
    EXPECT_NEAR(p.loss(small->params, small->tokens), o.loss, 1e-9);
}

TEST(ComputeOptimal, SmoothComputePerTokenFollowsTheSamples) {
    // Samples from c = N (6 + 0.3 ln(N/1e9)): ln(c/N) is smooth in ln N and the fit recovers it.
    std::vector<std::pair<double, double>> samples;
    auto exact = [](double n) { return n * (6 + 0.3 * std::log(n / 1e9)); };
    for (double n = 1e8; n <= 1e10; n *= 1.5) samples.push_back({n, exact(n)});
    const ComputePerToken c = smoothComputePerToken(samples);
    for (double n : {1.3e8, 7e8, 4e9}) EXPECT_NEAR(c(n) / exact(n), 1.0, 2e-3) << n;
    // Above the samples the ratio c/N is held at the end value; below them its logarithm goes on
    // along the fit's tangent (here the exact curve's slope 0.3/6 at 1e8, nearly).
    EXPECT_NEAR(c(1e12) / 1e12, c(samples.back().first) / samples.back().first, 1e-12);
    const double slope = std::log((c(1e8) / 1e8) / (c(1e8 * 1.001) / (1e8 * 1.001))) / std::log(1 / 1.001);
    EXPECT_NEAR(std::log((c(1e6) / 1e6) / (c(1e8) / 1e8)) / std::log(1e6 / 1e8), slope, 1e-3);
    EXPECT_LT(c(1e6) / 1e6, c(1e8) / 1e8);  // c/N grows with N here, as the exact curve does
    // A single sample: c proportional to N.
    const ComputePerToken one = smoothComputePerToken({{1e9, 7e9}});
    EXPECT_NEAR(one(2e9), 14e9, 1e-3);
}

// ---- analysis::ComputeOptimal: both methods, their comparison, the lifetime optimum ----

#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/ContextAnalysis.h"
#include "core/analysis/IsoFlopQuery.h"
#include "core/data/RunTableIo.h"
#include <atomic>
#include "core/accounting/ParamCount.h"
#include "core/data/PaperTables.h"
#include "tests/support/TestData.h"

namespace {
namespace an = scalex::analysis;
using scalex::accounting::Family;

const scalex::data::PaperTables& paperTables() {
    static const scalex::data::PaperTables tables = [] {
        auto p = scalex::data::loadPaperTables(scalex::test::sourcePath("datasets/paper"));
        EXPECT_TRUE(static_cast<bool>(p));
        return p ? *p : scalex::data::PaperTables{};
    }();
    return tables;
}

an::OptimalMethod paperMethod(Family f, double context, bool laws) {
    const auto& paper = paperTables();
    const auto* s = paper.lossSurface(f, 1e-3);
    EXPECT_NE(s, nullptr);
    an::OptimalMethod m;
    if (s) m.surface = {s->logA, s->logB, s->logE, s->alpha, s->beta, s->gamma};
    m.computePerToken = an::studyComputePerToken(paper.modelConfigs, f, context, scalex::accounting::studyConvention());
    if (laws) m.laws = an::paperOptimalLaws(paper, f, context);
    return m;
}
}  // namespace

TEST(OptimalAnalysis, PaperLawsReproduceTheAppendixTablesOfOptimalBudgets) {
    // Tab. estimated_optimal_flops_tokens_powerlaw: the budget and tokens at which each size is optimal.
    int checked = 0;
    for (const auto& row : paperTables().optimalConfigs) {
        if (row.sourceTable.find("context") != std::string::npos) continue;  // the main table (T = 8192)
        const an::OptimalMethod m = paperMethod(row.family, static_cast<double>(row.context), true);
        ASSERT_TRUE(m.laws) << row.sourceTable << " T = " << row.context;
        const auto o = an::solveOptimal(m, an::OptimalGiven::ModelSize, row.params);
        ASSERT_TRUE(o);
        // The tables were computed from unrounded coefficients; the published ones carry 2-3 digits.
        EXPECT_NEAR(o->budget / row.flops, 1.0, 0.05) << row.sourceTable << ' ' << row.paramsLabel;
        EXPECT_NEAR(o->tokens / row.tokens, 1.0, 0.05) << row.sourceTable << ' ' << row.paramsLabel;
        ++checked;
    }
    EXPECT_GE(checked, 10);
}

TEST(OptimalAnalysis, TheTwoMethodsAtOneE22AndWhereTheyAgree) {
    // At H = 1e22 and T = 8192 the IsoFLOP laws put the xLSTM optimum at a larger model than the
    // Transformer's (10.3B against 13.0B); the surfaces fitted on the token/param runs put both near 7B.
    const double H = 1e22;
    double lawN[2], surfaceN[2];
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const int k = f == Family::Xlstm;
        const an::MethodComparison c = an::compareMethods(paperMethod(f, 8192, false), paperMethod(f, 8192, true), H);
        lawN[k] = c.laws.params;
        surfaceN[k] = c.surface.params;
        EXPECT_NEAR(c.laws.budget, H, 1e-6 * H);
        // The laws' local exponent is their fitted a.
        EXPECT_NEAR(c.lawExponent, an::paperOptimalLaws(paperTables(), f, 8192)->exponentN, 1e-6);
        // The laws grow faster than the surface's optimum: they cross once, below 1e22.
        EXPECT_GT(c.lawExponent, c.surfaceExponent);
        ASSERT_TRUE(std::isfinite(c.agreeAtBudget));
        EXPECT_LT(c.agreeAtBudget, H);
        const auto surfaceThere = paperMethod(f, 8192, false).atBudget(c.agreeAtBudget);
        const auto lawsThere = paperMethod(f, 8192, true).atBudget(c.agreeAtBudget);
        EXPECT_NEAR(lawsThere.params / surfaceThere.params, 1.0, 1e-6);
    }
    EXPECT_NEAR(lawN[0] / 1e9, 10.3, 0.1);
    EXPECT_NEAR(lawN[1] / 1e9, 13.0, 0.1);
    EXPECT_NEAR(surfaceN[1] / surfaceN[0], 1.0, 0.05);
}

TEST(OptimalAnalysis, SurfaceExponentIsChinchillasForGammaOneAndSixN) {
    an::OptimalMethod m;
    m.surface = chinchillaLike();
    m.computePerToken = [](double n) { return 6 * n; };
    an::OptimalMethod laws = m;
    laws.laws = an::OptimalPowerLaws{0.1, 0.5, 1.0 / 0.6, 0.5};  // N = D / 16.7 along C = 6ND
    const auto c = an::compareMethods(m, laws, 1e21);
    EXPECT_NEAR(c.surfaceExponent, m.surface->beta / (m.surface->alpha + m.surface->beta), 1e-4);
    EXPECT_NEAR(c.lawExponent, 0.5, 1e-9);
}

TEST(OptimalAnalysis, LifetimeOptimumTradesModelSizeForInference) {
    an::OptimalMethod m;
    m.surface = chinchillaLike();
    m.computePerToken = [](double n) { return 6 * n; };
    const auto optimal = an::solveOptimal(m, an::OptimalGiven::Budget, 1e22);
    ASSERT_TRUE(optimal);
    // No inference: the compute-optimal model.
    const auto none = an::lifetimeOptimal(m, optimal->loss, 0);
    ASSERT_TRUE(none);
    EXPECT_NEAR(none->params / optimal->params, 1.0, 1e-4);
    EXPECT_NEAR(none->saving(), 0.0, 1e-8);
    EXPECT_NEAR(none->computeOptimal.budget / 1e22, 1.0, 1e-6);
    double previous = optimal->params;
    for (double inference : {1e11, 1e12, 1e13, 1e14}) {
        const auto o = an::lifetimeOptimal(m, optimal->loss, inference);
        ASSERT_TRUE(o) << inference;
        // More inference: a smaller model on more tokens, reaching the same loss.
        EXPECT_LT(o->params, previous) << inference;
        previous = o->params;
        EXPECT_NEAR(m.surface->loss(o->params, o->tokens), optimal->loss, 1e-9);
        EXPECT_GT(o->tokens, optimal->tokens);
        EXPECT_GT(o->saving(), 0.0);
        EXPECT_NEAR(o->inferenceCompute, inference * 2 * o->params, 1e-6 * o->inferenceCompute);
        // Stationary: 6D(N)·N + 2IN has zero slope in ln N at the optimum.
        auto total = [&](double n) { return 6 * n * *scalex::fit::tokensForLoss(*m.surface, n, optimal->loss) + 2 * inference * n; };
        EXPECT_GT(total(o->params * 1.01), o->total());
        EXPECT_GT(total(o->params / 1.01), o->total());
        EXPECT_NEAR(o->computeOptimalTotal, 1e22 + 2 * inference * optimal->params, 1e-6 * o->computeOptimalTotal);
    }
    // No model reaches a loss at or below E.
    EXPECT_FALSE(an::lifetimeOptimal(m, std::exp(m.surface->logE), 1e12));
}

TEST(OptimalAnalysis, ExactComputeOverSixNDGrowsWithContextForAttentionOnly) {
    const auto& paper = paperTables();
    const auto conv = scalex::accounting::studyConvention();
    for (double n : {4e8, 1.4e9, 7e9}) {
        const double t2k = an::computeOver6ND(an::studyComputePerToken(paper.modelConfigs, Family::Transformer, 2048, conv), n);
        const double t32k = an::computeOver6ND(an::studyComputePerToken(paper.modelConfigs, Family::Transformer, 32768, conv), n);
        const double x2k = an::computeOver6ND(an::studyComputePerToken(paper.modelConfigs, Family::Xlstm, 2048, conv), n);
        const double x32k = an::computeOver6ND(an::studyComputePerToken(paper.modelConfigs, Family::Xlstm, 32768, conv), n);
        EXPECT_GT(t32k, 1.3 * t2k) << n;        // attention grows with T
        EXPECT_LT(x32k, 1.1 * x2k) << n;        // the mLSTM's chunked cost hardly does
        EXPECT_GT(t2k, 0.95) << n;
        EXPECT_LT(t2k, 1.5) << n;
    }
    // The smooth count runs through the study's models: on average within 2 %, each within 15 %
    // (at T = 8192 attention is a large share, and models of one size but other depths differ by up to 12 %).
    double sumLog = 0;
    int count = 0;
    for (const auto& m : paper.modelConfigs) {
        const auto c = m.config();
        const double n = static_cast<double>(scalex::accounting::countParameters(c).total());
        const double ratio = an::studyComputePerToken(paper.modelConfigs, m.family, 8192, conv)(n) /
                             scalex::accounting::trainingFlopsPerToken(c, 8192, conv);
        EXPECT_NEAR(ratio, 1.0, 0.15) << m.sourceTable;
        sumLog += std::log(ratio), ++count;
    }
    ASSERT_GT(count, 20);
    EXPECT_NEAR(std::exp(sumLog / count), 1.0, 0.02);
}

TEST(OptimalAnalysis, ContextSweepMovesTheTransformerOptimumAndNotTheXlstms) {
    // The paper's Fig. 5 finding on its own surfaces: longer contexts make every Transformer token
    // dearer, so its N* at a fixed budget falls; the mLSTM's N* stays within a few percent.
    const auto& paper = paperTables();
    const auto conv = scalex::accounting::studyConvention();
    const std::vector<double> budgets{1e19, 1e21, 1e23};
    const std::vector<double> contexts{2048, 8192, 32768};
    double change[2];
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const an::OptimalMethod m = paperMethod(f, 8192, false);
        const auto cAt = [&](double t) { return an::studyComputePerToken(paper.modelConfigs, f, t, conv); };
        const an::ContextSweep sweep = an::contextSweep(*m.surface, cAt, 32768, 1e22, budgets, contexts);
        ASSERT_EQ(sweep.atContext.size(), budgets.size());
        ASSERT_EQ(sweep.atReference.size(), budgets.size());
        ASSERT_EQ(sweep.trend.size(), contexts.size());
        // Each point is the optimum on its own iso-FLOP line.
        for (std::size_t i = 0; i < budgets.size(); ++i) {
            EXPECT_NEAR(sweep.atContext[i].budget / budgets[i], 1.0, 1e-9);
            EXPECT_NEAR(sweep.atReference[i].params / m.atBudget(budgets[i]).params, 1.0, 1e-6);
        }
        EXPECT_NEAR(sweep.here.params / sweep.trend.back().params, 1.0, 1e-9);  // T = 32768 is the last context
        EXPECT_NEAR(sweep.trend[1].params / m.atBudget(1e22).params, 1.0, 1e-6);  // 8192
        change[f == Family::Xlstm] = sweep.trend.back().params / sweep.trend.front().params;
        // At the reference context itself there is nothing to compare with.
        EXPECT_TRUE(an::contextSweep(*m.surface, cAt, 8192, 1e22, budgets, contexts).atReference.empty());
    }
    EXPECT_LT(change[0], 0.92);  // 12 % smaller from 2k to 32k tokens
    EXPECT_LT(change[0], change[1] - 0.05);
    EXPECT_NEAR(change[1], 1.0, 0.06);
}

TEST(OptimalAnalysis, OverTrainedModelsReachTheOptimumsLossOnMoreTokens) {
    an::OptimalMethod m;
    m.surface = chinchillaLike();
    m.computePerToken = [](double n) { return 6 * n; };
    const auto optimal = an::solveOptimal(m, an::OptimalGiven::Budget, 1e22);
    ASSERT_TRUE(optimal);
    const auto half = an::overTrained(m, *optimal, 0.5);
    ASSERT_TRUE(half);
    EXPECT_NEAR(half->params, 0.5 * optimal->params, 1e-6 * optimal->params);
    EXPECT_NEAR(m.surface->loss(half->params, half->tokens), optimal->loss, 1e-9);
    EXPECT_GT(half->extraCompute, 1.0);
    // A fraction outside (0, 1) is no over-training.
    EXPECT_FALSE(an::overTrained(m, *optimal, 1.0));
    EXPECT_FALSE(an::overTrained(m, *optimal, 0.0));
}

#include "core/analysis/SeriesAnalyses.h"

TEST(SurfaceGuides, IsoFlopLinesAndTheOptimalPathStayInTheirBox) {
    const LossSurfaceParams p = chinchillaLike();
    const PowerLaw sixN{6.0, 1.0};
    const double nLo = 1e8, nHi = 1e10, dLo = 1e9, dHi = 1e12;
    const std::vector<double> budgets{1e16, 1e19, 1e20, 1e21, 1e25};  // 1e16 and 1e25 miss the box
    const an::SurfaceGuides g = an::surfaceGuides(p, sixN, budgets, nLo, nHi, dLo, dHi);
    ASSERT_EQ(g.isoFlopLines.size(), 3u);
    EXPECT_EQ(g.isoFlopLines.front().budget, 1e19);
    for (const auto& line : g.isoFlopLines)
        for (const auto& [n, d] : line.points) {
            EXPECT_NEAR(6 * n * d / line.budget, 1.0, 1e-12);
            EXPECT_TRUE(n >= nLo && n <= nHi && d >= dLo && d <= dHi);
        }
    ASSERT_GT(g.optimalPath.size(), 10u);
    for (const auto& [n, d] : g.optimalPath) {
        const OptimalPoint o = computeOptimal(p, [](double x) { return 6 * x; }, 6 * n * d, nLo, nHi);
        EXPECT_NEAR(o.params / n, 1.0, 1e-6);  // the golden-section search's tolerance
        EXPECT_TRUE(n > nLo && n < nHi && d >= dLo && d <= dHi);
    }
    // Budgets ascend along the path.
    for (std::size_t i = 1; i < g.optimalPath.size(); ++i)
        EXPECT_GT(g.optimalPath[i].first * g.optimalPath[i].second, g.optimalPath[i - 1].first * g.optimalPath[i - 1].second);
    EXPECT_TRUE(an::surfaceGuides(p, sixN, budgets, nHi, nLo, dLo, dHi).optimalPath.empty());  // an empty box
}

namespace {
std::vector<an::OptimalSeriesInput> paperInputs(double context) {
    std::vector<an::OptimalSeriesInput> inputs;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const an::OptimalMethod m = paperMethod(f, context, true);
        an::OptimalSeriesInput in;
        in.name = scalex::accounting::familyLabel(f);
        in.family = f;
        in.surface = m.surface;
        in.computePerToken = m.computePerToken;
        in.referencePerToken = paperMethod(f, 2048, false).computePerToken;
        in.laws = m.laws;
        in.paper = true;
        inputs.push_back(in);
    }
    return inputs;
}
}  // namespace

// The calculator's whole answer in one call: every number it shows is the one the single
// analyses give, and its tables carry them.
TEST(OptimalAnalysis, OneQueryAnswersWhatTheCalculatorShows) {
    an::OptimalQuery query;
    query.given = an::OptimalGiven::Budget;
    query.value = 1e22;
    query.context = 8192;
    query.useLaws = true;
    query.overtrainFraction = 0.5;
    query.inferenceTokens = 1e13;
    const auto inputs = paperInputs(8192);
    const an::OptimalAnswer answer = an::answerOptimalQuery(inputs, query);
    ASSERT_TRUE(answer.problem.empty()) << answer.problem;
    ASSERT_EQ(answer.series.size(), 2u);
    EXPECT_EQ(answer.query.budgets.size(), 29u);
    for (const auto& a : answer.series) {
        SCOPED_TRACE(a.name);
        const an::OptimalMethod laws = paperMethod(*a.family, 8192, true), surface = paperMethod(*a.family, 8192, false);
        const auto o = an::solveOptimal(laws, an::OptimalGiven::Budget, 1e22);
        EXPECT_DOUBLE_EQ(a.optimum.params, o->params);
        // At 1e22 the IsoFLOP laws give 10.3B (Transformer) and 13.0B (xLSTM).
        EXPECT_NEAR(a.optimum.params / 1e9, *a.family == Family::Xlstm ? 13.0 : 10.3, 0.1);
        ASSERT_TRUE(a.comparison);
        EXPECT_DOUBLE_EQ(a.comparison->surface.params, surface.atBudget(1e22).params);
        ASSERT_TRUE(a.surfaceAtBudget);
        EXPECT_DOUBLE_EQ(a.surfaceAtBudget->params, a.comparison->surface.params);
        ASSERT_TRUE(a.overtrained);
        EXPECT_NEAR(a.overtrained->params, 0.5 * a.optimum.params, 1e-6 * a.optimum.params);
        ASSERT_TRUE(a.lifetime);
        EXPECT_LT(a.lifetime->params, a.optimum.params);
        ASSERT_EQ(a.sizes.size(), query.sizes.size());
        for (std::size_t i = 0; i < query.sizes.size(); ++i)
            EXPECT_DOUBLE_EQ(a.sizes[i]->budget, an::solveOptimal(laws, an::OptimalGiven::ModelSize, query.sizes[i])->budget);
        ASSERT_EQ(a.path.size(), 29u);
        ASSERT_EQ(a.otherPath.size(), 29u);
        EXPECT_DOUBLE_EQ(a.otherPath[8].params, surface.atBudget(answer.query.budgets[8]).params);  // 1e20
        EXPECT_NEAR(a.optimumComputeRatio, an::computeOver6ND(laws.computePerToken, a.optimum.params), 1e-12);
    }
    // The tables hold the same numbers.
    const auto sizes = an::optimalSizesTable(answer, "");
    ASSERT_EQ(sizes.rows.size(), query.sizes.size());
    ASSERT_EQ(sizes.columns.size(), 7u);
    EXPECT_EQ(sizes.columns[4].key, "xlstm_flops");
    EXPECT_DOUBLE_EQ(std::get<double>(sizes.rows[4][4]), answer.series[1].sizes[4]->budget);
    const auto asked = an::optimalQueryTable(answer, "a training budget", "");
    EXPECT_EQ(asked.rows.size(), 6u) << "the optima, the models at 50 % of N* and the lifetime optima";
    EXPECT_NE(std::get<std::string>(asked.rows[2][0]).find("at 50 % of N*"), std::string::npos);
    EXPECT_EQ(an::optimalMethodsTable(answer, "").rows.size(), 2u);
}

TEST(OptimalAnalysis, OneQuerySaysWhyItHasNoNumbers) {
    an::OptimalQuery query;
    query.context = 32768;
    query.useLaws = true;
    const auto none = an::answerOptimalQuery(paperInputs(32768), query);
    EXPECT_TRUE(none.series.empty());
    EXPECT_NE(none.problem.find("none at T = 32768"), std::string::npos) << none.problem;
    EXPECT_NE(an::optimalSizesTable(none, none.problem).caption.find("No values: The paper has IsoFLOP power laws"), std::string::npos);
    // The loss surface answers at any context; the other method's curve is then left out.
    query.useLaws = false;
    const auto surface = an::answerOptimalQuery(paperInputs(32768), query);
    ASSERT_EQ(surface.series.size(), 2u);
    EXPECT_FALSE(surface.series[0].comparison);
    EXPECT_TRUE(surface.series[0].otherPath.empty());
    // A loss below a surface's irreducible loss.
    query.given = an::OptimalGiven::TargetLoss;
    query.value = 1.0;
    const auto floor = an::answerOptimalQuery(paperInputs(8192), query);
    EXPECT_TRUE(floor.series.empty());
    EXPECT_NE(floor.problem.find("Transformer cannot reach a loss of 1: its irreducible loss E is"), std::string::npos) << floor.problem;
    // Cancelled: nothing, and no problem either.
    std::atomic<bool> cancel{true};
    scalex::fit::FitControl control;
    control.cancel = &cancel;
    query.given = an::OptimalGiven::Budget;
    query.value = 1e22;
    const auto cancelled = an::answerOptimalQuery(paperInputs(8192), query, control);
    EXPECT_TRUE(cancelled.series.empty());
    EXPECT_TRUE(cancelled.problem.empty());
}

// The context-length view's analysis on the study's own IsoFLOP runs: recounted at a longer
// context, every Transformer profile needs more compute for the same N*, the law through them
// moves, and the xLSTM's barely; profiles handed back give the same answer without a refit.
TEST(ContextAnalysis, RecountsTheStudysProfilesAndMovesOnlyTheTransformer) {
    SCALEX_REQUIRE_SHARED();
    auto loaded = scalex::data::loadRunTable(scalex::test::sharedPath("data/xlstm/runs_isoflop_llama_ctx8192.csv").toStdString());
    ASSERT_TRUE(loaded) << loaded.error().toString();
    auto mlstm = scalex::data::loadRunTable(scalex::test::sharedPath("data/xlstm/runs_isoflop_mlstm_ctx16384.csv").toStdString());
    ASSERT_TRUE(mlstm) << mlstm.error().toString();
    scalex::data::RunTable table = *loaded;
    table.runs.insert(table.runs.end(), mlstm->runs.begin(), mlstm->runs.end());
    const auto& paper = paperTables();
    std::vector<an::ContextSeriesInput> inputs;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        an::ContextSeriesInput in;
        in.name = scalex::accounting::familyLabel(f);
        in.family = f;
        in.surface = *paperMethod(f, 8192, false).surface;
        in.isoFlopRuns.family = f;
        inputs.push_back(in);
    }
    an::ContextQuery query;
    query.configs = paper.modelConfigs;
    query.convention = scalex::accounting::studyConvention();
    query.budget = 1e22;
    query.contexts = {2048, 8192, 32768};
    const an::AnalysisSettings settings;
    query.context = 8192;
    const an::ContextAnswer at8k = an::answerContextQuery(table, settings, inputs, query);
    query.context = 32768;
    const an::ContextAnswer at32k = an::answerContextQuery(table, settings, inputs, query);
    ASSERT_EQ(at8k.series.size(), 2u);
    ASSERT_EQ(at32k.series.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
        const auto& a = at8k.series[k];
        const auto& b = at32k.series[k];
        SCOPED_TRACE(a.name);
        ASSERT_GE(a.profiles.size(), 3u);
        ASSERT_EQ(a.recount.budgets.size(), a.profiles.size());
        ASSERT_TRUE(a.recount.law);
        ASSERT_TRUE(b.recount.law);
        // The same runs, the same N*, recounted: more compute per Transformer profile at 32k, about
        // the same for the xLSTM's.
        EXPECT_EQ(a.recount.optima, b.recount.optima);
        for (std::size_t i = 0; i < a.recount.budgets.size(); ++i)
            if (a.family == Family::Transformer) EXPECT_GT(b.recount.budgets[i], 1.1 * a.recount.budgets[i]);
            else EXPECT_NEAR(b.recount.budgets[i] / a.recount.budgets[i], 1.0, 0.03);
        // The sweep: N* at 1e22 over the contexts, its point at T the trend's.
        ASSERT_EQ(a.sweep.trend.size(), 3u);
        EXPECT_DOUBLE_EQ(a.sweep.here.params, a.sweep.trend[1].params);
        EXPECT_DOUBLE_EQ(b.sweep.here.params, b.sweep.trend[2].params);
    }
    const double transformerShift = at32k.series[0].sweep.here.params / at8k.series[0].sweep.here.params;
    const double xlstmShift = at32k.series[1].sweep.here.params / at8k.series[1].sweep.here.params;
    EXPECT_LT(transformerShift, 0.9) << "attention FLOPs grow with T: a smaller Transformer";
    EXPECT_NEAR(xlstmShift, 1.0, 0.03) << "the mLSTM's do not";
    // Profiles handed back: the same answer from no runs at all.
    for (std::size_t k = 0; k < 2; ++k) inputs[k].profiles = at32k.series[k].profiles;
    const an::ContextAnswer again = an::answerContextQuery(scalex::data::RunTable{}, settings, inputs, query);
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(again.series[k].recount.budgets, at32k.series[k].recount.budgets);
        EXPECT_DOUBLE_EQ(again.series[k].recount.law->exponent, at32k.series[k].recount.law->exponent);
    }
    // The export table: a row per context of the trend.
    const auto t = an::contextOptimaTable(at32k);
    ASSERT_EQ(t.rows.size(), 3u);
    EXPECT_EQ(t.columns[1].key, "transformer_n_opt");
    EXPECT_DOUBLE_EQ(std::get<double>(t.rows[2][1]), at32k.series[0].sweep.here.params);
}

// The IsoFLOP view's analysis in one call, on the study's IsoFLOP runs at two context lengths:
// the pair it compares, each series at its own context with the study's law, every context
// fitted apart, the other series first when asked, and nothing when cancelled.
TEST(IsoFlopQuery, OneQueryAnswersWhatTheViewShows) {
    SCALEX_REQUIRE_SHARED();
    scalex::data::RunTable table;
    for (const char* name : {"data/xlstm/runs_isoflop_llama_ctx8192.csv", "data/xlstm/runs_isoflop_mlstm_ctx16384.csv",
                             "data/xlstm/runs_isoflop_llama_ctx2048.csv"}) {
        auto loaded = scalex::data::loadRunTable(scalex::test::sharedPath(name).toStdString());
        ASSERT_TRUE(loaded) << loaded.error().toString();
        table.runs.insert(table.runs.end(), loaded->runs.begin(), loaded->runs.end());
    }
    std::vector<std::string> series;
    for (const auto& r : table.runs)
        if (std::find(series.begin(), series.end(), r.series) == series.end()) series.push_back(r.series);
    const an::AnalysisSettings settings;
    an::IsoFlopQuery query;
    query.series = series;
    query.both = true;
    query.fitMin = 5e18;
    query.fitMax = 2e20;
    const an::IsoFlopAnswer both = an::answerIsoFlopQuery(table, settings, paperTables(), query);
    EXPECT_FALSE(both.cancelled);
    EXPECT_TRUE(both.setsNamed);
    EXPECT_EQ(both.seriesWithRuns.size(), 2u);
    EXPECT_EQ(both.pair[0], "transformer");
    EXPECT_EQ(both.pair[1], "xlstm");
    ASSERT_EQ(both.fits.size(), 2u);
    const an::IsoFlopSeriesFit& transformer = both.fits[0];
    EXPECT_EQ(transformer.context, 8192) << "the Transformer's preferred context: the paper's";
    EXPECT_EQ(both.fits[1].context, 16384);
    // reference/isoflop_powerlaw_fits.csv, llama ctx 8192, budgets 5e18 to 2e20: a = 0.574909.
    ASSERT_TRUE(transformer.analysis.result.nOptLaw);
    EXPECT_NEAR(transformer.analysis.result.nOptLaw->exponent, 0.5749087, 1e-5);
    ASSERT_TRUE(transformer.paperLaw);
    // The same numbers as the analysis the verbs run for that group.
    an::RunFilter filter = an::isoFlopSeriesFilter(query, both.setsNamed, "transformer");
    filter.context = 8192;
    scalex::fit::IsoFlopSettings base;
    base.fitMin = 5e18;
    base.fitMax = 2e20;
    const auto direct = an::isoFlopAnalysis(table, settings, {"transformer", 8192, filter}, base);
    EXPECT_DOUBLE_EQ(direct.result.nOptLaw->exponent, transformer.analysis.result.nOptLaw->exponent);
    EXPECT_EQ(direct.runs, transformer.analysis.runs);
    // Every context length of either series, each fitted apart, the pair in the same order.
    ASSERT_EQ(both.contexts.size(), 3u);
    EXPECT_EQ(both.contexts[0].context, 2048);
    EXPECT_EQ(both.contexts[2].context, 16384);
    for (const auto& at : both.contexts) {
        ASSERT_EQ(at.fits.size(), 2u);
        EXPECT_EQ(at.fits[0].series, "transformer");
        EXPECT_EQ(at.fits[0].context, at.context);
    }
    EXPECT_TRUE(both.contexts[0].fits[1].analysis.runs.empty()) << "no xLSTM runs at 2048";
    EXPECT_DOUBLE_EQ(both.contexts[1].fits[0].analysis.result.nOptLaw->exponent, transformer.analysis.result.nOptLaw->exponent);
    // The export tables read the answer: a law per series and quantity, the per-context laws.
    const auto laws = an::isoFlopLawTable(an::isoFlopShown(both, {}));
    EXPECT_EQ(laws.rows.size(), 4u);
    const auto contexts = an::isoFlopContextTable(an::isoFlopShownPerContext(both));
    EXPECT_GE(contexts.rows.size(), 6u);
    // One series asked for: it comes first, the other of the pair second.
    query.both = false;
    query.shown = "xlstm";
    query.everyContext = false;
    const an::IsoFlopAnswer one = an::answerIsoFlopQuery(table, settings, paperTables(), query);
    ASSERT_EQ(one.fits.size(), 2u);
    EXPECT_EQ(one.fits[0].series, "xlstm");
    EXPECT_EQ(one.fits[1].series, "transformer");
    EXPECT_TRUE(one.contexts.empty());
    // A series without runs falls back to the first with runs.
    query.shown = "absent";
    EXPECT_EQ(an::answerIsoFlopQuery(table, settings, paperTables(), query).fits.at(0).series, both.seriesWithRuns.front());
    std::atomic<bool> cancel{true};
    scalex::fit::FitControl control;
    control.cancel = &cancel;
    const an::IsoFlopAnswer cancelled = an::answerIsoFlopQuery(table, settings, paperTables(), query, control);
    EXPECT_TRUE(cancelled.cancelled);
    EXPECT_TRUE(cancelled.fits.empty());
}

// ---- the compute-optimal query of a study: its own series, the paper's models on request ----

#include "core/analysis/OptimalInputs.h"
#include "core/analysis/Study.h"
#include "core/data/ExampleProject.h"
#include "tests/support/LabStudy.h"

namespace {
// The labs' study (tests/support/LabStudy.h) with lab-c (one budget: no law) and lab-d (five runs
// of one budget: no law and too few runs for an L(N,D) fit).
an::Study labStudy() {
    std::string csv = scalex::test::labStudyCsv(true);
    for (int k = -2; k <= 2; ++k)
        csv += "lab-d," + std::to_string(2e8 * std::pow(10.0, 0.2 * k)) + "," + std::to_string(1e19 / (6 * 2e8 * std::pow(10.0, 0.2 * k))) +
               ",1e19," + std::to_string(2.5 + 0.08 * 0.04 * k * k) + "\n";
    auto table = scalex::data::parseRunTable(QByteArray::fromStdString(csv), "labs.csv");
    EXPECT_TRUE(table) << table.error().toString();
    an::Study study;
    if (table) study.addRuns(std::move(*table), "labs.csv");
    return study;
}

an::OptimalQuery queryAt(double budget, bool laws) {
    an::OptimalQuery q;
    q.value = budget;
    q.useLaws = laws;
    // Every other value of each axis of the paper's grid of starts (the loss-surface view's quick
    // grid): these tests are about which series answer, not about the fit's last digit.
    auto everyOther = [](const std::vector<double>& axis) {
        std::vector<double> out;
        for (std::size_t i = 0; i < axis.size(); i += 2) out.push_back(axis[i]);
        return out;
    };
    scalex::fit::InitGrid& g = q.surfaceFit.grid;
    g = {everyOther(g.logA), everyOther(g.logB), everyOther(g.logE), everyOther(g.alpha), everyOther(g.beta), everyOther(g.gamma)};
    return q;
}
}  // namespace

TEST(OptimalStudy, EachSeriesAnswersFromItsOwnRunsOrSaysWhyNot) {
    const an::Study study = labStudy();
    EXPECT_FALSE(study.isPaperStudy());
    an::OptimalQuery query = queryAt(1e21, true);
    // The series' inputs once (their L(N,D) fits take a second), answered by both methods.
    const auto inputs = an::optimalInputs(study.runs(), study.settings(), paperTables(), query);
    const an::OptimalAnswer answer = an::answerOptimalQuery(inputs, query);
    ASSERT_TRUE(answer.problem.empty()) << answer.problem;
    ASSERT_EQ(answer.series.size(), 4u);
    for (std::size_t k = 0; k < 2; ++k) {
        const auto& drawn = scalex::test::kLabSeries[k];
        const an::OptimalSeriesAnswer& a = answer.series[k];
        SCOPED_TRACE(a.name);
        EXPECT_EQ(a.name, drawn.name);
        EXPECT_FALSE(a.paper);
        EXPECT_FALSE(a.family);
        ASSERT_TRUE(a.answered()) << a.problem;
        ASSERT_TRUE(a.laws && a.intervals);
        EXPECT_EQ(a.intervals->resamples, 200);
        EXPECT_LT(a.intervals->exponentN.lower, drawn.exponent);
        EXPECT_GT(a.intervals->exponentN.upper, drawn.exponent);
        EXPECT_DOUBLE_EQ(a.intervals->exponentN.estimate, a.laws->exponentN);
        // N* by the laws at the budget, inside its interval; the loss read off the series' own surface.
        EXPECT_DOUBLE_EQ(a.optimum.params, a.laws->coefN * std::pow(1e21, a.laws->exponentN));
        EXPECT_LT(a.intervals->params.lower, a.optimum.params);
        EXPECT_GT(a.intervals->params.upper, a.optimum.params);
        EXPECT_NEAR(a.optimum.params / (drawn.coefficient * std::pow(1e21, drawn.exponent)), 1.0, 0.1);
        EXPECT_TRUE(std::isfinite(a.optimum.loss));
        ASSERT_TRUE(a.comparison && a.surfaceAtBudget && a.lawsAtBudget);
        EXPECT_EQ(a.path.size(), answer.query.budgets.size());
        EXPECT_EQ(a.sizes.size(), answer.query.sizes.size());
    }
    // lab-c: a profile at one budget, no law; nor a surface: its nine runs lie on one line in
    // (N, D), where N and D move together.
    const an::OptimalSeriesAnswer& c = answer.series[2];
    EXPECT_FALSE(c.answered());
    EXPECT_EQ(c.problem, "lab-c: no IsoFLOP law N*(H) = A'·H^a: its runs give a profile at 1 budget; a law needs two.");
    EXPECT_TRUE(c.path.empty());
    EXPECT_FALSE(c.surfaceAtBudget);
    EXPECT_FALSE(c.lawsAtBudget);
    // lab-d: five runs, neither method.
    const an::OptimalSeriesAnswer& d = answer.series[3];
    EXPECT_FALSE(d.answered());
    EXPECT_NE(d.surfaceProblem.find("lab-d: 5 runs with N, D and loss; the L(N,D) fit needs at least 6"), std::string::npos) << d.surfaceProblem;
    // By the surfaces: lab-c and lab-d have none, and say why.
    const an::OptimalAnswer bySurface = an::answerOptimalQuery(inputs, queryAt(1e21, false));
    ASSERT_EQ(bySurface.series.size(), 4u);
    for (std::size_t k = 0; k < 2; ++k) EXPECT_TRUE(bySurface.series[k].answered()) << bySurface.series[k].problem;
    EXPECT_FALSE(bySurface.series[2].answered());
    EXPECT_NE(bySurface.series[2].problem.find("lie on one line in (N, D)"), std::string::npos) << bySurface.series[2].problem;
    EXPECT_EQ(bySurface.series[3].problem, d.surfaceProblem);

    // The tables: numbers for the series that answer, the reason in the row of the others.
    const auto table = an::optimalQueryTable(answer, "a training budget", "");
    ASSERT_EQ(table.rows.size(), 4u);
    ASSERT_EQ(table.columns.back().key, "note");
    EXPECT_EQ(table.columns[6].key, "n_opt_low");
    EXPECT_DOUBLE_EQ(std::get<double>(table.rows[0][1]), answer.series[0].optimum.params);
    EXPECT_DOUBLE_EQ(std::get<double>(table.rows[1][6]), answer.series[1].intervals->params.lower);
    EXPECT_EQ(std::get<std::string>(table.rows[2].back()), c.problem);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(table.rows[2][1]));
    const auto sizes = an::optimalSizesTable(answer, "");
    EXPECT_EQ(sizes.columns[1].key, "lab_a_flops");
    EXPECT_NE(sizes.caption.find("No values for lab-c: no IsoFLOP law"), std::string::npos) << sizes.caption;
    EXPECT_EQ(sizes.caption.find("context length"), std::string::npos) << "no paper's model, no context of its FLOP count";
    const auto methods = an::optimalMethodsTable(answer, "");
    ASSERT_EQ(methods.rows.size(), 2u) << "lab-a, lab-b both methods; lab-c neither";

    // The paper's models on request: beside the series, named as the paper's, with the paper's numbers.
    query.paperModels = true;
    auto withPaperInputs = inputs;
    for (auto& in : an::optimalInputs(scalex::data::RunTable{}, study.settings(), paperTables(), query)) withPaperInputs.push_back(in);
    const an::OptimalAnswer withPaper = an::answerOptimalQuery(withPaperInputs, query);
    ASSERT_EQ(withPaper.series.size(), 6u);
    const an::OptimalAnswer paperAlone = an::answerOptimalQuery(paperInputs(8192), query);
    for (std::size_t k = 0; k < 2; ++k) {
        const auto& a = withPaper.series[4 + k];
        EXPECT_EQ(a.name, paperAlone.series[k].name + " (paper)");
        EXPECT_TRUE(a.paper);
        EXPECT_DOUBLE_EQ(a.optimum.params, paperAlone.series[k].optimum.params);
        EXPECT_FALSE(a.intervals);
    }
}

TEST(OptimalStudy, ThePapersStudyIsAnsweredByThePapersModels) {
    an::Study study;
    study.setProject(scalex::data::makeExampleProject(paperTables()));
    ASSERT_TRUE(study.isPaperStudy());
    an::OptimalQuery query = queryAt(1e22, false);
    query.paperStudy = true;
    query.paperModels = true;
    const auto inputs = an::optimalInputs(study.runs(), study.settings(), paperTables(), query);
    ASSERT_EQ(inputs.size(), 2u) << "the paper's models stand for its Transformer and xLSTM series";
    const an::OptimalAnswer answer = an::answerOptimalQuery(inputs, query);
    const an::OptimalAnswer paper = an::answerOptimalQuery(paperInputs(8192), query);
    ASSERT_EQ(answer.series.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
        EXPECT_EQ(answer.series[k].name, paper.series[k].name);
        EXPECT_EQ(answer.series[k].series, k == 0 ? "transformer" : "xlstm");
        EXPECT_DOUBLE_EQ(answer.series[k].optimum.params, paper.series[k].optimum.params);
        EXPECT_DOUBLE_EQ(answer.series[k].comparison->laws.params, paper.series[k].comparison->laws.params);
    }
    // Without them: the study's own series, each from its runs (IsoFLOP laws at every context of its IsoFLOP runs).
    query.paperModels = false;
    query.fitSurfaces = false;
    const auto own = an::optimalInputs(study.runs(), study.settings(), paperTables(), query);
    ASSERT_GE(own.size(), 2u);
    for (const auto& in : own) {
        EXPECT_FALSE(in.paper);
        EXPECT_TRUE(in.series == "transformer" || in.series == "xlstm") << in.series;
    }
    EXPECT_TRUE(std::any_of(own.begin(), own.end(), [](const auto& in) { return in.laws.has_value(); }));
}

TEST(OptimalStudy, SurfacesFittedAfterTheLawsGiveTheSameAnswer) {
    const an::Study study = labStudy();
    // A Huber δ no other test fits with: no fit of these runs is kept yet (SurfaceFits.h).
    an::AnalysisSettings settings = study.settings();
    settings.huberDelta = 2e-3;
    an::OptimalQuery query = queryAt(1e21, false);
    query.fitSurfaces = false;
    auto inputs = an::optimalInputs(study.runs(), settings, paperTables(), query);
    // First the laws: the surfaces wait, which is no problem; lab-d's is known to be impossible at once.
    const an::OptimalAnswer first = an::answerOptimalQuery(inputs, query);
    EXPECT_TRUE(first.problem.empty());
    EXPECT_TRUE(first.pending());
    EXPECT_TRUE(first.series[0].pending);
    EXPECT_TRUE(first.series[0].lawsAtBudget) << "the IsoFLOP laws answer meanwhile";
    EXPECT_FALSE(first.series[3].pending);
    an::fitOptimalSurfaces(inputs, study.runs(), settings, query);
    const an::OptimalAnswer later = an::answerOptimalQuery(inputs, query);
    EXPECT_FALSE(later.pending());
    // The fits are the loss-surface analyses of the series' runs, and answer as fitting at once does.
    const auto groups = an::seriesGroups(study.runs(), settings);
    ASSERT_FALSE(groups.empty());
    ASSERT_EQ(inputs[0].series, groups[0].series);
    const an::LossSurfaceAnalysis direct =
        an::lossSurfaceAnalysis(study.runs(), settings, an::studySet(study.runs(), groups[0], scalex::data::ExperimentSet::TokenParam),
                                an::lossSurfaceSettings(settings, query.surfaceFit));
    ASSERT_TRUE(inputs[0].surface);
    EXPECT_EQ(inputs[0].surface->asArray(), direct.fit.best.asArray());
    query.fitSurfaces = true;
    const an::OptimalAnswer once = an::answerOptimalQuery(study.runs(), settings, paperTables(), query);
    query.fitSurfaces = false;
    ASSERT_EQ(later.series.size(), once.series.size());
    for (std::size_t k = 0; k < once.series.size(); ++k) {
        EXPECT_EQ(later.series[k].problem, once.series[k].problem);
        EXPECT_DOUBLE_EQ(later.series[k].optimum.params, once.series[k].optimum.params);
        EXPECT_DOUBLE_EQ(later.series[k].optimum.loss, once.series[k].optimum.loss);
    }
    // Another query of the same runs takes those fits: nothing left to fit, the same surfaces.
    query.value = 3e21;
    const auto again = an::optimalInputs(study.runs(), settings, paperTables(), query);
    ASSERT_EQ(again.size(), inputs.size());
    for (std::size_t k = 0; k < again.size(); ++k) {
        EXPECT_FALSE(again[k].surfacePending);
        EXPECT_EQ(again[k].surface.has_value(), inputs[k].surface.has_value());
        if (again[k].surface) EXPECT_EQ(again[k].surface->asArray(), inputs[k].surface->asArray());
        EXPECT_EQ(again[k].surfaceProblem, inputs[k].surfaceProblem);
    }
}

// Model ladders (core/accounting/ModelLadder.h): c_T(N) of any architecture.
#include "core/accounting/ModelLadder.h"
#include "core/accounting/SpecAccounting.h"

namespace {
namespace acc = scalex::accounting;

// A Llama-style ladder base: d 2048, 16 layers of 16 heads of 128, FFN 5504, the study's vocabulary.
acc::ModelSpec llamaBase(std::int64_t kvHeads) {
    acc::ModelSpec s = acc::fromPaperConfig(acc::makeStudyConfig(Family::Transformer, 2048, 16, 16, {.nKvHeads = kvHeads, .dFf = 5504}));
    s.name = kvHeads == 16 ? "mha" : "gqa";
    return s;
}
}  // namespace

TEST(ModelLadder, ThePapersArchitecturesAsLaddersAreTheirExactCounts) {
    // Every rung of the paper's ladders is a spec whose count is the appendix count of its
    // configuration, so c_T(N) is the study's, number for number.
    const auto& paper = paperTables();
    const auto conv = scalex::accounting::studyConvention();
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const acc::ModelLadder ladder = an::paperLadder(paper.modelConfigs, f);
        std::vector<acc::ModelConfig> configs;
        for (const auto& m : paper.modelConfigs)
            if (m.family == f) configs.push_back(m.config());
        for (std::int64_t d : {5120, 6144, 8192, 12288, 16384})
            configs.push_back(acc::makeStudyConfig(f, d, d / 128, f == Family::Transformer ? d / 128 : d / 512));
        ASSERT_EQ(ladder.rungs.size(), configs.size());
        for (std::size_t i = 0; i < configs.size(); ++i)
            for (double T : {2048.0, 8192.0, 32768.0}) {
                EXPECT_EQ(acc::paramCounts(ladder.rungs[i]).activeTotal(), acc::countParameters(configs[i]).total());
                EXPECT_EQ(acc::trainingFlopsPerToken(ladder.rungs[i], T, conv), acc::trainingFlopsPerToken(configs[i], T, conv));
            }
    }
}

TEST(ModelLadder, ScalingASpecKeepsItsShapeAndGrowsItsWidth) {
    const acc::ModelSpec base = llamaBase(4);
    EXPECT_TRUE(acc::scaleSpec(base, 2048) == base);
    const acc::ModelSpec big = acc::scaleSpec(base, 4096);
    EXPECT_EQ(big.layers.size(), 32u);  // d / n_layers = 128 kept
    EXPECT_EQ(big.attention.nHeads, 32);
    EXPECT_EQ(big.attention.nKvHeads, 8);  // 4 query heads per key/value head kept
    EXPECT_EQ(big.attention.dQk, 128);
    EXPECT_EQ(big.feedForward.width, 11008);  // 5504 x 2, a multiple of 64
    EXPECT_EQ(big.vocab, base.vocab);
    // A hybrid's pattern is stretched: 1 attention in 4 stays 1 in 4.
    acc::ModelSpec hybrid = acc::fromPaperConfig(acc::makeStudyConfig(Family::Xlstm, 1024, 8, 4));
    hybrid.attention = {.nHeads = 8, .nKvHeads = 8, .dQk = 128, .dV = 128};
    for (std::size_t i = 3; i < 8; i += 4) hybrid.layers[i].mixer = acc::MixerKind::Attention;
    const acc::ModelSpec wide = acc::scaleSpec(hybrid, 2048);
    EXPECT_EQ(wide.layerCount(acc::MixerKind::Attention), 4);
    EXPECT_EQ(wide.layerCount(acc::MixerKind::Mlstm), 12);
    EXPECT_EQ(wide.mlstm.nHeads, 8);
    EXPECT_FALSE(acc::validate(wide).has_value());
    for (const auto& rung : acc::specLadder(base).rungs) EXPECT_FALSE(acc::validate(rung).has_value()) << rung.name;
}

TEST(ModelLadder, GroupedQueryAttentionGrowsWithContextAsMultiHeadDoesPerWidthAndMorePerParameter) {
    // Attention's cost over the keys is per query head (Tab. flop_counts_attention); fewer key/value
    // heads save projection weights, not the T-dependent part. At the width of the base, 16 layers x
    // 16 heads x 2 F_causal T (d_qk + d_v + F_softmax / 2), three times for training, from T = 2048
    // to 32768: 3 x 256 x 30720 x 258.5 = 6,098,780,160 FLOPs per token for both.
    const auto conv = scalex::accounting::studyConvention();
    const acc::ModelSpec mha = llamaBase(16), gqa = llamaBase(4);
    for (const auto& s : {mha, gqa})
        EXPECT_DOUBLE_EQ(acc::trainingFlopsPerToken(s, 32768, conv) - acc::trainingFlopsPerToken(s, 2048, conv), 6098780160.0);
    // Per parameter the GQA model is wider and deeper (its attention is 2.5 d^2 a layer, not 4 d^2),
    // so its c_T(N) grows more with T than the MHA model's of the same N.
    const auto growth = [&](const acc::ModelSpec& base, double n) {
        const acc::ModelLadder ladder = acc::specLadder(base);
        return an::ladderComputePerToken(ladder, 32768, conv)(n) / an::ladderComputePerToken(ladder, 2048, conv)(n);
    };
    for (double n : {4e8, 1.4e9, 7e9}) {
        EXPECT_GT(growth(gqa, n), growth(mha, n)) << n;
        EXPECT_GT(growth(mha, n), 1.2) << n;
    }
    // A sliding window (Mistral's 4096 on every layer) stops most of the growth past the window.
    acc::ModelSpec window = gqa;
    window.attention.slidingWindow = 4096;
    for (auto& l : window.layers) l.local = true;
    EXPECT_LT(growth(window, 1.4e9) - 1, 0.25 * (growth(gqa, 1.4e9) - 1));
}
