// The planner's ranking of candidate runs (core/fit/RunDesign): each candidate's drop of the
// target's expected squared error comes from rank-one updates of the design's products, and must
// equal the drop recomputed from scratch with the candidate added to the design (scoreAfter), with
// and without a misfit allowance, before and after a batch of picks. The rank-one update keeps the
// design's ridge (inverseLawInformation: 1e-6 of each diagonal entry) where the recomputation
// takes the candidate's row into it too: on a law whose information is well conditioned the two
// agree to 1e-4 of the target's error (with the ridge at 1e-13 they agree to 1e-6 on both laws); on Hoffmann et al.'s form (ill conditioned: A and alpha
// move together) they pick the same best run. A run far from the target that adds more misfit
// than it removes noise is scored below one near it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawExpression.h"
#include "core/fit/LawFit.h"
#include "core/fit/RunDesign.h"
#include "core/fit/SplitMix64.h"
#include "tests/support/CompiledLaw.h"

using namespace scalex::fit;

namespace {

CompiledLaw compiled(const std::string& formula, const std::vector<std::string>& params) { return scalex::test::compiledLaw(formula, params); }

CompiledLaw chinchilla() { return compiled("loss = E + A*N^(-alpha) + B*D^(-beta)", {"E=0.5:3", "A=1:5000", "alpha=0.05:1", "B=1:50000", "beta=0.05:1"}); }
const std::vector<double> kChinchillaTruth{1.8, 400, 0.34, 2000, 0.37};  // Hoffmann et al.'s form, exponents near theirs

// The law at `truth` at N, D log-uniform over the given decades, times 1 + 0.002·z (z standard
// normal, fixed seed).
LawData runs(const CompiledLaw& law, const std::vector<double>& truth, double nLo, double nHi, double dLo, double dHi, int count, std::uint64_t seed) {
    SplitMix64 rng{seed};
    LawData data;
    data.variableCount = law.variables.size();
    std::vector<double> row(law.variables.size()), scratch;
    for (int i = 0; i < count; ++i) {
        const double n = std::exp(std::log(nLo) + rng.uniform() * std::log(nHi / nLo));
        const double d = std::exp(std::log(dLo) + rng.uniform() * std::log(dHi / dLo));
        for (std::size_t v = 0; v < row.size(); ++v) row[v] = law.variables[v] == "N" ? n : d;
        data.add(row, lawValue(law.expression, truth, row, scratch) * (1 + 0.002 * rng.normal()));
    }
    return data;
}

// Per misfit allowance (0, 3) and batch (none, three picks): the candidates' drops as scored, and as
// recomputed with each candidate added to the design.
struct Drops {
    std::vector<double> scored, recomputed;
    double targetError = 0;
};
std::vector<Drops> drops(const CompiledLaw& law, const std::vector<double>& truth) {
    const LawData fitted = runs(law, truth, 2e7, 4e8, 4e8, 2e10, 24, 1);
    const LawData candidates = runs(law, truth, 2e7, 2e9, 4e8, 1e11, 60, 2);
    const LawData targets = runs(law, truth, 5e9, 8e9, 1e11, 3e11, 3, 3);
    const LawFitResult fit = fitLaw(law, fitted);
    const std::vector<double> costs(candidates.size(), 1.0);
    std::vector<Drops> out;
    for (const double misfit : {0.0, 3.0}) {
        const DesignModel model{.misfit = misfit};
        for (const std::vector<std::size_t>& picked : {std::vector<std::size_t>{}, std::vector<std::size_t>{5, 17, 40}}) {
            const DesignScores scores = scoreAfter(law, fitted, fit.params, candidates, picked, targets, costs, model);
            Drops d{scores.reduction, {}, scores.targetError};
            for (std::size_t c = 0; c < candidates.size(); ++c) {
                std::vector<std::size_t> with = picked;
                with.push_back(c);
                d.recomputed.push_back(scores.targetError - scoreAfter(law, fitted, fit.params, candidates, with, targets, {}, model).targetError);
            }
            out.push_back(std::move(d));
        }
    }
    return out;
}

std::size_t best(const std::vector<double>& v) { return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin()); }

}  // namespace

