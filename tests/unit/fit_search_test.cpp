// The multi-start search of the law fit (core/fit/LawFit) on laws whose basin a 64-start L-BFGS
// search misses: generated studies from laws with exponentials of powers of N (the form of Farseer,
// Li et al. 2025, eq. 5, over N and D in units of 1e9 as law_bench.cpp draws them; and the
// vocabulary law sl_8 of scalebench, c·exp(β ln V − α ln P) terms clamped at ±50), fitted from the
// default settings with no declared start: the fit must reach the objective at the truth (below it:
// the noise is fitted too), and say that several starts agree.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawExpression.h"
#include "core/fit/LawFit.h"
#include "core/fit/SplitMix64.h"
#include "tests/support/CompiledLaw.h"

using namespace scalex::fit;

namespace {

CompiledLaw compiled(const std::string& formula, const std::vector<std::string>& params) { return scalex::test::compiledLaw(formula, params); }

// Runs over the law's variables (log-uniform in [lo, hi] each), the target the law at `truth`
// times 1 + 0.001·z (z a sum of 12 uniforms minus 6, as law_bench.cpp).
LawData generate(const CompiledLaw& law, const std::vector<double>& truth, const std::vector<std::pair<double, double>>& ranges, int n) {
    SplitMix64 rng{42};
    LawData data;
    data.variableCount = law.variables.size();
    std::vector<double> scratch, row(law.variables.size());
    for (int i = 0; i < n; ++i) {
        for (std::size_t v = 0; v < row.size(); ++v)
            row[v] = std::exp(std::log(ranges[v].first) + rng.uniform() * std::log(ranges[v].second / ranges[v].first));
        double z = -6;
        for (int k = 0; k < 12; ++k) z += rng.uniform();
        data.add(row, lawValue(law.expression, truth, row, scratch) * (1 + 0.001 * z));
    }
    return data;
}

void expectReachesTruth(const CompiledLaw& law, const LawData& data, const std::vector<double>& truth) {
    const LawFitResult fit = fitLaw(law, data);  // the default search
    const double atTruth = lawObjective(law, data, truth);
    EXPECT_LE(fit.objective, atTruth * (1 + 1e-6)) << "the fit stopped above the truth's objective " << atTruth;
    EXPECT_GE(fit.nNearBest, 2u);
    EXPECT_TRUE(fit.doubt.empty()) << fit.doubt;
}

TEST(LawSearch, ExponentialsOfPowersOfNReachTheTruth) {
    // Farseer's form (9 parameters), linear space, squared loss: the first law.
    const auto law = compiled("L = exp(a3*(N/1e9)^g3 + b3) + exp(a2*(N/1e9)^g2 + b2)*(D/1e9)^(-exp(a1*(N/1e9)^g1 + b1))",
                              {"a1=-5:5", "b1=-5:2", "g1=-1:1", "a2=-5:5", "b2=-5:5", "g2=-1:1", "a3=-5:5", "b3=-5:3", "g3=-1:1"});
    const std::vector<double> truth{0.1, -1.2, 0.1, 0.5, 0.2, -0.1, 0.4, 0.3, -0.1};
    expectReachesTruth(law, generate(law, truth, {{1e7, 1e10}, {1e9, 1e12}}, 400), truth);
}

TEST(LawSearch, ClampedExponentialTermsReachTheTruth) {
    // scalebench vocabulary sl_8 over P, V and D as its pool spans them.
    const auto law = compiled(
        "y = c0 + c1*log(V) + (c2*exp(min(max(beta*log(V) - alpha*log(P), -50), 50)) + c3*exp(min(max(beta*log(V) - gamma*log(D), -50), 50)))",
        {"c0=-100:100", "c1=-100:100", "c2=-10000:10000", "alpha=-5:5", "c3=-10000:10000", "gamma=-5:5", "beta=-5:5"});
    const std::vector<double> truth{-4.9, -0.08, 3505, 0.62, 2160, 0.37, 0.105};
    expectReachesTruth(law, generate(law, truth, {{4096, 64512}, {3e7, 1e10}, {1e8, 1e12}}, 300), truth);
}

}  // namespace
