// The view a study opens on (analysis/FirstView.h), over the real studies of ../shared/data read
// as the window reads them: run tables as runs, loss-curve files as curves.
#include <gtest/gtest.h>

#include <QDir>

#include "core/analysis/FirstView.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "tests/support/TestData.h"

namespace scalex::analysis {
namespace {

std::string viewOfRuns(const QString& relative) {
    auto table = data::loadRunTable(test::sharedPath(relative).toStdString());
    EXPECT_TRUE(bool(table)) << relative.toStdString() << ": " << (table ? std::string() : table.error().toString());
    if (!table) return {};
    Study study;
    study.addRuns(std::move(*table), relative.toStdString());
    return firstView(study);
}

TEST(FirstView, IsoFlopWhereTheReadingFindsBudgets) {
    SCALEX_REQUIRE_SHARED();
    // A budget column (the paper's study: isoflop_bucket, IsoFLOP; Porian et al.: flops_budget),
    // budgets in the run names (Marin), clusters of C (Epoch's Chinchilla points, misfitting).
    for (const QString& file : QDir(test::sharedPath("data/xlstm")).entryList({"runs_isoflop_*.csv"}))
        EXPECT_EQ(viewOfRuns("data/xlstm/" + file), "isoflop") << file.toStdString();
    for (const char* file : {"data/xlstm/isoflop_xlstm_3e19_ctx8192.csv", "data/public/porian/isoflop_points.csv",
                             "data/public/marin/isoflop-comma.csv", "data/public/marin/isoflop-dclm.csv",
                             "data/public/epoch-chinchilla/svg_extracted_data.csv",
                             "data/public/misfitting/scaling_results_last_ckpt_only.csv"})
        EXPECT_EQ(viewOfRuns(file), "isoflop") << file;
}

TEST(FirstView, ParetoWhereRunsSpanComputeWithoutBudgets) {
    SCALEX_REQUIRE_SHARED();
    // The paper's token/parameter runs (ratios 22 to 2200: no IsoFLOP design) and Gemstones' runs
    // (each run's last checkpoint; their compute forms no budgets), both over more than a decade of C.
    EXPECT_EQ(viewOfRuns("data/xlstm/tokenparam_runs_ctx8192.csv"), "pareto");
    EXPECT_EQ(viewOfRuns("data/public/gemstones/fineweb_edu_losses_combined.jsonl"), "pareto");
    EXPECT_EQ(viewOfRuns("data/public/gemstones/fineweb_dclm_losses_combined.jsonl"), "pareto");
}

TEST(FirstView, LossCurvesWhereTheStudyIsCurvesOnly) {
    SCALEX_REQUIRE_SHARED();
    const QStringList files = QDir(test::sharedPath("data/xlstm")).entryList({"curves_isoflop_*.csv"});
    ASSERT_EQ(files.size(), 6);
    for (const QString& file : files) {
        auto curves = data::loadProjectCurves(test::sharedPath("data/xlstm/" + file), file.toStdString());
        ASSERT_TRUE(bool(curves)) << curves.error().toString();
        Study study;
        study.addCurves(std::move(*curves));
        EXPECT_EQ(firstView(study), "curves") << file.toStdString();
        // With the runs of the same experiment beside them, the runs' figure comes first.
        auto runs = data::loadRunTable(test::sharedPath("data/xlstm/" + QString(file).replace("curves_", "runs_")).toStdString());
        ASSERT_TRUE(bool(runs));
        study.addRuns(std::move(*runs), "runs");
        EXPECT_EQ(firstView(study), "isoflop") << file.toStdString();
    }
}

TEST(FirstView, RunTableOtherwise) {
    SCALEX_REQUIRE_SHARED();
    // Porian et al.'s fitted optima carry no N, D and C per run: nothing to draw a figure of.
    EXPECT_EQ(viewOfRuns("data/public/porian/isoflop_optima.csv"), "runs");
    // Two runs within a factor 2 of compute: no budgets, no front worth drawing.
    auto table = data::parseRunTable("params,tokens,loss\n1e8,2e9,3.5\n2e8,2e9,3.3\n", "two.csv");
    ASSERT_TRUE(bool(table)) << table.error().toString();
    Study study;
    study.addRuns(std::move(*table), "two.csv");
    EXPECT_EQ(firstView(study), "runs");
    EXPECT_EQ(firstView(Study{}), "runs");  // nothing opened
}

TEST(FirstView, TheBuiltInExampleOpensOnItsIsoFlopLaws) {
    // The project the program embeds (resources/scalex.qrc), read from the source tree.
    auto example = data::loadProject(test::sourcePath("resources/example/example.scalex"));
    ASSERT_TRUE(bool(example)) << example.error().toString();
    Study study;
    study.setProject(std::move(*example));
    EXPECT_EQ(firstView(study), "isoflop");
}

}  // namespace
}  // namespace scalex::analysis
