// `scalex fit lnd --from-curves ... --checkpoints ...` run as a user would on tracker exports of
// three models written here (a constant-rate run and two WSD runs each, losses from the Multi-Power
// Law of Luo et al., ICLR 2025, arXiv:2503.12811, Eq. 7, evaluated below): every L(N,D) point is a
// predicted checkpoint, marked in the JSON and the text, with its interval; the parameter count
// comes from the config; a model with too few curves and --checkpoints alone are named errors.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/MplTrackerRuns.h"

using scalex::test::runScalex;
using scalex::test::writeMplRun;

namespace {

// One --from-curves value per model: its three runs, comma-separated.
QStringList models(const QDir& dir) {
    QStringList args;
    for (const QStringList& files : scalex::test::writeMplModels(dir)) args << "--from-curves" << files.join(',');
    return args;
}

// A small grid of starts (the paper's 8000 take longer than this check needs).
QString gridFile(const QDir& dir) {
    QFile f(dir.filePath("grid.txt"));
    EXPECT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Text));
    f.write("logA: 0 5 10\nlogB: 0 5 10\nlogE: -1 0 1\nalpha: 0.2 0.5\nbeta: 0.2 0.5\ngamma: 0.5 1 2\n");
    return f.fileName();
}

}  // namespace

TEST(LndFromCurves, EveryPointIsAMarkedPredictedCheckpointWithItsInterval) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QStringList args{"fit", "lnd"};
    args << models(dir) << "--checkpoints" << "1.31072e8,2.62144e8,3.93216e8" << "--grid" << gridFile(dir) << "--replicates" << "50" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject json = r.json();
    const QJsonArray points = json["fit"].toObject()["points"].toArray();
    ASSERT_EQ(points.size(), 9);
    for (const auto& v : points) {
        const QJsonObject p = v.toObject();
        EXPECT_TRUE(p["predicted"].toBool());
        EXPECT_LT(p["lower"].toDouble(), p["loss"].toDouble());
        EXPECT_GT(p["upper"].toDouble(), p["loss"].toDouble());
        EXPECT_GT(p["ln_sd"].toDouble(), 0);
        EXPECT_TRUE(p["params"].toDouble() == 1e8 || p["params"].toDouble() == 3e8 || p["params"].toDouble() == 9e8) << "N from config n_params";
        EXPECT_TRUE(p["schedule"].toString().startsWith("wsd")) << p["schedule"].toString().toStdString();
    }
    // 2,000 steps of 65,536 tokens: its loss falls with N at equal D.
    EXPECT_GT(points[0].toObject()["loss"].toDouble(), points[3].toObject()["loss"].toDouble());
    const QJsonObject alpha = json["fit"].toObject()["params"].toObject()["alpha"].toObject();
    EXPECT_LE(alpha["lower"].toDouble(), alpha["value"].toDouble());
    EXPECT_GE(alpha["upper"].toDouble(), alpha["value"].toDouble());
    EXPECT_EQ(json["fit"].toObject()["replicates"].toInt(), 50);
    // The text marks each point.
    args.removeLast();
    const auto text = runScalex(args);
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_EQ(text.out.count("\n  predicted  "), 9) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("0 measured runs and 9 predicted checkpoints")) << text.out.toStdString();
}

TEST(LndFromCurves, TooFewCurvesAndCheckpointsAloneNameTheModelAndOption) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    const std::string first = writeMplRun(dir, "lone-constant", 1e8, 3000, 0);
    const auto r = runScalex({"fit", "lnd", "--from-curves", QString::fromStdString(first + "," + writeMplRun(dir, "lone-wsd", 1e8, 2000, 0.2)),
                              "--checkpoints", "1e8"});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_TRUE(r.err.contains("'lone-constant' has 2 curves")) << r.err.toStdString();
    EXPECT_TRUE(r.err.contains(QString::fromStdString(first))) << r.err.toStdString();
    const auto alone = runScalex({"fit", "lnd", "--checkpoints", "1e8"});
    EXPECT_NE(alone.exitCode, 0);
    EXPECT_TRUE(alone.err.contains("--from-curves")) << alone.err.toStdString();
}

TEST(LndFromCurves, MeasuredRunsOfDataSitBesideThePredictedCheckpoints) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QFile csv(dir.filePath("measured.csv"));
    ASSERT_TRUE(csv.open(QIODevice::WriteOnly | QIODevice::Text));
    csv.write("run_id,params,tokens,val_loss\na,5e7,2e8,3.95\nb,5e7,4e8,3.80\nc,2e8,2e8,3.45\nd,2e8,6e8,3.20\n");
    csv.close();
    QStringList args{"fit", "lnd", "--data", csv.fileName()};
    args << models(dir) << "--checkpoints" << "1.31072e8" << "--grid" << gridFile(dir) << "--replicates" << "20" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray points = r.json()["fit"].toObject()["points"].toArray();
    ASSERT_EQ(points.size(), 7);
    int measured = 0;
    for (const auto& v : points) {
        const QJsonObject p = v.toObject();
        if (p["predicted"].toBool()) continue;
        ++measured;
        EXPECT_TRUE(p["params"].toDouble() == 5e7 || p["params"].toDouble() == 2e8) << "the runs of --data are the measured ones";
    }
    EXPECT_EQ(measured, 4);
}

