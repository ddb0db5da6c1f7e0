// `scalex account`, `scalex device` and the program's entry points, run as a user would.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

#include "tests/cli/ScalexProcess.h"

using scalex::test::runScalex;

TEST(AccountVerb, PrintsTheAuthorsCountsForXlstm7B) {
    const auto r = runScalex({"account", "--family", "mlstm", "--d-model", "4096", "--n-layers", "32", "--n-heads", "8",
                              "--ctx", "8192", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["params"].toInteger(), 6865424896);
    EXPECT_DOUBLE_EQ(j["train_flops_per_token"].toDouble(), 40440404796.0);  // reference README (c)
    const QJsonObject fwd = j["fwd_flops_per_seq"].toObject();
    EXPECT_DOUBLE_EQ(fwd["total"].toDouble(), 110429265362944.0);
    EXPECT_DOUBLE_EQ(fwd["linear"].toDouble(), 109101832994816.0);
    EXPECT_DOUBLE_EQ(fwd["seq_mix"].toDouble(), 1321694560256.0);
    EXPECT_DOUBLE_EQ(fwd["other"].toDouble(), 5737807872.0);
    EXPECT_EQ(j["config"].toObject()["family"].toString(), "xlstm");
    for (const char* key : {"prefill_flops", "decode_step_flops", "decode_step_bytes", "cache_bytes"})
        EXPECT_GT(j[key].toDouble(), 0) << key;
}

TEST(AccountVerb, TransformerGqaCacheAndConventions) {
    const auto mha = runScalex({"account", "--family", "llama", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32",
                                "--prefill", "8192", "--json"});
    const auto gqa = runScalex({"account", "--family", "llama", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32",
                                "--n-kv-heads", "8", "--prefill", "8192", "--json"});
    ASSERT_EQ(mha.exitCode, 0);
    ASSERT_EQ(gqa.exitCode, 0);
    EXPECT_EQ(mha.json()["cache_kind"].toString(), "mha");
    EXPECT_EQ(gqa.json()["cache_kind"].toString(), "gqa");
    EXPECT_NEAR(mha.json()["cache_bytes"].toDouble() / gqa.json()["cache_bytes"].toDouble(), 4.0, 1e-3);
    const auto six = runScalex({"account", "--family", "transformer", "--d-model", "1024", "--n-layers", "24", "--n-heads",
                                "16", "--convention", "6nd", "--json"});
    ASSERT_EQ(six.exitCode, 0);
    EXPECT_DOUBLE_EQ(six.json()["train_flops_per_token"].toDouble(), 6.0 * 406635520);
}

TEST(AccountVerb, BadOptionsGetOneLineErrorNamingTheOptionAndExit2) {
    struct Case {
        QStringList args;
        const char* mustMention;
    };
    const Case cases[] = {
        {{"account", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16"}, "--family"},
        {{"account", "--family", "mamba", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16"}, "--family"},
        {{"account", "--family", "xlstm", "--n-layers", "24", "--n-heads", "4"}, "--d-model"},
        {{"account", "--family", "xlstm", "--d-model", "1024", "--n-layers", "24", "--n-heads", "4", "--n-kv-heads", "2"}, "--n-kv-heads"},
        {{"account", "--family", "llama", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16", "--n-kv-heads", "5"}, "n-kv-heads"},
        {{"account", "--family", "llama", "--d-model", "abc", "--n-layers", "24", "--n-heads", "16"}, "--d-model"},
        {{"account", "--family", "llama", "--d-model", "1024", "--n-layers", "0", "--n-heads", "16"}, "--n-layers"},
        {{"account", "--family", "llama", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16", "--convention", "kaplan"}, "--convention"},
        {{"account", "--family", "llama", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16", "--cache", "mlstm"}, "--cache"},
        {{"account", "--family", "llama", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16", "--bogus"}, "bogus"},
    };
    for (const auto& c : cases) {
        const auto r = runScalex(c.args);
        SCOPED_TRACE(c.args.join(' ').toStdString());
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_TRUE(r.out.isEmpty());
        EXPECT_TRUE(r.err.contains(c.mustMention)) << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << "one line: " << r.err.toStdString();
    }
}

TEST(Program, UnknownVerbHelpAndDeviceQueryWorkWithoutDisplayOrGpu) {
    const auto unknown = runScalex({"frobnicate"});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.err.contains("unknown verb"));
    const auto help = runScalex({"help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_TRUE(help.out.contains("account"));
    const auto device = runScalex({"device", "--json"});
    ASSERT_EQ(device.exitCode, 0) << device.err.toStdString();
    const QJsonObject j = device.json();
    EXPECT_GE(j["devices"].toArray().size(), 1);
    EXPECT_FALSE(j["cuda_status"].toString().isEmpty());
}

TEST(Program, RendersTheMainWindowToPngWithoutDisplay) {
    const QString out = QStringLiteral(SCALEX_BINARY_DIR "/test-main-window.png");
    const auto r = runScalex({"--screenshot", out, "--size", "1000x700"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains(out));
}
