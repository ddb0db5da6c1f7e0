// Accounting against the paper's appendix tables and the authors' own FLOP counts.
#include <gtest/gtest.h>

#include <cmath>

#include "core/accounting/CacheSize.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ParamCount.h"
#include "tests/support/TestData.h"

using namespace scalex::accounting;
using scalex::test::readSimpleCsv;

namespace {

std::int64_t toInt(const QString& s) { return s.toLongLong(); }

ModelConfig configFromTableRow(const scalex::test::SimpleCsv& t, int r) {
    const Family family = *parseFamily(t.at(r, "family").toStdString());
    return makeStudyConfig(family, toInt(t.at(r, "d_model")), toInt(t.at(r, "n_layers")), toInt(t.at(r, "n_heads")));
}

}  // namespace

TEST(Family, AcceptsAliasesAndPrintsCanonicalNames) {
    for (const char* t : {"transformer", "llama", "Llama2", "LLAMA3"}) EXPECT_EQ(parseFamily(t), Family::Transformer) << t;
    for (const char* t : {"xlstm", "mlstm", "mlstm_v1", "xLSTM"}) EXPECT_EQ(parseFamily(t), Family::Xlstm) << t;
    EXPECT_FALSE(parseFamily("mamba"));
    EXPECT_EQ(familyName(Family::Xlstm), "xlstm");
    EXPECT_EQ(familyName(Family::Transformer), "transformer");
}

TEST(StudyRules, FeedForwardRoundingDiffersBetweenFamilies) {
    // reference README (c): the two families differ where 2.667 d lands just above a multiple of 64.
    const std::pair<int, std::pair<int, int>> cases[] = {
        {768, {2048, 2112}}, {1152, {3072, 3136}}, {1536, {4096, 4160}}, {2304, {6144, 6208}}, {1024, {2752, 2752}}, {4096, {10944, 10944}}};
    for (const auto& [d, expected] : cases) {
        EXPECT_EQ(studyFeedForwardWidth(Family::Transformer, d), expected.first) << d;
        EXPECT_EQ(studyFeedForwardWidth(Family::Xlstm, d), expected.second) << d;
    }
}

// Every #Params entry of the four appendix model tables (117 configurations), truncated to millions,
// together with the table's d_ff, d_qk and d_hv that the study's rules derive.
TEST(ParamCount, ReproducesAllAppendixModelTables) {
    const auto t = readSimpleCsv(scalex::test::sourcePath("datasets/paper/model_configs.csv"));
    ASSERT_EQ(t.rows.size(), 117);
    int perTable[2][2] = {{0, 0}, {0, 0}};
    for (int r = 0; r < t.rows.size(); ++r) {
        const ModelConfig c = configFromTableRow(t, r);
        SCOPED_TRACE(t.rows[r].join(',').toStdString());
        EXPECT_EQ(c.dFf, toInt(t.at(r, "d_ff")));
        EXPECT_EQ(c.dQk, toInt(t.at(r, "d_qk")));
        EXPECT_EQ(c.dHv, toInt(t.at(r, "d_hv")));
        EXPECT_EQ(countParameters(c).total() / 1'000'000, toInt(t.at(r, "params_m")));
        perTable[c.family == Family::Xlstm][t.at(r, "experiment_set") == "isoflop"]++;
    }
    EXPECT_EQ(perTable[1][0], 6);   // xLSTM token/param
    EXPECT_EQ(perTable[0][0], 6);   // Transformer token/param
    EXPECT_EQ(perTable[1][1], 62);  // xLSTM IsoFLOP
    EXPECT_EQ(perTable[0][1], 43);  // Transformer IsoFLOP
}

TEST(ParamCount, BreakdownSumsToTotalAndMatchesTheTableFormulas) {
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 4096, 32, 8);
    const ParamBreakdown p = countParameters(x);
    const std::int64_t d = 4096, H = 8, dqk = 256, dhv = 512, dff = 10944, V = 50304;
    // Tab. param_counts_mlstm, "Total mLSTM layer" and "Total Feedforward".
    EXPECT_EQ(p.seqMixLayer(), d * H * (2 * dqk + dhv + 2) + 2 * d * d + 2 * H + 2 * d);
    EXPECT_EQ(p.ffnLayer(), 3 * d * dff + d);
    EXPECT_EQ(p.total(), 32 * (p.seqMixLayer() + p.ffnLayer()) + 2 * d * V + d);
    EXPECT_EQ(p.total(), 6'865'424'896);  // reference README (c), xLSTM 7B
}

