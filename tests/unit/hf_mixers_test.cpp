// The mixers and layer patterns of current models, each read from a config by its keys and counted
// against the shapes of its HF modeling file written out by hand here: gated DeltaNet mixed with
// gated attention (Qwen3-Next), short convolutions (LFM2), chunked attention with NoPE layers and a
// shared expert (Llama 4), Mamba (FalconMamba), latent attention with dense-first layers (Kimi K2.5,
// a multimodal config with its language model in text_config), shared transformer blocks (Zamba2),
// and the KV cache or recurrent state per token of each against a hand formula. gpt-oss-120b (the
// 20b config with 120b's layers and experts) is counted to KerasHub's exact figure.
//
// No byte-for-byte config.json of these models was found in the public repositories searched (see
// tests/data/configs/SOURCES.md) but LFM2-1.2B's, since in the corpus (hf_corpus_test); the configs read here (tests/data/fuzz/hf_config: lfm2_1_2b,
// qwen3_next_80b_a3b, llama4_scout, falcon_mamba_7b, kimi_k2_5, also seeds of the reader's fuzz
// corpus) are written in the keys of each type's configuration class with the sizes its model card
// publishes (LiquidAI/LFM2-1.2B, Qwen/Qwen3-Next-80B-A3B-Instruct, meta-llama/Llama-4-Scout-17B-16E,
// tiiuae/falcon-mamba-7b, moonshotai/Kimi-K2.5), so they test the reader and the counts, and the
// totals are checked against the published figures (exact for LFM2-1.2B, rounded for the others).
#include <gtest/gtest.h>

#include <QByteArray>
#include <algorithm>
#include <cmath>

#include "core/accounting/ModelLadder.h"
#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "core/data/SpecJson.h"
#include "tests/support/TestData.h"

using namespace scalex::accounting;
using namespace scalex::data;

namespace {

HfModel parse(const QByteArray& json, const std::string& file) {
    auto r = parseHfConfig(json, file);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().toString());
    return r.ok() ? *r : HfModel{};
}
HfModel read(const char* json) { return parse(QByteArray(json), "config.json"); }
// A config of tests/data/fuzz/hf_config.
HfModel readSeed(const char* name) {
    const QString path = scalex::test::sourcePath(QStringLiteral("tests/data/fuzz/hf_config/%1.json").arg(QLatin1String(name)));
    return parse(scalex::test::fileBytes(path), path.toStdString());
}

// A count against a figure published to a few digits ("17B active"): within one unit of its last
// digit, since publishers round some figures and truncate others.
bool roundsTo(std::int64_t n, double published, double unit) { return std::fabs(static_cast<double>(n) - published) <= unit; }

// Elements of the cache per token and sequence once the context is past every window, and the constant state.
double kvPerToken(const ModelSpec& s) { return (cacheElements(s, 2e6).kv - cacheElements(s, 1e6).kv) / 1e6; }

}  // namespace

