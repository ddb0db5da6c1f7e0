// `scalex predict curve --best-cooldown` run as a user would on lr-schedules/ tracker exports: the
// chosen schedule's predicted final loss, with its interval, is the lowest of the shapes searched
// and no higher than the schedule given; predicting under the chosen schedule's description gives
// the same loss; misuse names the option.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

// The constant-rate and 25,000-step cosine runs of peak rate 1e-3.
QStringList fitData() {
    const QString dir = sharedPath("data/public/lr-schedules/");
    const QString rest = "_bs50x2_ws2_seed0_data_seed1337.json";
    return {"--data", dir + "stable-124m_slimpajama_llama_norm_nlayers12_nhead12_lr0.001_sched_wsd_warmup300_decay_linear_0.0_iter50000" + rest,
            "--data", dir + "cos-10-124m_slimpajama_llama_norm_nlayers12_nhead12_lr0.001_sched_cos_warmup300_decay_sqrt_0.0_iter25000" + rest};
}

}  // namespace

TEST(BestCooldownVerb, ChosenScheduleIsTheLowestAndPredictsTheSameByItsDescription) {
    SCALEX_REQUIRE_SHARED();
    QStringList args{"predict", "curve"};
    args << fitData() << "--schedule" << "wsd:peak=1e-3,steps=50000,warmup=300,cooldown=0.2" << "--best-cooldown" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject best = r.json()["best_cooldown"].toObject();
    EXPECT_EQ(best["steps"].toDouble(), 50000);
    const QJsonObject chosen = best["best"].toObject();
    const double loss = chosen["loss"].toDouble();
    EXPECT_LT(chosen["lower"].toDouble(), loss);
    EXPECT_GT(chosen["upper"].toDouble(), loss);
    EXPECT_EQ(chosen["peak_lr"].toDouble(), 1e-3) << "the peak is held without --free-peak";
    EXPECT_LE(loss, best["given"].toObject()["loss"].toDouble());
    const QJsonArray perDecay = best["per_decay"].toArray();
    ASSERT_EQ(perDecay.size(), 3);
    for (const auto& c : perDecay) EXPECT_LE(loss, c.toObject()["loss"].toDouble()) << c.toObject()["decay"].toString().toStdString();
    // The chosen schedule, given back as --schedule, is predicted to the same loss and interval.
    QStringList again{"predict", "curve"};
    again << fitData() << "--schedule" << chosen["schedule"].toString() << "--json";
    const auto r2 = runScalex(again);
    ASSERT_EQ(r2.exitCode, 0) << r2.err.toStdString();
    const QJsonObject point = r2.json()["predictions"].toArray().last().toObject();
    EXPECT_NEAR(point["loss"].toDouble(), loss, 1e-9);
    EXPECT_NEAR(point["upper"].toDouble(), chosen["upper"].toDouble(), 1e-9);
}

TEST(BestCooldownVerb, TextNamesTheChoiceAndMisuseNamesTheOption) {
    SCALEX_REQUIRE_SHARED();
    QStringList args{"predict", "curve"};
    args << fitData() << "--schedule" << "wsd:peak=1e-3,steps=25000,warmup=300" << "--best-cooldown";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains("best cooldown for 25000 steps")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("peak held")) << r.out.toStdString();
    QStringList wrong{"predict", "curve"};
    wrong << fitData() << "--schedule" << "wsd:peak=1e-3,steps=25000" << "--free-peak";
    const auto bad = runScalex(wrong);
    EXPECT_NE(bad.exitCode, 0);
    EXPECT_TRUE(bad.err.contains("--free-peak")) << bad.err.toStdString();
    QStringList empty{"predict", "curve"};
    empty << fitData() << "--schedule" << "wsd:peak=1e-3,steps=300,warmup=300" << "--best-cooldown";
    const auto none = runScalex(empty);
    EXPECT_NE(none.exitCode, 0);
    EXPECT_TRUE(none.err.contains("--best-cooldown")) << none.err.toStdString();
}
