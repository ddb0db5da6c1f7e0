// Nemotron-H's hybrid layer pattern read by its keys and counted against the shapes of HF
// modeling_nemotron_h written out by hand: hybrid_override_pattern (or layers_block_type) gives each
// layer one block, a Mamba-2 mixer (M), attention (*), an MLP (-) or experts (E), each after its own
// RMSNorm. nemotron_h_keys.json is written in NemotronHConfig's keys with small sizes of its own, and
// nemotron_3_nano_30b_a3b.json in the same keys with the sizes of NVIDIA Nemotron 3 Nano 30B-A3B (no
// Nemotron-H config.json with an exact published count was found).
#include <gtest/gtest.h>

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/accounting/FlopCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "core/data/SpecJson.h"
#include "tests/support/TestData.h"

using namespace scalex::accounting;
using namespace scalex::data;

namespace {

QJsonObject seed(const char* name = "nemotron_h_keys") {
    const QString path = scalex::test::sourcePath(QStringLiteral("tests/data/fuzz/hf_config/%1.json").arg(QLatin1String(name)));
    return QJsonDocument::fromJson(scalex::test::fileBytes(path)).object();
}

Expected<HfModel> parse(const QJsonObject& o) { return parseHfConfig(QJsonDocument(o).toJson(), "nemotron_h_keys.json"); }

// d = 256, vocabulary 1000 untied; NemotronHMamba2Mixer with 8 heads of 64 (d_inner 512), 2 groups,
// state 16, kernel 4: in_proj d x (2 d_inner + 2 G N + H), conv1d (d_inner + 2 G N) x 4 with bias,
// dt_bias, A_log and D per head, the gated RMSNorm's d_inner, out_proj d_inner x d; NemotronHAttention
// q and o d x 4 * 64, k and v d x 2 * 64, no biases; NemotronHMLP up_proj d x 512 and down_proj 512 x d.
constexpr std::int64_t d = 256, V = 1000, di = 512, G = 2, N = 16, H = 8, K = 4;
constexpr std::int64_t kMamba = d * (2 * di + 2 * G * N + H) + (di + 2 * G * N) * K + (di + 2 * G * N) + 3 * H + di + di * d;
constexpr std::int64_t kAttention = 2 * d * 4 * 64 + 2 * d * 2 * 64;
constexpr std::int64_t kMlp = 2 * d * 512;

}  // namespace

// "M-M*-MM-": four Mamba-2 layers, one attention layer and three MLPs, each MLP after a mixer; eight
// blocks, eight RMSNorms and the final one.
TEST(HfHybrids, NemotronHPatternCountsEachBlock) {
    const auto r = parse(seed());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const ModelSpec& s = r->spec;
    EXPECT_EQ(s.layerCount(MixerKind::Mamba), 4);
    EXPECT_EQ(s.layerCount(MixerKind::Attention), 1);
    EXPECT_EQ(s.layerCount(FeedForwardKind::Dense), 3);
    EXPECT_FALSE(s.feedForward.gated);  // relu2: up and down, no gate
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.all.norms, 8 * d + d);
    EXPECT_EQ(p.total(), 2 * V * d + 4 * kMamba + kAttention + 3 * kMlp + 9 * d);
    // The cache: keys and values of the one attention layer (2 x 2 heads x 64 a token) and each Mamba
    // layer's convolution inputs (d_inner + 2 G N) x K and state d_inner x N (HF NemotronHHybridDynamicCache).
    const CacheElements e = cacheElements(s, 1000);
    EXPECT_EQ(e.kv, 1000.0 * 2 * 2 * 64);
    EXPECT_EQ(e.state, 4.0 * ((di + 2 * G * N) * K + di * N));
}

// The newer spelling, one name a layer in layers_block_type, reads the same model.
TEST(HfHybrids, LayersBlockTypeIsThePatternSpelledOut) {
    QJsonObject o = seed();
    o.remove("hybrid_override_pattern");
    o.insert("layers_block_type", QJsonArray{"mamba", "mlp", "mamba", "attention", "mlp", "mamba", "mamba", "mlp"});
    const auto a = parse(seed()), b = parse(o);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->spec, b->spec);
}

