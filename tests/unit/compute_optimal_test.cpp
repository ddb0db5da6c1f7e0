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
    // Outside the samples the ratio c/N is held at the end value.
    EXPECT_NEAR(c(1e12) / 1e12, c(samples.back().first) / samples.back().first, 1e-12);
    EXPECT_NEAR(c(1e6) / 1e6, c(1e8) / 1e8, 1e-12);
    // A single sample: c proportional to N.
    const ComputePerToken one = smoothComputePerToken({{1e9, 7e9}});
    EXPECT_NEAR(one(2e9), 14e9, 1e-3);
}