TEST(ParamCount, GroupedQueryAttentionShrinksOnlyKeyValueProjections) {
    ConfigOverrides gqa;
    gqa.nKvHeads = 8;
    const ModelConfig mha = makeStudyConfig(Family::Transformer, 4096, 32, 32);
    const ModelConfig g = makeStudyConfig(Family::Transformer, 4096, 32, 32, gqa);
    const std::int64_t saved = 4096 * (128 + 128) * (32 - 8);  // per layer
    EXPECT_EQ(countParameters(mha).total() - countParameters(g).total(), 32 * saved);
}

// All 39 rows of the authors' FLOP counts (reference/flop_param_reference.csv) under `study`
// (causal "distill_scaling" attention) and `chinchilla` (non-causal) to a relative 1e-9.
TEST(FlopCount, ReproducesAuthorsReferenceCounts) {
    SCALEX_REQUIRE_SHARED();
    const auto t = readSimpleCsv(scalex::test::sharedPath("reference/flop_param_reference.csv"));
    ASSERT_EQ(t.rows.size(), 39);
    auto near = [](double got, double want) { return std::fabs(got - want) <= 1e-9 * std::fabs(want); };
    for (int r = 0; r < t.rows.size(); ++r) {
        SCOPED_TRACE(t.at(r, "config").toStdString() + " ctx " + t.at(r, "context_length").toStdString() + " " +
                     t.at(r, "attention_flop_calc_mode").toStdString());
        const Family family = *parseFamily(t.at(r, "model_type").toStdString());
        ConfigOverrides ov;
        ov.dQk = toInt(t.at(r, "d_qk"));
        ov.dHv = toInt(t.at(r, "d_hv"));
        const ModelConfig c = makeStudyConfig(family, toInt(t.at(r, "d_model")), toInt(t.at(r, "n_layers")),
                                              toInt(t.at(r, "n_heads")), ov);
        EXPECT_EQ(c.dFf, toInt(t.at(r, "d_ff")));
        EXPECT_EQ(countParameters(c).total(), toInt(t.at(r, "num_params")));
        const FlopConvention conv =
            t.at(r, "attention_flop_calc_mode") == "chinchilla" ? chinchillaConvention() : studyConvention();
        const double T = t.number(r, "context_length");
        const FlopSplit fw = forwardFlops(c, T, conv);
        EXPECT_PRED2(near, fw.total(), t.number(r, "fw_flops_per_seq"));
        EXPECT_PRED2(near, fw.linear, t.number(r, "fw_linear_per_seq"));
        EXPECT_PRED2(near, fw.seqMix, t.number(r, "fw_seqmix_per_seq"));
        EXPECT_PRED2(near, fw.other, t.number(r, "fw_other_per_seq"));
        EXPECT_PRED2(near, trainingFlopsPerToken(c, T, conv), t.number(r, "fwbw_flops_per_token"));
        EXPECT_PRED2(near, trainingFlopsPerToken(c, T, conv) / (6.0 * countParameters(c).total()),
                     t.number(r, "fwbw_per_token_over_6N"));
    }
}

TEST(FlopCount, ChunkwiseCellTotalEqualsTheTableRowsSummed) {
    // Tab. flop_counts_mlstm_chunkwise: with every F_OP = 1 the rows add up to the "Simplified" total.
    for (double L : {16.0, 64.0, 128.0})
        for (auto [dqk, dhv] : {std::pair{64.0, 128.0}, {128.0, 256.0}, {256.0, 512.0}}) {
            OpFactors f;
            f.causal = 0.5;
            const auto terms = mlstmChunkTerms(dqk, dhv, L, f);
            const double simplified = L * L * f.causal * (2 * (dqk + dhv) + 8) + L * L + 2 * L * f.causal +
                                      L * (4 * dqk * dhv + 6 * dqk + 2 * dhv + 13) + (2 * dqk * dhv + 2 * dqk + 5);
            EXPECT_DOUBLE_EQ(terms.total(), simplified) << "L " << L << " d_qk " << dqk;
            // The per-sequence cell count is the per-chunk sum times heads and chunks.
            ModelConfig c = makeStudyConfig(Family::Xlstm, 1024, 1, 4);
            c.dQk = static_cast<std::int64_t>(dqk);
            c.dHv = static_cast<std::int64_t>(dhv);
            c.chunk = static_cast<std::int64_t>(L);
            FlopConvention conv = appendixConvention();
            conv.ops = f;
            EXPECT_DOUBLE_EQ(mlstmCellChunkwiseFlops(c, 8192, conv), 4 * (8192 / L) * terms.total());
        }
}

