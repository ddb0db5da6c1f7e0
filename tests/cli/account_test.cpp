// `scalex account`, `scalex device` and the program's entry points, run as a user would.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

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

namespace {

QString writeConfig(const QTemporaryDir& dir, const char* name, const QByteArray& json) {
    const QString path = dir.filePath(name);
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(json);
    return path;
}

bool hasField(const QJsonArray& fields, const char* name) {
    for (const auto& f : fields)
        if (f.toObject()["field"].toString() == name) return true;
    return false;
}

}  // namespace

// --config reads a model's config.json: Mixtral-8x7B-v0.1 as published (its sliding_window null).
TEST(AccountVerb, ConfigGivesTotalAndActiveParametersCacheAndTheFieldsItRead) {
    QTemporaryDir dir;
    const QString mixtral = writeConfig(dir, "config.json", R"({
      "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
      "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
      "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
      "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
      "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.36.0.dev0",
      "use_cache": true, "vocab_size": 32000})");
    const auto r = runScalex({"account", "--config", mixtral, "--ctx", "8192", "--batch", "4", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["params"].toInteger(), 46702792704);
    EXPECT_EQ(j["params_active"].toInteger(), 12879925248);
    EXPECT_EQ(j["params_groups"].toObject()["experts"].toInteger(), 32LL * (8 * 3 * 4096LL * 14336 + 4096 * 8));
    EXPECT_EQ(j["params_active_groups"].toObject()["experts"].toInteger(), 32LL * (2 * 3 * 4096LL * 14336 + 4096 * 8));
    // 4 sequences x 8192 tokens x 32 layers x 2 (K, V) x 8 heads x 128 x 2 bytes.
    EXPECT_DOUBLE_EQ(j["cache_bytes"].toDouble(), 4.0 * 8192 * 32 * 2 * 8 * 128 * 2);
    EXPECT_EQ(j["config"].toObject()["model_type"].toString(), "mixtral");
    const QJsonObject fields = j["config_fields"].toObject();
    EXPECT_TRUE(hasField(fields["used"].toArray(), "num_local_experts"));
    EXPECT_TRUE(hasField(fields["ignored"].toArray(), "router_aux_loss_coef"));
    EXPECT_TRUE(hasField(fields["assumed"].toArray(), "head_dim"));
    EXPECT_GT(j["train_flops_per_token_over_6n"].toDouble(), 1.0);

    // --write-spec saves the model in Scalex's spec JSON; --spec reads it back to the same numbers.
    const QString spec = dir.filePath("mixtral.spec.json");
    const auto written = runScalex({"account", "--config", mixtral, "--write-spec", spec, "--json"});
    ASSERT_EQ(written.exitCode, 0) << written.err.toStdString();
    const auto fromSpec = runScalex({"account", "--spec", spec, "--ctx", "8192", "--batch", "4", "--json"});
    ASSERT_EQ(fromSpec.exitCode, 0) << fromSpec.err.toStdString();
    for (const char* key : {"params", "params_active", "cache_bytes", "fwd_flops_per_token"})
        EXPECT_EQ(fromSpec.json()[key], j[key]) << key;
    EXPECT_EQ(fromSpec.json()["config"].toObject()["model_type"].toString(), "mixtral");
    const auto noSource = runScalex({"account", "--write-spec", spec});
    EXPECT_EQ(noSource.exitCode, 2);
    EXPECT_EQ(noSource.err.trimmed(), "scalex account: --write-spec needs --config or --spec");

    // The readable form names the fields too.
    const auto text = runScalex({"account", "--config", mixtral});
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_TRUE(text.out.contains("active 12879925248")) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("fields ignored:"));

    // The paper's study architecture reports its active parameters and groups as well.
    const auto paper = runScalex({"account", "--family", "xlstm", "--d-model", "4096", "--n-layers", "32", "--n-heads", "8", "--json"});
    ASSERT_EQ(paper.exitCode, 0);
    EXPECT_EQ(paper.json()["params_active"].toInteger(), 6865424896);
    EXPECT_EQ(paper.json()["params_groups"].toObject()["total"].toInteger(), 6865424896);
}

TEST(AccountVerb, BadConfigsGetOneLineErrorNamingTheField) {
    QTemporaryDir dir;
    const struct {
        const char* json;
        const char* mustMention;
    } cases[] = {
        // A type Scalex has no hint for is read by its keys: refused naming the key that is missing.
        {R"({"model_type": "llava", "hidden_size": 64})", "key 'num_hidden_layers': missing"},
        {R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 8, "vocab_size": 9})", "key 'hidden_size'"},
        {R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 5,
            "intermediate_size": 8, "vocab_size": 9})", "num_attention_heads"},
        {"{ not json", "invalid JSON"},
    };
    int i = 0;
    for (const auto& c : cases) {
        const QString path = writeConfig(dir, ("bad" + std::to_string(i++) + ".json").c_str(), c.json);
        const auto r = runScalex({"account", "--config", path});
        SCOPED_TRACE(c.json);
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_TRUE(r.err.contains(c.mustMention)) << r.err.toStdString();
        EXPECT_TRUE(r.err.contains("bad")) << "names the file: " << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
    const auto both = runScalex({"account", "--config", writeConfig(dir, "ok.json", R"({"model_type": "gpt2", "n_embd": 64,
        "n_layer": 2, "n_head": 4, "vocab_size": 100})"), "--d-model", "64"});
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_TRUE(both.err.contains("--d-model")) << both.err.toStdString();
    // A missing or empty path: Scalex's one line, nothing printed by Qt.
    const auto missing = runScalex({"account", "--config", dir.filePath("missing.json")});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_EQ(missing.err.trimmed(), "scalex account: " + dir.filePath("missing.json") + ": no such file");
    const auto empty = runScalex({"account", "--config", ""});
    EXPECT_EQ(empty.exitCode, 2);
    EXPECT_FALSE(empty.err.contains("QFSFileEngine")) << empty.err.toStdString();
    EXPECT_EQ(empty.err.trimmed().count('\n'), 0) << empty.err.toStdString();
    EXPECT_TRUE(empty.err.contains("the path is empty")) << empty.err.toStdString();
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
