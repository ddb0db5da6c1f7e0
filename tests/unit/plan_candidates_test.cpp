// Picking the next runs of a study (core/analysis/PlanCandidates): on a study generated from a
// Chinchilla-form law, with the target a model far beyond the data, the first pick lies at larger
// N than the study's median, the batch narrows the target's interval, and picks keep to the
// budget; bad grids, targets, budgets and empty candidate sets are one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/PlanCandidates.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/RunTableIo.h"
#include "core/fit/SplitMix64.h"

using namespace scalex;
using namespace scalex::analysis;

namespace {

// L = 1.8 + 400/N^0.34 + 2000/D^0.37 on N 2e7 … 2e9 × 5 … 320 tokens per parameter, each loss
// times (1 + 0.002·z), z of unit variance from a fixed seed.
data::RunTable generatedStudy() {
    QByteArray csv = "run_id,params,tokens,loss\n";
    fit::SplitMix64 rng{20250601};
    int id = 0;
    for (double n : {2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9})
        for (double ratio : {5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0}) {
            const double d = ratio * n, z = (2 * rng.uniform() - 1) * std::sqrt(3.0);
            const double loss = (1.8 + 400 / std::pow(n, 0.34) + 2000 / std::pow(d, 0.37)) * (1 + 0.002 * z);
            csv += QStringLiteral("r%1,%2,%3,%4\n").arg(id++).arg(n, 0, 'g', 12).arg(d, 0, 'g', 12).arg(loss, 0, 'g', 12).toUtf8();
        }
    auto table = data::parseRunTable(csv, "generated.csv");
    EXPECT_TRUE(table) << (table ? "" : table.error().toString());
    return *table;
}

constexpr double kStudyMedianN = 2e8;

fit::LawDefinition chinchilla() {
    fit::LawDefinition law;
    law.formula = "L = E + A/N^alpha + B/D^beta";
    law.parameters = {{"E", 0, 10}, {"A", 0, 1e6}, {"B", 0, 1e7}, {"alpha", 0, 2}, {"beta", 0, 2}};
    return law;
}

PlanCandidatesOptions gridOptions() {
    PlanCandidatesOptions o;
    o.targetPoints = {*parseTargetPoint("N=7e9,D=2e12")};
    o.gridN = *parseGridAxis("1e8:8e9:7");
    o.gridD = *parseGridAxis("1e9:2e11:6");
    o.fit.starts = 16;
    return o;
}

}  // namespace

// With one slot per run (equal costs), the run that moves the extrapolation most is a large one.
TEST(PlanCandidates, FirstPickExtendsNAndTheBatchNarrowsTheInterval) {
    const auto study = generatedStudy();
    auto o = gridOptions();
    o.cost = "1";
    o.pick = 3;
    const PlanCandidates r = planCandidates(study, AnalysisSettings{}, chinchilla(), o);
    ASSERT_FALSE(r.error) << *r.error;
    ASSERT_EQ(r.groups.size(), 1u);
    const auto& g = r.groups.front();
    ASSERT_EQ(g.picks.size(), 3u);
    EXPECT_GT(g.picks.front().n, kStudyMedianN);
    ASSERT_EQ(g.targets.size(), 1u);
    EXPECT_NEAR(g.targets[0].predicted, 1.8 + 400 / std::pow(7e9, 0.34) + 2000 / std::pow(2e12, 0.37), 0.05);
    EXPECT_LT(g.targets[0].halfWidthAfter, g.targets[0].halfWidthBefore);
    // Each pick narrows it further; the why names the share of the variance it removes.
    double previous = g.targets[0].halfWidthBefore;
    for (const auto& p : g.picks) {
        EXPECT_LT(p.halfWidthAfter[0], previous);
        previous = p.halfWidthAfter[0];
        EXPECT_NE(p.why.find("expected squared error"), std::string::npos);
    }
    EXPECT_DOUBLE_EQ(g.targets[0].halfWidthAfter, previous);
}

TEST(PlanCandidates, PicksKeepToTheBudget) {
    const auto study = generatedStudy();
    auto o = gridOptions();
    o.budget = 3e19;  // 6ND: a few of the smaller grid runs, none of the largest
    const PlanCandidates r = planCandidates(study, AnalysisSettings{}, chinchilla(), o);
    ASSERT_FALSE(r.error) << *r.error;
    const auto& g = r.groups.front();
    ASSERT_FALSE(g.picks.empty());
    double spent = 0;
    for (const auto& p : g.picks) {
        EXPECT_DOUBLE_EQ(p.cost, 6 * p.n * p.d);
        spent += p.cost;
    }
    EXPECT_LE(spent, 3e19 * (1 + 1e-12));
    EXPECT_DOUBLE_EQ(g.spent, spent);
    EXPECT_LT(g.targets[0].halfWidthAfter, g.targets[0].halfWidthBefore);
}

