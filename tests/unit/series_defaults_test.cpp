// The default series and sweeps of a run table (core/data/SeriesChoice.h, Sweeps.h): which columns
// name a hyperparameter, which grouping is one experiment per series, which runs a sweep's best
// stands for, and that regrouping and the user's toggles move them as they should.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/Study.h"
#include "core/data/RunTableIo.h"
#include "core/data/Series.h"
#include "core/data/SeriesChoice.h"
#include "core/data/Sweeps.h"

using namespace scalex;

namespace {

data::RunTable parse(const char* text) {
    auto t = data::parseRunTable(QByteArray(text), "table.csv");
    EXPECT_TRUE(t) << (t ? std::string() : t.error().toString());
    return t ? std::move(*t) : data::RunTable{};
}

// The runs as the study reads them (analysis/StudyReading.h: series, sweeps).
data::RunTable read(const char* text) {
    analysis::Study study;
    study.addRuns(parse(text), "table.csv");
    return study.runs();
}

}  // namespace

TEST(Sweeps, HyperparameterColumnsAreKnownByTheirNames) {
    for (const char* name : {"peak_lr", "learning_rate", "lr", "config.optimizer.lr", "global_batch_size", "batch_size", "bsz",
                             "seed", "lr_warmup_steps", "weight_decay", "beta2", "dropout", "lr_schedule", "Learning Rate"})
        EXPECT_TRUE(data::isHyperparameterColumn(name)) << name;
    for (const char* name : {"num_params", "tokens", "model", "experiment", "val_loss", "context_length", "step", "run_name",
                             "num_train_steps", "compute_budget", "vocab_size", "d_model"})
        EXPECT_FALSE(data::isHyperparameterColumn(name)) << name;
}

TEST(Sweeps, TheBestRunOfEachSweepStandsForItAndTheOthersSayWhy) {
    data::RunTable t = read(
        "series,peak_lr,params,tokens,loss\n"
        "a,0.001,1e8,2e9,3.10\n"
        "a,0.002,1e8,2e9,3.05\n"
        "a,0.004,1e8,2e9,3.20\n"
        "a,0.002,2e8,4e9,2.90\n"  // alone at its (N, D): no sweep
        "b,0.001,1e8,2e9,3.50\n"  // another series at the same (N, D): its own
        "b,0.002,1e8,2e9,3.40\n");
    ASSERT_EQ(t.runs.size(), 6u);
    EXPECT_EQ(t.runs[0].sweepLeftOut, "not the best of its sweep: peak_lr 0.001, loss +0.05");
    EXPECT_TRUE(t.runs[1].sweepLeftOut.empty());
    EXPECT_EQ(t.runs[2].sweepLeftOut, "not the best of its sweep: peak_lr 0.004, loss +0.15");
    EXPECT_TRUE(t.runs[3].sweepLeftOut.empty());
    EXPECT_FALSE(t.runs[4].sweepLeftOut.empty());
    EXPECT_TRUE(t.runs[5].sweepLeftOut.empty());
    bool noted = false;
    for (const auto& n : t.notes) noted = noted || n.rfind("sweeps: 2 over peak_lr", 0) == 0;
    EXPECT_TRUE(noted);

    // Out of the analyses by default, in with every sweep run or the user's tick.
    analysis::RunFilter filter;
    EXPECT_FALSE(analysis::passes(t.runs[0], filter));
    EXPECT_TRUE(analysis::leftOutBySweep(t.runs[0], filter));
    filter.allSweepRuns = true;
    EXPECT_TRUE(analysis::passes(t.runs[0], filter));
    filter.allSweepRuns = false;
    t.runs[0].userIncluded = true;
    EXPECT_TRUE(analysis::passes(t.runs[0], filter));
    EXPECT_FALSE(analysis::leftOutBySweep(t.runs[0], filter));
}

TEST(Sweeps, RunsThatDifferInNoHyperparameterAreNoSweep) {
    // The same (N, D) twice with no hyperparameter between them: repeats, not tuning; both stay.
    const data::RunTable t = read(
        "series,peak_lr,params,tokens,loss\n"
        "a,0.002,1e8,2e9,3.10\n"
        "a,0.002,1e8,2e9,3.12\n");
    for (const auto& r : t.runs) EXPECT_TRUE(r.sweepLeftOut.empty());
}

TEST(Sweeps, ATicksInASweptRunThroughTheStudy) {
    analysis::Study study;
    study.addRuns(parse("series,lr,params,tokens,loss\na,0.001,1e8,2e9,3.10\na,0.002,1e8,2e9,3.05\n"), "t");
    const data::Run& worse = study.runs().runs[0];
    EXPECT_FALSE(study.inAnalysis(worse));
    EXPECT_TRUE(study.setIncluded(0, true)) << "ticking a swept run in changes something";
    EXPECT_TRUE(study.inAnalysis(study.runs().runs[0]));
}

