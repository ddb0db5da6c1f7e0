// Decoders with LayerNorms and biases, read by their keys and counted against the shapes of their HF
// modeling files written out by hand: PhiMoE (LayerNorm with bias around each block and at the end,
// biases on q, k, v and o, a bias on the LM head) and StarCoder2 (LayerNorm with bias, a GELU MLP of
// c_fc and c_proj, use_bias on every projection); a config's norm_type chooses the norm of any type.
//
// phi_tiny_moe.json is microsoft/Phi-tiny-MoE-instruct's config.json, byte for byte from
// kunalm2345/slm-aplit at 43979ed7a3057c8066829696dec6e2fc65fd0d27 (blob
// d1559c13752758fd3eb7d764a2f70b6a08cdd550, MIT); no exact published count of it was found, so it is
// a seed of the reader's fuzz corpus, not of the config corpus. starcoder2_keys.json is written in
// Starcoder2Config's keys with small sizes of its own.
#include <gtest/gtest.h>

#include <QByteArray>

#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "core/data/SpecJson.h"
#include "tests/support/TestData.h"

using namespace scalex::accounting;
using namespace scalex::data;

namespace {

HfModel readSeed(const char* name) {
    const QString path = scalex::test::sourcePath(QStringLiteral("tests/data/fuzz/hf_config/%1.json").arg(QLatin1String(name)));
    auto r = parseHfConfig(scalex::test::fileBytes(path), path.toStdString());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? *r : HfModel{};
}

Expected<HfModel> parse(const char* json) { return parseHfConfig(QByteArray(json), "config.json"); }

}  // namespace

// HF modeling_phimoe (and the config's own modeling_slimmoe.py, the same shapes): PhimoeAttention q of
// d x 16 * 128, k and v of d x 4 * 128, o of 16 * 128 x d, all with bias (attention_bias); 16 experts
// of w1, w3 (d x 448) and w2 (448 x d) without bias and a router d x 16 without bias;
// input_layernorm and post_attention_layernorm (nn.LayerNorm: weight and bias) and the final norm;
// an untied lm_head with bias (lm_head_bias).
TEST(HfNorms, PhimoeCountsItsLayerNormAndHeadBiases) {
    const ModelSpec s = readSeed("phi_tiny_moe").spec;
    EXPECT_EQ(s.norm, NormKind::Layer);
    EXPECT_TRUE(s.headBias);
    const std::int64_t d = 4096, V = 32064, L = 32, q = 16 * 128, kv = 4 * 128, w = 448, E = 16;
    const std::int64_t attention = (d * q + q) + 2 * (d * kv + kv) + (q * d + d);
    const std::int64_t experts = E * 3 * d * w + d * E;
    const std::int64_t norms = 2 * (2 * d);
    const std::int64_t total = V * d + L * (attention + experts + norms) + 2 * d + (d * V + V);
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), total);
    EXPECT_EQ(p.all.head, d * V + V);
    EXPECT_EQ(p.all.norms, L * norms + 2 * d);
    // Active per token: 2 of the 16 experts.
    EXPECT_EQ(p.activeTotal(), total - L * (E - 2) * 3 * d * w);
}

// HF modeling_starcoder2: q, k, v and o with bias (use_bias), Starcoder2MLP c_fc d x w and c_proj
// w x d with bias (no gate), two LayerNorms a layer and the final one, the head tied (PretrainedConfig's
// default, which Starcoder2Config keeps).
TEST(HfNorms, Starcoder2HasAnUngatedMlpAndBiasesEverywhere) {
    const HfModel m = readSeed("starcoder2_keys");
    const ModelSpec& s = m.spec;
    EXPECT_EQ(s.norm, NormKind::Layer);
    EXPECT_FALSE(s.feedForward.gated);
    EXPECT_TRUE(s.feedForward.bias && s.attention.qkvBias && s.attention.outputBias);
    const std::int64_t d = 1024, V = 49152, L = 4, q = 1024, kv = 2 * 128, w = 4096;
    const std::int64_t layer = (d * q + q) + 2 * (d * kv + kv) + (q * d + d) + (d * w + w) + (w * d + d) + 2 * (2 * d);
    EXPECT_EQ(paramCounts(s).total(), V * d + L * layer + 2 * d);
    // use_bias = false takes every bias away, the LayerNorms keep theirs.
    QByteArray bytes = scalex::test::fileBytes(scalex::test::sourcePath("tests/data/fuzz/hf_config/starcoder2_keys.json"));
    bytes.replace("\"use_bias\": true", "\"use_bias\": false");
    const auto noBias = parseHfConfig(bytes, "starcoder2_keys.json");
    ASSERT_TRUE(noBias.ok());
    const std::int64_t biases = L * (q + 2 * kv + d + w + d);
    EXPECT_EQ(paramCounts(noBias->spec).total(), V * d + L * layer + 2 * d - biases);
}

// A config's norm_type decides the norm whatever its type; an unknown one is refused naming the key.
TEST(HfNorms, NormTypeChoosesTheNorm) {
    const char* layer = R"({"model_type": "newlm", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100,
        "num_attention_heads": 4, "intermediate_size": 128, "norm_type": "layer_norm"})";
    const auto r = parse(layer);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->spec.norm, NormKind::Layer);
    EXPECT_EQ(paramCounts(r->spec).all.norms, 2 * (2 * 2 * 64) + 2 * 64);
    const auto bad = parse(R"({"model_type": "newlm", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100,
        "num_attention_heads": 4, "intermediate_size": 128, "norm_type": "batch_norm"})");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().toString(), "config.json, key 'norm_type': expected \"layer_norm\" or \"rms_norm\", got \"batch_norm\"");
    // Without norm_type or a type that says otherwise: RMSNorm.
    const auto rms = parse(R"({"model_type": "newlm", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 100,
        "num_attention_heads": 4, "intermediate_size": 128})");
    ASSERT_TRUE(rms.ok());
    EXPECT_EQ(rms->spec.norm, NormKind::Rms);
}

// A spec with a head bias keeps it through its JSON file; one without writes no head_bias key.
TEST(HfNorms, HeadBiasSurvivesTheSpecFile) {
    const ModelSpec s = readSeed("phi_tiny_moe").spec;
    const QJsonObject o = specToJson(s);
    EXPECT_TRUE(o.value("head_bias").toBool());
    const auto back = specFromJson(o, "phimoe.json");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(*back, s);
    EXPECT_FALSE(specToJson(readSeed("starcoder2_keys").spec).contains("head_bias"));
}