TEST(PlanCandidates, PlannedRunsTableWithCostAndTargetRows) {
    const auto study = generatedStudy();
    data::LoadOptions noLoss;
    noLoss.lossRequired = false;
    auto planned = data::parseRunTable("run_id,params,tokens,cost\np1,1e8,2e9,1\np2,4e9,8e10,1\np3,3e8,6e9,1\nbig,7e9,2e12,50\n", "planned.csv", noLoss);
    ASSERT_TRUE(planned) << planned.error().toString();
    PlanCandidatesOptions o;
    o.targetRows = {*parseCondition("run_id=big")};
    o.pick = 1;
    const PlanCandidates r = planCandidates(study, AnalysisSettings{}, chinchilla(), o, &*planned);
    ASSERT_FALSE(r.error) << *r.error;
    EXPECT_EQ(r.cost, "cost");
    const auto& g = r.groups.front();
    EXPECT_EQ(g.candidates, 3u);
    ASSERT_EQ(g.picks.size(), 1u);
    EXPECT_EQ(g.picks[0].run, "p2");
    EXPECT_EQ(g.targets[0].label, "big");
}

TEST(PlanCandidates, BadInputsAreOneLineErrors) {
    const auto study = generatedStudy();
    EXPECT_FALSE(parseGridAxis("1e8:8e9"));
    EXPECT_FALSE(parseGridAxis("1e8:x:3"));
    EXPECT_FALSE(parseGridAxis("8e9:1e8:3"));
    EXPECT_FALSE(parseGridAxis("1e8:8e9:0"));
    EXPECT_FALSE(parseTargetPoint("N=7e9,D"));
    auto expectError = [&](const PlanCandidatesOptions& o, const char* needle, const data::RunTable* planned = nullptr) {
        const PlanCandidates r = planCandidates(study, AnalysisSettings{}, chinchilla(), o, planned);
        ASSERT_TRUE(r.error) << needle;
        EXPECT_NE(r.error->find(needle), std::string::npos) << *r.error;
        EXPECT_EQ(r.error->find('\n'), std::string::npos);
    };
    auto o = gridOptions();
    o.targetPoints = {*parseTargetPoint("N=7e9,D=2e12,T=8192")};
    expectError(o, "reads no 'T'");
    o = gridOptions();
    o.targetPoints = {*parseTargetPoint("N=7e9")};
    expectError(o, "no value for 'D'");
    o = gridOptions();
    o.budget = 1e17;  // the cheapest grid run costs 6·1e8·1e9 = 6e17
    expectError(o, "below the cheapest");
    data::LoadOptions noLoss;
    noLoss.lossRequired = false;
    auto planned = data::parseRunTable("run_id,params,tokens\nbig,7e9,2e12\n", "planned.csv", noLoss);
    ASSERT_TRUE(planned);
    o = PlanCandidatesOptions{};
    o.targetRows = {*parseCondition("run_id=big")};
    expectError(o, "no candidates", &*planned);
    o = gridOptions();
    o.gridD.reset();
    expectError(o, "no candidates");
}

