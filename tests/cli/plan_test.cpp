// `scalex plan --replay`: the JSON contract scripts rely on (top-level r2, checkpoints at 1 %, 5 %,
// 10 % of the cost with fraction, runs and r2, the curve), the same seed giving the same replay,
// and one clear error with exit status 2 for each kind of bad input.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString tokenParam() { return sharedPath("data/xlstm/tokenparam_runs_ctx8192.csv"); }

QStringList replayArgs(const QStringList& extra = {}) {
    return QStringList{"plan", "--replay", "--data", tokenParam(), "--formula", "L = E + A/N^alpha + B/D^beta",
                       "--param", "E=0:10", "--param", "A=0:1e6", "--param", "B=0:1e7", "--param", "alpha=0:2", "--param", "beta=0:2",
                       "--group", "model_type", "--pool", "N<6e9", "--target", "N>6e9"} +
           extra;
}

}  // namespace

TEST(PlanCli, ReplayJsonContract) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--json"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject o = r.json();
    ASSERT_TRUE(o.value("r2").isDouble());
    EXPECT_EQ(o.value("strategy").toString(), "planner");
    EXPECT_EQ(o.value("cost").toString(), "6*N*D");
    EXPECT_DOUBLE_EQ(o.value("budget").toDouble(), 0.1);
    const QJsonArray checkpoints = o.value("checkpoints").toArray();
    ASSERT_EQ(checkpoints.size(), 3);
    const double at[] = {0.01, 0.05, 0.10};
    int previousRuns = 0;
    for (int c = 0; c < 3; ++c) {
        const QJsonObject p = checkpoints[c].toObject();
        EXPECT_DOUBLE_EQ(p.value("at").toDouble(), at[c]);
        EXPECT_LE(p.value("fraction").toDouble(), at[c] + 1e-12);
        EXPECT_GT(p.value("fraction").toDouble(), 0);
        EXPECT_GE(p.value("runs").toInt(), previousRuns);
        previousRuns = p.value("runs").toInt();
        EXPECT_TRUE(p.value("r2").isDouble());
    }
    // The last checkpoint at the budget is the final state.
    EXPECT_DOUBLE_EQ(checkpoints[2].toObject().value("r2").toDouble(), o.value("r2").toDouble());
    const QJsonArray curve = o.value("curve").toArray();
    ASSERT_GE(curve.size(), 3);
    for (int k = 1; k < curve.size(); ++k)
        EXPECT_GE(curve[k].toObject().value("fraction").toDouble(), curve[k - 1].toObject().value("fraction").toDouble());
    EXPECT_TRUE(curve.last().toObject().value("mape").isDouble());
    const QJsonArray groups = o.value("groups").toArray();
    ASSERT_EQ(groups.size(), 2);  // transformer and xlstm
    for (const auto& g : groups) {
        const QJsonObject j = g.toObject();
        EXPECT_GT(j.value("pool").toInt(), 20);
        EXPECT_GE(j.value("targets").toInt(), 3);
        // Five parameters: the six cheapest runs first.
        const QJsonArray picks = j.value("picks").toArray();
        ASSERT_GT(picks.size(), 6);
        for (int k = 0; k < 6; ++k) EXPECT_TRUE(picks[k].toObject().value("initial").toBool());
        EXPECT_LE(picks.last().toObject().value("fraction").toDouble(), 0.1 + 1e-12);
    }
    // The same seed, the same replay; another strategy, another one.
    const auto again = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--json"}));
    EXPECT_EQ(again.json().value("r2").toDouble(), o.value("r2").toDouble());
    const auto random = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--strategy", "random", "--json"}));
    ASSERT_EQ(random.exitCode, 0) << random.err.toStdString();
    EXPECT_EQ(random.json().value("strategy").toString(), "random");
    // A budget short of a checkpoint leaves it out.
    const auto small = runScalex(replayArgs({"--budget", "0.03", "--json"}));
    ASSERT_EQ(small.exitCode, 0) << small.err.toStdString();
    EXPECT_EQ(small.json().value("checkpoints").toArray().size(), 1);
}

