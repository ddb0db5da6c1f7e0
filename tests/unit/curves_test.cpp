// Loss curves (the study's curves_*.csv) load, join the run tables on run_id, and end at the
// runs' final validation loss; bad curve files name the line and column; curves files are told
// apart from run tables and inference measurements.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <cmath>

#include "core/data/DataFileKind.h"
#include "core/data/LossCurves.h"
#include "core/data/RunTableIo.h"
#include "tests/support/TestData.h"

using namespace scalex::data;

TEST(LossCurves, EveryStudyCurveFileLoadsAndEndsAtTheRunsFinalValidationLoss) {
    SCALEX_REQUIRE_SHARED();
    const QStringList files = QDir(scalex::test::sharedPath("data/xlstm")).entryList({"curves_*.csv"});
    ASSERT_EQ(files.size(), 6);
    for (const QString& name : files) {
        SCOPED_TRACE(name.toStdString());
        auto curves = loadLossCurves(scalex::test::sharedPath("data/xlstm/" + name).toStdString());
        ASSERT_TRUE(curves) << curves.error().toString();
        QString runsName = name;
        runsName.replace("curves_", "runs_");
        auto runs = loadRunTable(scalex::test::sharedPath("data/xlstm/" + runsName).toStdString());
        ASSERT_TRUE(runs) << runs.error().toString();
        int joined = 0;
        for (const auto& run : runs->runs) {
            const LossCurve* c = curves->find(run.runId);
            if (!c || std::isnan(run.valLoss)) continue;
            EXPECT_NEAR(c->finalValLoss(), run.valLoss, 1e-9 * run.valLoss) << run.runId;
            ++joined;
            for (std::size_t i = 1; i < c->points.size(); ++i) EXPECT_GE(c->points[i].step, c->points[i - 1].step);
        }
        EXPECT_GT(joined, 20);
    }
    // Row counts of the README.
    auto c = loadLossCurves(scalex::test::sharedPath("data/xlstm/curves_isoflop_llama_ctx8192.csv").toStdString());
    ASSERT_TRUE(c);
    EXPECT_EQ(c->pointCount(), 22984u);
}

TEST(LossCurves, BadFilesNameLineAndColumn) {
    QTemporaryDir dir;
    auto write = [&dir](const char* name, const char* text) {
        QFile f(dir.filePath(name));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text);
        return dir.filePath(name).toStdString();
    };
    auto r = loadLossCurves(write("a.csv", "run_id,step,val_loss\nx,50,\nx,abc,3.1\n"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().line, 3);
    EXPECT_EQ(r.error().column, "step");
    r = loadLossCurves(write("b.csv", "run_id,step,val_loss\nx,50,nope\n"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().column, "val_loss");
    r = loadLossCurves(write("c.csv", "id,step\nx,1\n"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().column, "run_id");
    r = loadLossCurves(write("d.csv", "run_id,step,train_loss\nx,50,8.2\nx,100,6.1\ny,50,7.9\n"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->curves.size(), 2u);
    EXPECT_EQ(r->find("x")->points.size(), 2u);
    EXPECT_TRUE(std::isnan(r->find("x")->finalValLoss())) << "no validation logged";
}

// Files are told apart by their columns: the study's curves and measurements, and a run table
// of checkpoints (run_id and step too, with model sizes) that stays a run table.
TEST(DataFileKind, CurvesMeasurementsAndRunTablesAreToldApartByTheirColumns) {
    EXPECT_EQ(dataFileKind(scalex::test::sourcePath("datasets/example/generated-isoflop.csv")), DataFileKind::RunTable);
    EXPECT_EQ(dataFileKind(scalex::test::sourcePath("resources/example/example.scalex")), DataFileKind::Project);
    SCALEX_REQUIRE_SHARED();
    const QString dir = scalex::test::sharedPath("data/xlstm/");
    for (const QString& name : QDir(dir).entryList({"*.csv"})) {
        SCOPED_TRACE(name.toStdString());
        const DataFileKind kind = dataFileKind(dir + name);
        if (name.startsWith("curves_")) EXPECT_EQ(kind, DataFileKind::LossCurves);
        else if (name.startsWith("inference_")) EXPECT_EQ(kind, DataFileKind::InferenceMeasurements);
        else EXPECT_EQ(kind, DataFileKind::RunTable);
    }
}