TEST(SeriesChoice, ASeriesIsOneExperiment) {
    // `model` puts two studies' reading of the same points in one series; `experiment` keeps them apart.
    const data::RunTable t = parse(
        "experiment,model,params,tokens,loss\n"
        "read_a,dense,1e8,2e9,3.10\n"
        "read_a,dense,2e8,4e9,2.90\n"
        "read_a,dense,4e8,8e9,2.70\n"
        "read_b,dense,1e8,2e9,3.11\n"
        "read_b,dense,2e8,4e9,2.91\n"
        "read_b,dense,4e8,8e9,2.69\n");
    EXPECT_EQ(t.seriesBy, std::vector<std::string>{"experiment"});
    EXPECT_EQ(data::seriesNames(t), (std::vector<std::string>{"read_a", "read_b"}));
    ASSERT_GE(t.seriesConsidered.size(), 2u);
    EXPECT_EQ(t.seriesConsidered[0].columns, std::vector<std::string>{"model"});
    EXPECT_EQ(t.seriesConsidered[0].clashes, 3u);
    EXPECT_FALSE(t.seriesConsidered[0].chosen);
    EXPECT_TRUE(t.seriesConsidered[1].chosen);
}

TEST(SeriesChoice, AColumnOfSizesIsNotASeries) {
    const data::RunTable t = parse(
        "model,params,tokens,loss\n"
        "m_12m,1.2e7,2e8,4.1\n"
        "m_12m,1.2e7,4e8,4.0\n"
        "m_35m,3.5e7,7e8,3.7\n"
        "m_35m,3.5e7,1.4e9,3.6\n");
    EXPECT_TRUE(t.seriesBy.empty()) << "one series, the file's";
    EXPECT_EQ(data::seriesNames(t).size(), 1u);
    ASSERT_FALSE(t.seriesConsidered.empty());
    EXPECT_TRUE(t.seriesConsidered[0].singleSize);
}

TEST(SeriesChoice, TheFamilyColumnStaysTheDefaultWhereItIsOneExperiment) {
    const data::RunTable t = parse(
        "model_type,dataset,params,tokens,loss\n"
        "llama,iso,1e8,2e9,3.1\n"
        "llama,iso,2e8,4e9,2.9\n"
        "mlstm,iso,1e8,2e9,3.0\n"
        "mlstm,iso,2e8,4e9,2.8\n");
    EXPECT_EQ(t.seriesBy, std::vector<std::string>{"model_type"});
    EXPECT_EQ(data::seriesNames(t), (std::vector<std::string>{"transformer", "xlstm"}));
}

TEST(SeriesChoice, AUsersGroupingIsTakenAsItIs) {
    data::RunTable t = parse(
        "experiment,model,params,tokens,loss\n"
        "read_a,dense,1e8,2e9,3.10\n"
        "read_b,dense,1e8,2e9,3.11\n");
    ASSERT_FALSE(data::groupRunsBy(t, {"model"}));
    EXPECT_EQ(t.seriesBy, std::vector<std::string>{"model"});
    EXPECT_TRUE(t.seriesConsidered.empty());
}

TEST(Settings, SweepAndBudgetChoicesRoundTripThroughJson) {
    analysis::AnalysisSettings s;
    s.scope.allSweepRuns = true;
    s.keptBudgets = {1e17, 3e17};
    const auto back = analysis::AnalysisSettings::fromJson(s.toJson());
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, s);
    const auto bad = analysis::AnalysisSettings::fromJson(QJsonObject{{"kept_budgets", QJsonArray{-1}}});
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().column, "common.kept_budgets");
}

TEST(Sweeps, KeptRunsThatMixASettingTheSweepsAlwaysRejectAreNamed) {
    // Batch 64 wins all three sweeps; the points no sweep covers keep batch 128: the kept runs mix both.
    const data::RunTable t = read(
        "series,batch_size,params,tokens,loss\n"
        "a,64,1e8,2e9,3.00\n"
        "a,128,1e8,2e9,3.10\n"
        "a,64,2e8,1e9,3.05\n"
        "a,128,2e8,1e9,3.15\n"
        "a,64,4e8,5e8,3.20\n"
        "a,128,4e8,5e8,3.30\n"
        "a,128,8e8,2.5e8,3.50\n");
    bool named = false;
    for (const auto& n : t.notes) named = named || n.find("the runs kept in series a mix batch_size 128, 64") != std::string::npos;
    EXPECT_TRUE(named);
    // Tuned per size is no mix: one sweep's winner says nothing systematic.
    const data::RunTable tuned = read(
        "series,lr,params,tokens,loss\n"
        "a,0.003,1e8,2e9,3.00\n"
        "a,0.001,1e8,2e9,3.10\n"
        "a,0.001,4e8,5e8,3.20\n");
    for (const auto& n : tuned.notes) EXPECT_EQ(n.find("mix"), std::string::npos) << n;
}