TEST(PlanCli, ReplayCostExpressionAndText) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex(replayArgs({"--budget", "0.05", "--cost", "N*D"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains("cost N*D")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("at 5 %")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("target R^2")) << r.out.toStdString();
}

TEST(PlanCli, BadInputsExitTwoWithOneLine) {
    SCALEX_REQUIRE_SHARED();
    const std::vector<std::pair<QStringList, QString>> cases = {
        {replayArgs({"--budget", "0.1"}).replaceInStrings("N>6e9", "N>1e12"), "--target"},
        {replayArgs({"--budget", "0.1"}).replaceInStrings("N<6e9", "N<1e3"), "--pool"},
        {replayArgs({"--budget", "0.1"}).replaceInStrings("N>6e9", "N>1e9"), "both"},
        {replayArgs({"--budget", "2"}), "--budget"},
        {replayArgs({"--budget", "0.1", "--cost", "6*N*"}), "--cost"},
        {replayArgs({"--budget", "0.1", "--strategy", "best"}), "--strategy"},
        {replayArgs({"--budget", "0.1", "--target", "colour=red"}), "colour"},
        {replayArgs({}), "--budget"},
    };
    for (const auto& [args, needle] : cases) {
        const auto r = runScalex(args);
        EXPECT_EQ(r.exitCode, 2) << args.join(' ').toStdString() << "\n" << r.out.toStdString();
        EXPECT_TRUE(r.err.contains(needle)) << needle.toStdString() << " not in: " << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
}

namespace {

QStringList pickArgs(const QStringList& extra) {
    return QStringList{"plan", "--data", tokenParam(), "--formula", "L = E + A/N^alpha + B/D^beta", "--param", "E=0:10", "--param", "A=0:1e6",
                       "--param", "B=0:1e7", "--param", "alpha=0:2", "--param", "beta=0:2", "--group", "model_type", "--starts", "8",
                       "--target", "N=7e9,D=2e12"} +
           extra;
}

}  // namespace

// The non-replay mode: per group, the target's prediction with its interval before and after, and
// the picks with N, D, cost, score and why, within the budget.
TEST(PlanCli, PickJsonContract) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex(pickArgs({"--grid-n", "1e8:8e9:5", "--grid-d", "2e9:2e11:5", "--budget", "1e21", "--pick", "3", "--json"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject o = r.json();
    EXPECT_EQ(o.value("cost").toString(), "6*N*D");
    const QJsonArray groups = o.value("groups").toArray();
    ASSERT_EQ(groups.size(), 2);
    for (const auto& g : groups) {
        const QJsonObject j = g.toObject();
        const QJsonObject target = j.value("targets").toArray().first().toObject();
        EXPECT_TRUE(target.value("predicted").isDouble());
        EXPECT_LE(target.value("halfwidth_after").toDouble(), target.value("halfwidth_before").toDouble());
        const QJsonArray picks = j.value("picks").toArray();
        ASSERT_GE(picks.size(), 1);
        EXPECT_LE(picks.size(), 3);
        double spent = 0;
        for (const auto& p : picks) {
            const QJsonObject pick = p.toObject();
            EXPECT_TRUE(pick.value("N").isDouble());
            EXPECT_TRUE(pick.value("D").isDouble());
            EXPECT_GT(pick.value("score").toDouble(), 0);
            EXPECT_FALSE(pick.value("why").toString().isEmpty());
            spent += pick.value("cost").toDouble();
        }
        EXPECT_LE(spent, 1e21 * (1 + 1e-12));
    }
}

TEST(PlanCli, PickErrorsAreOneLineWithExitTwo) {
    SCALEX_REQUIRE_SHARED();
    const QStringList grid{"--grid-n", "1e8:8e9:5", "--grid-d", "2e9:2e11:5"};
    for (const QStringList& extra : {QStringList{"--grid-n", "1e8:8e9", "--grid-d", "2e9:2e11:5"}, grid + QStringList{"--budget", "1e10"},
                                     grid + QStringList{"--target", "N=7e9,D=2e12,T=8192"}, QStringList{}}) {
        const auto r = runScalex(pickArgs(extra));
        EXPECT_EQ(r.exitCode, 2) << extra.join(' ').toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
}
