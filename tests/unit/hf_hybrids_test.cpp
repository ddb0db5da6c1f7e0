// Nemotron-H's hybrid layer pattern read by its keys and counted against the shapes of HF
// modeling_nemotron_h written out by hand: hybrid_override_pattern (or layers_block_type) gives each
// layer one block, a Mamba-2 mixer (M), attention (*) or an MLP (-), each after its own RMSNorm.
// nemotron_h_keys.json is written in NemotronHConfig's keys with small sizes of its own (no
// Nemotron-H config.json with an exact published count was found).
#include <gtest/gtest.h>

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "tests/support/TestData.h"

using namespace scalex::accounting;
using namespace scalex::data;

namespace {

QJsonObject seed() {
    const QString path = scalex::test::sourcePath("tests/data/fuzz/hf_config/nemotron_h_keys.json");
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
        {"MEM*-MM-", "nemotron_h_keys.json, key 'hybrid_override_pattern': layer 1 ('E') is not a block Scalex reads (M: Mamba-2, *: attention, -: MLP; no experts yet)"},
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
