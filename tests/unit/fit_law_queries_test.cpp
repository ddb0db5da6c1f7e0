// Queries on a fitted law (core/fit/LawQuery): on runs generated from a known Chinchilla law with
// noise, the truth at a far point and at the far optimum lies inside the 95 % intervals of both
// methods; N*(C) at the true parameters is the closed form; the budget for a loss inverts N*(C);
// and the queries a law cannot answer say why.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"
#include "core/fit/LawQuery.h"
#include "core/fit/SplitMix64.h"

using namespace scalex::fit;

namespace {

// Hoffmann et al. 2022's fitted law (Approach 3).
constexpr double kE = 1.69, kA = 406.4, kB = 410.7, kAlpha = 0.34, kBeta = 0.28;

double trueLoss(double n, double d) { return kE + kA / std::pow(n, kAlpha) + kB / std::pow(d, kBeta); }

// The closed-form optimum under C = 6ND: N* = G (C/6)^(β/(α+β)), G = (αA/(βB))^(1/(α+β)).
double trueOptimalN(double C) {
    const double G = std::pow(kAlpha * kA / (kBeta * kB), 1 / (kAlpha + kBeta));
    return G * std::pow(C / 6, kBeta / (kAlpha + kBeta));
}

CompiledLaw chinchilla(LawSpace space = LawSpace::Linear) {
    LawDefinition law;
    law.formula = "L = E + A/N^alpha + B/D^beta";
    law.parameters = {{"E", 0, 10}, {"A", 0, 1e5}, {"B", 0, 1e5}, {"alpha", 0.05, 1, 0.3}, {"beta", 0.05, 1, 0.3}};
    law.space = space;
    return std::get<CompiledLaw>(compileLaw(law));
}

// 7 sizes × 6 tokens/param ratios, loss times (1 + 0.005 z), z a sum of 12 uniforms less 6.
LawData noisyRuns(const CompiledLaw& law) {
    LawData data;
    data.variableCount = law.variables.size();
    const bool nFirst = law.variables.front() == "N";
    SplitMix64 rng{7};
    for (double n : {2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9})
        for (double ratio : {5.0, 10.0, 20.0, 40.0, 80.0, 160.0}) {
            const double d = ratio * n;
            double z = -6;
            for (int k = 0; k < 12; ++k) z += rng.uniform();
            const double row[2] = {nFirst ? n : d, nFirst ? d : n};
            data.add(row, trueLoss(n, d) * (1 + 0.005 * z));
        }
    return data;
}

std::vector<double> trueParams(const CompiledLaw& law) {
    std::vector<double> p;
    for (std::size_t k = 0; k < law.parameterCount(); ++k) {
        const auto& name = law.parameterName(k);
        p.push_back(name == "E" ? kE : name == "A" ? kA : name == "B" ? kB : name == "alpha" ? kAlpha : kBeta);
    }
    return p;
}

LawQuery lossQuery(const CompiledLaw& law, double n, double d) {
    const bool nFirst = law.variables.front() == "N";
    return {LawQueryKind::At, {nFirst ? n : d, nFirst ? d : n}, 0};
}

}  // namespace

TEST(LawQuery, OptimumAtTheTrueParametersIsTheClosedForm) {
    const auto law = chinchilla();
    const auto truth = trueParams(law);
    for (double C : {1e20, 5.76e23, 1e26}) {
        const auto v = answerLawQuery(law, truth, {LawQueryKind::OptimalAt, {}, C});
        ASSERT_TRUE(v.error.empty()) << v.error;
        EXPECT_NEAR(v.values[0] / trueOptimalN(C), 1, 1e-6) << "C = " << C;
        EXPECT_NEAR(v.values[1] / (C / 6 / trueOptimalN(C)), 1, 1e-6);
        EXPECT_NEAR(v.values[2], trueLoss(trueOptimalN(C), C / 6 / trueOptimalN(C)), 1e-9);
    }
}

TEST(LawQuery, BudgetForALossInvertsTheOptimum) {
    const auto law = chinchilla();
    const auto truth = trueParams(law);
    for (double C : {3e21, 1e24}) {
        const double target = answerLawQuery(law, truth, {LawQueryKind::OptimalAt, {}, C}).values[2];
        const auto budget = answerLawQuery(law, truth, {LawQueryKind::BudgetForLoss, {}, target});
        ASSERT_TRUE(budget.error.empty()) << budget.error;
        EXPECT_NEAR(budget.values[0] / C, 1, 1e-6);
        // Its loss at the budget it returns is the target.
        const auto back = answerLawQuery(law, truth, {LawQueryKind::OptimalAt, {}, budget.values[0]});
        EXPECT_NEAR(back.values[2], target, 1e-10);
        EXPECT_NEAR(budget.values[1], back.values[0], 1e-6 * back.values[0]);
        EXPECT_NEAR(budget.values[1] * budget.values[2] * 6, budget.values[0], 1e-6 * budget.values[0]);
    }
}

