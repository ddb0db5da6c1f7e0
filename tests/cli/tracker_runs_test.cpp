// Tracker exports made into a project (`scalex convert A.json B.json P.scalex`): each export's
// curve is a loss-curve set, and its config's keys are the columns of one more run table
// (tracker_runs, one row per export), which the study's reading (`scalex check`) sees.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <set>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

TEST(TrackerRuns, ConfigKeysAreColumnsTheReadingSees) {
    SCALEX_REQUIRE_SHARED();
    const QString dir = sharedPath("data/public/lr-schedules/");
    const QString stem = "_slimpajama_llama_norm_nlayers12_nhead12_lr";
    const QString tail = "_bs50x2_ws2_seed0_data_seed1337.json";
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QString project = tmp.filePath("tracker.scalex");
    const QStringList args{"convert",
                           dir + "cos-10-124m" + stem + "0.001_sched_cos_warmup300_decay_sqrt_0.0_iter25000" + tail,
                           dir + "cos-10-124m" + stem + "0.002_sched_cos_warmup300_decay_sqrt_0.0_iter25000" + tail,
                           dir + "cos-10-124m" + stem + "0.0005_sched_cos_warmup300_decay_sqrt_0.0_iter25000" + tail,
                           dir + "ann124-0.2" + stem + "0.001_sched_wsd_warmup300_decay_sqrt_0.2_iter25000" + tail,
                           project};
    const auto converted = runScalex(args);
    ASSERT_EQ(converted.exitCode, 0) << converted.err.toStdString();
    const auto checked = runScalex({"check", project, "--json"});
    ASSERT_NE(checked.exitCode, 2) << checked.err.toStdString();
    const QJsonObject j = checked.json();
    bool found = false;
    for (const auto& t : j["tables"].toArray())
        if (t.toObject()["name"].toString() == "tracker_runs") {
            found = true;
            EXPECT_EQ(t.toObject()["rows"].toInt(), 4);
        }
    EXPECT_TRUE(found) << "a run table of the exports' configs";
    EXPECT_EQ(j["curve_sets"].toArray().size(), 4) << "and each export's curve";
    std::set<QString> read;
    for (const auto& c : j["roles"].toArray())
        if (!c.toObject()["role"].toString().isEmpty()) read.insert(c.toObject()["column"].toString());
    for (const char* column : {"lr", "scheduler", "wsd_fract_decay", "decay_type", "iterations"})
        EXPECT_TRUE(read.count(QString::fromLatin1(column))) << column << " is read";
}
