// The config corpus (tests/data/configs, provenance in its SOURCES.md): config.json files of public
// models copied byte for byte, each read from its file by the reader a user runs
// (`scalex account --config`) and counted to the parameter against a count its publisher states
// exactly: a model.safetensors.index.json (total_parameters, or total_size over the bytes of its
// one dtype) or KerasHub's preset metadata. Where the published figure holds more than the
// parameters (KerasHub's SmolLM3 counts its rotary frequencies), the difference is named and
// asserted here, not folded into the count.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <iterator>
#include <set>

#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "tests/support/TestData.h"
#include "tests/unit/hf_corpus_restricted.h"

using namespace scalex::accounting;
using namespace scalex::data;

namespace {

QString corpusPath(const QString& file) { return scalex::test::sourcePath("tests/data/configs/" + file); }

HfModel readCorpus(const char* file, const char* inlineJson = nullptr) {
    auto r = inlineJson ? parseHfConfig(QByteArray(inlineJson), file) : readHfConfig(corpusPath(file).toStdString());
    EXPECT_TRUE(r.ok()) << file << ": " << (r.ok() ? "" : r.error().toString());
    return r.ok() ? *r : HfModel{};
}

// MedGemma 27B's SigLIP vision tower and projector (HF modeling_siglip, modeling_gemma3) by hand from
// its vision_config (1152 wide, 27 layers, MLP 4304, 14-pixel patches of 896-pixel images, no pooling
// head): patch embedding 3*14*14*1152 + 1152, positions 64^2 * 1152, per layer 4 (1152^2 + 1152) +
// (1152*4304 + 4304) + (4304*1152 + 1152) + 2 * 2 * 1152, post-LayerNorm 2 * 1152; projector
// 1152 * 5376 and its RMSNorm 1152.
constexpr std::int64_t kMedgemmaVision =
    (3LL * 14 * 14 * 1152 + 1152) + 64LL * 64 * 1152 +
    27 * (4 * (1152LL * 1152 + 1152) + (1152LL * 4304 + 4304) + (4304LL * 1152 + 1152) + 4 * 1152) + 2 * 1152 + 1152LL * 5376 + 1152;

// MiMo-7B's multi-token-prediction layer, the shapes of the model.mtp_layers.0 tensors of its index
// (modeling_mimo.py: MiMoMTPLayers): input_proj 2d -> d without bias, five RMSNorms of d, a
// Qwen2Attention (q, k, v with bias, o without; 32 heads, 8 key-value heads of 128) and a Qwen2MLP.
constexpr std::int64_t kMimoMtpLayer = 2LL * 4096 * 4096 + 5 * 4096 + (4096LL * 4096 + 4096) + 2 * (1024LL * 4096 + 1024) +
                                       4096LL * 4096 + 3LL * 4096 * 11008;

struct Published {
    const char* file;             // in tests/data/configs, or the name of an inline config
    const char* inlineJson;       // the config held in hf_corpus_restricted.h; nullptr for a file
    const char* modelType;        // the config's model_type (the language model's, for text_config)
    std::int64_t total;           // the published count
    std::int64_t notCounted;      // what the published count holds beyond Scalex's count, named where it is set
};

// The published counts, each as SOURCES.md says where it comes from.
constexpr Published kCorpus[] = {
    // KerasHub gpt_oss_20b_en "params" (also the MXFP4 index total: GptOssStoresItsExpertsInMxfp4).
    {"gpt-oss-20b.json", nullptr, "gpt_oss", 20'914'757'184, 0},
    // KerasHub smollm3_3b_en "params", which counts SmolLM3RotaryEmbedding.inv_freq (head_dim / 2 = 64)
    // in each of the 36 layers as a (non-trainable) weight.
    {"SmolLM3-3B.json", nullptr, "smollm3", 3'075'100'928, 36 * 64},
    // KerasHub gpt2_base_en "params" (a config saved from openai-community/gpt2).
    {"gpt2.json", nullptr, "gpt2", 124'439'808, 0},
    // model.safetensors.index.json total_size 5,338,513,408 B / 4 (float32).
    {"granite-3.1-1b-a400m-instruct.json", nullptr, "granitemoe", 1'334'628'352, 0},
    // model.safetensors.index.json total_parameters.
    {"Qwen3.5-25B-REAP-A3B-Coding.json", nullptr, "qwen3_5_moe_text", 25'091'371'648, 0},
    // model.safetensors.index.json total_size / 2 (float16).
    {"Qwen3.5-18B-REAP-A3B-Coding.json", nullptr, "qwen3_5_moe_text", 18'543'997'568, 0},
    {"Devstral-Small-2507.json", nullptr, "mistral", 23'572'403'200, 0},
    // model.safetensors.index.json total_size / 2 (bfloat16 or float16, tied heads stored once).
    {"Llama-3.2-3B", kLlama32_3b, "llama", 3'212'749'824, 0},
    {"WizardLM-2-8x22B.json", nullptr, "mixtral", 140'620'634'112, 0},
    {"gemma-2b", kGemma2b, "gemma", 2'506'172'416, 0},
    {"PRYMMAL-PHI3-3B-SLERP.json", nullptr, "phi3", 3'821'079'552, 0},
    {"cogito-v1-preview-qwen-14B.json", nullptr, "qwen2", 14'765'947'904, 0},
    {"Qwen3-1.7B.json", nullptr, "qwen3", 1'720'574'976, 0},
    {"granite-7b-llama.json", nullptr, "llama", 6'738'481'152, 0},
    {"PRYMMAL-Yi1.5-6B-SLERP.json", nullptr, "llama", 6'061'035'520, 0},
    {"granite-3b-code-instruct-128k.json", nullptr, "llama", 3'482'503'680, 0},
    // The whole multimodal model, total_size 54,864,813,280 / 2: Scalex's params are the language
    // model in text_config, the rest the vision tower it reports apart (GemmaVisionIsCountedApart).
    {"medgemma-27b-it", kMedgemma27bIt, "gemma3", 27'432'406'640, kMedgemmaVision},
    // The sum of the 148 tensor shapes of model.safetensors' header (fetchwiki's model_files.json).
    {"LFM2-1.2B", kLfm2_1_2b, "lfm2", 1'170'340'608, 0},
    // KerasHub gemma3_instruct_1b "params".
    {"gemma-3-1b-it", kGemma3_1bIt, "gemma3_text", 999'885'952, 0},
    // KerasHub qwen3_14b_en "params" (also the MLX index: Qwen3MlxIndexIsTheCountPackedInFourBits).
    {"Qwen3-14B-MLX-4bit.json", nullptr, "qwen3", 14'768'307'200, 0},
    // KerasHub qwen2.5_instruct_32b_en "params": Qwen2.5-32B-Instruct, whose fine-tune QwQ-32B is, in the
    // same shapes (its config differs only in sliding_window and max_window_layers, unused with
    // use_sliding_window false).
    {"QwQ-32B.json", nullptr, "qwen2", 32'763'876'352, 0},
    // model.safetensors.index.json total_size / 2 (bfloat16).
    {"Llama-3.1-8B-merge", kParammyl8b, "llama", 8'030'261'248, 0},
    {"Dolphin3.0-R1-Mistral-24B", kDolphin3R1Mistral24b, "mistral", 23'572'423'680, 0},
    // total_size / 2 holds MiMo's multi-token-prediction layer (model.mtp_layers.0), which Scalex does
    // not count (num_nextn_predict_layers is reported ignored).
    {"MiMo-7B.json", nullptr, "mimo", 7'833'409'536, kMimoMtpLayer},
    // total_size / 2 holds the 34 rotary inv_freq buffers the index lists (64 float32 each: 8,704 B).
    {"openPangu-Embedded-7B", kOpenPanguEmbedded7b, "PanguEmbedded", 8'030'892'288, 34 * 64 * 4 / 2},
};

}  // namespace

TEST(HfCorpus, EveryConfigCountsItsPublishedParametersExactly) {
    for (const Published& p : kCorpus) {
        SCOPED_TRACE(p.file);
        const HfModel m = readCorpus(p.file, p.inlineJson);
        EXPECT_EQ(paramCounts(m.spec).total() + p.notCounted, p.total);
        EXPECT_EQ(m.report.modelType, p.modelType);
    }
}

// Every file of the corpus is counted above and has its provenance in SOURCES.md.
TEST(HfCorpus, EveryFileHasItsSourceAndItsPublishedCount) {
    QFile sources(corpusPath("SOURCES.md"));
    ASSERT_TRUE(sources.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(sources.readAll());
    std::set<QString> counted;
    for (const Published& p : kCorpus) {
        counted.insert(QString::fromLatin1(p.file));
        if (p.inlineJson) EXPECT_TRUE(text.contains("`" + QString::fromLatin1(p.file) + "`")) << p.file << " is not in SOURCES.md";
    }
    const QStringList files = QDir(corpusPath("")).entryList({"*.json"}, QDir::Files);
    const auto inlined = std::count_if(std::begin(kCorpus), std::end(kCorpus), [](const Published& p) { return p.inlineJson; });
    EXPECT_EQ(static_cast<std::size_t>(files.size() + inlined), std::size(kCorpus));  // no file left uncounted
    for (const QString& f : files) {
        EXPECT_TRUE(counted.count(f)) << f.toStdString() << " has no published count in the test";
        EXPECT_TRUE(text.contains("`" + f + "`")) << f.toStdString() << " is not in SOURCES.md";
    }
}

// gpt-oss stores its expert matrices in MXFP4 (HF integrations/mxfp4: 16 bytes of 32 four-bit
// values and one byte of scale per 32, 17/32 bytes a parameter) and everything else in bfloat16;
// the index's total_size of 13,761,264,768 bytes is that, to the byte, for Scalex's counts.
TEST(HfCorpus, GptOssStoresItsExpertsInMxfp4) {
    const ModelSpec s = readCorpus("gpt-oss-20b.json").spec;
    const std::int64_t expertMatrices = s.layerCount(FeedForwardKind::Moe) * s.moe.nRouted * 3 * s.dModel * s.moe.expertWidth;
    const std::int64_t total = paramCounts(s).total();
    EXPECT_EQ(2 * (total - expertMatrices) + expertMatrices * 17 / 32, 13'761'264'768);
    // Active per token: 4 of 32 experts. The gpt-oss model card's 3.61B active leaves out the
    // embedding table (the unembedding is counted).
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.activeTotal(), total - 24 * (32 - 4) * (3 * 2880LL * 2880 + 2 * 2880 + 2880));  // 28 experts idle, biases too
    EXPECT_NEAR(static_cast<double>(p.activeTotal() - p.active.embedding), 3.61e9, 0.005e9);
    // GptOssAttention.sinks: one per head and layer; biases on q, k, v, o, the router and each expert.
    EXPECT_TRUE(s.attention.sinks && s.attention.qkvBias && s.attention.outputBias && s.moe.routerBias && s.moe.expertBias);
}

// The fuzz corpus's mutated configs (tests/fuzz/make_hf_config_corpus.py: a config of the corpus with
// one key removed, made a string or made negative, named <config>~<key>~<how>.json): each is read
// (a key the accounting ignores) or refused with one error that names a key; a key given the wrong
// value is refused naming that key, and a config without its width, layers or vocabulary is refused
// naming the key that is missing.
// A config with `key` mutated (`how`: removed, string or negative) is read (a key the accounting
// ignores) or refused with one error that names a key: the mutated key unless it was removed, and the
// missing key where the width, layers or vocabulary went. True when refused.
bool readOrRefusedNaming(const Expected<HfModel>& r, const std::string& key, const std::string& how) {
    if (r.ok()) {
        EXPECT_NE(key.substr(key.rfind('.') + 1), "hidden_size");
        EXPECT_NE(key.substr(key.rfind('.') + 1), "vocab_size");
        return false;
    }
    const LoadError& e = r.error();
    EXPECT_FALSE(e.column.empty()) << e.toString();
    EXPECT_TRUE(e.key) << e.toString();
    if (how != "removed") EXPECT_EQ(e.column, key) << e.toString();
    if (how == "removed" && (key.ends_with("hidden_size") || key.ends_with("vocab_size") || key.ends_with("num_hidden_layers")))
        EXPECT_EQ(e.column, key) << e.toString();
    return true;
}

TEST(HfCorpus, EveryMutatedConfigIsReadOrRefusedNamingTheKey) {
    const QString dir = scalex::test::sourcePath("tests/data/fuzz/hf_config/mutated");
    const QStringList files = QDir(dir).entryList({"*.json"}, QDir::Files);
    ASSERT_GE(files.size(), 100);
    int refused = 0;
    for (const QString& name : files) {
        SCOPED_TRACE(name.toStdString());
        const QStringList parts = name.chopped(5).split('~');
        ASSERT_EQ(parts.size(), 3);
        refused += readOrRefusedNaming(readHfConfig((dir + "/" + name).toStdString()), parts[1].toStdString(), parts[2].toStdString());
    }
    EXPECT_GE(refused, files.size() / 2);
}

// The configs held in hf_corpus_restricted.h are cut and mutated here, as make_hf_config_corpus.py
// cuts and mutates the files (the same keys, each removed, made a string or made negative in turn):
// a cut config is refused, a mutated one read or refused naming the key.
TEST(HfCorpus, EveryHeldConfigCutOrMutatedIsReadOrRefusedNamingTheKey) {
    const char* keys[] = {"hidden_size", "num_hidden_layers", "vocab_size", "num_attention_heads", "num_key_value_heads",
                          "head_dim", "intermediate_size", "layer_types", "sliding_window", "num_experts_per_tok",
                          "full_attn_idxs", "conv_L_cache", "text_config"};
    const std::pair<const char*, QJsonValue> hows[] = {{"removed", QJsonValue()}, {"string", QJsonValue("x")}, {"negative", QJsonValue(-3)}};
    int mutated = 0, refused = 0;
    for (const Published& p : kCorpus) {
        if (!p.inlineJson) continue;
        SCOPED_TRACE(p.file);
        const QByteArray bytes(p.inlineJson);
        for (int quarter = 1; quarter <= 3; ++quarter) EXPECT_FALSE(parseHfConfig(bytes.left(bytes.size() * quarter / 4), p.file).ok());
        const QJsonObject root = QJsonDocument::fromJson(bytes).object();
        for (std::size_t i = 0; i < std::size(keys); ++i) {
            const QString key = QString::fromLatin1(keys[i]);
            const bool inText = !root.contains(key) && root.value("text_config").toObject().contains(key);
            if (!root.contains(key) && !inText) continue;
            const auto& [how, value] = hows[i % std::size(hows)];
            QJsonObject changed = root, text = root.value("text_config").toObject();
            QJsonObject& owner = inText ? text : changed;
            if (value.isUndefined() || value.isNull()) owner.remove(key);
            else owner.insert(key, value);
            if (inText) changed.insert("text_config", text);
            const std::string named = (inText ? "text_config." : "") + key.toStdString();
            SCOPED_TRACE(named + " " + how);
            ++mutated;
            refused += readOrRefusedNaming(parseHfConfig(QJsonDocument(changed).toJson(), p.file), named, how);
        }
    }
    EXPECT_GE(mutated, 40);
    EXPECT_GE(refused, mutated / 3);
}

// A multimodal config: the language model is the spec (its params), the vision tower and projector
// are reported apart and said which, and together they are the published whole.
TEST(HfCorpus, GemmaVisionIsCountedApart) {
    const HfModel m = readCorpus("medgemma-27b-it", kMedgemma27bIt);
    EXPECT_EQ(m.report.visionParameters, kMedgemmaVision);
    EXPECT_NE(m.report.vision.find("SigLIP"), std::string::npos);
    EXPECT_EQ(paramCounts(m.spec).total() + m.report.visionParameters, 27'432'406'640);
    // A config without a tower Scalex knows reports none.
    EXPECT_EQ(readCorpus("gpt-oss-20b.json").report.visionParameters, 0);
}

// MLX stores Qwen3-14B-MLX-4bit's every matrix (the embedding and the head too) in 4 bits with a
// bfloat16 scale and bias per group of 64 (config "quantization": 0.5 + 4 / 64 bytes a parameter) and
// its RMSNorms in bfloat16; the index's total_size of 8,307,783,680 bytes is that, to the byte, for
// Scalex's counts.
TEST(HfCorpus, Qwen3MlxIndexIsTheCountPackedInFourBits) {
    const ModelSpec s = readCorpus("Qwen3-14B-MLX-4bit.json").spec;
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.all.norms, 40 * 2 * 5120 + 5120);  // two per layer and the final one
    const std::int64_t norms = p.all.norms + 40 * 2 * s.attention.dQk;  // and q_norm, k_norm (counted as attention)
    const std::int64_t matrices = p.total() - norms;
    EXPECT_EQ(matrices / 16 * 9 + 2 * norms, 8'307'783'680);  // 9/16 B each: 0.5 + 4/64
    EXPECT_EQ(matrices % 16, 0);
}

// MiMo's attention is Qwen2's: q, k and v carry biases and o none, though its config says
// attention_bias true (modeling_mimo.py; the index holds no o_proj.bias).
TEST(HfCorpus, MimoBiasesFollowQwen2Attention) {
    const ModelSpec s = readCorpus("MiMo-7B.json").spec;
    EXPECT_TRUE(s.attention.qkvBias);
    EXPECT_FALSE(s.attention.outputBias);
    // openPangu's "bias" puts biases on all four (modeling_openpangu_dense: PanguEmbeddedAttention).
    const ModelSpec pangu = readCorpus("openPangu-Embedded-7B", kOpenPanguEmbedded7b).spec;
    EXPECT_TRUE(pangu.attention.qkvBias && pangu.attention.outputBias);
}

// Active parameters of the corpus's MoE configs against the figures their publishers state, all of
// them rounded (none is published to the parameter); each is also the total less the idle experts,
// by hand from the config. A figure published to a few digits is met within one unit of its last
// digit. gpt-oss-20b's "3.61B active" (OpenAI's gpt-oss model card, Table 1) is asserted in
// GptOssStoresItsExpertsInMxfp4; the seeds of hf_mixers_test assert Qwen3-Next's "A3B", Llama 4
// Scout's "17B active" and Kimi K2.5's "32B activated".
TEST(HfCorpus, MoeActiveParametersRoundToThePublishedFigures) {
    // granite-3.1-1b-a400m: 24 layers of 32 experts (3 matrices 1024 x 512, no bias), 8 a token. IBM's
    // model card: 1.3B parameters, 400M active, the embedding (tied) counted.
    const ParamCounts granite = paramCounts(readCorpus("granite-3.1-1b-a400m-instruct.json").spec);
    EXPECT_EQ(granite.activeTotal(), granite.total() - 24 * (32 - 8) * 3 * 1024LL * 512);
    EXPECT_NEAR(static_cast<double>(granite.activeTotal()), 400e6, 100e6);  // "a400m"
    EXPECT_NEAR(static_cast<double>(granite.total()), 1.3e9, 0.1e9);        // "1.3B"

    // WizardLM-2-8x22B is Mixtral 8x22B in shape: 56 layers of 8 experts (3 matrices 6144 x 16384), 2 a
    // token. Mistral AI's release note: "only 39B active parameters out of 141B".
    const ParamCounts mixtral = paramCounts(readCorpus("WizardLM-2-8x22B.json").spec);
    EXPECT_EQ(mixtral.activeTotal(), mixtral.total() - 56 * (8 - 2) * 3 * 6144LL * 16384);
    EXPECT_NEAR(static_cast<double>(mixtral.activeTotal()), 39e9, 1e9);  // "39B active"
    EXPECT_NEAR(static_cast<double>(mixtral.total()), 141e9, 1e9);       // "out of 141B"

    // The REAP prunes of Qwen3.5-35B-A3B keep 8 routed experts and the shared one a token, so both are
    // still "A3B" (counted here with the embeddings); they differ in their active count only by the
    // router rows of the experts pruned, 52 of 2048 in each of 40 layers.
    const ParamCounts reap25 = paramCounts(readCorpus("Qwen3.5-25B-REAP-A3B-Coding.json").spec);
    const ParamCounts reap18 = paramCounts(readCorpus("Qwen3.5-18B-REAP-A3B-Coding.json").spec);
    for (const auto& [p, experts] : {std::pair{reap25, 180LL}, std::pair{reap18, 128LL}}) {
        EXPECT_EQ(p.activeTotal(), p.total() - 40 * (experts - 8) * 3 * 2048LL * 512);
        EXPECT_NEAR(static_cast<double>(p.activeTotal()), 3e9, 1e9);  // "A3B"
    }
    EXPECT_EQ(reap25.activeTotal() - reap18.activeTotal(), 40 * (180 - 128) * 2048LL);
}