// `fit isoflop --from-curves ... --budgets`: per model the checkpoint at D = H/(6N), marked
// predicted with the budget it was asked at; N*(H) and D*(H) printed with their intervals.
TEST(IsoFlopFromCurves, EachBudgetsPointsArePredictedCheckpointsAtDOfHOver6N) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QStringList args{"fit", "isoflop"};
    args << models(dir) << "--budgets" << "2e17,4e17,8e17" << "--replicates" << "40" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject fit = r.json()["fit"].toObject();
    const QJsonArray points = fit["points"].toArray();
    ASSERT_EQ(points.size(), 9);
    for (const auto& v : points) {
        const QJsonObject p = v.toObject();
        EXPECT_TRUE(p["predicted"].toBool());
        EXPECT_LT(p["lower"].toDouble(), p["loss"].toDouble());
        EXPECT_GT(p["upper"].toDouble(), p["loss"].toDouble());
        // D = H/(6N) to a whole step of 65,536 tokens.
        EXPECT_NEAR(p["tokens"].toDouble(), p["budget"].toDouble() / (6 * p["params"].toDouble()), 32768) << p["budget"].toDouble();
    }
    const QJsonArray profiles = fit["profiles"].toArray();
    ASSERT_EQ(profiles.size(), 3);
    for (const auto& v : profiles) EXPECT_EQ(v.toObject()["n_runs"].toInt(), 3);
    // L0(N) falls as N^-0.3 and the loss in D as S1^-0.429 (MPL's α): N*(H) ∝ H^(0.429/(0.3+0.429)) = H^0.588
    // (Hoffmann et al. 2022, Eq. 4's a = β/(α+β)). Measured 0.582 [0.549, 0.641] over 40 replicates.
    const QJsonObject law = fit["n_opt_law"].toObject();
    ASSERT_FALSE(law.isEmpty());
    EXPECT_NEAR(law["exponent"].toDouble(), 0.429 / 0.729, 0.03);
    EXPECT_LE(law["lower"].toObject()["exponent"].toDouble(), law["exponent"].toDouble());
    EXPECT_GE(law["upper"].toObject()["exponent"].toDouble(), law["exponent"].toDouble());
    EXPECT_EQ(fit["replicates"].toInt(), 40);
    // The text marks each point.
    args.removeLast();
    const auto text = runScalex(args);
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    std::printf("%s\n", text.out.toStdString().c_str());
    EXPECT_EQ(text.out.count("\n  predicted  "), 9) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("0 measured runs and 9 predicted checkpoints")) << text.out.toStdString();
}

TEST(IsoFlopFromCurves, MissingBudgetsAndABudgetInsideTheWarmUpNameTheOption) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QStringList args{"fit", "isoflop"};
    args << models(dir);
    const auto none = runScalex(args);
    EXPECT_NE(none.exitCode, 0);
    EXPECT_TRUE(none.err.contains("needs --budgets")) << none.err.toStdString();
    // 9e8 parameters at 1e17 FLOPs: 1.85e7 tokens, 283 steps; at 5e16, 141 steps, inside the 200-step warm-up.
    const auto early = runScalex(args << "--budgets" << "5e16");
    EXPECT_NE(early.exitCode, 0);
    EXPECT_TRUE(early.err.contains("--budgets")) << early.err.toStdString();
    EXPECT_TRUE(early.err.contains("model 'm900-constant': budget 5e+16 gives")) << early.err.toStdString();
    const auto bad = runScalex({"fit", "isoflop", "--from-curves", "x.json", "--budgets", "1e17,abc"});
    EXPECT_NE(bad.exitCode, 0);
    EXPECT_TRUE(bad.err.contains("--budgets expects positive compute budgets, got 'abc'")) << bad.err.toStdString();
}

TEST(IsoFlopFromCurves, MeasuredRunsOfDataJoinTheirBudgetsProfile) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QFile csv(dir.filePath("measured.csv"));
    ASSERT_TRUE(csv.open(QIODevice::WriteOnly | QIODevice::Text));
    // C = 6ND = 2e17 for both; a third run at 1e19 lies in no budget asked.
    csv.write("run_id,params,tokens,val_loss\na,5e7,6.6667e8,3.70\nb,2e8,1.6667e8,3.52\nc,1e9,1.6667e9,2.90\n");
    csv.close();
    QStringList args{"fit", "isoflop", "--data", csv.fileName()};
    args << models(dir) << "--budgets" << "2e17,4e17,8e17" << "--replicates" << "20" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject fit = r.json()["fit"].toObject();
    int measured = 0;
    for (const auto& v : fit["points"].toArray()) measured += !v.toObject()["predicted"].toBool();
    EXPECT_EQ(measured, 3);
    const QJsonArray profiles = fit["profiles"].toArray();
    ASSERT_EQ(profiles.size(), 3);
    EXPECT_EQ(profiles[0].toObject()["n_runs"].toInt(), 5) << "two measured runs beside the three models' checkpoints";
    EXPECT_EQ(profiles[1].toObject()["n_runs"].toInt(), 3);
}
