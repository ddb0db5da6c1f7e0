// `scalex check`: a run table's summary and its problem rows, with the exit status a script needs.
#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;

namespace {
QString bad(const char* name) { return scalex::test::sourcePath(QStringLiteral("tests/data/bad/") + name); }
}  // namespace

TEST(CheckVerb, SummarisesAStudyRunTable) {
    SCALEX_REQUIRE_SHARED();
    const QString file = scalex::test::sharedPath("data/xlstm/runs_isoflop_llama_ctx2048.csv");
    const auto r = runScalex({"check", file, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["rows"].toInt(), 88);
    EXPECT_EQ(j["usable"].toInt(), 85);
    EXPECT_EQ(j["with_problems"].toInt(), 3);
    EXPECT_EQ(j["families"].toObject(), (QJsonObject{{"transformer", 88}}));
    EXPECT_EQ(j["experiment_sets"].toObject(), (QJsonObject{{"isoflop", 88}}));
    // Budgets by the study's rule, as in the file's isoflop_bucket column.
    EXPECT_EQ(j["budgets"].toObject(), (QJsonObject{{"6e+18", 23}, {"1e+19", 26}, {"3e+19", 36}, {"none", 3}}));
    EXPECT_EQ(j["context_lengths"].toObject(), (QJsonObject{{"2048", 88}}));
    EXPECT_EQ(j["selected_in_paper"].toInt(), 84);
    EXPECT_EQ(j["status"].toString(), "usable");
    const QJsonArray problems = j["problems"].toArray();
    ASSERT_EQ(problems.size(), 3);
    const QJsonObject first = problems[0].toObject();
    EXPECT_GT(first["line"].toInt(), 1);
    EXPECT_EQ(first["reasons"].toArray()[0].toString(), "status: the run failed");

    const auto text = runScalex({"check", file});
    ASSERT_EQ(text.exitCode, 0);
    EXPECT_TRUE(text.out.contains("88 rows, 85 usable, 3 with problems")) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("budgets: 6e+18 23, 1e+19 26, 3e+19 36, none 3")) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("selected in paper: 84 of 88")) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains(QStringLiteral("  line %1 (").arg(first["line"].toInt()))) << text.out.toStdString();
}

TEST(CheckVerb, ConventionOptionRecomputesFlops) {
    SCALEX_REQUIRE_SHARED();
    const QString file = scalex::test::sharedPath("data/xlstm/runs_isoflop_llama_ctx8192_flops_chinchilla.csv");
    // C recounted under the file's own (chinchilla) convention or the study's causal count: every
    // run's compute is derived, and the budgets stay the file's (a nominal budget is a label that a
    // recount moves C about; DataIoRealFiles.RecomputedFlopsFollowTheFilesAttentionMode checks C).
    const auto own = runScalex({"check", file, "--recompute-flops", "--json"}).json();
    EXPECT_EQ(own["budgets"].toObject(), (QJsonObject{{"6e+18", 32}, {"1e+19", 20}, {"none", 2}}));
    EXPECT_EQ(own["flops_source"].toObject()["derived"].toInt(), 52);
    EXPECT_TRUE(own["budget_source"].toString().startsWith("column 'isoflop_bucket'"));
    const auto study = runScalex({"check", file, "--recompute-flops", "--convention", "study", "--json"}).json();
    EXPECT_EQ(study["budgets"].toObject(), own["budgets"].toObject());
    EXPECT_EQ(study["flops_source"].toObject()["derived"].toInt(), 52);
    const auto unknown = runScalex({"check", file, "--convention", "kaplan"});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.err.startsWith("scalex check: --convention: unknown convention 'kaplan' (expected study"))
        << unknown.err.toStdString();
}

TEST(CheckVerb, ProblemRowsAreListedWithLineAndReason) {
    const auto r = runScalex({"check", bad("nan_inf.csv")});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_TRUE(r.out.contains("3 rows, 1 usable, 2 with problems")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("  line 3 (r2): val_loss: value is NaN (expected a number)")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("  line 4 (r3): num_params: value is infinite (expected a finite number)"))
        << r.out.toStdString();
}