// LFM2 (HF modeling_lfm2): Lfm2ShortConv in_proj d x 3d, depthwise conv d x L, out_proj d x d; Lfm2MLP
// of int(2 * 12288 / 3) = 8192 rounded to 256; q/k layernorms over head_dim; operator_norm, ffn_norm and
// embedding_norm. Published: 1,170,340,608 (the sum of the safetensors header's 148 tensor shapes,
// fetchwiki/LiquidAI-LFM2-1.2B model_files.json at 07edccf85a5888ab6ba6713196cdf0e1f488c127).
TEST(HfMixers, ShortConvolutionBlocksOfLfm2) {
    const HfModel m = readSeed("lfm2_1_2b");
    const ModelSpec& s = m.spec;
    EXPECT_EQ(s.layerCount(MixerKind::ShortConv), 10);
    EXPECT_EQ(s.layerCount(MixerKind::Attention), 6);
    EXPECT_EQ(s.feedForward.width, 8192);
    const std::int64_t d = 2048;
    const std::int64_t conv = d * 3 * d + d * 3 + d * d;
    const std::int64_t attention = d * (2048 + 2 * 512) + 2048 * d + 2 * 64;
    const std::int64_t perLayer = 3 * d * 8192 + 2 * d;
    EXPECT_EQ(paramCounts(s).total(), 10 * conv + 6 * attention + 16 * perLayer + d + 65536 * d);
    EXPECT_EQ(paramCounts(s).total(), 1'170'340'608);
    // Cache: K and V of 8 heads x 64 in 6 layers per token; the conv state d x L_cache in 10 layers.
    EXPECT_DOUBLE_EQ(kvPerToken(s), 6.0 * 2 * 8 * 64);
    EXPECT_DOUBLE_EQ(cacheElements(s, 1e6).state, 10.0 * d * 3);
}

// Qwen3-Next (HF modeling_qwen3_next): every 4th layer Qwen3NextAttention (q_proj d x 2 H d_h for the
// output gate, q_norm and k_norm over head_dim), the others Qwen3NextGatedDeltaNet; 512 experts, 10 per
// token, and a gated shared expert in every layer.
TEST(HfMixers, GatedDeltaNetMixedWithGatedAttentionInQwen3Next) {
    const HfModel m = readSeed("qwen3_next_80b_a3b");
    const ModelSpec& s = m.spec;
    EXPECT_EQ(s.layerCount(MixerKind::DeltaNet), 36);
    EXPECT_EQ(s.layerCount(MixerKind::Attention), 12);
    EXPECT_TRUE(s.layers[3].mixer == MixerKind::Attention && s.layers[2].mixer == MixerKind::DeltaNet);
    const std::int64_t d = 2048, K = 16 * 128, V = 32 * 128;
    const std::int64_t attention = d * 16 * 256 * 2 + 2 * d * 2 * 256 + 16 * 256 * d + 2 * 256;
    const std::int64_t deltaNet = d * (2 * K + 2 * V) + d * 2 * 32 + (2 * K + V) * 4 + V * d + 2 * 32 + 128;
    const std::int64_t expert = 3 * d * 512;
    const std::int64_t moe = d * 512 + 512 * expert + expert + d;
    const std::int64_t total = 12 * attention + 36 * deltaNet + 48 * (moe + 2 * d) + d + 2 * 151936 * d;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), total);
    EXPECT_EQ(p.activeTotal(), total - 48 * (512 - 10) * expert);
    EXPECT_PRED3(roundsTo, p.total(), 80e9, 1e9);                                // "80B"
    EXPECT_PRED3(roundsTo, p.activeTotal() - 2 * 151936 * d, 3e9, 1e9);          // "A3B", beside the embeddings
    // Cache: K and V of 2 heads x 256 in 12 layers per token; per DeltaNet layer the conv state
    // (2K + V) x 4 and the recurrent state 32 heads x 128 x 128 (Qwen3NextDynamicCache).
    EXPECT_DOUBLE_EQ(kvPerToken(s), 12.0 * 2 * 2 * 256);
    EXPECT_DOUBLE_EQ(cacheElements(s, 1e6).state, 36.0 * ((2 * K + V) * 4 + 32 * 128 * 128));
}