TEST(LawQuery, IntervalsOfBothMethodsHoldTheTruthFarFromTheRuns) {
    const auto law = chinchilla();
    const LawData runs = noisyRuns(law);
    const auto fit = fitLaw(law, runs);
    ASSERT_TRUE(std::isfinite(fit.objective));
    // Far beyond the largest run (2e9 parameters): a 70B model on 1.4T tokens, and C = 1e24.
    const std::vector<LawQuery> queries = {lossQuery(law, 7e10, 1.4e12), {LawQueryKind::OptimalAt, {}, 1e24}};
    const double lossTruth = trueLoss(7e10, 1.4e12), nTruth = trueOptimalN(1e24);
    for (auto method : {LawIntervalMethod::Bootstrap, LawIntervalMethod::Curvature}) {
        SCOPED_TRACE(lawIntervalMethodName(method));
        const auto iv = lawQueryIntervals(law, runs, fit.params, queries, method, 200, 11, 0.95);
        EXPECT_EQ(iv.method, method);
        EXPECT_EQ(iv.resamples > 0, method == LawIntervalMethod::Bootstrap);
        const double loss = answerLawQuery(law, fit.params, queries[0]).values[0];
        EXPECT_LT(iv.lower[0][0], loss);
        EXPECT_GT(iv.upper[0][0], loss);
        EXPECT_LT(iv.lower[0][0], lossTruth);
        EXPECT_GT(iv.upper[0][0], lossTruth);
        // Not a vacuous interval: a few per cent of the loss.
        EXPECT_LT(iv.upper[0][0] - iv.lower[0][0], 0.1 * lossTruth);
        // N* at 1e24, 20 times beyond the largest run (truth 41.3e9).
        const double nFit = answerLawQuery(law, fit.params, queries[1]).values[0];
        EXPECT_LT(iv.lower[1][0], nFit);
        EXPECT_GT(iv.upper[1][0], nFit);
        EXPECT_LT(iv.lower[1][0], nTruth) << "fitted " << nFit << " in [" << iv.lower[1][0] << ", " << iv.upper[1][0] << "]";
        EXPECT_GT(iv.upper[1][0], nTruth);
        EXPECT_LT(iv.upper[1][0] / iv.lower[1][0], 100.0);
    }
}

TEST(LawQuery, CurvatureAndBootstrapAgreeOnTheWidthNearTheRuns) {
    // Inside the runs both methods measure the same thing: their widths within a factor of two.
    const auto law = chinchilla();
    const LawData runs = noisyRuns(law);
    const auto fit = fitLaw(law, runs);
    const std::vector<LawQuery> queries = {lossQuery(law, 3e8, 6e9)};
    const auto boot = lawQueryIntervals(law, runs, fit.params, queries, LawIntervalMethod::Bootstrap, 300, 3, 0.95);
    const auto curv = lawQueryIntervals(law, runs, fit.params, queries, LawIntervalMethod::Curvature, 0, 3, 0.95);
    const double wb = boot.upper[0][0] - boot.lower[0][0], wc = curv.upper[0][0] - curv.lower[0][0];
    EXPECT_GT(wb / wc, 0.5);
    EXPECT_LT(wb / wc, 2.0);
}

TEST(LawQuery, QueriesTheLawCannotAnswerSayWhy) {
    LawDefinition def;
    def.formula = "L = E + A/N^alpha";
    def.parameters = {{"E", 0, 10}, {"A", 0, 1e5}, {"alpha", 0, 1}};
    const auto nOnly = std::get<CompiledLaw>(compileLaw(def));
    EXPECT_NE(checkLawQuery(nOnly, {LawQueryKind::OptimalAt, {}, 1e24}).find("N and D"), std::string::npos);
    EXPECT_NE(checkLawQuery(nOnly, {LawQueryKind::BudgetForLoss, {}, 2}).find("N and D"), std::string::npos);
    EXPECT_FALSE(checkLawQuery(nOnly, {LawQueryKind::At, {1e9, 1e10}, 0}).empty());  // two values for one variable
    EXPECT_TRUE(checkLawQuery(nOnly, {LawQueryKind::At, {1e9}, 0}).empty());

    const auto law = chinchilla();
    const auto truth = trueParams(law);
    const auto below = answerLawQuery(law, truth, {LawQueryKind::BudgetForLoss, {}, kE - 0.01});
    EXPECT_TRUE(below.values.empty());
    EXPECT_NE(below.error.find("floor"), std::string::npos) << below.error;
    EXPECT_FALSE(answerLawQuery(law, truth, {LawQueryKind::OptimalAt, {}, -1}).error.empty());
}

TEST(LawQuery, BootstrapReplicatesDrawIndependentStreams) {
    // Seeds a multiple of SplitMix64's increment apart give one stream shifted by a draw: replicate
    // b + 1 would resample replicate b's runs less one. The streams of one seed share no shift.
    for (std::uint64_t b = 0; b < 20; ++b) {
        auto s0 = SplitMix64::stream(20250601, b), s1 = SplitMix64::stream(20250601, b + 1);
        std::vector<std::uint64_t> d0, d1;
        for (int i = 0; i < 11; ++i) d0.push_back(s0.next()), d1.push_back(s1.next());
        for (int i = 0; i < 10; ++i) EXPECT_NE(d1[i], d0[i + 1]);
        EXPECT_NE(d1[0], d0[0]);
    }
    // And the replicates' fits spread: on 42 noisy runs no two of 20 refits coincide.
    const auto law = chinchilla();
    const LawData runs = noisyRuns(law);
    const auto fit = fitLaw(law, runs);
    const auto fits = bootstrapLawFits(law, runs, fit.params, 20, 3);
    for (std::size_t b = 1; b < fits.size(); ++b) EXPECT_NE(fits[b][3], fits[b - 1][3]);
}
