// `scalex fit curves` and `scalex predict curve` run as a user would, on lr-schedules/ tracker
// exports: the JSON's held-out scores, the parameters with intervals, predictions that always
// carry their interval, and errors that name the option or file.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString lrFile(const QString& prefix, const QString& lr, const QString& rest) {
    return sharedPath("data/public/lr-schedules/" + prefix + "_slimpajama_llama_norm_nlayers12_nhead12_lr" + lr + "_sched_" + rest +
                      "_bs50x2_ws2_seed0_data_seed1337.json");
}

// The constant-rate and 25,000-step cosine runs of peak rate 1e-3.
QStringList fitData() {
    return {"--data", lrFile("stable-124m", "0.001", "wsd_warmup300_decay_linear_0.0_iter50000"), "--data",
            lrFile("cos-10-124m", "0.001", "cos_warmup300_decay_sqrt_0.0_iter25000")};
}

}  // namespace

TEST(CurvesVerb, FitScoresHeldOutCooldownsInJson) {
    SCALEX_REQUIRE_SHARED();
    QStringList args{"fit", "curves"};
    args << fitData() << "--holdout" << lrFile("ann124-0.2", "0.001", "wsd_warmup300_decay_sqrt_0.2_iter25000") << "--holdout"
         << lrFile("ann124-0.6", "0.001", "wsd_warmup300_decay_linear_0.6_iter50000") << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["law"].toString(), "mpl");  // the default law
    const QJsonArray params = j["parameters"].toArray();
    ASSERT_EQ(params.size(), 7);
    for (const auto& v : params) {
        const auto p = v.toObject();
        EXPECT_LE(p["lower"].toDouble(), p["value"].toDouble()) << p["name"].toString().toStdString();
        EXPECT_GE(p["upper"].toDouble(), p["value"].toDouble()) << p["name"].toString().toStdString();
    }
    const QJsonArray held = j["held_out"].toArray();
    ASSERT_EQ(held.size(), 2);
    const QJsonObject mean = j["held_out_mean"].toObject();
    for (const char* key : {"r2", "mae", "rmse", "pred_e", "worst_e"}) {
        ASSERT_TRUE(mean[key].isDouble()) << key;
        for (const auto& h : held) ASSERT_TRUE(h.toObject()[key].isDouble()) << key;
    }
    EXPECT_NEAR(mean["pred_e"].toDouble(), (held[0].toObject()["pred_e"].toDouble() + held[1].toObject()["pred_e"].toDouble()) / 2, 1e-12);
    EXPECT_NEAR(mean["worst_e"].toDouble(), (held[0].toObject()["worst_e"].toDouble() + held[1].toObject()["worst_e"].toDouble()) / 2, 1e-12);
    // Scored on the branches' own points: from the checkpoint each resumed from.
    EXPECT_GT(mean["r2"].toDouble(), 0.9);
    EXPECT_LT(mean["pred_e"].toDouble(), 0.01);
    for (const auto& h : held) {
        const auto f = h.toObject()["final"].toObject();
        EXPECT_LE(f["lower"].toDouble(), f["predicted"].toDouble());
        EXPECT_GE(f["upper"].toDouble(), f["predicted"].toDouble());
        EXPECT_LT(std::abs(f["predicted"].toDouble() / f["observed"].toDouble() - 1), 0.012);
    }
    const QJsonArray notes = j["notes"].toArray();
    ASSERT_FALSE(notes.isEmpty());
    EXPECT_TRUE(notes[0].toString().contains("joined to stable-124m")) << notes[0].toString().toStdString();
}

