// Model specs (core/accounting/ModelSpec, SpecAccounting): the paper's two architectures as specs
// give every number the appendix formulas give, and the blocks beyond the paper count as their
// sources say. Published configurations read from config.json are in hf_config_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "core/accounting/CacheSize.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "tests/support/TestData.h"

using namespace scalex::accounting;
using scalex::test::readSimpleCsv;

namespace {

std::int64_t toInt(const QString& s) { return s.toLongLong(); }

bool near(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

// A Llama-style spec: n layers of GQA attention and a SwiGLU block.
ModelSpec llamaSpec(std::int64_t d, std::int64_t layers, std::int64_t heads, std::int64_t kv, std::int64_t ff,
                    std::int64_t vocab) {
    ModelSpec s;
    s.name = "llama";
    s.dModel = d;
    s.vocab = vocab;
    s.attention.nHeads = heads;
    s.attention.nKvHeads = kv;
    s.attention.dQk = s.attention.dV = d / heads;
    s.feedForward.width = ff;
    s.layers.assign(static_cast<std::size_t>(layers), LayerSpec{});
    return s;
}

}  // namespace

// Every #Params entry of the appendix model tables (117 configurations): the spec of each gives the
// appendix's count to the parameter, with the same embedding / non-embedding split.
TEST(PaperSpecs, ParameterCountsEqualTheAppendixTables) {
    const auto t = readSimpleCsv(scalex::test::sourcePath("datasets/paper/model_configs.csv"));
    ASSERT_EQ(t.rows.size(), 117);
    for (int r = 0; r < t.rows.size(); ++r) {
        SCOPED_TRACE(t.rows[r].join(',').toStdString());
        const ModelConfig c = makeStudyConfig(*parseFamily(t.at(r, "family").toStdString()), toInt(t.at(r, "d_model")),
                                              toInt(t.at(r, "n_layers")), toInt(t.at(r, "n_heads")));
        const ModelSpec spec = fromPaperConfig(c);
        ASSERT_FALSE(validate(spec));
        const ParamCounts p = paramCounts(spec);
        const ParamBreakdown want = countParameters(c);
        EXPECT_EQ(p.total(), want.total());
        EXPECT_EQ(p.total() / 1'000'000, toInt(t.at(r, "params_m")));
        EXPECT_EQ(p.activeTotal(), p.total());  // dense: every parameter is active
        EXPECT_EQ(p.all.embedding, want.embedding);
        EXPECT_EQ(p.all.head, want.unembedding);
        EXPECT_EQ(p.all.nonEmbedding(), want.nonEmbedding());
        EXPECT_EQ(p.all.norms, c.nLayers * (want.seqMixPreNorm + want.ffnPreNorm) + want.finalNorm);
        EXPECT_EQ(p.all.feedForward, c.nLayers * want.ffnMlp);
    }
}

// All 39 rows of the authors' FLOP counts, through the spec: forward FLOPs per token at T times T
// equals the reference per-sequence count, split and training per token alike.
TEST(PaperSpecs, FlopsEqualTheAuthorsReferenceCounts) {
    SCALEX_REQUIRE_SHARED();
    const auto t = readSimpleCsv(scalex::test::sharedPath("reference/flop_param_reference.csv"));
    ASSERT_EQ(t.rows.size(), 39);
    for (int r = 0; r < t.rows.size(); ++r) {
        SCOPED_TRACE(t.at(r, "config").toStdString() + " ctx " + t.at(r, "context_length").toStdString());
        ConfigOverrides ov;
        ov.dQk = toInt(t.at(r, "d_qk"));
        ov.dHv = toInt(t.at(r, "d_hv"));
        const ModelConfig c = makeStudyConfig(*parseFamily(t.at(r, "model_type").toStdString()), toInt(t.at(r, "d_model")),
                                              toInt(t.at(r, "n_layers")), toInt(t.at(r, "n_heads")), ov);
        const ModelSpec spec = fromPaperConfig(c);
        EXPECT_EQ(paramCounts(spec).total(), toInt(t.at(r, "num_params")));
        const FlopConvention conv =
            t.at(r, "attention_flop_calc_mode") == "chinchilla" ? chinchillaConvention() : studyConvention();
        const double T = t.number(r, "context_length");
        const FlopSplit fw = forwardFlopsPerToken(spec, T, conv);
        EXPECT_PRED3(near, T * fw.total(), t.number(r, "fw_flops_per_seq"), 1e-9);
        EXPECT_PRED3(near, T * fw.linear, t.number(r, "fw_linear_per_seq"), 1e-9);
        EXPECT_PRED3(near, T * fw.seqMix, t.number(r, "fw_seqmix_per_seq"), 1e-9);
        EXPECT_PRED3(near, T * fw.other, t.number(r, "fw_other_per_seq"), 1e-9);
        EXPECT_PRED3(near, trainingFlopsPerToken(spec, T, conv), t.number(r, "fwbw_flops_per_token"), 1e-9);
    }
}

// Every convention (the appendix's with norms, skips and the chunkwise table rows included) and
// every cache size agree with the ModelConfig functions, for both families, MHA and GQA.
TEST(PaperSpecs, EveryConventionAndCacheAgreesWithTheAppendixFunctions) {
    ConfigOverrides gqa;
    gqa.nKvHeads = 8;
    const ModelConfig configs[] = {makeStudyConfig(Family::Transformer, 4096, 32, 32, gqa),
                                   makeStudyConfig(Family::Transformer, 1024, 24, 16),
                                   makeStudyConfig(Family::Xlstm, 4096, 32, 8), makeStudyConfig(Family::Xlstm, 768, 12, 4)};
    ByteWidths bytes;
    for (const ModelConfig& c : configs) {
        const ModelSpec spec = fromPaperConfig(c);
        for (const auto& name : conventionNames()) {
            const FlopConvention conv = *conventionByName(name);
            for (double T : {1000.0, 2048.0, 8192.0, 16384.0}) {
                SCOPED_TRACE(std::string(familyName(c.family)) + " d " + std::to_string(c.dModel) + " " + name + " T " +
                             std::to_string(T));
                const FlopSplit want = forwardFlops(c, T, conv);
                const FlopSplit got = forwardFlopsPerToken(spec, T, conv);
                EXPECT_PRED3(near, T * got.linear, want.linear, 1e-12);
                EXPECT_NEAR(T * got.seqMix, want.seqMix, 1e-12 * want.total());
                EXPECT_NEAR(T * got.other, want.other, 1e-12 * want.total());
                EXPECT_PRED3(near, trainingFlopsPerToken(spec, T, conv), trainingFlopsPerToken(c, T, conv), 1e-12);
                EXPECT_PRED3(near, cacheBytes(spec, T, 3, bytes), cacheBytes(c, defaultSequenceMix(c), 3, T, bytes), 1e-12);
            }
        }
    }
}

TEST(SpecAccounting, GroupsAddUpAndDenseModelsAreFullyActive) {
    const ModelSpec s = llamaSpec(4096, 32, 32, 32, 11008, 32000);  // Llama-2-7B
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.total(), 6'738'415'616);
    EXPECT_EQ(p.all.attention, 32 * 4 * 4096LL * 4096);
    EXPECT_EQ(p.all.feedForward, 32 * 3 * 4096LL * 11008);
    EXPECT_EQ(p.all.norms, 65 * 4096);
    EXPECT_EQ(p.all.embedding, p.all.head);
    EXPECT_EQ(p.active, p.all);
    // Tying the head removes its matrix from the count but not its FLOPs.
    ModelSpec tied = s;
    tied.tiedEmbeddings = true;
    EXPECT_EQ(paramCounts(tied).total(), p.total() - 4096LL * 32000);
    EXPECT_DOUBLE_EQ(forwardFlopsPerToken(tied, 4096).total(), forwardFlopsPerToken(s, 4096).total());
}

// FLOPs per token against the textbook count: 2 N_active (less the embedding lookup) plus the
// attention term 2 n_layer n_head T F_causal (d_qk + d_v + 0.5 F_softmax) (Kaplan et al. 2020, Tab. 1).
TEST(SpecAccounting, ForwardFlopsAreTwoPerWeightPlusAttention) {
    const ModelSpec s = llamaSpec(4096, 32, 32, 8, 14336, 128256);  // Llama-3-8B
    const ParamCounts p = paramCounts(s);
    const double T = 8192;
    const double independent = 2.0 * static_cast<double>(p.total() - p.all.embedding) + 2.0 * 32 * 32 * T * 0.5 * (128 + 128 + 2.5);
    const FlopSplit f = forwardFlopsPerToken(s, T);
    EXPECT_PRED3(near, f.total(), independent, 0.01);
    EXPECT_EQ(p.total(), 8'030'261'248);  // Meta's Llama-3-8B as counted by its safetensors index
}

TEST(SpecAccounting, SlidingWindowCapsTheCacheAndTheAttendedKeys) {
    ModelSpec s = llamaSpec(4096, 32, 32, 8, 14336, 32000);  // Mistral-7B-v0.1
    s.attention.slidingWindow = 4096;
    for (auto& l : s.layers) l.local = true;
    // 2 (keys and values) x 8 kv heads x 128 x 2 bytes = 4 KiB per layer and token.
    EXPECT_DOUBLE_EQ(kvCacheBytes(s, 1000, 1, 2), 32.0 * 2 * 8 * 128 * 2 * 1000);
    EXPECT_DOUBLE_EQ(kvCacheBytes(s, 4096, 1, 2), 32.0 * 2 * 8 * 128 * 2 * 4096);
    EXPECT_DOUBLE_EQ(kvCacheBytes(s, 100000, 2, 2), 2 * 32.0 * 2 * 8 * 128 * 2 * 4096);
    // Within the window, causal attention over T/2 keys on average; beyond, W - W^2 / 2T.
    ModelSpec global = s;
    for (auto& l : global.layers) l.local = false;
    EXPECT_DOUBLE_EQ(forwardFlopsPerToken(s, 4096).seqMix, forwardFlopsPerToken(global, 4096).seqMix);
    const double T = 32768, W = 4096;
    EXPECT_PRED3(near, forwardFlopsPerToken(s, T).seqMix, 32.0 * 32 * 2 * (W - W * W / (2 * T)) * (128 + 128 + 2.5), 1e-12);
    EXPECT_LT(forwardFlopsPerToken(s, T).seqMix, forwardFlopsPerToken(global, T).seqMix / 4);
}

TEST(SpecAccounting, ExpertsCountAllForTotalTopKForActive) {
    ModelSpec s = llamaSpec(4096, 32, 32, 8, 14336, 32000);  // Mixtral-8x7B
    for (auto& l : s.layers) l.feedForward = FeedForwardKind::Moe;
    s.moe.nRouted = 8;
    s.moe.topK = 2;
    s.moe.expertWidth = 14336;
    const ParamCounts p = paramCounts(s);
    const std::int64_t expert = 3 * 4096LL * 14336, router = 4096 * 8;
    EXPECT_EQ(p.all.experts, 32 * (8 * expert + router));
    EXPECT_EQ(p.active.experts, 32 * (2 * expert + router));
    EXPECT_EQ(p.total(), 46'702'792'704);
    EXPECT_EQ(p.total() - p.activeTotal(), 32 * 6 * expert);
    EXPECT_EQ(p.active.attention, p.all.attention);
    // FLOPs follow the active experts: 2 per active weight but the embedding lookup and norm weights.
    EXPECT_PRED3(near, forwardFlopsPerToken(s, 1).linear,
                 2.0 * static_cast<double>(p.activeTotal() - p.active.embedding - p.active.norms), 1e-12);
}

TEST(SpecAccounting, RecurrentStateIsConstantAndHybridsAddTheirParts) {
    ModelSpec s;
    s.name = "hybrid";
    s.dModel = 1024;
    s.vocab = 1000;
    s.attention = {16, 4, 64, 64};
    s.feedForward.width = 4096;
    s.mamba.version = 2;
    s.mamba.dInner = 2048;
    s.mamba.dState = 128;
    s.mamba.dConv = 4;
    s.mamba.nHeads = 32;
    s.mamba.nGroups = 1;
    s.layers = {{MixerKind::Mamba, false, FeedForwardKind::Dense},
                {MixerKind::Attention, false, FeedForwardKind::Dense},
                {MixerKind::Mamba, false, FeedForwardKind::None}};
    ASSERT_FALSE(validate(s));
    const CacheElements at1k = cacheElements(s, 1000), at2k = cacheElements(s, 2000);
    EXPECT_DOUBLE_EQ(at1k.state, at2k.state);
    EXPECT_DOUBLE_EQ(at1k.state, 2.0 * ((2048 + 2 * 128) * 4 + 2048 * 128));  // conv and SSM state, two layers
    EXPECT_DOUBLE_EQ(at2k.kv, 2 * at1k.kv);
    EXPECT_DOUBLE_EQ(at1k.kv, 4.0 * (64 + 64) * 1000);
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.all.feedForward, 2 * 3 * 1024LL * 4096);
    EXPECT_EQ(p.all.norms, (2 + 2 + 1 + 1) * 1024);
    // Mamba2Mixer: in_proj d (2 d_inner + 2 G N + H), conv (d_inner + 2 G N)(d_conv + 1), 3 H, norm, out_proj.
    const std::int64_t mixer = 1024LL * (2 * 2048 + 2 * 128 + 32) + (2048 + 256) * 5 + 3 * 32 + 2048 + 2048LL * 1024;
    EXPECT_EQ(p.all.recurrent, 2 * mixer);
}

TEST(SpecAccounting, LatentAttentionCachesTheCompressedVectorAndRopeKey) {
    ModelSpec s = llamaSpec(7168, 4, 128, 128, 18432, 129280);
    s.attention.dQk = 192;
    s.attention.dV = 128;
    s.attention.qLoraRank = 1536;
    s.attention.kvLoraRank = 512;
    s.attention.ropeDim = 64;
    ASSERT_FALSE(validate(s));
    EXPECT_DOUBLE_EQ(cacheElements(s, 1000).kv, 4.0 * (512 + 64) * 1000);
    // (d_c + d_h^R) = 9/2 d_h with the DeepSeek-V2 choice d_c = 4 d_h, d_h^R = d_h / 2 (Tab. memory_state_kv_cache_sizes).
    EXPECT_DOUBLE_EQ(512 + 64, 4.5 * 128);
    // DeepseekV3Attention's parameter shapes.
    const std::int64_t attn = 7168LL * 1536 + 1536 + 1536LL * 128 * 192 + 7168LL * 576 + 512 + 512LL * 128 * 256 + 128LL * 128 * 7168;
    EXPECT_EQ(paramCounts(s).all.attention, 4 * attn);
}

// The bytes of one decoding step: the weights the batch reads (the routed experts it is expected to
// touch), the cache within windows or latent vectors, and recurrent states read and written.
TEST(SpecAccounting, DecodeStepReadsTheExpertsABatchTouchesAndTheCacheItKeeps) {
    ModelSpec s = llamaSpec(4096, 32, 32, 8, 14336, 32000);  // Mixtral-8x7B
    for (auto& l : s.layers) l.feedForward = FeedForwardKind::Moe;
    s.moe = {.nRouted = 8, .topK = 2, .expertWidth = 14336};
    // E (1 - (1 - k/E)^B): 2 of 8 for one token, 8 (1 - 0.75^8) = 7.1991 for eight.
    EXPECT_DOUBLE_EQ(expertsTouched(s, 1), 2.0);
    EXPECT_DOUBLE_EQ(expertsTouched(s, 8), 8 * (1 - std::pow(0.75, 8)));
    EXPECT_EQ(expertsTouched(llamaSpec(4096, 32, 32, 8, 14336, 32000), 8), 0.0);
    const ByteWidths bf16;  // 2 bytes for weights, embeddings and the KV cache
    // Hand count at B = 1, T = 8192: attention, norms and routers 1,343,492,096 weights; the routed
    // experts 32 x 8 x 3 x 4096 x 14336 = 45,097,156,608, a quarter of them read; the LM head
    // 131,072,000 and one embedding row of 4096; the KV cache 32 x 2 x 8 x 128 x 8192 elements and
    // the new token's 32 x 2 x 8 x 128.
    const double routed = 32.0 * 8 * 3 * 4096 * 14336;
    EXPECT_EQ(routed, 45097156608.0);
    const double rest = 46702792704.0 - 2 * 131072000.0 - routed;
    EXPECT_EQ(rest, 1343492096.0);
    const ByteSplit step = decodeStepBytes(s, 1, 8192, bf16);
    EXPECT_DOUBLE_EQ(step.weights, 2 * (rest + routed / 4 + 131072000.0 + 4096));
    EXPECT_DOUBLE_EQ(step.seqMix, 2 * (32.0 * 2 * 8 * 128 * 8192 + 32.0 * 2 * 8 * 128));
    EXPECT_DOUBLE_EQ(step.total(), 25497714688.0 + 1073872896.0);
    // At B = 1 the weights read are the active parameters less the embedding table, plus its row.
    EXPECT_DOUBLE_EQ(step.weights / 2, static_cast<double>(paramCounts(s).activeTotal()) - 131072000.0 + 4096);
    // A batch of 64 touches all but 8 x 0.75^64 of the experts.
    EXPECT_NEAR(decodeStepBytes(s, 64, 8192, bf16).weights, 2 * (rest + routed + 131072000.0 + 64 * 4096), 2 * routed * 1e-7);
    EXPECT_DOUBLE_EQ(weightBytes(s, bf16), 2 * 46702792704.0);

    // A sliding window of 4096 reads 4096 tokens' keys and values at any longer context.
    ModelSpec mistral = llamaSpec(4096, 32, 32, 8, 14336, 32000);
    mistral.attention.slidingWindow = 4096;
    for (auto& l : mistral.layers) l.local = true;
    EXPECT_DOUBLE_EQ(decodeStepBytes(mistral, 4, 32768, bf16).seqMix, 4 * 2 * (32.0 * 2 * 8 * 128 * 4096 + 32.0 * 2 * 8 * 128));
    // Latent attention reads d_c + d_h^R = 576 elements a token and layer (DeepSeek-V3's 61 layers).
    ModelSpec mla = llamaSpec(7168, 61, 128, 128, 18432, 129280);
    mla.attention.dQk = 192;
    mla.attention.dV = 128;
    mla.attention.qLoraRank = 1536;
    mla.attention.kvLoraRank = 512;
    mla.attention.ropeDim = 64;
    EXPECT_DOUBLE_EQ(decodeStepBytes(mla, 1, 8192, bf16).seqMix, 2 * 61.0 * 576 * 8193);
    // A Mamba layer reads and writes its constant state at bytes_Cmn (4).
    ModelSpec mamba = llamaSpec(768, 2, 12, 12, 3072, 50280);
    mamba.mamba = {.version = 1, .dInner = 1536, .dState = 16, .dConv = 4, .dtRank = 48};
    for (auto& l : mamba.layers) l = {MixerKind::Mamba, false, FeedForwardKind::None};
    const double state = 2.0 * (1536 * 4 + 1536 * 16);  // two layers of conv and SSM state
    EXPECT_DOUBLE_EQ(cacheElements(mamba, 1).state, state);
    EXPECT_DOUBLE_EQ(decodeStepBytes(mamba, 3, 1e6, bf16).seqMix, 3 * 2 * state * 4);
}

TEST(ModelSpecValidation, NamesTheField) {
    ModelSpec s = llamaSpec(4096, 32, 32, 8, 14336, 32000);
    ASSERT_FALSE(validate(s));
    s.attention.nKvHeads = 5;
    ASSERT_TRUE(validate(s));
    EXPECT_EQ(validate(s)->field, "attention.n_kv_heads");
    s = llamaSpec(4096, 32, 32, 8, 14336, 32000);
    s.layers[3].local = true;
    ASSERT_TRUE(validate(s));
    EXPECT_EQ(validate(s)->field, "attention.sliding_window");
    s = llamaSpec(4096, 32, 32, 8, 14336, 32000);
    s.layers[0].feedForward = FeedForwardKind::Moe;
    ASSERT_TRUE(validate(s));
    EXPECT_EQ(validate(s)->field, "moe.n_routed");
    s.moe = {8, 9, 1024};
    ASSERT_TRUE(validate(s));
    EXPECT_EQ(validate(s)->field, "moe.top_k");
    s = llamaSpec(4096, 32, 32, 8, 14336, 32000);
    s.layers.clear();
    EXPECT_EQ(validate(s)->field, "layers");
    s = llamaSpec(1'000'000, 8'000, 16, 16, 4'000'000, 32000);
    ASSERT_TRUE(validate(s));
    EXPECT_NE(validate(s)->message.find("beyond any model"), std::string::npos);
}
