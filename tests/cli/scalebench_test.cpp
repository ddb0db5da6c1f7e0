// The scalebench studies (data/public/scalebench, Li et al. 2026) as published: every task's pool
// loads with no mapping; laws typed over the files' own columns fit per group and score the
// held-out target region (test.csv) pooled over groups; the analyses that need N and D say that
// the study has no such column instead of printing numbers.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString task(const QString& name, const QString& file) { return sharedPath("data/public/scalebench/" + name + "/" + file); }

TEST(Scalebench, EveryPoolLoadsWithNoMapping) {
    struct Case {
        const char* task;
        int rows;
        const char* nFrom;
        const char* dFrom;
        int series;  // one per value of `group`
    };
    for (const Case& c : {Case{"lr_bsz_scaling_law", 2702, "file", "file", 1}, Case{"sparsity_scaling_law", 70, "no column", "no column", 3},
                          Case{"vocab_scaling_law", 1080, "file", "no column", 1}}) {
        SCOPED_TRACE(c.task);
        const auto r = runScalex({"check", task(c.task, "train.csv"), "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        const QJsonObject j = r.json();
        EXPECT_EQ(j["rows"].toInt(), c.rows);
        EXPECT_EQ(j["usable"].toInt(), c.rows);  // nothing left out as a problem
        EXPECT_EQ(j["in_analyses"].toInt(), j["rows"].toInt() - j["not_best_of_sweep"].toArray().size());
        EXPECT_EQ(j["params_source"].toObject()[c.nFrom].toInt(), c.rows);
        EXPECT_EQ(j["tokens_source"].toObject()[c.dFrom].toInt(), c.rows);
        EXPECT_EQ(j["series"].toArray().size(), c.series);
        // `group` is a condition where it holds several values (the runs have no N and D to compare at,
        // or it separates them at their points), else one value in scope.
        QString groupRole;
        for (const auto& role : j["roles"].toArray())
            if (role.toObject()["column"].toString() == "group") groupRole = role.toObject()["role"].toString();
        EXPECT_EQ(groupRole, c.series > 1 ? "condition" : "constant");
        if (c.series > 1) EXPECT_EQ(j["series_by"].toArray(), QJsonArray{"group"});
    }
}

// The vocabulary task's unigram-normalised loss is negative: kept, and said to be so.
TEST(Scalebench, NegativeLossIsKeptAndNamed) {
    const auto r = runScalex({"check", task("vocab_scaling_law", "train.csv")});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains(
        "loss: 1080 rows at or below zero (a normalised loss?): kept for laws over the loss; the analyses that take log L "
        "(L(N,D), IsoFLOP, over-training slopes, Pareto, context, compute-optimal) leave them out\n"))
        << r.out.toStdString();
}

// The published forms, fitted per group on train.csv, scored on test.csv (--holdout: rows of another
// file, predicted, never fitted): R² pooled over groups above a floor under what they reach (0.536
// sparsity, 0.973 vocab); per group, its own rows; the same as the rows of a second --data file
// selected by its name.
TEST(Scalebench, PublishedFormsScoreOnTheTargetRegion) {
    struct Case {
        const char* task;
        QStringList law;
        int groups, heldOut;
        double floor;
    };
    const Case cases[] = {
        {"sparsity_scaling_law",
         {"--formula", "loss = exp(d1) * P^(-a) * N_active^(-b) + exp(d3)", "--param", "d1=-5:5", "--param", "a=-2:2", "--param",
          "b=-2:2", "--param", "d3=-5:5"},
         3, 18, 0.5},
        {"vocab_scaling_law",
         {"--formula", "unigram_normalized_loss = c0 + A * vocab_size^b * non_vocab_parameters^e * num_characters^g", "--param",
          "c0=-10:10", "--param", "A=0:1e6", "--param", "b=-2:2", "--param", "e=-2:2", "--param", "g=-2:2"},
         1, 120, 0.95},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.task);
        const QStringList common = QStringList{"fit", "law", "--data", task(c.task, "train.csv"), "--group", "group", "--resamples", "0",
                                               "--json"} +
                                   c.law;
        const auto r = runScalex(common + QStringList{"--holdout", task(c.task, "test.csv")});
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        const QJsonObject j = r.json();
        const QJsonArray groups = j["groups"].toArray();
        EXPECT_EQ(groups.size(), c.groups);
        const QJsonObject test = j["test"].toObject();
        EXPECT_EQ(test["n"].toInt(), c.heldOut);
        EXPECT_EQ(test["held_out_rows"].toInt(), c.heldOut);
        EXPECT_EQ(test["outside_scope"].toInt(), 0);
        const double r2 = test["r2"].toDouble();
        EXPECT_TRUE(std::isfinite(r2));
        EXPECT_GT(r2, c.floor);
        EXPECT_LT(r2, 1.0);
        int perGroup = 0;
        for (const auto& g : groups) {
            const QJsonObject o = g.toObject();
            EXPECT_EQ(o["test"].toObject()["n"].toInt(), o["n_test"].toInt());
            EXPECT_EQ(o["predictions"].toArray().size(), o["n_test"].toInt());
            perGroup += o["n_test"].toInt();
        }
        EXPECT_EQ(perGroup, c.heldOut);
        const auto second = runScalex(common + QStringList{"--data", task(c.task, "test.csv"), "--test", "dataset=test"});
        ASSERT_EQ(second.exitCode, 0) << second.err.toStdString();
        EXPECT_DOUBLE_EQ(second.json()["test"].toObject()["r2"].toDouble(), r2);
    }
}