TEST(CurvesVerb, PredictCurvePrintsEveryLossWithItsInterval) {
    SCALEX_REQUIRE_SHARED();
    // A 3x longer run than the constant-rate one: 150,000 steps with a 20 % sqrt cooldown.
    QStringList args{"predict", "curve"};
    args << fitData() << "--law" << "lra" << "--schedule" << "wsd:peak=1e-3,steps=150000,warmup=300,cooldown=0.2,decay=sqrt"
         << "--at" << "50000" << "--at" << "150000";
    auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QStringList lines = r.out.split('\n').filter("step ");
    ASSERT_EQ(lines.filter("): loss ").size(), 2) << r.out.toStdString();
    for (const auto& line : lines.filter("): loss ")) EXPECT_TRUE(line.contains(QRegularExpression(R"(loss \d\.\d+ \[\d\.\d+, \d\.\d+\])"))) << line.toStdString();
    args << "--json";
    r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray preds = r.json()["predictions"].toArray();
    ASSERT_EQ(preds.size(), 2);
    const auto at50k = preds[0].toObject(), at150k = preds[1].toObject();
    EXPECT_EQ(at50k["lr"].toDouble(), 1e-3);  // still in the stable phase
    EXPECT_LT(at150k["loss"].toDouble(), at50k["loss"].toDouble());
    for (const auto& p : {at50k, at150k}) {
        EXPECT_LT(p["lower"].toDouble(), p["loss"].toDouble());
        EXPECT_GT(p["upper"].toDouble(), p["loss"].toDouble());
    }
    EXPECT_EQ(r.json()["schedule"].toString(), "wsd:peak=0.001,steps=150000,warmup=300,final=0,cooldown=0.2,decay=sqrt");
}

TEST(CurvesVerb, PlotDrawsTheCurvesHeadless) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString png = dir.filePath("curves.png");
    QStringList args{"predict", "curve"};
    args << fitData() << "--holdout" << lrFile("ann124-0.2", "0.001", "wsd_warmup300_decay_sqrt_0.2_iter25000") << "--schedule"
         << "wsd:peak=1e-3,steps=75000,warmup=300,cooldown=0.3,decay=sqrt" << "--plot" << png;
    auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(image.width(), 400);
    // A figure file of another kind is refused before any fitting, naming the option.
    args.last() = dir.filePath("curves.txt");
    r = runScalex(args);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("--plot")) << r.err.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath("curves.txt")));
}

TEST(CurvesVerb, ErrorsNameTheOptionOrFile) {
    auto r = runScalex({"fit", "curves"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("--data")) << r.err.toStdString();
    r = runScalex({"fit", "curves", "--data", "x.json", "--law", "cubic"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("--law: expected mpl, lra or power, got 'cubic'")) << r.err.toStdString();
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.json");
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("{\"config\": {}, \"history\": {\"val\": {\"iter\": [0, 200], \"val_loss\": [3.1]}}}");
    f.close();
    r = runScalex({"fit", "curves", "--data", bad});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains(bad + ", key 'history.val.val_loss': 1 values for 2 steps")) << r.err.toStdString();
    SCALEX_REQUIRE_SHARED();
    QStringList args{"predict", "curve"};
    args << fitData();
    r = runScalex(args);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("--schedule")) << r.err.toStdString();
    args << "--schedule" << "wsd:peak=1e-3,steps=1000,decay=cubic";
    r = runScalex(args);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.contains("'decay': expected linear, sqrt or exp")) << r.err.toStdString();
}

TEST(CurvesVerb, TrackerExportIsAStudysLossCurve) {
    SCALEX_REQUIRE_SHARED();
    const QString file = lrFile("ann124-0.2", "0.001", "wsd_warmup300_decay_linear_0.2_iter25000");
    auto r = runScalex({"check", file});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    // Train every 50 steps from 20,050, validation every 200 from 20,000: 101 logged steps.
    EXPECT_TRUE(r.out.contains("loss curves of 1 runs, 101 logged steps, 1 runs with a validation loss")) << r.out.toStdString();
    QTemporaryDir dir;
    const QString png = dir.filePath("curves.png");
    r = runScalex({"render", "--data", file, "--view", "curves", "--out", png});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_FALSE(QImage(png).isNull());
}
