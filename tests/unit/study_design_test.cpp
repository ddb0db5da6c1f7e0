// A study designed from nothing (core/analysis/StudyDesign): the budgets fit the study budget, the
// sizes are centred on the prior's N*(C) (snapped to a ladder where given), and — the issue's
// test — a designed IsoFLOP grid, simulated here with losses from a known generating law plus
// noise (drawn and fitted by this test, not by the design), recovers the generating exponents
// within the design's stated 95 % interval in at least 19 of 20 seeds. Bad options are one-line
// errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/analysis/StudyDesign.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/SplitMix64.h"

using namespace scalex;
using namespace scalex::analysis;

namespace {

// Chinchilla's form L = E + A/N^alpha + B/D^beta, whose optima follow N* ∝ C^(beta/(alpha+beta)).
struct Generator {
    double e, a, b, alpha, beta;
    double loss(double n, double d) const { return e + a / std::pow(n, alpha) + b / std::pow(d, beta); }
    double exponentN() const { return beta / (alpha + beta); }
};

DesignPrior priorOf(const Generator& g) {
    auto p = shippedDesignPrior("chinchilla", {{"e", std::log(g.e)}, {"a", std::log(g.a)}, {"b", std::log(g.b)}, {"alpha", g.alpha}, {"beta", g.beta}});
    EXPECT_TRUE(p) << (p ? "" : p.error().message);
    return *p;
}

StudyDesignOptions optionsFor(const Generator& g) {
    StudyDesignOptions o;
    o.studyBudget = 1e21;
    o.targetBudget = 1e24;
    o.prior = priorOf(g);
    o.sigma = 0.01;
    return o;
}

// One study of the design's runs: the generator's losses plus Gaussian noise, the IsoFLOP fit.
fit::IsoFlopResult drawnStudy(const StudyDesign& design, const Generator& g, double sigma, std::uint64_t seed) {
    fit::SplitMix64 rng{seed * 7919 + 17};
    std::vector<fit::IsoFlopRun> runs;
    for (const auto& r : design.runs) runs.push_back({r.params, r.tokens, 6 * r.params * r.tokens, g.loss(r.params, r.tokens) + sigma * rng.normal()});
    fit::IsoFlopSettings settings;
    settings.budgets = design.budgets;
    return fit::fitIsoFlop(runs, settings);
}

}  // namespace

TEST(StudyDesign, BudgetsFitTheStudyBudgetAndSizesAreCentredOnThePriorsOptimum) {
    const Generator g{1.69, 406.4, 410.7, 0.34, 0.28};
    const auto o = optionsFor(g);
    const StudyDesign d = designStudy(o);
    ASSERT_FALSE(d.error) << *d.error;
    ASSERT_EQ(d.budgets.size(), o.budgets);
    EXPECT_EQ(d.runs.size(), o.budgets * o.sizesPerBudget);
    EXPECT_LE(d.cost, o.studyBudget);
    EXPECT_GT(d.cost, 0.999 * o.studyBudget);  // the largest budget the study affords
    EXPECT_NEAR(std::log10(d.budgets.back() / d.budgets.front()), o.budgetSpan, 1e-9);
    for (std::size_t k = 0; k < d.budgets.size(); ++k) {
        double logSum = 0, lo = 1e300, hi = 0;
        int count = 0;
        for (const auto& r : d.runs) {
            if (r.budget != d.budgets[k]) continue;
            EXPECT_LE(6 * r.params * r.tokens, r.budget);
            EXPECT_GT(6 * r.params * r.tokens, r.budget * (1 - 1e-6));
            logSum += std::log10(r.params);
            lo = std::min(lo, r.params);
            hi = std::max(hi, r.params);
            ++count;
        }
        ASSERT_EQ(count, static_cast<int>(o.sizesPerBudget));
        EXPECT_NEAR(logSum / count, std::log10(d.nOptPrior[k]), 1e-6);
        EXPECT_NEAR(std::log10(hi / lo), o.width, 1e-6);
    }
    // The prior's exponent is Chinchilla's beta/(alpha+beta), and its N*(H) lies in the design's interval.
    EXPECT_NEAR(d.exponentN.prior, g.exponentN(), 1e-6);
    EXPECT_NEAR(d.exponentD.prior, 1 - g.exponentN(), 1e-6);
    EXPECT_EQ(d.failed, 0u);
    EXPECT_LT(d.nOptTarget.lower, d.nOptTarget.prior);
    EXPECT_GT(d.nOptTarget.upper, d.nOptTarget.prior);
    // Noise widens the interval; a wider grid at the same noise narrows the exponent's.
    auto noisier = o;
    noisier.sigma = 0.03;
    const StudyDesign dn = designStudy(noisier);
    EXPECT_GT(dn.exponentN.upper - dn.exponentN.lower, 2 * (d.exponentN.upper - d.exponentN.lower));
    auto wider = o;
    wider.width = 1.6;
    const StudyDesign dw = designStudy(wider);
    EXPECT_LT(dw.exponentN.upper - dw.exponentN.lower, d.exponentN.upper - d.exponentN.lower);
}