// Llama 4 Scout (HF modeling_llama4): in text_config; three of four layers RoPE with chunked attention
// over 8192-token chunks, every fourth NoPE with global attention; 16 experts (top-1) and a shared
// expert in each layer; the vision tower is not counted and the report says so.
TEST(HfMixers, ChunkedAttentionNopeLayersAndASharedExpertInLlama4) {
    const HfModel m = readSeed("llama4_scout");
    const ModelSpec& s = m.spec;
    EXPECT_EQ(m.report.modelType, "llama4");
    EXPECT_TRUE(s.attention.chunked);
    EXPECT_EQ(s.attention.slidingWindow, 8192);
    EXPECT_EQ(std::count_if(s.layers.begin(), s.layers.end(), [](const LayerSpec& l) { return l.local; }), 36);
    const std::int64_t d = 5120, expert = 3 * d * 8192;
    const std::int64_t attention = d * (40 * 128 + 2 * 8 * 128) + 40 * 128 * d;
    const std::int64_t moe = d * 16 + 16 * expert + expert;
    const std::int64_t total = 48 * (attention + moe + 2 * d) + d + 2 * 202048 * d;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), total);
    EXPECT_EQ(p.activeTotal(), total - 48 * 15 * expert);
    EXPECT_PRED3(roundsTo, p.activeTotal(), 17e9, 1e9);  // "17B active" (the 109B total holds the vision tower)
    bool visionSaid = false;
    for (const auto& f : m.report.ignored) visionSaid = visionSaid || (f.name == "vision_config" && f.note.find("not counted") != std::string::npos);
    EXPECT_TRUE(visionSaid);
    // Cache: a chunked layer keeps at most its chunk, a NoPE layer every token: at 32768 tokens,
    // 36 x 8192 + 12 x 32768 tokens of K and V of 8 heads x 128.
    EXPECT_DOUBLE_EQ(cacheElements(s, 32768).kv, (36.0 * 8192 + 12.0 * 32768) * 2 * 8 * 128);
}

// FalconMamba (HF modeling_falcon_mamba): MambaMixer shapes, its B, C and dt RMSNorms without weights.
TEST(HfMixers, FalconMambaIsAMambaStack) {
    const HfModel m = readSeed("falcon_mamba_7b");
    const ModelSpec& s = m.spec;
    EXPECT_EQ(s.layerCount(MixerKind::Mamba), 64);
    const std::int64_t d = 4096, di = 8192, R = 256, N = 16;
    const std::int64_t mixer = d * 2 * di + di * 4 + di + di * (R + 2 * N) + R * di + di + di * N + di + di * d;
    const std::int64_t total = 64 * (mixer + d) + d + 2 * 65024 * d;
    EXPECT_EQ(paramCounts(s).total(), total);
    EXPECT_PRED3(roundsTo, paramCounts(s).total(), 7.27e9, 1e7);  // "7.27B"
    // State: the conv inputs d_inner x 4 and the SSM state d_inner x 16 per layer, nothing per token.
    EXPECT_DOUBLE_EQ(kvPerToken(s), 0);
    EXPECT_DOUBLE_EQ(cacheElements(s, 1e6).state, 64.0 * (di * 4 + di * N));
}

// Kimi K2.5 (moonshotai: DeepSeek-V3's architecture in text_config): latent attention, the first layer
// dense, 384 routed experts (8 per token) and one shared in the others.
TEST(HfMixers, LatentAttentionAndDenseFirstLayersOfKimiK25) {
    const HfModel m = readSeed("kimi_k2_5");
    const ModelSpec& s = m.spec;
    EXPECT_EQ(m.report.modelType, "kimi_k25");
    EXPECT_EQ(s.layerCount(FeedForwardKind::Dense), 1);
    EXPECT_EQ(s.layerCount(FeedForwardKind::Moe), 60);
    const std::int64_t d = 7168, H = 64, expert = 3 * d * 2048;
    const std::int64_t attention = d * 1536 + 1536 + 1536 * H * 192 + d * (512 + 64) + 512 + 512 * H * (128 + 128) + H * 128 * d;
    const std::int64_t moe = d * 384 + 384 + 384 * expert + expert;
    const std::int64_t total = 61 * (attention + 2 * d) + 3 * d * 18432 + 60 * moe + d + 2 * 163840 * d;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), total);
    EXPECT_PRED3(roundsTo, p.total(), 1.0e12, 1e11);       // "1T total"
    EXPECT_PRED3(roundsTo, p.activeTotal(), 32e9, 1e9);    // "32B activated"
    // Cache: the latent vector and the rope key per layer and token (DeepSeek-V2 Sec. 2.1.4).
    EXPECT_DOUBLE_EQ(kvPerToken(s), 61.0 * (512 + 64));
}