// A pattern Scalex cannot read is refused naming the key and saying why.
TEST(HfHybrids, BadPatternsAreRefusedNamingTheKey) {
    const std::pair<const char*, const char*> cases[] = {
        {"-MM*-MM-", "nemotron_h_keys.json, key 'hybrid_override_pattern': the MLP layer at 0 follows no Mamba or attention layer; Scalex counts an MLP after a mixer"},
        {"M--M*-M-", "nemotron_h_keys.json, key 'hybrid_override_pattern': the MLP layer at 2 follows no Mamba or attention layer; Scalex counts an MLP after a mixer"},
        {"MXM*-MM-", "nemotron_h_keys.json, key 'hybrid_override_pattern': layer 1 ('X') is not a block Scalex reads (M: Mamba-2, *: attention, -: MLP, E: experts)"},
        {"EMM*-MM-", "nemotron_h_keys.json, key 'hybrid_override_pattern': the MoE layer at 0 follows no Mamba or attention layer; Scalex counts an MoE after a mixer"},
        {"M-EM*-M-", "nemotron_h_keys.json, key 'hybrid_override_pattern': the MoE layer at 2 follows no Mamba or attention layer; Scalex counts an MoE after a mixer"},
        {"M-M*-M", "nemotron_h_keys.json, key 'hybrid_override_pattern': has 6 layers; num_hidden_layers = 8"},
    };
    for (const auto& [pattern, message] : cases) {
        QJsonObject o = seed();
        o.insert("hybrid_override_pattern", pattern);
        const auto r = parse(o);
        ASSERT_FALSE(r.ok()) << pattern;
        EXPECT_EQ(r.error().toString(), message);
    }
    QJsonObject none = seed();
    none.remove("hybrid_override_pattern");
    const auto r = parse(none);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "hybrid_override_pattern");
}

// NVIDIA Nemotron 3 Nano 30B-A3B (nemotron_3_nano_30b_a3b.json): d = 2688, vocabulary 131,072 untied,
// "MEMEM*EMEM..." of 52 blocks: 23 Mamba-2 mixers (64 heads of 64, 8 groups, state 128, kernel 4),
// 6 attention layers (32 heads, 2 key-value heads of 128) and 23 MoE layers, each after a mixer.
// NemotronHMoE by hand: NemotronHTopkRouter weight 128 x d and e_score_correction_bias 128; 128
// NemotronHExperts of up_proj 1856 x d and down_proj d x 1856 (no gate); one shared NemotronHMLP of
// up and down 3712 x d. A token passes through 6 routed experts and the shared one.
// Published (model card and technical report): 31.6B total, 3.2B active (3.6B with the embeddings).
TEST(HfHybrids, NemotronHExpertsCountedByHand) {
    const auto r = parse(seed("nemotron_3_nano_30b_a3b"));
    ASSERT_TRUE(r.ok()) << r.error().toString();
    const ModelSpec& s = r->spec;
    EXPECT_EQ(s.layerCount(MixerKind::Mamba), 23);
    EXPECT_EQ(s.layerCount(MixerKind::Attention), 6);
    EXPECT_EQ(s.layerCount(FeedForwardKind::Moe), 23);
    EXPECT_EQ(s.layerCount(FeedForwardKind::Dense), 0);
    EXPECT_FALSE(s.moe.gatedExperts);
    constexpr std::int64_t D = 2688, Voc = 131072, Di = 4096, Gr = 8, Ns = 128, Hm = 64, Kc = 4, conv = Di + 2 * Gr * Ns;
    constexpr std::int64_t mamba = D * (Di + conv + Hm) + conv * Kc + conv + 3 * Hm + Di + Di * D;
    constexpr std::int64_t attention = 2 * D * 32 * 128 + 2 * D * 2 * 128;
    constexpr std::int64_t router = 128 * D + 128, expert = 2 * D * 1856, shared = 2 * D * 3712;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.all.embedding, Voc * D);
    EXPECT_EQ(p.all.recurrent, 23 * mamba);
    EXPECT_EQ(p.all.attention, 6 * attention);
    EXPECT_EQ(p.all.experts, 23 * (router + 128 * expert + shared));
    EXPECT_EQ(p.active.experts, 23 * (router + 6 * expert + shared));
    EXPECT_EQ(p.all.norms, 52 * D + D);
    const std::int64_t rest = 2 * Voc * D + 23 * mamba + 6 * attention + 53 * D;
    EXPECT_EQ(p.total(), rest + 23 * (router + 128 * expert + shared));
    EXPECT_EQ(p.total(), 31577940288);
    EXPECT_EQ(p.activeTotal(), 3580076352);
    EXPECT_EQ(std::llround(static_cast<double>(p.total()) / 1e8), 316);                         // 31.6B
    EXPECT_EQ(std::llround(static_cast<double>(p.activeTotal() - p.active.embedding) / 1e8), 32);  // 3.2B active
    EXPECT_EQ(std::llround(static_cast<double>(p.activeTotal()) / 1e8), 36);                    // 3.6B with the embeddings

    // FLOPs: 2 per active matrix weight (the head, the mixers, the router and 6 + 1 experts); the
    // squared ReLU of the experts is an activation alone, (6 x 1856 + 3712) F_swish a MoE layer.
    const FlopConvention convention = studyConvention();
    const FlopSplit fl = forwardFlopsPerToken(s, 4096, convention);
    const double mambaMatrices = static_cast<double>(D * (Di + conv + Hm) + conv * Kc + Di * D);
    EXPECT_DOUBLE_EQ(fl.linear, 2.0 * static_cast<double>(Voc * D) + 2 * (23 * mambaMatrices + 6.0 * attention +
                                                                         23.0 * (128 * D + 6 * expert + shared)));
    ModelSpec gated = s;
    gated.moe.gatedExperts = true;
    EXPECT_DOUBLE_EQ(forwardFlopsPerToken(gated, 4096, convention).other - fl.other, 23.0 * (6 * 1856 + 3712));
    // No cache in the MoE layers: the keys and values of the 6 attention layers, the convolution and
    // state of the 23 Mamba layers (HF NemotronHHybridDynamicCache).
    const CacheElements e = cacheElements(s, 4096);
    EXPECT_EQ(e.kv, 4096.0 * 6 * 2 * 2 * 128);
    EXPECT_EQ(e.state, 23.0 * (conv * Kc + Di * Ns));
    // A decoding step of one token reads the 6 experts it routes to of each MoE layer (up and down
    // only), every other weight, the LM head and one row of the embeddings.
    const ByteWidths b;
    const std::int64_t idle = 23 * (128 - 6) * expert;
    EXPECT_DOUBLE_EQ(weightBytesRead(s, 1, b), static_cast<double>(p.total() - p.all.embedding - p.all.head - idle) * b.weights +
                                                   static_cast<double>(p.all.head + D) * b.embedding);
    // A spec file keeps the experts as they are.
    const auto back = parseSpecJson(specJsonBytes(s), "nano.json");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(*back, s);
}