TEST(FlopCount, RecurrentStepMatchesClosedFormAndIgnoresContext) {
    const auto step = mlstmStepTerms(256, 512, OpFactors{});
    EXPECT_DOUBLE_EQ(step.total(), 6.0 * 256 * 512 + 7 * 256 + 512 + 12);  // Eq. flop_counts_mlstm_recurrent
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 4096, 32, 8);
    for (auto conv : {studyConvention(), appendixConvention()}) {
        const double at1k = decodeStepFlops(x, 1, 1024, 1, conv).total();
        EXPECT_DOUBLE_EQ(at1k, decodeStepFlops(x, 1, 65536, 1, conv).total());
        EXPECT_DOUBLE_EQ(at1k, decodeStepFlops(x, 1, 0, 500, conv).total());
    }
}

TEST(FlopCount, GenerationSequenceEqualsSumOfSteps) {
    // Eq. flop_counts_attention_gen_seq = sum over t_g of Eq. flop_counts_attention_gen_step.
    ConfigOverrides gqa;
    gqa.nKvHeads = 8;
    const ModelConfig t = makeStudyConfig(Family::Transformer, 4096, 32, 32, gqa);
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 2048, 24, 4);
    for (const ModelConfig& c : {t, x})
        for (auto conv : {studyConvention(), appendixConvention(), chinchillaConvention()}) {
            const double Tp = 2048, Tg = 257, batch = 3;
            FlopSplit sum;
            for (int step = 1; step <= Tg; ++step) sum += decodeStepFlops(c, batch, Tp, step, conv);
            const FlopSplit closed = generationFlops(c, batch, Tp, Tg, conv);
            EXPECT_NEAR(closed.total(), sum.total(), 1e-12 * sum.total());
            EXPECT_NEAR(closed.seqMix, sum.seqMix, 1e-12 * sum.total());
        }
}

TEST(FlopCount, AttentionPrefillIsQuadraticMlstmIsLinear) {
    const ModelConfig t = makeStudyConfig(Family::Transformer, 2048, 24, 16);
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 2048, 24, 8);
    const auto conv = studyConvention();
    const double t1 = forwardFlops(t, 4096, conv).seqMix, t2 = forwardFlops(t, 8192, conv).seqMix;
    const double x1 = forwardFlops(x, 4096, conv).seqMix, x2 = forwardFlops(x, 8192, conv).seqMix;
    EXPECT_NEAR(t2 / t1, 4.0, 1e-12);
    EXPECT_NEAR(x2 / x1, 2.0, 1e-12);
    // Eq. flop_counts_attention_train-pref.
    EXPECT_DOUBLE_EQ(attentionCoreFlops(t, 8192, 8192, conv.ops), 2 * 0.5 * 8192.0 * 8192 * 16 * (128 + 128 + 2.5));
}

TEST(FlopCount, ConventionsDifferAsDocumented) {
    const ModelConfig t = makeStudyConfig(Family::Transformer, 1024, 24, 16);
    const double n = static_cast<double>(countParameters(t).total());
    EXPECT_DOUBLE_EQ(trainingFlopsPerToken(t, 8192, sixNdConvention()), 6 * n);
    EXPECT_GT(trainingFlopsPerToken(t, 8192, chinchillaConvention()), trainingFlopsPerToken(t, 8192, studyConvention()));
    // appendix adds norms and skips on top of the study's count.
    const FlopSplit study = forwardFlops(t, 8192, studyConvention());
    const FlopSplit app = forwardFlops(t, 8192, appendixConvention());
    EXPECT_DOUBLE_EQ(app.linear, study.linear);
    EXPECT_DOUBLE_EQ(app.seqMix, study.seqMix);
    EXPECT_DOUBLE_EQ(app.other - study.other, 8192.0 * (24 * 2 * 1024 * (1 + 3) + 1024 * 3));
    for (const auto& name : conventionNames()) EXPECT_TRUE(conventionByName(name)) << name;
    EXPECT_FALSE(conventionByName("kaplan"));
}

TEST(MemoryOps, ChunkwiseAndRecurrentRowsSumToTableTotals) {
    ByteWidths b;
    const double dqk = 128, dhv = 256, L = 64;
    const auto chunk = mlstmChunkBytes(dqk, dhv, L, b);
    EXPECT_DOUBLE_EQ(chunk.total(), 4 * L * b.gates + 3 * L * (dhv + dqk) * b.qkv + 2 * (L + dhv * dqk + dqk + 1) * b.state);
    const auto step = mlstmStepBytes(dqk, dhv, b);
    EXPECT_DOUBLE_EQ(step.total(), 2 * b.gates + 2 * (dhv + dqk) * b.qkv + 2 * (dhv * dqk + dqk + 1) * b.state);
}

