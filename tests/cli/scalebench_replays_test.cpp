// The planner replayed at 10 % of each pool's cost on the scalebench tasks of ../shared (issue 41:
// "replays at 10 % of each pool's cost, with each task's best published law: median R² within 0.03
// of the all-data fit's"; sparsity, vocabulary and learning rate × batch size), as
// tests/bench/scalebench_replays.py runs it with five seeds. The
// planner's picks follow the fit, not the seed (the seed only draws the fits' starts, and these fits
// agree from any starts), so one or two seeds stand for five here.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <vector>

#include "tests/cli/ScalebenchLaws.h"
#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

struct Task {
    QString dir;
    QStringList law;         // --formula, --param ..., as laws.csv publishes it
    QStringList pool, target;  // --pool / --target conditions
    QString cost;
    QStringList extra = {};  // further options of both the fit and the replay
};

// laws.csv: sparsity sl_2, the task's best pooled R² (0.5208). The target is the largest sparse
// models (N_active 0.233, 0.407, 0.756); the pool the rest of train.csv and test.csv.
Task sparsity() {
    return {sharedPath("data/public/scalebench/sparsity_scaling_law"),
            {"--formula", "loss = exp(d1)*P^(-a)*N_active^(-b) + exp(d3)", "--param", "d1=-5:5", "--param", "a=0.01:3", "--param", "b=0.01:3",
             "--param", "d3=-5:5"},
            {"N_active!=0.232640512", "N_active!=0.407098432", "N_active!=0.756014272"},
            {"N_active>0.2", "N_active!=0.31954624"},
            "6*N_active*(D1+D2)"};
}

// laws.csv: vocabulary sl_3, the task's best pooled R² (0.9882); the target is the largest vocabulary.
Task vocabulary() {
    return {sharedPath("data/public/scalebench/vocab_scaling_law"),
            {"--formula",
             "unigram_normalized_loss = L0 + exp(min(max(log((max(a, 1e-6)*non_vocab_parameters^(-alpha))^q + "
             "(max(b, 1e-6)*(num_characters*vocab_size^phi)^(-beta))^q)/q, -50), 50))",
             "--param", "L0=-100:100", "--param", "a=-10000:10000", "--param", "alpha=-5:5", "--param", "b=-10000:10000", "--param",
             "beta=-5:5", "--param", "phi=-5:5", "--param", "q=0.1:10"},
            {"vocab_size<96256"},
            {"vocab_size>=96256"},
            "6*non_vocab_parameters*num_characters"};
}

QStringList fitArgs(const Task& t) { return t.law + QStringList{"--group", "group", "--loss", "squared", "--space", "linear", "--json"} + t.extra; }

// laws.csv: the lr × bsz law with the reference's best pooled R² (sl_8: 20 parameters, 0.7459). The
// target is the runs of 1e11 tokens and more (the largest model's); every run of a sweep is a run
// (--all-sweep-runs, as the reference fits all 2702).
Task learningRateBatchSize(scalex::test::LawRow& best) {
    for (const auto& rows : scalex::test::publishedLaws())
        if (rows.front().task == "lr_bsz_scaling_law" && rows.front().refR2 > best.refR2) best = rows.front();
    return {sharedPath("data/public/scalebench/lr_bsz_scaling_law"), scalex::test::publishedLawArgs(best), {"data_size<1e11"}, {"data_size>=1e11"},
            "6*non_embedding_param_size*data_size", {"--all-sweep-runs"}};
}

// The law fitted on the whole pool (train.csv), scored on test.csv.
double allDataR2(const Task& t) {
    const auto r = runScalex(QStringList{"fit", "law", "--data", t.dir + "/train.csv", "--holdout", t.dir + "/test.csv", "--resamples", "0"} + fitArgs(t),
                             600000);
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return r.exitCode == 0 ? r.json()["test"].toObject()["r2"].toDouble() : 0;
}

QJsonObject replay(const Task& t, double budget, const QString& strategy, int seed) {
    QStringList args{"plan", "--replay", "--data", t.dir + "/train.csv", "--data", t.dir + "/test.csv", "--budget", QString::number(budget),
                     "--cost", t.cost, "--strategy", strategy, "--seed", QString::number(seed)};
    for (const auto& c : t.pool) args << "--pool" << c;
    for (const auto& c : t.target) args << "--target" << c;
    const auto r = runScalex(args + fitArgs(t), 600000);
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return r.exitCode == 0 ? r.json() : QJsonObject{};
}

QStringList pickedRuns(const QJsonObject& replay) {
    QStringList runs;
    for (const auto& g : replay["groups"].toArray())
        for (const auto& p : g.toObject()["picks"].toArray()) runs << g.toObject()["name"].toString() + ":" + p.toObject()["run"].toString();
    return runs;
}