// The layers_block_type names of NemotronHConfig (linear_attention for a Mamba-2 mixer,
// full_attention, mlp, moe) and the older mamba and attention read the same model as the pattern.
TEST(HfHybrids, LayersBlockTypeNamesExperts) {
    const QJsonObject nano = seed("nemotron_3_nano_30b_a3b");
    const std::string pattern = nano.value("hybrid_override_pattern").toString().toStdString();
    QJsonArray current, older;
    for (char c : pattern) {
        current.append(c == 'M' ? "linear_attention" : c == '*' ? "full_attention" : "moe");
        older.append(c == 'M' ? "mamba" : c == '*' ? "attention" : "moe");
    }
    for (const QJsonArray& names : {current, older}) {
        QJsonObject o = nano;
        o.remove("hybrid_override_pattern");
        o.insert("layers_block_type", names);
        const auto a = parse(nano), b = parse(o);
        ASSERT_TRUE(a.ok() && b.ok()) << (b.ok() ? "" : b.error().toString());
        EXPECT_EQ(a->spec, b->spec);
    }
}

// moe_latent_size l (Nemotron 3 Super's latent MoE): fc1_latent_proj d x l and fc2_latent_proj l x d
// around routed experts that read l (up l x w, down w x l); the router and the shared expert read d.
TEST(HfHybrids, LatentExpertsCountedByHand) {
    QJsonObject o = seed();
    o.insert("hybrid_override_pattern", "MEM*-MM-");
    o.insert("n_routed_experts", 8);
    o.insert("num_experts_per_tok", 2);
    o.insert("moe_intermediate_size", 128);
    o.insert("moe_shared_expert_intermediate_size", 256);
    const auto plain = parse(o);
    o.insert("moe_latent_size", 64);
    const auto latent = parse(o);
    ASSERT_TRUE(plain.ok() && latent.ok()) << (latent.ok() ? "" : latent.error().toString());
    constexpr std::int64_t l = 64, w = 128;
    const std::int64_t moe = 8 * d + 8 + 8 * 2 * l * w + 2 * d * 256 + 2 * d * l;
    const ParamCounts p = paramCounts(latent->spec);
    EXPECT_EQ(p.all.experts, moe);
    EXPECT_EQ(p.active.experts, moe - 6 * 2 * l * w);
    // Everything else is the model without experts in that layer: the dense pattern's count less its one MLP.
    EXPECT_EQ(p.total() - moe, 2 * V * d + 4 * kMamba + kAttention + 2 * kMlp + 9 * d);
    EXPECT_EQ(paramCounts(plain->spec).all.experts, 8 * d + 8 + 8 * 2 * d * w + 2 * d * 256);
}

// Bad expert keys are refused naming the key.
TEST(HfHybrids, BadExpertKeysNameTheKey) {
    const std::pair<std::pair<const char*, int>, const char*> cases[] = {
        {{"num_experts_per_tok", 200}, "key 'num_experts_per_tok': 200 exceeds n_routed_experts = 128"},
        {{"n_group", 3}, "key 'n_group': 3 does not divide n_routed_experts = 128"},
        {{"moe_intermediate_size", 0}, "key 'moe_intermediate_size': must be at least 1, got 0"},
    };
    for (const auto& [change, message] : cases) {
        QJsonObject o = seed("nemotron_3_nano_30b_a3b");
        o.insert(change.first, change.second);
        const auto r = parse(o);
        ASSERT_FALSE(r.ok()) << change.first;
        EXPECT_EQ(r.error().toString(), std::string("nemotron_h_keys.json, ") + message);
    }
    QJsonObject biased = seed("nemotron_3_nano_30b_a3b");
    biased.insert("mlp_bias", true);
    const auto r = parse(biased);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "mlp_bias");
}