TEST(MemoryOps, AttentionTrafficMatchesEquations) {
    ByteWidths b;
    ConfigOverrides gqa;
    gqa.nKvHeads = 8;
    const ModelConfig t = makeStudyConfig(Family::Transformer, 4096, 32, 32, gqa);
    // Eq. memop_counts_attention_train-pref with S = T.
    EXPECT_DOUBLE_EQ(attentionBytes(t, 4096, 4096, b), 4096.0 * 256 * (32 + 8) * b.qkv);
    // Eq. memop_counts_attention_gen_seq = sum of gen-step.
    double sum = 0;
    for (int s = 1; s <= 100; ++s) sum += attentionBytes(t, 1, 1000 + s, b);
    EXPECT_NEAR(attentionGenerationBytes(t, 1000, 100, b), sum, 1e-9 * sum);
}

TEST(MemoryOps, DecodeStepIsDominatedByWeightsAndGrowsWithKvCacheOnlyForAttention) {
    ByteWidths b;
    const ModelConfig t = makeStudyConfig(Family::Transformer, 4096, 32, 32);
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 4096, 32, 8);
    const auto tShort = decodeStepBytes(t, 1, 128, 1, b), tLong = decodeStepBytes(t, 1, 32768, 1, b);
    const auto xShort = decodeStepBytes(x, 1, 128, 1, b), xLong = decodeStepBytes(x, 1, 32768, 1, b);
    // Every weight but the embedding table (one row per token is gathered) streams once per step.
    EXPECT_DOUBLE_EQ(tShort.weights, 2.0 * (countParameters(t).total() - countParameters(t).embedding));
    EXPECT_GT(tLong.total(), 2 * tShort.total());
    EXPECT_DOUBLE_EQ(xShort.total(), xLong.total());
}

TEST(CacheSize, KvCacheGrowsLinearlyMlstmStateIsConstant) {
    ByteWidths b;
    ConfigOverrides gqa;
    gqa.nKvHeads = 8;
    const ModelConfig t = makeStudyConfig(Family::Transformer, 4096, 32, 32, gqa);
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 4096, 32, 8);
    const double k1 = cacheBytes(t, SequenceMix::GroupedQuery, 1, 1000, b);
    EXPECT_DOUBLE_EQ(cacheBytes(t, SequenceMix::GroupedQuery, 1, 3000, b), 3 * k1);
    EXPECT_DOUBLE_EQ(cacheBytes(t, SequenceMix::GroupedQuery, 4, 1000, b), 4 * k1);
    // Tab. memory_state_kv_cache_sizes: GQA 2 n_kv d_hv T, MHA 2 n_q d_hv T, MLA 9/2 d_hv T.
    EXPECT_DOUBLE_EQ(cacheElementsPerLayer(t, SequenceMix::GroupedQuery, 1000), 2.0 * 8 * 128 * 1000);
    EXPECT_DOUBLE_EQ(cacheElementsPerLayer(t, SequenceMix::MultiHead, 1000), 2.0 * 32 * 128 * 1000);
    EXPECT_DOUBLE_EQ(cacheElementsPerLayer(t, SequenceMix::MultiHeadLatent, 1000), 4.5 * 128 * 1000);
    const double s1 = cacheBytes(x, SequenceMix::Mlstm, 1, 1000, b);
    EXPECT_DOUBLE_EQ(cacheBytes(x, SequenceMix::Mlstm, 1, 1'000'000, b), s1);
    EXPECT_DOUBLE_EQ(cacheElementsPerLayer(x, SequenceMix::Mlstm, 1), 8.0 * (512 * 256 + 256 + 1));
}

TEST(ModelConfig, ValidationNamesTheField) {
    ModelConfig c = makeStudyConfig(Family::Transformer, 1024, 0, 16);
    ASSERT_TRUE(validate(c));
    EXPECT_NE(validate(c)->find("n_layers"), std::string::npos);
    c = makeStudyConfig(Family::Transformer, 1024, 24, 16);
    c.nKvHeads = 5;
    ASSERT_TRUE(validate(c));
    EXPECT_NE(validate(c)->find("n_kv_heads"), std::string::npos);
    EXPECT_FALSE(validate(makeStudyConfig(Family::Xlstm, 1024, 24, 4)));
    // Sizes whose parameter count would overflow 64 bits are refused, not computed.
    c = makeStudyConfig(Family::Transformer, 1'000'000, 8'000'000'000, 16);
    ASSERT_TRUE(validate(c));
    EXPECT_NE(validate(c)->find("beyond any model"), std::string::npos);
}