// Alternating sliding and full attention (gpt-oss: layer_types, a 128-token window; Gemma 3:
// sliding_window_pattern) and attention sinks: the cache of a sliding layer stops growing at the window.
TEST(HfMixers, AlternatingSlidingAndFullAttention) {
    const HfModel gemma = read(R"({"model_type": "gemma3_text", "hidden_size": 1152, "num_hidden_layers": 26,
        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 6912, "vocab_size": 262144,
        "sliding_window": 512, "sliding_window_pattern": 6})");
    const ModelSpec& g = gemma.spec;
    // Gemma3TextConfig: layer i global when (i + 1) % 6 == 0: layers 5, 11, 17, 23.
    EXPECT_EQ(std::count_if(g.layers.begin(), g.layers.end(), [](const LayerSpec& l) { return !l.local; }), 4);
    EXPECT_FALSE(g.layers[5].local);
    // Gemma 3 1B (KerasHub gemma3_1b "params" 999,885,952): q/k norms and four norms per layer.
    EXPECT_EQ(paramCounts(g).total(), 999'885'952);
    EXPECT_DOUBLE_EQ(cacheElements(g, 8192).kv, (22.0 * 512 + 4.0 * 8192) * 2 * 256);
}

// FLOPs per token of the new mixers under the study convention (FlopCount.h: 2 per multiply-accumulate
// of the weights a token uses, F_causal, F_softmax), forward by hand, and training as forward and
// backward, three times the forward pass.
TEST(HfMixers, ForwardAndTrainingFlopsOfEachMixer) {
    const FlopConvention conv = studyConvention();
    const OpFactors& f = conv.ops;
    // Linear FLOPs: 2 per active matrix weight, the LM head included, the embedding lookup not; the
    // norm weights, biases, sinks and gates are no matrices.
    auto linearByHand = [](const ModelSpec& s, std::int64_t vectors) {
        const ParamCounts p = paramCounts(s);
        return 2.0 * static_cast<double>(p.activeTotal() - p.active.embedding + (s.tiedEmbeddings ? p.active.embedding : 0) - vectors);
    };
    // Qwen3-Next at T = 4096: 12 attention layers of 16 query heads over F_causal T keys,
    // 2 (d_qk + d_v + F_softmax / 2) each; 36 DeltaNet layers of 32 value heads, 7 d_k d_v + 2 d_v.
    const ModelSpec next = readSeed("qwen3_next_80b_a3b").spec;
    const double T = 4096;
    const FlopSplit fn = forwardFlopsPerToken(next, T, conv);
    EXPECT_DOUBLE_EQ(fn.seqMix, 12 * 16 * 2 * f.causal * T * (256 + 256 + 0.5 * f.softmax) + 36 * 32 * (7.0 * 128 * 128 + 2 * 128));
    const std::int64_t nextVectors = 12 * 2 * 256 + 36 * (2 * 32 + 128) + 48 * 2 * 2048 + 2048;
    EXPECT_DOUBLE_EQ(fn.linear, linearByHand(next, nextVectors));
    EXPECT_DOUBLE_EQ(trainingFlopsPerToken(next, T, conv), 3 * fn.total());
    // Llama 4 Scout at T = 32768: 36 chunked layers attend within 8192-token chunks (F_causal 8192
    // keys on average over whole chunks), 12 NoPE layers to all F_causal T keys; 40 heads of 128.
    const ModelSpec scout = readSeed("llama4_scout").spec;
    const double T4 = 32768;
    EXPECT_DOUBLE_EQ(forwardFlopsPerToken(scout, T4, conv).seqMix,
                     40 * 2 * (36 * f.causal * 8192 + 12 * f.causal * T4) * (128 + 128 + 0.5 * f.softmax));
    // LFM2: a short convolution has no sequence mix beyond its kernel (a matrix of d x L weights in
    // the linear FLOPs) and two gates of d each.
    const ModelSpec lfm2 = readSeed("lfm2_1_2b").spec;
    const FlopSplit fl = forwardFlopsPerToken(lfm2, 1, conv);
    EXPECT_DOUBLE_EQ(fl.linear, linearByHand(lfm2, 6 * 128 + 16 * 2 * 2048 + 2048));
    EXPECT_DOUBLE_EQ(fl.seqMix, 6 * 32 * 2 * f.causal * 1 * (64 + 64 + 0.5 * f.softmax));
}