TEST(ScalebenchReplays, SparsityPlannerBeatsCheapAndRandomPlansAndFollowsTheFitNotTheSeed) {
    const Task t = sparsity();
    const double all = allDataR2(t);
    const QJsonObject one = replay(t, 0.1, "planner", 1), two = replay(t, 0.1, "planner", 2);
    const double planner = one["r2"].toDouble();
    // The seed draws the fits' starts; the fits agree, so the planner picks the same runs. Between
    // multi-start searches a refit starts from the last optimum, so the optima (and R²) agree to the
    // search's stopping tolerance (7.6e-9 apart here), not to the last bit.
    EXPECT_EQ(pickedRuns(one), pickedRuns(two));
    EXPECT_NEAR(planner, two["r2"].toDouble(), 1e-6);
    // In group D1=2.31_D2=4.61 the five cheapest runs that determine the law's four parameters (two
    // model sizes) already cost 12.8 % of its pool, so nothing is picked there. The replay reaches
    // 0.6859 against the all-data fit's 0.5208 (0.4900 before the ranking's rank-one updates): the
    // last pick of group D1=2.31_D2=2.31 is a near tie (line 59 against line 64, 3 % apart in drop
    // per cost) that decides it, so the bound is the (within 0.03), not the 0.6859.
    EXPECT_GE(planner, all - 0.03) << "planner " << planner << ", all data " << all;
    // At 10 % the planner is far above cheapest-first and the median of random plans.
    EXPECT_GT(planner, replay(t, 0.1, "cheapest", 1)["r2"].toDouble() + 0.5);
    std::vector<double> random;
    for (int seed = 1; seed <= 5; ++seed) random.push_back(replay(t, 0.1, "random", seed)["r2"].toDouble());
    std::nth_element(random.begin(), random.begin() + 2, random.end());
    EXPECT_GT(planner, random[2] + 0.2) << "median of 5 random plans " << random[2];
    // With 15 % (every group past its initial runs) the planner's picks predict the largest models
    // better than the whole pool does.
    EXPECT_GT(replay(t, 0.15, "planner", 1)["r2"].toDouble(), all + 0.1);
}

TEST(ScalebenchReplays, VocabularyPlannerAtTenPercentIsWithinThreeHundredthsOfTheAllDataFit) {
    const Task t = vocabulary();
    const double all = allDataR2(t);
    const double planner = replay(t, 0.1, "planner", 1)["r2"].toDouble();
    EXPECT_GE(planner, all - 0.03) << "planner " << planner << ", all data " << all;
    EXPECT_GT(planner, 0.95);
}

// Sparsity sl_4 (six parameters): its cheapest seven runs per group sit at two model sizes and leave
// the law undetermined, and the replay started from them reached −4.22 against the all-data fit's
// 0.4007. Started from the cheapest runs that determine the law (a third size where a group needs
// one), it reaches 0.3291 at every seed (measured).
TEST(ScalebenchReplays, SparsityLawOfSixParametersStartsFromRunsThatDetermineIt) {
    scalex::test::LawRow law;
    for (const auto& rows : scalex::test::publishedLaws())
        if (rows.front().task == "sparsity_scaling_law" && rows.front().law == "sl_4") law = rows.front();
    ASSERT_EQ(law.law, "sl_4");
    Task t = sparsity();
    t.law = scalex::test::publishedLawArgs(law);
    const double all = allDataR2(t);
    const double planner = replay(t, 0.1, "planner", 1)["r2"].toDouble();
    EXPECT_GE(planner, all - 0.1) << "planner " << planner << ", all data " << all;
}

// The lr × bsz replay (2500 pool runs, about 340 picked at 10 %) runs in about a minute of CPU:
// candidates ranked by rank-one updates, warm refits between multi-start searches. Its fit on the
// picked runs predicts the largest model better than the reference's fit on the whole pool (0.938
// against 0.7459, Scalex's own all-data fit 0.6083, measured): held here to the reference's R² less
// 0.03 (Scalex's all-data fit takes minutes; the reference's R² is the higher bar).
TEST(ScalebenchReplays, LearningRateBatchSizePlannerAtTenPercentReachesTheReferencesAllDataFit) {
    scalex::test::LawRow best{.refR2 = -1e300};
    const Task t = learningRateBatchSize(best);
    ASSERT_EQ(best.law, "sl_8");
    const QJsonObject r = replay(t, 0.1, "planner", 1);
    EXPECT_GE(r["r2"].toDouble(), best.refR2 - 0.03) << "planner " << r["r2"].toDouble() << ", reference's all-data fit " << best.refR2;
    EXPECT_LE(r["fraction"].toDouble(), 0.1 + 1e-12);
    EXPECT_GT(r["runs"].toInt(), 100) << "the planner stops early";
}

}  // namespace
