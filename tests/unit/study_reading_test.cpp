// How a study is read (core/analysis/StudyReading.h), on generated studies of every shape: columns
// that are conditions, knobs (in one and two dimensions), repeats, launch ids, budgets in run
// names, compute in GFLOPs, clusters of compute, checkpoints found by a step column, roles the
// user sets; and the scope first: what `--where` fixes is a condition no more.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QJsonObject>
#include <cmath>
#include <sstream>
#include <string>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/Condition.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/Study.h"
#include "core/analysis/StudyReading.h"
#include "core/data/RunTableIo.h"
#include "core/data/Series.h"

using namespace scalex;

namespace {

analysis::Study studyOf(const std::string& text, const std::string& name = "table.csv") {
    auto t = data::parseRunTable(QByteArray::fromStdString(text), name);
    EXPECT_TRUE(t) << (t ? std::string() : t.error().toString());
    analysis::Study study;
    if (t) study.addRuns(std::move(*t), name);
    return study;
}

analysis::ColumnRole roleOf(const analysis::Study& s, const std::string& column) {
    const auto* c = s.reading().column(column);
    EXPECT_TRUE(c) << "no column " << column;
    return c ? c->role : analysis::ColumnRole::Constant;
}

std::size_t inAnalysis(const analysis::Study& s) {
    std::size_t n = 0;
    for (const auto& r : s.runs().runs) n += s.inAnalysis(r);
    return n;
}

// A loss surface to generate runs from: L = E + A/N^a + B/D^b.
double surface(double n, double d, double shift = 0) { return 1.8 + shift + 400 / std::pow(n, 0.34) + 2000 / std::pow(d, 0.36); }

// Three sizes at three token counts per size.
std::vector<std::pair<double, double>> grid() {
    std::vector<std::pair<double, double>> g;
    for (double n : {1e8, 2e8, 4e8})
        for (double m : {10.0, 20.0, 40.0}) g.push_back({n, m * n});
    return g;
}

}  // namespace

TEST(StudyReading, ATextColumnThatSeparatesRunsAtOnePointIsACondition) {
    // Porian et al.'s shape: each (N, D) trained under two warm-ups; neither is a tuned best.
    std::ostringstream csv;
    csv << "warmup,params,tokens,loss\n";
    for (auto [n, d] : grid()) {
        csv << "long," << n << "," << d << "," << surface(n, d) << "\n";
        csv << "short," << n << "," << d << "," << surface(n, d, 0.05) << "\n";
    }
    const auto s = studyOf(csv.str());
    EXPECT_EQ(roleOf(s, "warmup"), analysis::ColumnRole::Condition);
    EXPECT_NE(s.reading().column("warmup")->evidence.find("splits 18 runs at 9 (N, D) points"), std::string::npos)
        << s.reading().column("warmup")->evidence;
    EXPECT_EQ(s.seriesNames(), (std::vector<std::string>{"long", "short"}));
    EXPECT_EQ(inAnalysis(s), 18u) << "no run is left out: the short warm-up is another experiment, not a worse setting";
}

TEST(StudyReading, WhatTheScopeFixesIsAConditionNoMore) {
    std::ostringstream csv;
    csv << "warmup,decay,params,tokens,loss\n";
    for (auto [n, d] : grid())
        for (const char* w : {"long", "short"})
            for (const char* dec : {"cosine", "const"})
                csv << w << "," << dec << "," << n << "," << d << "," << surface(n, d, (w[0] == 's') * 0.03 + (dec[1] == 'o') * 0.02) << "\n";
    auto s = studyOf(csv.str());
    EXPECT_EQ(s.seriesNames().size(), 4u);
    analysis::AnalysisSettings settings = s.settings();
    settings.scope.where = {*analysis::parseCondition("warmup=long"), *analysis::parseCondition("decay=cosine")};
    s.setSettings(settings);
    EXPECT_EQ(roleOf(s, "warmup"), analysis::ColumnRole::Constant);
    EXPECT_EQ(roleOf(s, "decay"), analysis::ColumnRole::Constant);
    EXPECT_EQ(inAnalysis(s), 9u) << "the one setting in scope keeps every one of its runs";
}

