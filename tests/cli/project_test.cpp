// `scalex generate` and `scalex convert` (and `scalex check` on what convert makes), run as a user would.
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
    // The built-in example: the generator's runs are what a reader of their CSV makes of them.
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

// Inputs of the three kinds make one project, each in its part; check counts what it holds.
TEST(ConvertVerb, RunTablesCurvesAndMeasurementsMakeOneProjectThatCheckCounts) {
    QTemporaryDir dir;
    auto write = [&](const QString& name, const QByteArray& text) {
        QFile f(dir.filePath(name));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text);
        return dir.filePath(name);
    };
    const QString runs = write("runs.csv",
                               "run_id,model_family,num_params,num_tokens_training,val_loss\n"
                               "r1,llama,160000000,3200000000,3.1\n"
                               "r2,llama,400000000,8000000000,2.9\n"
                               "r3,mlstm,400000000,8000000000,2.85\n");
    const QString curves = write("curves.csv",
                                 "run_id,step,tokens,train_loss,val_loss,lr\n"
                                 "r1,0,,10.5,,0\n"
                                 "r1,100,819200,6.125,5.9,0.0003\n"
                                 "r2,100,819200,6.5,,0.0003\n");
    const QString inference = write("bench.csv",
                                    "model,family,batchsize,prefill,num_params,ttft_ms,steptime_ms,failed\n"
                                    "llama2_160m,llama2,1,128,162000000,5.5,10.25,False\n"
                                    "llama2_160m,llama2,1,256,162000000,-1,-1,True\n"
                                    "xlstm_160m,xlstm,1,128,165000000,6.5,9.75,False\n");
    QStringList args{"convert", runs, curves, inference};
    const QString real = scalex::test::sharedPath("data/xlstm/curves_isoflop_llama_ctx16384.csv");
    const bool shared = !scalex::test::sharedDir().isEmpty() && QFile::exists(real);
    if (shared) args << real;
    const QString project = dir.filePath("study.scalex");
    args << project;
    auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.isEmpty());

    r = runScalex({"check", project, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["kind"].toString(), "project");
    EXPECT_EQ(j["rows"].toInt(), 3);  // the keys a run table's check has stay
    EXPECT_EQ(j["usable"].toInt(), 3);
    const QJsonArray tables = j["tables"].toArray();
    ASSERT_EQ(tables.size(), 1);
    EXPECT_EQ(tables[0]["name"].toString(), "runs");
    EXPECT_EQ(tables[0]["rows"].toInt(), 3);
    EXPECT_EQ(tables[0]["usable"].toInt(), 3);
    EXPECT_EQ(tables[0]["series"].toArray().size(), 2);
    const QJsonArray curveSets = j["curve_sets"].toArray();
    ASSERT_EQ(curveSets.size(), shared ? 2 : 1);
    EXPECT_EQ(curveSets[0]["name"].toString(), "curves");
    EXPECT_EQ(curveSets[0]["curves"].toInt(), 2);
    EXPECT_EQ(curveSets[0]["points"].toInt(), 3);
    EXPECT_EQ(curveSets[0]["runs_with_validation"].toInt(), 1);
    if (shared) {
        EXPECT_EQ(curveSets[1]["name"].toString(), "curves_isoflop_llama_ctx16384");
        EXPECT_EQ(curveSets[1]["curves"].toInt(), 70);
        EXPECT_EQ(curveSets[1]["points"].toInt(), 8832);  // the README's row count
    }
    const QJsonArray inferenceSets = j["inference_sets"].toArray();
    ASSERT_EQ(inferenceSets.size(), 1);
    EXPECT_EQ(inferenceSets[0]["name"].toString(), "bench");
    EXPECT_EQ(inferenceSets[0]["measurements"].toInt(), 3);
    EXPECT_EQ(inferenceSets[0]["models"].toInt(), 2);
    EXPECT_EQ(inferenceSets[0]["failed_points"].toInt(), 1);

    r = runScalex({"check", project});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains("\nrun table runs: 3 rows, 3 usable, series: ")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("\nloss curves curves: 2 curves, 3 logged steps, 1 with a validation loss\n")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("\ninference measurements bench: 3 measurements of 2 models, 1 failed\n")) << r.out.toStdString();

    // Converting the same inputs again gives the same bytes; the same input twice gets a unique name.
    const QString again = dir.filePath("again.scalex");
    args.last() = again;
    ASSERT_EQ(runScalex(args).exitCode, 0);
    EXPECT_TRUE(fileBytes(project) == fileBytes(again));
    const QString twice = dir.filePath("twice.scalex");
    ASSERT_EQ(runScalex({"convert", curves, curves, twice}).exitCode, 0);
    const QJsonArray two = runScalex({"check", twice, "--json"}).json()["curve_sets"].toArray();
    ASSERT_EQ(two.size(), 2);
    EXPECT_EQ(two[1]["name"].toString(), "curves-2");

    // A bad curves file: the error names it, its line and column, and nothing is written.
    const QString bad = write("bad_curves.csv", "run_id,step,val_loss\nr1,x,3\n");
    r = runScalex({"convert", runs, bad, dir.filePath("bad.scalex")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex convert: " + bad + ", line 2, column 'step': expected a step number >= 0, got 'x'");
    EXPECT_FALSE(QFile::exists(dir.filePath("bad.scalex")));
    // Curves alone make a project; as a run table they are refused, saying why.
    ASSERT_EQ(runScalex({"convert", curves, dir.filePath("curves.scalex")}).exitCode, 0);
    EXPECT_EQ(runScalex({"check", dir.filePath("curves.scalex"), "--json"}).json()["curve_sets"].toArray().size(), 1);
    r = runScalex({"convert", curves, dir.filePath("curves.json")});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex convert: '" + curves + "' holds loss curves, not runs: only a project (OUT.scalex) keeps them");
}

// A run table of checkpoints has run_id and step columns too: it stays a run table.
TEST(CheckVerb, ARunTableOfCheckpointsIsNotTakenForLossCurves) {
    const auto r = runScalex({"check", scalex::test::sourcePath("datasets/example/generated-isoflop.csv"), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_EQ(r.json()["kind"].toString(), "run_table");
}
