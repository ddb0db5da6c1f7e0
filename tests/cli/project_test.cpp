// `scalex generate` and `scalex convert`, run as a user would.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::fileBytes;
using scalex::test::runScalex;

TEST(GenerateVerb, SameSeedGivesIdenticalBytesAndMatchesTheShippedExample) {
    QTemporaryDir dir;
    const QString a = dir.filePath("a.scalex"), b = dir.filePath("b.scalex"), c = dir.filePath("c.scalex");
    auto r = runScalex({"generate", "--out", a});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.startsWith("generated 768 runs in 2 tables (seed 2025) -> ")) << r.out.toStdString();
    ASSERT_EQ(runScalex({"generate", "--seed", "2025", "--out", b}).exitCode, 0);
    ASSERT_EQ(runScalex({"generate", "--seed", "3", "--out", c}).exitCode, 0);
    const QByteArray bytes = fileBytes(a);
    ASSERT_FALSE(bytes.isEmpty());
    EXPECT_TRUE(bytes == fileBytes(b));
    EXPECT_FALSE(bytes == fileBytes(c));
    EXPECT_TRUE(bytes == fileBytes(scalex::test::sourcePath("resources/example/example.scalex")));

    const QString csvDir = dir.filePath("csv");
    ASSERT_EQ(runScalex({"generate", "--out", csvDir}).exitCode, 0);
    EXPECT_TRUE(fileBytes(csvDir + "/generated-isoflop.csv") ==
                fileBytes(scalex::test::sourcePath("datasets/example/generated-isoflop.csv")));
    const QJsonObject info = QJsonDocument::fromJson(fileBytes(csvDir + "/generator.json")).object();
    EXPECT_EQ(info.value("seed").toString(), "2025");
    EXPECT_EQ(info.value("noise_sigma").toDouble(), 0.005);
}

TEST(GenerateVerb, BadOptionsAreUsageErrors) {
    auto r = runScalex({"generate"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex generate: missing required option --out (FILE.scalex or a directory)");
    r = runScalex({"generate", "--seed", "x", "--out", "a.scalex"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex generate: --seed: expected a non-negative whole number, found 'x'");
}

TEST(ConvertVerb, ProjectToCsvToProjectKeepsTheRuns) {
    QTemporaryDir dir;
    const QString example = scalex::test::sourcePath("resources/example/example.scalex");
    const QString csv = dir.filePath("all.csv"), project = dir.filePath("back.scalex"), csv2 = dir.filePath("again.csv");
    auto r = runScalex({"convert", example, csv});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_EQ(fileBytes(csv).count('\n'), 1 + 768);
    ASSERT_EQ(runScalex({"convert", csv, project}).exitCode, 0);
    ASSERT_EQ(runScalex({"convert", project, csv2}).exitCode, 0);
    EXPECT_TRUE(fileBytes(csv) == fileBytes(csv2));

    // JSON: an array of flat records, one per run of the chosen table.
    const QString json = dir.filePath("tp.json");
    ASSERT_EQ(runScalex({"convert", example, json, "--table", "generated-tokenparam-ctx8192"}).exitCode, 0);
    const QJsonDocument doc = QJsonDocument::fromJson(fileBytes(json));
    ASSERT_TRUE(doc.isArray());
    EXPECT_EQ(doc.array().size(), 64);
    EXPECT_EQ(doc.array().first().toObject().value("run_id").toString(), "generated-transformer-tokenparam-162M-M22");
    ASSERT_EQ(runScalex({"convert", json, dir.filePath("tp.csv")}).exitCode, 0);
    EXPECT_EQ(fileBytes(dir.filePath("tp.csv")).count('\n'), 1 + 64);
}

TEST(ConvertVerb, ErrorsAreOneLineExit2AndWriteNothing) {
    QTemporaryDir dir;
    const QString out = dir.filePath("out.csv");
    auto r = runScalex({"convert", scalex::test::sourcePath("resources/example/example.scalex"), dir.filePath("out.xlsx")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex convert: unknown output extension of '" + dir.filePath("out.xlsx") +
                                   "' (expected .csv, .json, .tex or .scalex)");
    r = runScalex({"convert", dir.filePath("in.parquet"), out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex convert: unknown input extension of '" + dir.filePath("in.parquet") +
                                   "' (expected .csv, .tsv, .json, .jsonl or .scalex)");
    r = runScalex({"convert", dir.filePath("missing.csv"), out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.count('\n'), 1);
    const QString bad = scalex::test::sourcePath("tests/data/projects/path_traversal.scalex");
    r = runScalex({"convert", bad, out});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex convert: " + bad + ": refused zip entry 'runs/../../evil.csv': leaves its folder (\"..\")");
    EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList());
}
