// A study's predicted checkpoints (analysis::predictStudyCheckpoints, what the window's L(N,D) and
// IsoFLOP views draw): curves grouped into models by the N of their runs, a model with too few
// curves left out and noted, token counts asked taken as asked, and a study whose runs give no N
// an error naming `curves` and the config key that would.
#include <gtest/gtest.h>

#include <QFileInfo>
#include <QTemporaryDir>

#include "core/analysis/PredictedCheckpoints.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "core/data/TrackerJson.h"
#include "tests/support/MplTrackerRuns.h"

using namespace scalex;

namespace {

// The curve sets and the run table of tracker exports, as the window opens them.
struct Opened {
    std::vector<data::ProjectCurves> sets;
    data::RunTable runs;
};

Opened open(const QStringList& files) {
    Opened out;
    std::vector<data::TrackerRun> runs;
    for (const auto& f : files) {
        auto run = data::loadTrackerRun(f.toStdString());
        EXPECT_TRUE(run.ok());
        if (run) runs.push_back(std::move(*run));
        auto set = data::loadProjectCurves(f, QFileInfo(f).completeBaseName().toStdString());
        EXPECT_TRUE(set.ok());
        if (set) out.sets.push_back(std::move(*set));
    }
    auto table = data::parseRunTable(data::trackerRunsCsv(runs), "tracker_runs");
    EXPECT_TRUE(table.ok());
    if (table) out.runs = std::move(*table);
    return out;
}

}  // namespace

TEST(StudyCheckpoints, AModelWithTooFewCurvesIsLeftOutAndTokensAskedAreKept) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const auto models = test::writeMplModels(QDir(tmp.path()));
    // The smallest model's constant-rate and 20 % runs only, the middle one's three.
    const Opened study = open({models[0][0], models[0][1], models[1][0], models[1][1], models[1][2]});
    analysis::PredictedCheckpointOptions options;
    options.tokens = {2.62144e8};
    const auto r = analysis::predictStudyCheckpoints(study.sets, study.runs, options);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_EQ(r->checkpoints.size(), 1u);
    EXPECT_DOUBLE_EQ(r->checkpoints[0].params, 3e8);
    EXPECT_DOUBLE_EQ(r->checkpoints[0].tokens, 2.62144e8);
    EXPECT_EQ(r->checkpoints[0].model, "m300-constant");
    EXPECT_NE(std::find(r->notes.begin(), r->notes.end(), "N = 1e+08: 2 curves, its law needs at least 3, left out"), r->notes.end());
}

TEST(StudyCheckpoints, RunsWithoutAParameterCountAreNamed) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const auto models = test::writeMplModels(QDir(tmp.path()));
    Opened study = open(models[0]);
    study.runs = {};  // curves alone: no run gives N
    const auto r = analysis::predictStudyCheckpoints(study.sets, study.runs, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "curves");
    EXPECT_NE(r.error().message.find("n_params"), std::string::npos) << r.error().toString();
}