// Held-out rows the scope leaves out (the lr/bsz target is a sweep: only its best run is in by
// default) are counted and named, not dropped unsaid; --holdout with a split is one error.
TEST(Scalebench, HoldoutSaysWhatTheScopeLeavesOut) {
    const QStringList law = {"fit", "law", "--data", task("lr_bsz_scaling_law", "train.csv"), "--holdout", task("lr_bsz_scaling_law", "test.csv"),
                             "--formula", "lm_loss = E + A/non_embedding_param_size^a + B/data_size^b", "--param", "E=0:5",
                             "--param", "A=0:1e4", "--param", "a=0:2", "--param", "B=0:1e6", "--param", "b=0:2", "--resamples", "0"};
    const auto r = runScalex(law);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains("--holdout: 116 of 117 rows are outside the scope (not the best of their sweep, --where, ...) and not "
                               "scored (--all-sweep-runs takes a sweep's runs in)\n"))
        << r.out.toStdString();
    const auto all = runScalex(law + QStringList{"--all-sweep-runs", "--json"});
    ASSERT_EQ(all.exitCode, 0) << all.err.toStdString();
    EXPECT_EQ(all.json()["test"].toObject()["n"].toInt(), 117);
    EXPECT_EQ(all.json()["test"].toObject()["outside_scope"].toInt(), 0);
    const auto both = runScalex(law + QStringList{"--test", "lr>0.001"});
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_EQ(both.err, "scalex fit: --holdout scores the rows of another file: give it without --train, --test or --leave-one-out\n");
}

TEST(Scalebench, AnalysesOfNAndDSayTheStudyHasNoSuchColumn) {
    const QString both =
        "scalex fit: the study has no N column (the parameter count) and no D column (the training tokens): L(N,D), "
        "IsoFLOP, over-training slopes, Pareto, context and compute-optimal analyses need N and D; a law over the file's own "
        "columns can be fitted (scalex fit law --formula)\n";
    for (const QStringList& sub : {QStringList{"lnd"}, {"isoflop"}, {"slopes"}, {"context"}, {"bootstrap", "--of", "lnd"}}) {
        SCOPED_TRACE(sub.join(' ').toStdString());
        const auto r = runScalex(QStringList{"fit"} + sub + QStringList{"--data", task("sparsity_scaling_law", "train.csv")});
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_EQ(r.err.toStdString(), both.toStdString());
        EXPECT_TRUE(r.out.isEmpty());
    }
    // The window's figures, rendered headless, fail with the same words.
    for (const char* view : {"surface", "isoflop", "overtraining", "context", "optimal"}) {
        SCOPED_TRACE(view);
        const auto r = runScalex({"render", "--data", task("sparsity_scaling_law", "train.csv"), "--view", view, "--out", "unused.svg"});
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_EQ(r.err.toStdString(), (QStringLiteral("scalex render: the view '%1' has no results for these settings: ").arg(view) +
                                         both.mid(QStringLiteral("scalex fit: ").size()))
                                            .toStdString());
    }
    const QString pareto =
        "the study has no N column (the parameter count) and no D column (the training tokens) and no compute column: the "
        "Pareto front needs compute C (a compute column, or N and D); a law over the file's own columns can be fitted (scalex "
        "fit law --formula)\n";
    const auto front = runScalex({"fit", "pareto", "--data", task("sparsity_scaling_law", "train.csv")});
    EXPECT_EQ(front.exitCode, 2);
    EXPECT_EQ(front.err.toStdString(), ("scalex fit: " + pareto).toStdString());
    const auto drawn = runScalex({"render", "--data", task("sparsity_scaling_law", "train.csv"), "--view", "pareto", "--out", "unused.svg"});
    EXPECT_EQ(drawn.exitCode, 2);
    EXPECT_EQ(drawn.err.toStdString(), ("scalex render: the view 'pareto' has no results for these settings: " + pareto).toStdString());
    const auto v = runScalex({"fit", "lnd", "--data", task("vocab_scaling_law", "train.csv")});
    EXPECT_EQ(v.exitCode, 2);
    EXPECT_EQ(v.err.toStdString(),
              "scalex fit: the study has no D column (the training tokens): L(N,D), IsoFLOP, over-training slopes, Pareto, "
              "context and compute-optimal analyses need N and D; a law over the file's own columns can be fitted (scalex fit "
              "law --formula)\n");
}

}  // namespace
