// Every law the scalebench benchmark publishes for its three shared tasks (../shared/data/public/
// scalebench/laws.csv: 24 laws of 4 to 31 parameters, one row per law and group), fitted by
// `scalex fit law` with its default search (--group group --loss squared --space linear; the
// lr × bsz task with --all-sweep-runs, as the reference fits every row of its pool), must reach a
// training mean squared error no worse than the reference's (scipy L-BFGS-B from 192 starts,
// README of scalebench) by a relative 1e-4, per group. Where the objective equals the reference's,
// the pooled held-out R² on test.csv is at least the reference's minus 0.01 (a better optimum may
// predict worse: the benchmark reports what it does). The laws not brought there yet are named in
// knownGaps() with what they reach.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <map>
#include <string>
#include <vector>

#include "tests/cli/ScalebenchLaws.h"
#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::LawRow;
using scalex::test::publishedLawArgs;
using scalex::test::publishedLaws;
using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

// The laws the default search does not bring to the reference yet (measured on this checkout, the
// lr × bsz task fitted on all 2702 runs): each is held to what it reaches now, so that it cannot
// get worse unsaid. MSE as a multiple of ref_mse; R² where the objective equals the reference's.
struct Gap {
    double mseRatio = 1 + 1e-4;
    double r2Below = 0.01;
};
const std::map<QString, Gap>& knownGaps() {
    static const std::map<QString, Gap> gaps = {
        // The objective equals the reference's (0.99999x) at other parameters: held-out R² 0.5083
        // against the reference's 0.5216.
        {"lr_bsz_scaling_law:sl_6", {1 + 1e-4, 0.014}},
    };
    return gaps;
}

class PublishedLaw : public ::testing::TestWithParam<std::vector<LawRow>> {};

TEST_P(PublishedLaw, DefaultFitReachesTheReferenceObjective) {
    const auto& rows = GetParam();
    const LawRow& law = rows.front();
    const QString dir = sharedPath("data/public/scalebench/" + law.task);
    QStringList args = QStringList{"fit", "law", "--data", dir + "/train.csv", "--holdout", dir + "/test.csv"} + publishedLawArgs(law);
    args << "--group" << "group" << "--loss" << "squared" << "--space" << "linear" << "--resamples" << "0" << "--json";
    if (law.task == "lr_bsz_scaling_law") args << "--all-sweep-runs";
    const auto known = knownGaps().find(law.task + ":" + law.law);
    const Gap gap = known == knownGaps().end() ? Gap{} : known->second;
    const auto r = runScalex(args, 1800000);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    bool allEqual = true;
    for (const auto& g : j["groups"].toArray()) {
        const QJsonObject o = g.toObject();
        const LawRow* ref = nullptr;
        for (const auto& row : rows)
            if (row.group == o["name"].toString()) ref = &row;
        ASSERT_NE(ref, nullptr) << o["name"].toString().toStdString();
        const double mse = o["objective"].toDouble() / o["n_train"].toDouble();
        EXPECT_LE(mse, ref->refMse * gap.mseRatio) << law.law.toStdString() << " " << ref->group.toStdString() << ": MSE " << mse
                                                  << " against the reference's " << ref->refMse;
        allEqual = allEqual && std::abs(mse - ref->refMse) <= 1e-4 * ref->refMse;
    }
    EXPECT_EQ(j["groups"].toArray().size(), static_cast<int>(rows.size()));
    if (allEqual) EXPECT_GE(j["test"].toObject()["r2"].toDouble(), law.refR2 - gap.r2Below) << law.law.toStdString();
}

std::string lawName(const ::testing::TestParamInfo<std::vector<LawRow>>& info) {
    const auto& row = info.param.front();
    return (row.task.section('_', 0, 0) + "_" + row.law).toStdString();
}

INSTANTIATE_TEST_SUITE_P(Scalebench, PublishedLaw, ::testing::ValuesIn(publishedLaws()), lawName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PublishedLaw);

}  // namespace

namespace {

// A fit says when its optimum is in doubt, in text and JSON, and marks its held-out score: one start
// alone (--starts 1) reached it, or a parameter's range holds it at a bound (a ≥ 0.5 on the
// sparsity law, whose optimum has a = 0.015).
TEST(Scalebench, ADoubtfulOptimumIsSaidAndItsHeldOutScoreMarked) {
    const QString dir = sharedPath("data/public/scalebench/sparsity_scaling_law");
    const QStringList law{"fit", "law", "--data", dir + "/train.csv", "--holdout", dir + "/test.csv", "--group", "group", "--resamples", "0",
                          "--formula", "loss = exp(d1)*P^(-a)*N_active^(-b) + exp(d3)", "--param", "d1=-5:5", "--param", "b=0.01:3",
                          "--param", "d3=-5:5"};
    const auto one = runScalex(law + QStringList{"--param", "a=0.01:3", "--starts", "1"});
    ASSERT_EQ(one.exitCode, 0) << one.err.toStdString();
    EXPECT_TRUE(one.out.contains("  warning: 1 of 1 starts reached this optimum: it may not be the best; raise --starts\n")) << one.out.toStdString();
    EXPECT_TRUE(one.out.contains(" (from a doubtful optimum: see the warning)\n")) << one.out.toStdString();
    EXPECT_TRUE(one.out.contains(" (from a doubtful optimum: see the warnings)\n")) << one.out.toStdString();  // pooled

    const auto bound = runScalex(law + QStringList{"--param", "a=0.5:3", "--json"});
    ASSERT_EQ(bound.exitCode, 0) << bound.err.toStdString();
    const QJsonObject j = bound.json();
    for (const auto& g : j["groups"].toArray()) {
        const QJsonObject o = g.toObject();
        EXPECT_EQ(o["params"].toObject()["a"].toDouble(), 0.5);
        EXPECT_TRUE(QRegularExpression("the optimum sits on a bound of (d1, )?a: the law may fit better outside its ranges$").match(o["doubt"].toString()).hasMatch())
            << o["doubt"].toString().toStdString();
        EXPECT_TRUE(o["test"].toObject()["doubtful_optimum"].toBool());
    }
    EXPECT_TRUE(j["test"].toObject()["doubtful_optimum"].toBool());
    EXPECT_TRUE(j["test"].toObject()["doubt"].toString().startsWith("D1=")) << j["test"].toObject()["doubt"].toString().toStdString();

    // The default search on the law as published: in the group whose optimum lies inside the box
    // several starts agree and nothing is marked; the pooled score names the groups that are.
    const auto sure = runScalex(law + QStringList{"--param", "a=0.01:3", "--json"});
    ASSERT_EQ(sure.exitCode, 0) << sure.err.toStdString();
    for (const auto& g : sure.json()["groups"].toArray()) {
        const QJsonObject o = g.toObject();
        if (o["name"].toString() != "D1=2.31_D2=2.31") continue;
        EXPECT_TRUE(o["doubt"].isNull()) << o["doubt"].toString().toStdString();
        EXPECT_FALSE(o["test"].toObject()["doubtful_optimum"].toBool());
        EXPECT_GE(o["near_best"].toInt(), 3);
    }
    EXPECT_FALSE(sure.json()["test"].toObject()["doubt"].toString().contains("D1=2.31_D2=2.31"));
}

}  // namespace