// gpt-oss-120b: the corpus's gpt-oss-20b config (tests/data/configs/gpt-oss-20b.json) with the keys
// its config differs in, as OpenAI's gpt-oss model card (Table 1) and the 120b config quoted in
// public write-ups give them: 36 layers alternating sliding and full attention, 128 experts, top 4.
// Published: KerasHub gpt_oss_120b_en "params" 116,829,156,672 (also GGUF general.parameter_count as
// Ollama shows it); the model card's 116.83B total and 5.13B active, the embedding table left out.
TEST(HfMixers, GptOss120bCountsKerasHubsParametersExactly) {
    const ModelSpec s = readSeed("gpt_oss_120b").spec;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), 116'829'156'672);
    // Each expert: gate_up 2880 x 2 * 2880 and down 2880 x 2880 with their biases; 124 idle a token.
    const std::int64_t expert = 3 * 2880LL * 2880 + 2 * 2880 + 2880;
    EXPECT_EQ(p.activeTotal(), p.total() - 36 * (128 - 4) * expert);
    EXPECT_PRED3(roundsTo, p.activeTotal() - p.active.embedding, 5.13e9, 0.01e9);  // "5.13B active"
    EXPECT_PRED3(roundsTo, p.total(), 116.83e9, 0.01e9);                          // "116.83B"
    EXPECT_EQ(s.layerCount(MixerKind::Attention), 36);
    EXPECT_DOUBLE_EQ(kvPerToken(s), 18.0 * 2 * 8 * 64);  // past the 128-token window only the 18 full layers grow
}