// Simulating the batch before spending it: the bootstrap's draws of the law, the batch's losses
// from them with the fit's noise, refitted. The planner's batch leaves about the interval the
// linearisation promised, random and cheapest-first batches keep to the planner's cost, and for a
// target far beyond the study the V-optimal batch (no misfit assumed, as in the draws) leaves a
// narrower interval than the cheapest runs.
TEST(PlanCandidates, SimulatedBatchAgainstRandomAndCheapest) {
    const auto study = generatedStudy();
    auto o = gridOptions();
    o.budget = 2e20;
    o.simulate = 20;
    o.seed = 5;
    o.design.misfit = 0;  // the draws come from the law itself: no misfit, so the plain V-optimal batch
    const PlanCandidates r = planCandidates(study, AnalysisSettings{}, chinchilla(), o);
    ASSERT_FALSE(r.error) << *r.error;
    const auto& g = r.groups.front();
    ASSERT_EQ(g.simulated.size(), 3u);
    EXPECT_EQ(g.simulated[0].strategy, "planner");
    EXPECT_EQ(g.simulated[1].strategy, "random");
    EXPECT_EQ(g.simulated[2].strategy, "cheapest");
    const auto& planner = g.simulated[0];
    EXPECT_EQ(planner.runs, static_cast<double>(g.picks.size()));
    EXPECT_DOUBLE_EQ(planner.spent, g.spent);
    for (const auto& b : g.simulated) {
        EXPECT_LE(b.spent, g.spent * (1 + 1e-12)) << b.strategy;
        EXPECT_EQ(b.failed, 0u) << b.strategy;
        ASSERT_EQ(b.halfWidth.size(), 1u);
        EXPECT_LE(b.errorLow[0], b.error[0]);
        EXPECT_LE(b.error[0], b.errorHigh[0]);
    }
    EXPECT_NEAR(planner.halfWidth[0], g.targets[0].halfWidthAfter, 0.3 * g.targets[0].halfWidthAfter);
    EXPECT_LT(planner.halfWidth[0], g.simulated[2].halfWidth[0]);
    // The same seed gives the same simulation.
    const PlanCandidates again = planCandidates(study, AnalysisSettings{}, chinchilla(), o);
    EXPECT_EQ(again.groups.front().simulated[1].error, g.simulated[1].error);
}

// Where the multi-start fits disagree: a loss floor the runs have not reached (L = max(E, a − b ln N)
// with every run above any E in range) leaves E undetermined, so refined starts end at different
// floors with the same objective. They are reported as rivals, and the run that separates them is
// the cheapest candidate large enough to reach below the floors, and the top pick; runs inside the
// study's range cannot tell them apart.
TEST(PlanCandidates, RivalFitsAndTheRunThatSeparatesThem) {
    QByteArray csv = "run_id,params,tokens,loss\n";
    fit::SplitMix64 rng{11};
    for (int k = 0; k < 12; ++k) {
        const double n = 1e7 * std::pow(10.0, k / 5.5);
        csv += QStringLiteral("r%1,%2,%3,%4\n").arg(k).arg(n, 0, 'g', 12).arg(20 * n, 0, 'g', 12).arg(5 - 0.1 * std::log(n) + 0.002 * rng.normal(), 0, 'g', 12).toUtf8();
    }
    const auto study = data::parseRunTable(csv, "floor.csv");
    ASSERT_TRUE(study) << study.error().toString();
    fit::LawDefinition law;
    law.formula = "L = max(E, a - b*log(N))";
    law.parameters = {{"E", 1.5, 3}, {"a", 0, 10}, {"b", 0, 1}};
    PlanCandidatesOptions o;
    o.targetPoints = {*parseTargetPoint("N=1e15")};
    o.gridN = *parseGridAxis("1e8:1e15:8");
    o.gridD = *parseGridAxis("1e9:1e9:1");
    o.pick = 2;
    const PlanCandidates r = planCandidates(*study, AnalysisSettings{}, law, o);
    ASSERT_FALSE(r.error) << *r.error;
    const auto& g = r.groups.front();
    ASSERT_FALSE(g.rivals.empty());
    for (const auto& rival : g.rivals) {
        EXPECT_LE(rival.objectiveRatio, 1 + o.rivalTolerance);
        EXPECT_GT(std::abs(rival.predicted[0] - g.targets[0].predicted), 1e-3);
        EXPECT_NE(rival.params[0], g.params[0]);  // another floor
    }
    ASSERT_TRUE(g.separating);
    EXPECT_GE(g.separating->separation, 3);
    EXPECT_NE(g.separating->why.find("tell them apart"), std::string::npos) << g.separating->why;
    // It is the first grid size (a decade apart) where the fitted line has fallen below the highest
    // floor: a decade smaller, every fit predicts the same line, so no run there separates them.
    double highestFloor = g.params[0];
    for (const auto& rival : g.rivals) highestFloor = std::max(highestFloor, rival.params[0]);
    const auto line = [&](double n) { return g.params[1] - g.params[2] * std::log(n); };
    EXPECT_LT(line(g.separating->n), highestFloor);
    EXPECT_GT(line(g.separating->n / 10), highestFloor);
    EXPECT_GT(g.separating->n, 1e9);  // beyond the study's runs
    // The ranking counts the rivals' disagreement at the target: at N = 1e15, where every rival's
    // floor parts from the best fit's line, the top pick tells them apart at least as well as the
    // first size that separates any (one slot per run and no misfit assumed, so that only the rivals
    // and the linearisation rank; per FLOP the runs a thousand times cheaper come first). The runs
    // leave the floor undetermined below their losses, and the search redraws it there: rivals'
    // floors spread from 1.5 to 2.9, which a run at a larger N than the first separating one parts.
    o.targetPoints = {*parseTargetPoint("N=1e15")};
    o.design.misfit = 0;
    o.cost = "1";
    const PlanCandidates near = planCandidates(*study, AnalysisSettings{}, law, o);
    ASSERT_FALSE(near.error) << *near.error;
    const auto& h = near.groups.front();
    ASSERT_FALSE(h.rivals.empty());
    ASSERT_TRUE(h.separating);
    ASSERT_FALSE(h.picks.empty());
    EXPECT_GE(h.picks.front().separation, h.separating->separation) << h.picks.front().run << " against " << h.separating->run;
    EXPECT_GE(h.picks.front().separation, 3);
    EXPECT_GT(h.picks.front().separated, 0.25);  // a good share of what it removes is the rivals' disagreement
    EXPECT_NE(h.picks.front().why.find("rival fits"), std::string::npos) << h.picks.front().why;
    // A Chinchilla-form study fitted with its own form has no rival: its other optima are far worse.
    auto grid = gridOptions();
    grid.pick = 1;
    const PlanCandidates clean = planCandidates(generatedStudy(), AnalysisSettings{}, chinchilla(), grid);
    ASSERT_FALSE(clean.error);
    EXPECT_TRUE(clean.groups.front().rivals.empty());
    EXPECT_FALSE(clean.groups.front().separating);
}