TEST(StudyDesign, LadderSizesAreSnappedAndTheCsvListsEveryRun) {
    auto o = optionsFor({1.69, 406.4, 410.7, 0.34, 0.28});
    o.ladder = {5e6, 1e7, 2e7, 3e7, 5e7, 8e7, 1.2e8, 2e8, 3e8, 5e8, 8e8, 1.3e9, 2e9, 3e9};
    o.sizesPerBudget = 5;
    const StudyDesign d = designStudy(o);
    ASSERT_FALSE(d.error) << *d.error;
    for (const auto& r : d.runs) EXPECT_NE(std::find(o.ladder.begin(), o.ladder.end(), r.params), o.ladder.end()) << r.params;
    const std::string csv = plannedRunsCsv(d);
    EXPECT_EQ(csv.rfind("name,params,tokens,flops,budget,loss\n", 0), 0u);
    EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), d.runs.size() + 1);
    // A ladder with two sizes near N* cannot make a parabola.
    o.ladder = {1e7, 1e9};
    o.width = 0.5;
    EXPECT_EQ(designStudy(o).error.value_or("").rfind("the ladder has fewer than 3 distinct sizes near N* = ", 0), 0u);
}

// The test: 20 seeds, each a study drawn from the generating law plus noise on the designed
// grid, fitted as a study is; the design's stated interval, carried to that study's estimate,
// holds the generating exponent (of N* and of D*) in at least 19 of them, and the interval itself
// holds it (the design is unbiased).
TEST(StudyDesign, SimulatedDesignRecoversTheGeneratingExponentsWithinItsInterval) {
    for (const Generator& g : {Generator{1.69, 406.4, 410.7, 0.34, 0.28}, Generator{1.8, 1200.0, 300.0, 0.45, 0.3}}) {
        const StudyDesign d = designStudy(optionsFor(g));
        ASSERT_FALSE(d.error) << *d.error;
        const double a = g.exponentN(), b = 1 - a;
        EXPECT_LT(d.exponentN.lower, a);
        EXPECT_GT(d.exponentN.upper, a);
        EXPECT_LT(d.exponentD.lower, b);
        EXPECT_GT(d.exponentD.upper, b);
        int coveredN = 0, coveredD = 0;
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            const auto r = drawnStudy(d, g, d.options.sigma, seed);
            ASSERT_TRUE(r.nOptLaw && r.dOptLaw);
            const auto covers = [](const DesignEstimate& e, double estimate, double truth) {
                return estimate - (e.upper - e.median) <= truth && truth <= estimate + (e.median - e.lower);
            };
            coveredN += covers(d.exponentN, r.nOptLaw->exponent, a) ? 1 : 0;
            coveredD += covers(d.exponentD, r.dOptLaw->exponent, b) ? 1 : 0;
        }
        EXPECT_GE(coveredN, 19) << "alpha " << g.alpha << ", beta " << g.beta;
        EXPECT_GE(coveredD, 19) << "alpha " << g.alpha << ", beta " << g.beta;
    }
}

// A prior that is wrong about the exponent: its interval misses the truth, and studies drawn from
// the truth (simulateDesign) move the estimate well away from the prior's, towards the truth.
TEST(StudyDesign, SimulateDesignDrawsFromTheTruthGiven) {
    const Generator prior{1.69, 406.4, 410.7, 0.34, 0.28}, truth{1.69, 406.4, 410.7, 0.34, 0.32};
    const StudyDesign d = designStudy(optionsFor(prior));
    ASSERT_FALSE(d.error);
    EXPECT_GT(truth.exponentN(), d.exponentN.upper);
    std::vector<double> a;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) a.push_back(simulateDesign(d, priorOf(truth), 0.002, seed).exponentN);
    ASSERT_TRUE(std::all_of(a.begin(), a.end(), [](double x) { return std::isfinite(x); }));
    std::sort(a.begin(), a.end());
    EXPECT_NEAR(a[5], truth.exponentN(), 0.03);
    EXPECT_GT(a[5], d.exponentN.median + 0.01);
}

TEST(StudyDesign, BadOptionsAreOneLineErrors) {
    const auto base = optionsFor({1.69, 406.4, 410.7, 0.34, 0.28});
    const auto errorOf = [](StudyDesignOptions o) { return designStudy(o).error.value_or("(none)"); };
    auto o = base;
    o.studyBudget = -1;
    EXPECT_EQ(errorOf(o), "the study budget must be a positive number of FLOPs");
    o = base;
    o.targetBudget = 0;
    EXPECT_EQ(errorOf(o), "the target budget H must be a positive number of FLOPs");
    o = base;
    o.budgets = 1;
    EXPECT_EQ(errorOf(o), "a design needs at least 2 IsoFLOP budgets (a power law through their optima)");
    o = base;
    o.sizesPerBudget = 2;
    EXPECT_EQ(errorOf(o), "a design needs at least 3 sizes per budget (a parabola through them)");
    o = base;
    o.ladder = {1e8, -5};
    EXPECT_EQ(errorOf(o), "every size of the ladder must be a positive number of parameters");
    o = base;
    o.prior = *shippedDesignPrior("compute", {});
    EXPECT_EQ(errorOf(o).rfind("the prior law cannot place N*(C): ", 0), 0u) << errorOf(o);
    EXPECT_EQ(shippedDesignPrior("nope", {}).error().message, "no shipped law 'nope' (see `scalex fit law --list`)");
    EXPECT_EQ(shippedDesignPrior("chinchilla", {{"zeta", 1}}).error().message, "the law 'chinchilla' has no parameter 'zeta'");
    EXPECT_EQ(shippedDesignPrior("chinchilla-vp", {}).error().message,
              "the prior needs a value for 'E' of law 'chinchilla-vp' (--param E=VALUE): it has no published start");
}