TEST(RunDesign, EachCandidatesDropEqualsTheDesignRecomputedWithIt) {
    // log N and log D about their middles: the information's columns far from parallel.
    const CompiledLaw law = compiled("loss = c0 + c1*log(N/1e9) + c2*log(D/2e10) + c3*log(N/1e9)*log(D/2e10)",
                                     {"c0=0:10", "c1=-1:1", "c2=-1:1", "c3=-1:1"});
    for (const Drops& d : drops(law, {2.5, -0.08, -0.1, 0.004})) {
        ASSERT_EQ(d.scored.size(), d.recomputed.size());
        for (std::size_t c = 0; c < d.scored.size(); ++c) EXPECT_NEAR(d.scored[c], d.recomputed[c], 1e-4 * d.targetError) << "candidate " << c;
        EXPECT_EQ(best(d.scored), best(d.recomputed));
        EXPECT_GT(d.scored[best(d.scored)], 0.01 * d.targetError) << "some candidate must lower the target's error";
    }
    for (const Drops& d : drops(chinchilla(), kChinchillaTruth)) EXPECT_EQ(best(d.scored), best(d.recomputed));
}

TEST(RunDesign, WithAMisfitARunNearTheTargetBeatsOneFarFromIt) {
    const CompiledLaw law = chinchilla();
    const LawData fitted = runs(law, kChinchillaTruth, 2e7, 4e8, 4e8, 2e10, 24, 1);
    const LawData targets = runs(law, kChinchillaTruth, 5e9, 8e9, 1e11, 3e11, 3, 3);
    LawData candidates = runs(law, kChinchillaTruth, 1e7, 1.5e7, 2e8, 3e8, 1, 4);  // below the fitted runs
    const LawData near = runs(law, kChinchillaTruth, 3e9, 4e9, 6e10, 8e10, 1, 5);   // just short of the target
    candidates.add(near.row(0), near.target[0]);
    const LawFitResult fit = fitLaw(law, fitted);
    const std::vector<double> costs{1.0, 1.0};
    const DesignScores plain = scoreCandidates(law, fitted, fit.params, candidates, costs, targets, DesignModel{.misfit = 0});
    const DesignScores misfit = scoreCandidates(law, fitted, fit.params, candidates, costs, targets, DesignModel{.misfit = 10});
    EXPECT_GT(plain.reduction[1], plain.reduction[0]);
    EXPECT_GT(misfit.reduction[1], misfit.reduction[0]);
    EXPECT_LT(misfit.reduction[0], 0.01 * misfit.targetError) << "a run far from the target adds misfit as much as it removes noise";
}

// The initial design of a replay (determiningRuns): taken cheapest first, a run that repeats another
// (same N and D) or adds nothing the kept ones do not tell (a fourth D at one N: E + B/D^beta has
// three parameters there; a second D at the second N) is passed over, until the rows span the five
// parameters, which needs three model sizes (E, A and alpha). Runs at one size cannot determine it.
TEST(RunDesign, TheCheapestRunsThatDetermineTheLawPassOverRunsThatTellNothingNew) {
    const CompiledLaw law = chinchilla();
    auto pool = [&](const std::vector<std::pair<double, double>>& points) {
        LawData d;
        d.variableCount = law.variables.size();
        std::vector<double> row(law.variables.size());
        for (const auto& [n, tokens] : points) {
            for (std::size_t v = 0; v < row.size(); ++v) row[v] = law.variables[v] == "N" ? n : tokens;
            d.add(row, 3.0);
        }
        return d;
    };
    const LawData runs = pool({{2e7, 1e8}, {2e7, 1e8}, {2e7, 2e8}, {2e7, 4e8}, {2e7, 8e8}, {5e7, 2.5e8}, {5e7, 5e8}, {1e8, 5e8}, {2e8, 1e9}});
    std::vector<std::size_t> order(runs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    EXPECT_EQ(determiningRuns(law, runs, order), (std::vector<std::size_t>{0, 2, 3, 5, 7}));
    const LawData oneSize = pool({{2e7, 1e8}, {2e7, 2e8}, {2e7, 4e8}, {2e7, 8e8}, {2e7, 1.6e9}, {2e7, 3.2e9}});
    std::vector<std::size_t> all(oneSize.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    EXPECT_EQ(determiningRuns(law, oneSize, all).size(), 3u);
}