TEST(StudyReading, ANumberTunedAtEachPointIsAKnobInOneOrTwoDimensions) {
    // A learning rate x global batch size grid at each (N, D), neither named in a list: gbsz.
    std::ostringstream csv;
    csv << "lr,gbsz,params,tokens,loss\n";
    for (auto [n, d] : grid())
        for (double lr : {1e-3, 2e-3, 4e-3})
            for (int b : {128, 256})
                csv << lr << "," << b << "," << n << "," << d << ","
                    << surface(n, d) + 0.02 * std::pow(std::log2(lr / 2e-3), 2) + (b == 256 ? 0.01 : 0) << "\n";
    const auto s = studyOf(csv.str());
    EXPECT_EQ(roleOf(s, "lr"), analysis::ColumnRole::Knob);
    EXPECT_EQ(roleOf(s, "gbsz"), analysis::ColumnRole::Knob);
    EXPECT_EQ(s.reading().sweeps, 9u);
    EXPECT_EQ(inAnalysis(s), 9u) << "one run per (N, D) point: the best of its grid";
    for (const auto& r : s.runs().runs)
        if (s.inAnalysis(r)) {
            EXPECT_EQ(r.raw.value("lr"), "0.002");
            EXPECT_EQ(r.raw.value("gbsz"), "128");
        }
}

TEST(StudyReading, SeedsAreRepeatsAndStay) {
    std::ostringstream csv;
    csv << "seed,params,tokens,loss\n";
    for (auto [n, d] : grid())
        for (int seed : {0, 1, 2}) csv << seed << "," << n << "," << d << "," << surface(n, d, 0.004 * seed) << "\n";
    const auto s = studyOf(csv.str());
    EXPECT_EQ(roleOf(s, "seed"), analysis::ColumnRole::Repeat);
    EXPECT_EQ(s.reading().sweeps, 0u);
    EXPECT_EQ(inAnalysis(s), 27u);
}

TEST(StudyReading, ALaunchIdIsNoExperiment) {
    // Misfitting's shape: the batch a run was launched in, named by its time; a tuned peak_lr.
    std::ostringstream csv;
    csv << "sweep,peak_lr,model,N,D,loss\n";
    int launch = 0;
    for (auto [n, d] : grid())
        for (double lr : {1e-3, 4e-3})
            csv << "2024_11_" << 10 + (launch++ % 7) << "-18_49_27_sweep," << lr << ",m_" << n / 1e6 << "m," << n << "," << d << ","
                << surface(n, d, lr > 2e-3 ? 0.03 : 0) << "\n";
    const auto s = studyOf(csv.str());
    EXPECT_EQ(roleOf(s, "sweep"), analysis::ColumnRole::Identifier);
    EXPECT_EQ(roleOf(s, "model"), analysis::ColumnRole::Descriptor);
    EXPECT_EQ(roleOf(s, "peak_lr"), analysis::ColumnRole::Knob);
    EXPECT_EQ(s.seriesNames().size(), 1u) << "one study, one series";
    EXPECT_EQ(inAnalysis(s), 9u);
}

TEST(StudyReading, BudgetsInRunNamesAreCheckedAgainstTheCompute) {
    // Marin's shape: the name's budget is a third of the total compute the tracker logged (in GFLOPs);
    // a run trained later at a predicted optimum names its total compute.
    std::ostringstream csv;
    csv << "Name,parameter_count,throughput/total_tokens,throughput/total_gflops,eval/loss\n";
    int i = 0;
    for (double h : {1e18, 3e18, 1e19})
        for (double n : {2e7, 5e7, 1e8, 2e8}) {
            const double d = 3 * h / (6 * n);  // C = 3 H in the tracker's count
            csv << "\"isoflop-" << (h == 1e18 ? "1e+18" : h == 3e18 ? "3e+18" : "1e+19") << "-d" << i++ << "\"," << n << "," << d << ","
                << 6 * n * d / 1e9 << "," << surface(n, d) << "\n";
        }
    csv << "\"validation-optimal-3e+18-x\"," << 6e7 << "," << 3e18 / (6 * 6e7) << "," << 3e18 / 1e9 << "," << surface(6e7, 3e18 / 3.6e8)
        << "\n";
    csv << "\"isoflop-5e+20-stray\"," << 1e8 << "," << 5e11 << "," << 6 * 1e8 * 5e11 / 1e9 << "," << 2.5 << "\n";
    const auto s = studyOf(csv.str());
    EXPECT_EQ(roleOf(s, "throughput/total_gflops"), analysis::ColumnRole::Quantity);
    EXPECT_NE(s.reading().column("throughput/total_gflops")->evidence.find("GFLOPs"), std::string::npos);
    EXPECT_DOUBLE_EQ(s.runs().runs[0].flops, 6.0 * 2e7 * (3 * 1e18 / (6 * 2e7)));
    const auto& b = s.reading().budgets;
    EXPECT_NE(b.source.find("run names"), std::string::npos) << b.source;
    ASSERT_EQ(b.levels.size(), 3u);
    EXPECT_NEAR(b.levels[0], 3e18, 1e9);
    for (int k = 0; k < 12; ++k) EXPECT_TRUE(data::known(s.runs().runs[k].budget)) << k;
    EXPECT_NEAR(s.runs().runs[12].budget, 3e18, 1e9) << "the optimum run of 3e18 total compute sits at the 1e18 budget's";
    ASSERT_EQ(b.unassigned.size(), 1u);
    EXPECT_EQ(b.unassigned[0].first, 13u);
    EXPECT_NE(b.unassigned[0].second.find("its name says 5e+20"), std::string::npos) << b.unassigned[0].second;
}