// The picks as planned runs (plan --out): loaded beside the study they are runs of their group's
// series with N, D and cost and no loss, kept with that problem and out of every fit, and the loss
// surface draws them as planned.
TEST(PlanCandidates, PicksLoadBackAsPlannedRuns) {
    auto o = gridOptions();
    o.pick = 3;
    o.groupColumn = "family";
    QByteArray csv = "run_id,family,params,tokens,loss\n";
    for (const auto& run : generatedStudy().runs)
        csv += QStringLiteral("%1,xlstm,%2,%3,%4\n").arg(QString::fromStdString(run.runId)).arg(run.params, 0, 'g', 12).arg(run.tokens, 0, 'g', 12).arg(run.loss(), 0, 'g', 12).toUtf8();
    const auto study = data::parseRunTable(csv, "study.csv");
    ASSERT_TRUE(study) << study.error().toString();
    const PlanCandidates r = planCandidates(*study, AnalysisSettings{}, chinchilla(), o);
    ASSERT_FALSE(r.error) << *r.error;
    ASSERT_EQ(r.groups.size(), 1u);
    const auto& picks = r.groups.front().picks;
    ASSERT_EQ(picks.size(), 3u);
    const std::string text = pickedRunsCsv(r);
    EXPECT_EQ(text.substr(0, text.find('\n')), "name,family,params,tokens,cost,halfwidth_after,loss");
    const auto planned = data::parseRunTable(QByteArray::fromStdString(text), "picks.csv");
    ASSERT_TRUE(planned) << planned.error().toString();
    ASSERT_EQ(planned->runs.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) {
        const data::Run& run = planned->runs[k];
        EXPECT_EQ(run.name, "planned xlstm " + std::to_string(k + 1));
        EXPECT_EQ(run.family, accounting::Family::Xlstm);
        EXPECT_NEAR(run.params, picks[k].n, 0.5);
        EXPECT_NEAR(run.tokens, picks[k].d, 0.5);
        EXPECT_TRUE(run.hasProblems());  // no loss yet
        EXPECT_FALSE(run.included());
    }
    // Beside the study's runs, in the same series: the surface draws them as planned, not fitted.
    data::RunTable both = *study;
    both.runs.insert(both.runs.end(), planned->runs.begin(), planned->runs.end());
    RunFilter filter;
    filter.series = study->runs.front().series;
    EXPECT_EQ(planned->runs.front().series, *filter.series);
    const SurfaceRunPoints drawn = surfaceRunPoints(both, filter, {});
    EXPECT_EQ(drawn.fitted.size(), study->runs.size());
    ASSERT_EQ(drawn.planned.size(), 3u);
    EXPECT_EQ(drawn.planned.front(), static_cast<int>(study->runs.size()));
}