TEST(CheckVerb, NoUsableRowExitsOne) {
    const auto r = runScalex({"check", bad("all_rows_bad.csv"), "--json"});
    EXPECT_EQ(r.exitCode, 1);
    const QJsonObject j = r.json();
    EXPECT_EQ(j["rows"].toInt(), 2);
    EXPECT_EQ(j["usable"].toInt(), 0);
    EXPECT_EQ(j["status"].toString(), "not usable");
}

TEST(CheckVerb, UnreadableFileIsOneLineAndExitTwo) {
    const QString file = bad("unterminated_quote.csv");
    const auto r = runScalex({"check", file});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err, "scalex check: " + file +
                         ", line 3, column 'model_family': a quoted field opened here is never closed (truncated file, "
                         "or a stray '\"'?)\n");
    EXPECT_TRUE(r.out.isEmpty());
    const auto missing = runScalex({"check", "/nonexistent/runs.csv"});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_EQ(missing.err, "scalex check: /nonexistent/runs.csv: no such file\n");
    const auto usage = runScalex({"check"});
    EXPECT_EQ(usage.exitCode, 2);
    EXPECT_EQ(usage.err, "scalex check: missing FILE (the run table to check)\n");
}

TEST(CheckVerb, MappingFileMapsUnusualColumns) {
    QTemporaryDir dir;
    const QString csv = dir.filePath("odd.csv");
    {
        QFile f(csv);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("arch,size_M,tok,eval\nllama,160e6,3.2e9,3.3\n");
    }
    const auto without = runScalex({"check", csv});
    EXPECT_EQ(without.exitCode, 2);
    const auto badMapping = runScalex({"check", csv, "--mapping", bad("json_not_array.json")});
    EXPECT_EQ(badMapping.exitCode, 2);
    EXPECT_TRUE(badMapping.err.startsWith("scalex check: --mapping: ")) << badMapping.err.toStdString();
    const QString mapping = dir.filePath("mapping.json");
    {
        QFile f(mapping);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(R"({"num_params": "size_M", "num_tokens_training": "tok", "val_loss": "eval", "model_family": "arch"})");
    }
    const auto with = runScalex({"check", csv, "--mapping", mapping, "--json"});
    ASSERT_EQ(with.exitCode, 0) << with.err.toStdString();
    EXPECT_EQ(with.json()["usable"].toInt(), 1);
    bool mapped = false;
    for (const auto& c : with.json()["mapping"].toArray())
        if (c.toObject()["field"].toString() == "num_params") {
            EXPECT_EQ(c.toObject()["column"].toString(), "size_M");
            EXPECT_EQ(c.toObject()["rule"].toString(), "mapping");
            mapped = true;
        }
    EXPECT_TRUE(mapped);
}

// A W&B export flattens nested configs into dotted column names: the context length under
// model.context_length is read, and check says where it came from.
TEST(CheckVerb, WandbExportWithDottedConfigColumnsHasItsContextLengths) {
    QTemporaryDir dir;
    const QString csv = dir.filePath("wandb_export.csv");
    {
        QFile f(csv);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("Name,State,model.context_length,model.num_params,train.tokens,eval/loss,train/loss\n"
                "llama-160m-2k,finished,2048,1.6e8,3.2e9,3.31,3.35\n"
                "llama-160m-8k,finished,8192,1.6e8,3.2e9,3.27,3.30\n"
                "llama-400m-8k,finished,8192,4.0e8,8.0e9,3.02,3.05\n");
    }
    const auto r = runScalex({"check", csv, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["usable"].toInt(), 3);
    EXPECT_EQ(j["context_lengths"].toObject(), (QJsonObject{{"2048", 1}, {"8192", 2}}));
    bool context = false;
    for (const auto& c : j["mapping"].toArray())
        if (c.toObject()["field"].toString() == "context_length") {
            EXPECT_EQ(c.toObject()["column"].toString(), "model.context_length");
            EXPECT_EQ(c.toObject()["rule"].toString(), "spelling after the prefix 'model.'");
            context = true;
        }
    EXPECT_TRUE(context);
    const auto text = runScalex({"check", csv});
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_TRUE(text.out.contains("context lengths: 2048 1, 8192 2\n")) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("context_length <- 'model.context_length' (spelling after the prefix 'model.')")) << text.out.toStdString();
}
