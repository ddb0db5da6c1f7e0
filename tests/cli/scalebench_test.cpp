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
    };
    for (const Case& c : {Case{"lr_bsz_scaling_law", 2702, "file", "file"}, Case{"sparsity_scaling_law", 70, "no column", "no column"},
                          Case{"vocab_scaling_law", 1080, "file", "no column"}}) {
        SCOPED_TRACE(c.task);
        const auto r = runScalex({"check", task(c.task, "train.csv"), "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        const QJsonObject j = r.json();
        EXPECT_EQ(j["rows"].toInt(), c.rows);
        EXPECT_EQ(j["usable"].toInt(), c.rows);  // nothing left out as a problem
        EXPECT_EQ(j["in_analyses"].toInt(), j["rows"].toInt() - j["not_best_of_sweep"].toArray().size());
        EXPECT_EQ(j["params_source"].toObject()[c.nFrom].toInt(), c.rows);
        EXPECT_EQ(j["tokens_source"].toObject()[c.dFrom].toInt(), c.rows);
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

// The published forms, fitted per group on train.csv, scored on test.csv (rows of the second file,
// selected by its name): R² pooled over groups above what they reach (0.536 sparsity, 0.973 vocab).
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
        const auto r = runScalex(QStringList{"fit", "law", "--data", task(c.task, "train.csv"), "--data", task(c.task, "test.csv"),
                                             "--test", "dataset=test", "--group", "group", "--resamples", "0", "--json"} +
                                 c.law);
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        const QJsonObject j = r.json();
        EXPECT_EQ(j["groups"].toArray().size(), c.groups);
        const QJsonObject test = j["test"].toObject();
        EXPECT_EQ(test["n"].toInt(), c.heldOut);
        const double r2 = test["r2"].toDouble();
        EXPECT_TRUE(std::isfinite(r2));
        EXPECT_GT(r2, c.floor);
        EXPECT_LT(r2, 1.0);
    }
}

TEST(Scalebench, AnalysesOfNAndDSayTheStudyHasNoSuchColumn) {
    const QString both =
        "scalex fit: the study has no N column (the parameter count) and no D column (the training tokens): L(N,D), "
        "IsoFLOP, over-training slopes, Pareto, context and compute-optimal analyses need N and D; a law over the file's own "
        "columns can be fitted (scalex fit law --formula)\n";
    for (const char* sub : {"lnd", "isoflop", "slopes", "pareto", "context"}) {
        SCOPED_TRACE(sub);
        const auto r = runScalex({"fit", sub, "--data", task("sparsity_scaling_law", "train.csv")});
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_EQ(r.err, both);
        EXPECT_TRUE(r.out.isEmpty());
    }
    const auto v = runScalex({"fit", "lnd", "--data", task("vocab_scaling_law", "train.csv")});
    EXPECT_EQ(v.exitCode, 2);
    EXPECT_EQ(v.err,
              "scalex fit: the study has no D column (the training tokens): L(N,D), IsoFLOP, over-training slopes, Pareto, "
              "context and compute-optimal analyses need N and D; a law over the file's own columns can be fitted (scalex fit "
              "law --formula)\n");
}

}  // namespace