// Zamba2 (HF modeling_zamba2): shared transformer blocks counted once, run at every "hybrid" layer.
// A small config in Zamba2Config's keys (tests/data/fuzz/hf_config/zamba2_keys.json): 6 Mamba-2
// layers, 3 of them hybrid, 2 shared blocks used in turn, attention adapters of rank 8. By hand from
// the modeling file's shapes, with d = 64, d_inner = 2 d = 128, N = 16, 8 Mamba heads, 1 group
// (conv_dim = d_inner + 2 N = 160):
// - Zamba2MambaMixer: in_proj d x (d_inner + conv_dim + heads), conv1d conv_dim x 4 + its bias,
//   dt_bias, A_log and D of 8, the gated RMSNorm d_inner, out_proj d_inner x d; the layer's RMSNorm d.
// - a shared block: q, k, v 2d x 128 (4 heads of attention_head_dim 2d / 4 = 32), o 128 x d; the MLP's
//   gate_up d x 2 * 128 and down 128 x d; RMSNorms of 2d and d.
// - each use: the hybrid layer's linear d x d, adapters 2d x 8 and 8 x 2d on q, k and v, and
//   Zamba2MLP's gate_up adapter d x 8 and 8 x 2 * 128.
TEST(HfMixers, SharedTransformerBlocksOfZamba2CountOnceAndRunAtEveryUse) {
    const HfModel m = readSeed("zamba2_keys");
    const ModelSpec& s = m.spec;
    ASSERT_EQ(s.sharedUses(), 3);
    const std::int64_t d = 64, convDim = 160;
    const std::int64_t mambaMatrices = d * (128 + convDim + 8) + convDim * 4 + 128 * d;
    const std::int64_t mambaLayer = mambaMatrices + convDim + 3 * 8 + 128 + d;
    const std::int64_t blockMatrices = 2 * d * 3 * 128 + 128 * d + d * 2 * 128 + 128 * d;
    const std::int64_t block = blockMatrices + 2 * d + d;
    const std::int64_t use = d * d + 3 * (2 * d * 8 + 8 * 2 * d) + d * 8 + 8 * 2 * 128;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), 6 * mambaLayer + 2 * block + 3 * use + 100 * d + d);
    EXPECT_EQ(p.total(), 378'000);
    EXPECT_EQ(p.activeTotal(), p.total());
    // Each use keeps its own keys and values, 4 heads of 32 each, full attention; each Mamba layer its
    // convolution window and state (HF Zamba2HybridDynamicCache).
    EXPECT_DOUBLE_EQ(kvPerToken(s), 3.0 * 2 * 4 * 32);
    EXPECT_DOUBLE_EQ(cacheElements(s, 1e6).state, 6.0 * (convDim * 4 + 128 * 16));
    // FLOPs per token: a block's matrices at every use (2 a multiply-accumulate) and its attention
    // over F_causal T keys at every use; the head d x vocab (tied).
    const FlopConvention conv = studyConvention();
    const OpFactors& f = conv.ops;
    const FlopSplit at1k = forwardFlopsPerToken(s, 1024, conv), at2k = forwardFlopsPerToken(s, 2048, conv);
    EXPECT_DOUBLE_EQ(at1k.linear, 2.0 * (6 * mambaMatrices + 3 * (blockMatrices + use) + d * 100));
    EXPECT_DOUBLE_EQ(at2k.seqMix - at1k.seqMix, 3 * 4 * 2 * f.causal * 1024 * (32 + 32 + 0.5 * f.softmax));
    // The spec file keeps the shared blocks and which layers use them (--write-spec, then --spec).
    const auto again = specFromJson(specToJson(s), "zamba2.json");
    ASSERT_TRUE(again.ok()) << again.error().toString();
    EXPECT_EQ(*again, s);
    // What was read: the adapters' rank; a layer kind other than mamba or hybrid is refused naming the key.
    EXPECT_TRUE(std::any_of(m.report.used.begin(), m.report.used.end(), [](const ConfigField& u) { return u.name == "adapter_rank"; }));
    auto bad = parseHfConfig(QByteArray(R"({"model_type": "zamba2", "hidden_size": 64, "vocab_size": 100,
        "layers_block_type": ["mamba", "attention"]})"), "config.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().column, "layers_block_type");
    auto noLayers = parseHfConfig(QByteArray(R"({"model_type": "zamba2", "hidden_size": 64, "vocab_size": 100})"), "config.json");
    ASSERT_FALSE(noLayers.ok());
    EXPECT_EQ(noLayers.error().column, "layers_block_type");
}

// A ladder rung of a Zamba2 model (max-model, scaleSpec) stretches the layer pattern: at a quarter of
// the width the 6 layers become 2 with one hybrid layer, which keeps one shared block, not two.
TEST(HfMixers, AZamba2LadderRungKeepsNoMoreSharedBlocksThanUses) {
    const ModelSpec base = readSeed("zamba2_keys").spec;
    const ModelSpec small = scaleSpec(base, 16);
    ASSERT_EQ(small.layers.size(), 2u);
    EXPECT_EQ(small.sharedUses(), 1);
    EXPECT_EQ(small.sharedBlock.blocks, 1);
    EXPECT_FALSE(validate(small).has_value());
    EXPECT_EQ(scaleSpec(base, 128).sharedBlock.blocks, 2);  // 12 layers, 6 uses: both blocks
}