TEST(StudyReading, BudgetsAreClustersOfComputeNeverFixedLevels) {
    // Budgets at 2e17 and 7e17, none of the paper's levels; one run alone at 5e16.
    std::ostringstream csv;
    csv << "params,tokens,flops,loss\n";
    for (double h : {2e17, 7e17})
        for (double n : {1e7, 2e7, 4e7, 8e7}) csv << n << "," << h / (6 * n) << "," << h * (1 + 0.01 * std::log2(n / 1e7)) << "," << 3.0 << "\n";
    csv << 3e7 << "," << 5e16 / 1.8e8 << "," << 5e16 << "," << 3.5 << "\n";
    const auto s = studyOf(csv.str());
    const auto& b = s.reading().budgets;
    EXPECT_NE(b.source.find("clusters"), std::string::npos) << b.source;
    ASSERT_EQ(b.levels.size(), 2u);
    EXPECT_NEAR(b.levels[0] / 2e17, 1.0, 0.03);
    EXPECT_NEAR(b.levels[1] / 7e17, 1.0, 0.03);
    ASSERT_EQ(b.unassigned.size(), 1u);
    EXPECT_EQ(b.unassigned[0].first, 8u);
    EXPECT_NE(b.unassigned[0].second.find("lies in no cluster of three model sizes (the nearest budget, 2e+17, is 4x away)"),
              std::string::npos)
        << b.unassigned[0].second;
}

TEST(StudyReading, AStepColumnFindsTheCheckpointsOfRunsWithNoName) {
    // Misfitting's checkpoints: no run id, the run is its (N, D, peak_lr); current_steps along it.
    std::ostringstream csv;
    csv << "N,D,peak_lr,current_steps,portion_steps_elapsed,loss\n";
    for (auto [n, d] : grid())
        for (double lr : {1e-3, 4e-3})
            for (int step : {100, 200, 400, 800})
                csv << n << "," << d << "," << lr << "," << step << "," << step / 800.0 << ","
                    << surface(n, d, (lr > 2e-3 ? 0.03 : 0) + 0.5 * (800.0 / step - 1)) << "\n";
    const auto s = studyOf(csv.str());
    EXPECT_EQ(roleOf(s, "current_steps"), analysis::ColumnRole::Step);
    EXPECT_EQ(roleOf(s, "peak_lr"), analysis::ColumnRole::Knob);
    EXPECT_EQ(s.reading().checkpointRows, 54u);
    EXPECT_EQ(inAnalysis(s), 9u) << "18 runs, the better of each lr pair";
    for (const auto& r : s.runs().runs)
        if (s.inAnalysis(r)) {
            EXPECT_EQ(r.raw.value("current_steps"), "800");
        }
}

TEST(StudyReading, TheUsersRoleWinsAndTravelsWithTheSettings) {
    std::ostringstream csv;
    csv << "warmup,params,tokens,loss\n";
    for (auto [n, d] : grid()) {
        csv << "long," << n << "," << d << "," << surface(n, d) << "\n";
        csv << "short," << n << "," << d << "," << surface(n, d, 0.05) << "\n";
    }
    auto s = studyOf(csv.str());
    analysis::AnalysisSettings settings = s.settings();
    settings.roles["warmup"] = "knob";
    s.setSettings(settings);
    EXPECT_EQ(roleOf(s, "warmup"), analysis::ColumnRole::Knob);
    EXPECT_TRUE(s.reading().column("warmup")->chosen);
    EXPECT_EQ(inAnalysis(s), 9u) << "the long warm-up wins every point";
    const auto back = analysis::AnalysisSettings::fromJson(settings.toJson());
    ASSERT_TRUE(back);
    EXPECT_EQ(back->roles, settings.roles);
    const auto bad = analysis::AnalysisSettings::fromJson(QJsonObject{{"roles", QJsonObject{{"warmup", "tuned-ish"}}}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().column, "common.roles");
}

TEST(StudyReading, BudgetsInNamesParse) {
    EXPECT_EQ(analysis::budgetInName("isoflop-6e+19-d2304-L23-B64"), 6e19);
    EXPECT_EQ(analysis::budgetInName("exp2166-scaling-ladder-comma-validation-optimal-3e+19-5b04fb"), 3e19);
    EXPECT_EQ(analysis::budgetInName("run_1e18"), 1e18);
    EXPECT_FALSE(analysis::budgetInName("lr3e-4"));
    EXPECT_FALSE(analysis::budgetInName("model-2e5"));  // no budget: too small
    EXPECT_FALSE(analysis::budgetInName("abc1e19x"));
}
