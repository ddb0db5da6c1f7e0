#include "core/data/HfConfig.h"

#include "core/data/JsonObject.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace scalex::data {

using accounting::FeedForwardKind;
using accounting::LayerSpec;
using accounting::MixerKind;
using accounting::ModelSpec;
using accounting::NormKind;
using accounting::QkNorm;

namespace {

struct ConfigFailure {
    LoadError error;
};

constexpr double kMaxWholeNumber = 9007199254740992.0;  // 2^53: beyond it a JSON number is no exact count
constexpr std::int64_t kMaxLayers = 100000;              // far beyond any model; keeps the layer list bounded

std::string jsonText(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null: return "null";
        case QJsonValue::Bool: return v.toBool() ? "true" : "false";
        case QJsonValue::Double: {
            const double x = v.toDouble();
            if (std::floor(x) == x && std::fabs(x) < kMaxWholeNumber) return std::to_string(static_cast<long long>(x));
            return QString::number(x, 'g', QLocale::FloatingPointShortest).toStdString();
        }
        case QJsonValue::String: return "\"" + v.toString().toStdString() + "\"";
        case QJsonValue::Array: return QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact).toStdString();
        case QJsonValue::Object: return QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact).toStdString();
        case QJsonValue::Undefined: break;
    }
    return "";
}

// Why fields that often appear are left out of the accounting.
std::string ignoredNote(const std::string& key) {
    static const std::map<std::string, std::string> notes = {
        {"max_position_embeddings", "positions are rotary or absent: no parameters"},
        {"rope_theta", "positions change no count"},
        {"rope_scaling", "positions change no count"},
        {"hidden_act", "the activation's cost is F_swish in every convention"},
        {"torch_dtype", "bytes per element are --bytes-qkv and --bytes-state"},
        {"dtype", "bytes per element are --bytes-qkv and --bytes-state"},
        {"quantization_config", "parameters are counted, not how they are stored"},
        {"num_nextn_predict_layers",
         "the multi-token-prediction module is not counted: DeepSeek-V3's 671B are the main model without it"},
        {"vision_config", "the vision tower is not counted: the language model in text_config is"},
        {"mtp_num_hidden_layers", "the multi-token-prediction module is not counted: the main model is"},
        {"audio_config", "the audio tower is not counted: the language model in text_config is"},
        {"no_rope_layers", "NoPE layers (no rotary positions) change no count"},
        {"no_rope_layer_interval", "NoPE layers (no rotary positions) change no count"},
    };
    const auto it = notes.find(key);
    return it == notes.end() ? std::string() : it->second;
}

// One JSON object of the config (the top level, or a nested one such as ssm_cfg): typed reads
// that record what was used and assumed, and errors naming the field.
class Fields {
public:
    Fields(QJsonObject object, std::string file, ConfigReport& report, std::string prefix = {})
        : o_(std::move(object)), file_(std::move(file)), report_(report), prefix_(std::move(prefix)) {}

    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw ConfigFailure{LoadError{file_, 0, prefix_ + key, message, true}};
    }

    bool has(const char* key) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        return !v.isUndefined() && !v.isNull();
    }
    bool present(const char* key) const { return o_.contains(QLatin1String(key)); }

    QJsonValue value(const char* key) const { return o_.value(QLatin1String(key)); }
    // A key read by hand (a list checked where it is used): reported as used.
    void markUsed(const char* key) { used(key, 0); }
    // What the model type says beyond the keys (TypeHint), reported as assumed.
    void assume(const std::string& key, const std::string& text, const std::string& note) {
        report_.assumed.push_back({prefix_ + key, text, note});
    }

    std::int64_t integer(const char* key, std::int64_t min = 1) {
        if (!has(key))
            fail(key, "missing; " + (report_.modelType.empty() ? std::string("a decoder's config") : "a " + report_.modelType + " config") +
                          " needs it");
        return used(key, wholeNumber(key, min));
    }
    std::int64_t integerOr(const char* key, std::int64_t fallback, const std::string& note, std::int64_t min = 1) {
        if (!has(key)) return assumed(key, fallback, std::to_string(fallback), note);
        return used(key, wholeNumber(key, min));
    }
    // An integer where null means "none" (sliding_window, q_lora_rank): empty when absent or null.
    std::optional<std::int64_t> nullableInteger(const char* key, std::int64_t min = 1) {
        if (!present(key)) return std::nullopt;
        if (!has(key)) {
            used(key, 0);
            return std::nullopt;
        }
        return used(key, wholeNumber(key, min));
    }
    double number(const char* key, double fallback, const std::string& note) {
        if (!has(key)) return assumed(key, fallback, jsonText(QJsonValue(fallback)), note);
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isDouble() || !(v.toDouble() > 0) || !(v.toDouble() < kMaxWholeNumber))
            fail(key, "expected a positive number, got " + jsonText(v));
        return used(key, v.toDouble());
    }
    bool boolean(const char* key, bool fallback, const std::string& note) {
        if (!has(key)) return assumed(key, fallback, fallback ? "true" : "false", note);
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isBool()) fail(key, "expected true or false, got " + jsonText(v));
        return used(key, v.toBool());
    }
    std::string text(const char* key, const std::string& fallback, const std::string& note) {
        if (!has(key)) return assumed(key, fallback, "\"" + fallback + "\"", note);
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isString()) fail(key, "expected a string, got " + jsonText(v));
        return used(key, v.toString().toStdString());
    }
    // A number or the string "auto" (time_step_rank, mamba_dt_rank); "auto" gives autoValue.
    std::int64_t integerOrAuto(const char* key, std::int64_t autoValue, const std::string& autoNote) {
        if (!has(key)) return assumed(key, autoValue, std::to_string(autoValue), "\"auto\": " + autoNote);
        const QJsonValue v = o_.value(QLatin1String(key));
        if (v.isString() && v.toString() == QLatin1String("auto")) {
            used(key, 0);
            report_.assumed.push_back({prefix_ + key, std::to_string(autoValue), "\"auto\": " + autoNote});
            return autoValue;
        }
        return used(key, wholeNumber(key, 1));
    }
    // An array of whole numbers in [0, limit) (mlp_only_layers, attn_layer_idx); empty when absent.
    std::set<std::int64_t> indices(const char* key, std::int64_t limit) {
        std::set<std::int64_t> out;
        if (!has(key)) return out;
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isArray()) fail(key, "expected a list of layer indices, got " + jsonText(v));
        for (const QJsonValue& e : v.toArray()) {
            const double x = e.toDouble(-1);
            if (!e.isDouble() || std::floor(x) != x || x < 0 || x >= static_cast<double>(limit))
                fail(key, "expected layer indices from 0 to " + std::to_string(limit - 1) + ", got " + jsonText(e));
            out.insert(static_cast<std::int64_t>(x));
        }
        used(key, 0);
        return out;
    }
    // An array of strings (layer_types), empty when absent.
    std::optional<QJsonArray> strings(const char* key) {
        if (!has(key)) return std::nullopt;
        const QJsonValue v = o_.value(QLatin1String(key));
        if (!v.isArray()) fail(key, "expected a list of layer types, got " + jsonText(v));
        used(key, 0);
        return v.toArray();
    }
    // A nested object (ssm_cfg, attn_cfg); an empty one when absent.
    Fields object(const char* key) {
        QJsonObject nested;
        if (has(key)) {
            const QJsonValue v = o_.value(QLatin1String(key));
            if (!v.isObject()) fail(key, "expected a JSON object, got " + jsonText(v));
            nested = v.toObject();
            seen_.insert(key);
        }
        return Fields(nested, file_, report_, prefix_ + key + ".");
    }
    // A field the accounting does not need although the type defines it: ignored, with a note.
    void ignore(const char* key, const std::string& note) {
        if (!present(key)) return;
        seen_.insert(key);
        report_.ignored.push_back({prefix_ + key, jsonText(o_.value(QLatin1String(key))), note});
    }
    // Two spellings of one number (GPT-2's n_embd and hidden_size): either, and equal when both.
    std::int64_t integerOfEither(const char* key, const char* other) {
        if (has(key) && has(other)) {
            const std::int64_t a = integer(key), b = integer(other);
            if (a != b) fail(other, std::to_string(b) + " contradicts " + key + " = " + std::to_string(a));
            return a;
        }
        return has(other) ? integer(other) : integer(key);
    }
    // Every key not read is reported as ignored.
    void finish() {
        for (auto it = o_.begin(); it != o_.end(); ++it) {
            const std::string key = it.key().toStdString();
            if (seen_.count(key)) continue;
            report_.ignored.push_back({prefix_ + key, jsonText(it.value()), ignoredNote(key)});
        }
    }

private:
    std::int64_t wholeNumber(const char* key, std::int64_t min) const {
        const QJsonValue v = o_.value(QLatin1String(key));
        const double x = v.toDouble(-1);
        if (!v.isDouble() || std::floor(x) != x || std::fabs(x) >= kMaxWholeNumber)
            fail(key, "expected a whole number, got " + jsonText(v));
        if (x < static_cast<double>(min)) fail(key, "must be at least " + std::to_string(min) + ", got " + jsonText(v));
        return static_cast<std::int64_t>(x);
    }
    template <class T>
    T used(const char* key, T value) {
        seen_.insert(key);
        report_.used.push_back({prefix_ + key, jsonText(o_.value(QLatin1String(key))), ""});
        return value;
    }
    template <class T>
    T assumed(const char* key, T value, const std::string& text, const std::string& note) {
        seen_.insert(key);
        report_.assumed.push_back({prefix_ + key, text, note});
        return value;
    }

    QJsonObject o_;
    std::string file_;
    ConfigReport& report_;
    std::string prefix_;
    std::set<std::string> seen_;
};

std::string classDefault(const std::string& cls) { return "the default of " + cls; }

void setLayers(Fields& f, ModelSpec& s, std::int64_t count, const char* key, LayerSpec layer) {
    if (count > kMaxLayers) f.fail(key, std::to_string(count) + " layers is beyond any model (at most " + std::to_string(kMaxLayers) + ")");
    s.layers.assign(static_cast<std::size_t>(count), layer);
}

// int(factor * width) (HF: intermediate_size = int(expand * hidden_size)), refused when it is no
// positive whole number a count can hold.
std::int64_t innerWidth(Fields& f, const char* key, double factor, std::int64_t width) {
    const double x = std::floor(factor * static_cast<double>(width));
    if (!(x >= 1 && x < kMaxWholeNumber)) f.fail(key, "gives an inner width of " + QString::number(x, 'g', 6).toStdString());
    return static_cast<std::int64_t>(x);
}

// The fields every decoder of the Llama lineage spells alike.
ModelSpec decoderBase(Fields& f, const std::string& cls, bool tieDefault) {
    ModelSpec s;
    s.dModel = f.integer("hidden_size");
    setLayers(f, s, f.integer("num_hidden_layers"), "num_hidden_layers", LayerSpec{});
    s.vocab = f.integer("vocab_size");
    s.tiedEmbeddings = f.boolean("tie_word_embeddings", tieDefault, classDefault(cls));
    return s;
}

// Query heads, key/value heads and the head width (head_dim, or hidden_size / heads).
// kvDefault: the class's default number of key/value heads; none: as many as query heads.
accounting::AttentionSpec readAttention(Fields& f, std::int64_t d, std::optional<std::int64_t> headDimDefault,
                                        const std::string& cls, std::optional<std::int64_t> kvDefault = std::nullopt) {
    accounting::AttentionSpec a;
    a.nHeads = f.integer("num_attention_heads");
    a.nKvHeads = kvDefault ? f.integerOr("num_key_value_heads", *kvDefault, classDefault(cls))
                           : f.integerOr("num_key_value_heads", a.nHeads, "as many as num_attention_heads: multi-head attention");
    if (a.nKvHeads > a.nHeads || a.nHeads % a.nKvHeads != 0)
        f.fail("num_key_value_heads", std::to_string(a.nKvHeads) + " does not divide num_attention_heads = " + std::to_string(a.nHeads));
    std::int64_t headDim = 0;
    if (f.has("head_dim")) {
        headDim = f.integer("head_dim");
    } else if (headDimDefault) {
        headDim = f.integerOr("head_dim", *headDimDefault, classDefault(cls));
    } else {
        if (d % a.nHeads != 0)
            f.fail("num_attention_heads", std::to_string(a.nHeads) + " does not divide hidden_size = " + std::to_string(d) +
                                              " and no head_dim is given");
        headDim = f.integerOr("head_dim", d / a.nHeads, "hidden_size / num_attention_heads");
    }
    a.dQk = a.dV = headDim;
    return a;
}

void allLayersLocal(ModelSpec& s, std::int64_t window) {
    s.attention.slidingWindow = window;
    for (auto& l : s.layers)
        if (l.mixer == MixerKind::Attention) l.local = true;
}

// sliding_window on every layer (Mistral, Phi-3, Mixtral, Jamba): a number, or null for none.
void windowOnAllLayers(Fields& f, ModelSpec& s, std::optional<std::int64_t> classWindow, const std::string& cls) {
    if (f.present("sliding_window")) {
        if (auto w = f.nullableInteger("sliding_window")) allLayersLocal(s, *w);
        return;
    }
    if (classWindow) allLayersLocal(s, f.integerOr("sliding_window", *classWindow, classDefault(cls)));
}

// Qwen2 and Qwen3: use_sliding_window turns on a window for the layers from max_window_layers on.
void qwenWindow(Fields& f, ModelSpec& s, const std::string& cls) {
    if (!f.boolean("use_sliding_window", false, classDefault(cls))) {
        f.ignore("sliding_window", "use_sliding_window is false");
        f.ignore("max_window_layers", "use_sliding_window is false");
        return;
    }
    s.attention.slidingWindow = f.integer("sliding_window");
    const std::int64_t from = f.integerOr("max_window_layers", 28, classDefault(cls), 0);
    for (std::size_t i = 0; i < s.layers.size(); ++i) s.layers[i].local = static_cast<std::int64_t>(i) >= from;
}

// layer_types (recent HF configs): one entry per layer, which overrides the type's own rule.
void applyLayerTypes(Fields& f, ModelSpec& s, const char* key, const std::map<std::string, LayerSpec>& kinds) {
    const auto list = f.strings(key);
    if (!list) return;
    if (list->size() != static_cast<qsizetype>(s.layers.size()))
        f.fail(key, "has " + std::to_string(list->size()) + " entries for " + std::to_string(s.layers.size()) + " layers");
    std::string expected;
    for (const auto& [name, _] : kinds) expected += (expected.empty() ? "" : ", ") + name;
    for (qsizetype i = 0; i < list->size(); ++i) {
        const QJsonValue v = list->at(i);
        const auto it = kinds.find(v.toString().toStdString());
        if (!v.isString() || it == kinds.end())
            f.fail(key, "layer " + std::to_string(i) + ": unknown layer type " + jsonText(v) + " (expected " + expected + ")");
        s.layers[static_cast<std::size_t>(i)].mixer = it->second.mixer;
        s.layers[static_cast<std::size_t>(i)].local = it->second.local;
    }
    const bool anyLocal = std::any_of(s.layers.begin(), s.layers.end(), [](const LayerSpec& l) { return l.local; });
    if (anyLocal && s.attention.slidingWindow <= 0) {
        if (!f.has("sliding_window")) f.fail("sliding_window", std::string("missing; ") + key + " names local attention layers");
        s.attention.slidingWindow = f.integer("sliding_window");
    }
}

const std::map<std::string, LayerSpec> kAttentionLayerTypes = {
    {"full_attention", {MixerKind::Attention, false, FeedForwardKind::Dense}},
    {"sliding_attention", {MixerKind::Attention, true, FeedForwardKind::Dense}},
};

// Routed experts and top-k as the file names them; top-k beyond the experts is a contradiction.
void readExperts(Fields& f, ModelSpec& s, const char* routedKey, std::int64_t routedDefault, std::int64_t topKDefault,
                 const std::string& cls) {
    s.moe.nRouted = f.integerOr(routedKey, routedDefault, classDefault(cls));
    s.moe.topK = f.integerOr("num_experts_per_tok", topKDefault, classDefault(cls));
    if (s.moe.topK > s.moe.nRouted)
        f.fail("num_experts_per_tok", std::to_string(s.moe.topK) + " exceeds " + routedKey + " = " + std::to_string(s.moe.nRouted));
}

accounting::FeedForwardSpec gatedFeedForward(Fields& f, bool bias = false) {
    return {f.integer("intermediate_size"), true, bias};
}

// --- Decoders of the Llama lineage (HF modeling_<type>.py) ---------------------------------------

ModelSpec parseLlama(Fields& f) {
    ModelSpec s = decoderBase(f, "LlamaConfig", false);
    s.attention = readAttention(f, s.dModel, std::nullopt, "LlamaConfig");
    // LlamaAttention: attention_bias on q, k, v and o; LlamaMLP: mlp_bias on all three.
    s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", false, classDefault("LlamaConfig"));
    s.feedForward = gatedFeedForward(f, f.boolean("mlp_bias", false, classDefault("LlamaConfig")));
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec parseMistral(Fields& f) {
    ModelSpec s = decoderBase(f, "MistralConfig", false);
    s.attention = readAttention(f, s.dModel, std::nullopt, "MistralConfig", 8);
    s.feedForward = gatedFeedForward(f);
    windowOnAllLayers(f, s, 4096, "MistralConfig");  // Mistral 7B, Sec. 2: W = 4096
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec parseMixtral(Fields& f) {
    ModelSpec s = decoderBase(f, "MixtralConfig", false);
    s.attention = readAttention(f, s.dModel, std::nullopt, "MixtralConfig", 8);
    // MixtralSparseMoeBlock: a router d x E without bias and E SwiGLU experts of intermediate_size.
    readExperts(f, s, "num_local_experts", 8, 2, "MixtralConfig");
    s.moe.expertWidth = f.integer("intermediate_size");
    for (auto& l : s.layers) l.feedForward = FeedForwardKind::Moe;
    windowOnAllLayers(f, s, std::nullopt, "MixtralConfig");
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

// Qwen2-MoE and Qwen3-MoE: layer i has experts unless listed in mlp_only_layers, every
// decoder_sparse_step-th layer ((i + 1) % step == 0).
void qwenExpertLayers(Fields& f, ModelSpec& s, const std::string& cls) {
    const std::int64_t step = f.integerOr("decoder_sparse_step", 1, classDefault(cls));
    const std::set<std::int64_t> denseOnly = f.indices("mlp_only_layers", static_cast<std::int64_t>(s.layers.size()));
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
        const auto li = static_cast<std::int64_t>(i);
        s.layers[i].feedForward = !denseOnly.count(li) && (li + 1) % step == 0 ? FeedForwardKind::Moe : FeedForwardKind::Dense;
    }
    if (s.layerCount(FeedForwardKind::Dense) > 0) s.feedForward = gatedFeedForward(f);
    else f.ignore("intermediate_size", "every layer has experts");
}

ModelSpec parseQwen2(Fields& f) {
    ModelSpec s = decoderBase(f, "Qwen2Config", false);
    s.attention = readAttention(f, s.dModel, std::nullopt, "Qwen2Config", 32);
    s.attention.qkvBias = true;  // Qwen2Attention: q, k and v projections with bias, o without
    s.feedForward = gatedFeedForward(f);
    qwenWindow(f, s, "Qwen2Config");
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec parseQwen2Moe(Fields& f) {
    const std::string cls = "Qwen2MoeConfig";
    ModelSpec s = decoderBase(f, cls, false);
    s.attention = readAttention(f, s.dModel, std::nullopt, cls, 16);
    s.attention.qkvBias = true;
    // Qwen2MoeSparseMoeBlock: a router d x E, E experts of moe_intermediate_size, one shared expert
    // of shared_expert_intermediate_size with a d -> 1 sigmoid gate.
    readExperts(f, s, "num_experts", 60, 4, cls);
    s.moe.expertWidth = f.integerOr("moe_intermediate_size", 1408, classDefault(cls));
    s.moe.sharedWidth = f.integerOr("shared_expert_intermediate_size", 5632, classDefault(cls));
    s.moe.nShared = 1;
    s.moe.sharedExpertGate = true;
    qwenExpertLayers(f, s, cls);
    qwenWindow(f, s, cls);
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec qwen3Base(Fields& f, const std::string& cls, std::int64_t kvDefault) {
    ModelSpec s = decoderBase(f, cls, false);
    s.attention = readAttention(f, s.dModel, 128, cls, kvDefault);
    // Qwen3Attention: attention_bias on q, k, v and o; q_norm and k_norm over head_dim.
    s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", false, classDefault(cls));
    s.attention.qkNorm = QkNorm::PerHead;
    return s;
}

ModelSpec parseQwen3(Fields& f) {
    ModelSpec s = qwen3Base(f, "Qwen3Config", 32);
    s.feedForward = gatedFeedForward(f);
    qwenWindow(f, s, "Qwen3Config");
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec parseQwen3Moe(Fields& f) {
    const std::string cls = "Qwen3MoeConfig";
    ModelSpec s = qwen3Base(f, cls, 4);
    // Qwen3MoeSparseMoeBlock: a router d x E and E experts of moe_intermediate_size, no shared expert.
    readExperts(f, s, "num_experts", 128, 8, cls);
    s.moe.expertWidth = f.integerOr("moe_intermediate_size", 768, classDefault(cls));
    qwenExpertLayers(f, s, cls);
    qwenWindow(f, s, cls);
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec parseGemma(Fields& f) {
    ModelSpec s = decoderBase(f, "GemmaConfig", true);
    s.attention = readAttention(f, s.dModel, 256, "GemmaConfig", 16);
    s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", false, classDefault("GemmaConfig"));
    s.feedForward = gatedFeedForward(f);
    return s;
}

ModelSpec parseGemma2(Fields& f) {
    const std::string cls = "Gemma2Config";
    ModelSpec s = decoderBase(f, cls, true);
    s.attention = readAttention(f, s.dModel, 256, cls, 4);
    s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", false, classDefault(cls));
    s.feedForward = gatedFeedForward(f);
    // Gemma2DecoderLayer: RMSNorm before and after attention and before and after the MLP.
    s.normsPerBlock = 2;
    // Gemma 2 report, Sec. 2: local (4096-token window) and global attention alternate, layer 0 local.
    s.attention.slidingWindow = f.integerOr("sliding_window", 4096, classDefault(cls));
    for (std::size_t i = 0; i < s.layers.size(); ++i) s.layers[i].local = i % 2 == 0;
    applyLayerTypes(f, s, "layer_types", kAttentionLayerTypes);
    return s;
}

ModelSpec parsePhi3(Fields& f) {
    ModelSpec s = decoderBase(f, "Phi3Config", false);
    s.attention = readAttention(f, s.dModel, std::nullopt, "Phi3Config");  // fused qkv_proj, no biases
    s.feedForward = gatedFeedForward(f);                                   // fused gate_up_proj
    windowOnAllLayers(f, s, std::nullopt, "Phi3Config");
    return s;
}

ModelSpec parseOlmo2(Fields& f) {
    ModelSpec s = decoderBase(f, "Olmo2Config", false);
    s.attention = readAttention(f, s.dModel, std::nullopt, "Olmo2Config");
    s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", false, classDefault("Olmo2Config"));
    s.attention.qkNorm = QkNorm::AllHeads;  // Olmo2Attention: q_norm and k_norm over all heads
    s.feedForward = gatedFeedForward(f);
    return s;  // one norm per block, after it instead of before: the same count
}

// GPT-2 (HF modeling_gpt2): learned positions, LayerNorm, biases on every projection, a GELU MLP.
ModelSpec parseGpt2(Fields& f) {
    ModelSpec s;
    s.dModel = f.integerOfEither("n_embd", "hidden_size");
    setLayers(f, s, f.integerOfEither("n_layer", "num_hidden_layers"), "n_layer", LayerSpec{});
    s.vocab = f.integer("vocab_size");
    s.tiedEmbeddings = f.boolean("tie_word_embeddings", true, classDefault("GPT2Config"));
    s.learnedPositions = f.integerOr("n_positions", 1024, classDefault("GPT2Config"));
    s.norm = NormKind::Layer;
    s.attention.nHeads = s.attention.nKvHeads = f.integerOfEither("n_head", "num_attention_heads");
    if (s.dModel % s.attention.nHeads != 0)
        f.fail("n_head", std::to_string(s.attention.nHeads) + " does not divide n_embd = " + std::to_string(s.dModel));
    s.attention.dQk = s.attention.dV = s.dModel / s.attention.nHeads;
    s.attention.qkvBias = s.attention.outputBias = true;  // Conv1D c_attn and c_proj carry biases
    s.feedForward = {f.integerOr("n_inner", 4 * s.dModel, "null or absent: 4 n_embd"), false, true};
    if (f.has("add_cross_attention") && f.boolean("add_cross_attention", false, ""))
        f.fail("add_cross_attention", "a decoder with cross-attention is not a language model Scalex counts");
    return s;
}

// GPT-NeoX (Pythia; HF modeling_gpt_neox): LayerNorm, a fused qkv with bias, a GELU MLP with biases.
ModelSpec parseGptNeox(Fields& f) {
    ModelSpec s = decoderBase(f, "GPTNeoXConfig", false);
    s.norm = NormKind::Layer;
    s.attention.nHeads = s.attention.nKvHeads = f.integer("num_attention_heads");
    if (s.dModel % s.attention.nHeads != 0)
        f.fail("num_attention_heads",
               std::to_string(s.attention.nHeads) + " does not divide hidden_size = " + std::to_string(s.dModel));
    s.attention.dQk = s.attention.dV = s.dModel / s.attention.nHeads;
    s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", true, classDefault("GPTNeoXConfig"));
    s.feedForward = {f.integer("intermediate_size"), false, true};
    f.ignore("use_parallel_residual", "two LayerNorms per layer either way");
    f.ignore("rotary_pct", "positions change no count");
    return s;
}

// DeepSeek-V2 and V3 (DeepSeek-V2 Sec. 2, DeepSeek-V3 Sec. 2.1; HF modeling_deepseek_v3 shapes).
ModelSpec parseDeepseek(Fields& f, bool v3) {
    const std::string cls = v3 ? "DeepseekV3Config" : "DeepseekV2Config";
    ModelSpec s = decoderBase(f, cls, false);
    auto& a = s.attention;
    a.nHeads = a.nKvHeads = f.integer("num_attention_heads");
    f.ignore("num_key_value_heads", "latent attention up-projects keys and values for every query head");
    if (f.present("q_lora_rank")) a.qLoraRank = f.nullableInteger("q_lora_rank").value_or(0);
    else a.qLoraRank = f.integerOr("q_lora_rank", 1536, classDefault(cls));
    a.kvLoraRank = f.integerOr("kv_lora_rank", 512, classDefault(cls));
    const std::int64_t nope = f.integerOr("qk_nope_head_dim", 128, classDefault(cls));
    a.ropeDim = f.integerOr("qk_rope_head_dim", 64, classDefault(cls));
    a.dQk = nope + a.ropeDim;
    a.dV = f.integerOr("v_head_dim", 128, classDefault(cls));
    a.qkvBias = a.outputBias = f.boolean("attention_bias", false, classDefault(cls));
    s.feedForward = gatedFeedForward(f);
    std::optional<std::int64_t> routed;
    if (f.present("n_routed_experts")) routed = f.nullableInteger("n_routed_experts");
    else if (v3) routed = f.integerOr("n_routed_experts", 256, classDefault(cls));
    if (!routed) return s;  // no experts (DeepseekV2Config's default): every layer dense
    // DeepseekV3MoE: a router d x E (with a per-expert score bias under topk_method "noaux_tc"),
    // E routed experts and n_shared_experts shared ones, all of moe_intermediate_size.
    s.moe.nRouted = *routed;
    s.moe.topK = f.integer("num_experts_per_tok");
    if (s.moe.topK > s.moe.nRouted)
        f.fail("num_experts_per_tok", std::to_string(s.moe.topK) + " exceeds n_routed_experts = " + std::to_string(s.moe.nRouted));
    s.moe.expertWidth = f.integer("moe_intermediate_size");
    s.moe.nShared = f.integerOr("n_shared_experts", v3 ? 1 : 0, classDefault(cls), 0);
    s.moe.sharedWidth = s.moe.expertWidth;
    s.moe.routerBias = f.text("topk_method", v3 ? "noaux_tc" : "greedy", classDefault(cls)) == "noaux_tc";
    // Layer i has experts from first_k_dense_replace on, every moe_layer_freq-th layer.
    const std::int64_t firstMoe = f.integerOr("first_k_dense_replace", v3 ? 3 : 0, classDefault(cls), 0);
    const std::int64_t every = f.integerOr("moe_layer_freq", 1, classDefault(cls));
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
        const auto li = static_cast<std::int64_t>(i);
        s.layers[i].feedForward = li >= firstMoe && li % every == 0 ? FeedForwardKind::Moe : FeedForwardKind::Dense;
    }
    f.ignore("num_nextn_predict_layers", ignoredNote("num_nextn_predict_layers"));
    return s;
}

// --- State-space and recurrent models ------------------------------------------------------------

// Mamba (HF MambaConfig): a stack of Mamba mixers, one RMSNorm each, no feed-forward block.
// The stack both Mamba configs share: width, layers of Mamba mixers with no feed-forward block,
// vocabulary, and the class's default for tied embeddings.
ModelSpec mambaStack(Fields& f, const std::string& cls, bool tiedByDefault) {
    ModelSpec s;
    s.dModel = f.integer("hidden_size");
    setLayers(f, s, f.integer("num_hidden_layers"), "num_hidden_layers", LayerSpec{MixerKind::Mamba, false, FeedForwardKind::None});
    s.vocab = f.integer("vocab_size");
    s.tiedEmbeddings = f.boolean("tie_word_embeddings", tiedByDefault, classDefault(cls));
    return s;
}

ModelSpec parseMamba(Fields& f) {
    const std::string cls = "MambaConfig";
    ModelSpec s = mambaStack(f, cls, true);
    auto& m = s.mamba;
    m.version = 1;
    m.dState = f.integerOr("state_size", 16, classDefault(cls));
    m.dConv = f.integerOr("conv_kernel", 4, classDefault(cls));
    m.dInner = innerWidth(f, "expand", f.number("expand", 2, classDefault(cls)), s.dModel);  // int(expand * hidden_size)
    if (f.has("intermediate_size") && f.integer("intermediate_size") != m.dInner)
        f.fail("intermediate_size", "contradicts expand x hidden_size = " + std::to_string(m.dInner));
    m.dtRank = f.integerOrAuto("time_step_rank", (s.dModel + 15) / 16, "ceil(hidden_size / 16)");
    m.projBias = f.boolean("use_bias", false, classDefault(cls));
    m.convBias = f.boolean("use_conv_bias", true, classDefault(cls));
    return s;
}

// Mamba-2 (HF Mamba2Config): Mamba-2 mixers, one RMSNorm each, no feed-forward block.
ModelSpec parseMamba2(Fields& f) {
    const std::string cls = "Mamba2Config";
    ModelSpec s = mambaStack(f, cls, false);
    auto& m = s.mamba;
    m.version = 2;
    m.nHeads = f.integerOr("num_heads", 128, classDefault(cls));
    const std::int64_t headDim = f.integerOr("head_dim", 64, classDefault(cls));
    m.dState = f.integerOr("state_size", 128, classDefault(cls));
    m.nGroups = f.integerOr("n_groups", 8, classDefault(cls));
    m.dConv = f.integerOr("conv_kernel", 4, classDefault(cls));
    m.dInner = innerWidth(f, "expand", f.number("expand", 2, classDefault(cls)), s.dModel);
    if (static_cast<double>(m.nHeads) * static_cast<double>(headDim) != static_cast<double>(m.dInner))
        f.fail("num_heads", "num_heads x head_dim = " + std::to_string(m.nHeads) + " x " + std::to_string(headDim) +
                                " contradicts expand x hidden_size = " + std::to_string(m.dInner));
    if (m.nHeads % m.nGroups != 0)
        f.fail("n_groups", std::to_string(m.nGroups) + " does not divide num_heads = " + std::to_string(m.nHeads));
    m.projBias = f.boolean("use_bias", false, classDefault(cls));
    m.convBias = f.boolean("use_conv_bias", true, classDefault(cls));
    f.ignore("time_step_rank", "Mamba-2 has a time step per head, no rank");
    return s;
}

// A state-spaces checkpoint's own config (mamba_ssm MambaConfig: d_model, n_layer, ssm_cfg, ...),
// which has no model_type. Layers are Mamba or Mamba-2 (ssm_cfg.layer), attention at
// attn_layer_idx (mamba_ssm MHA), and a gated MLP of d_intermediate after each mixer when > 0.
ModelSpec parseMambaSsm(Fields& f) {
    ModelSpec s;
    s.dModel = f.integer("d_model");
    const std::int64_t layers = f.integer("n_layer");
    setLayers(f, s, layers, "n_layer", LayerSpec{MixerKind::Mamba, false, FeedForwardKind::None});
    const std::int64_t vocab = f.integer("vocab_size");
    const std::int64_t pad = f.integerOr("pad_vocab_size_multiple", 8, classDefault("mamba_ssm MambaConfig"));
    s.vocab = (vocab + pad - 1) / pad * pad;  // MambaLMHeadModel pads the vocabulary to the multiple
    s.tiedEmbeddings = f.boolean("tie_embeddings", true, classDefault("mamba_ssm MambaConfig"));
    s.norm = f.boolean("rms_norm", true, classDefault("mamba_ssm MambaConfig")) ? NormKind::Rms : NormKind::Layer;
    const std::int64_t mlp = f.integerOr("d_intermediate", 0, classDefault("mamba_ssm MambaConfig"), 0);
    if (mlp > 0) {
        s.feedForward = {mlp, true, false};  // GatedMLP: fc1 d x 2 w, fc2 w x d, no biases
        for (auto& l : s.layers) l.feedForward = FeedForwardKind::Dense;
    }
    Fields ssm = f.object("ssm_cfg");
    const std::string layer = ssm.text("layer", "Mamba1", classDefault("mamba_ssm MambaConfig"));
    auto& m = s.mamba;
    if (layer == "Mamba1") {
        m.version = 1;
        m.dState = ssm.integerOr("d_state", 16, classDefault("mamba_ssm Mamba"));
        m.dConv = ssm.integerOr("d_conv", 4, classDefault("mamba_ssm Mamba"));
        m.dInner = innerWidth(ssm, "expand", static_cast<double>(ssm.integerOr("expand", 2, classDefault("mamba_ssm Mamba"))), s.dModel);
        m.dtRank = ssm.integerOrAuto("dt_rank", (s.dModel + 15) / 16, "ceil(d_model / 16)");
        m.convBias = ssm.boolean("conv_bias", true, classDefault("mamba_ssm Mamba"));
        m.projBias = ssm.boolean("bias", false, classDefault("mamba_ssm Mamba"));
    } else if (layer == "Mamba2") {
        m.version = 2;
        m.dState = ssm.integerOr("d_state", 128, classDefault("mamba_ssm Mamba2"));
        m.dConv = ssm.integerOr("d_conv", 4, classDefault("mamba_ssm Mamba2"));
        m.dInner = innerWidth(ssm, "expand", static_cast<double>(ssm.integerOr("expand", 2, classDefault("mamba_ssm Mamba2"))), s.dModel);
        const std::int64_t headDim = ssm.integerOr("headdim", 64, classDefault("mamba_ssm Mamba2"));
        if (m.dInner % headDim != 0)
            ssm.fail("headdim", std::to_string(headDim) + " does not divide expand x d_model = " + std::to_string(m.dInner));
        m.nHeads = m.dInner / headDim;
        m.nGroups = ssm.integerOr("ngroups", 1, classDefault("mamba_ssm Mamba2"));
        m.convBias = ssm.boolean("conv_bias", true, classDefault("mamba_ssm Mamba2"));
        m.projBias = ssm.boolean("bias", false, classDefault("mamba_ssm Mamba2"));
        if (!ssm.boolean("rmsnorm", true, classDefault("mamba_ssm Mamba2")))
            ssm.fail("rmsnorm", "a Mamba-2 mixer without its gated RMSNorm is not supported");
    } else {
        ssm.fail("layer", "unknown layer type \"" + layer + "\" (expected Mamba1 or Mamba2)");
    }
    ssm.finish();
    const std::set<std::int64_t> attention = f.indices("attn_layer_idx", layers);
    Fields attn = f.object("attn_cfg");
    if (!attention.empty()) {
        // mamba_ssm MHA: in_proj d x (H + 2 H_kv) head_dim and out_proj, both with bias by default.
        auto& a = s.attention;
        a.nHeads = attn.integer("num_heads");
        a.nKvHeads = attn.integerOr("num_heads_kv", a.nHeads, "as many as num_heads");
        if (a.nKvHeads > a.nHeads || a.nHeads % a.nKvHeads != 0)
            attn.fail("num_heads_kv", std::to_string(a.nKvHeads) + " does not divide num_heads = " + std::to_string(a.nHeads));
        if (!attn.has("head_dim") && s.dModel % a.nHeads != 0)
            attn.fail("num_heads", std::to_string(a.nHeads) + " does not divide d_model = " + std::to_string(s.dModel));
        a.dQk = a.dV = attn.integerOr("head_dim", s.dModel / a.nHeads, "d_model / num_heads");
        a.qkvBias = attn.boolean("qkv_proj_bias", true, classDefault("mamba_ssm MHA"));
        a.outputBias = attn.boolean("out_proj_bias", true, classDefault("mamba_ssm MHA"));
        if (attn.integerOr("d_conv", 0, classDefault("mamba_ssm MHA"), 0) > 0)
            attn.fail("d_conv", "attention with a convolution on q, k and v is not supported");
        if (attn.integerOr("mlp_dim", 0, classDefault("mamba_ssm MHA"), 0) > 0)
            attn.fail("mlp_dim", "attention with a fused MLP is not supported");
        for (std::int64_t i : attention) s.layers[static_cast<std::size_t>(i)].mixer = MixerKind::Attention;
    }
    attn.finish();
    return s;
}

// Nemotron-H (HF modeling_nemotron_h): hybrid_override_pattern gives each layer one block after its
// own RMSNorm: a Mamba-2 mixer (M), attention (*), an MLP (-) or experts (E). A Scalex layer is a
// mixer and the feed-forward block after it, so an MLP or MoE layer joins the mixer layer right
// before it (the same parameters, FLOPs and cache); the spec has one layer per mixer.
// NemotronHMamba2Mixer: in_proj of 2 heads x head_dim + 2 groups x state + heads, a convolution over
// heads x head_dim + 2 groups x state, dt_bias, A_log and D per head, a gated RMSNorm, out_proj;
// NemotronHMLP: up_proj and down_proj with a squared ReLU, no gate; NemotronHAttention: q, k, v, o,
// no q/k norms. NemotronHMoE: NemotronHTopkRouter's weight E x d and its e_score_correction_bias of
// E (kept in the checkpoint), E routed NemotronHExperts of up_proj and down_proj (no gate, no bias),
// one shared NemotronHMLP of moe_shared_expert_intermediate_size, and with moe_latent_size l the
// fc1_latent_proj d x l and fc2_latent_proj l x d around the routed experts, which then read l.
// The experts of Nemotron-H's E layers by NemotronHConfig's keys (NemotronHMoE, above).
void readNemotronHExperts(Fields& f, ModelSpec& s, const std::string& cls, bool mlpBias) {
    auto& m = s.moe;
    m.gatedExperts = false;
    m.routerBias = true;  // NemotronHTopkRouter.e_score_correction_bias
    const char* routedKey = f.has("n_routed_experts") || !f.has("num_local_experts") ? "n_routed_experts" : "num_local_experts";
    m.nRouted = f.integerOr(routedKey, 8, classDefault(cls));
    m.topK = f.integerOr("num_experts_per_tok", 2, classDefault(cls));
    if (m.topK > m.nRouted) f.fail("num_experts_per_tok", std::to_string(m.topK) + " exceeds " + routedKey + " = " + std::to_string(m.nRouted));
    m.expertWidth = f.integerOr("moe_intermediate_size", 7688, classDefault(cls));
    // NemotronHMoE builds one shared NemotronHMLP of this width, whatever n_shared_experts says.
    m.sharedWidth = f.integerOr("moe_shared_expert_intermediate_size", 7688, classDefault(cls), 0);
    m.nShared = m.sharedWidth > 0 ? 1 : 0;
    f.ignore("n_shared_experts", "NemotronHMoE has one shared expert of moe_shared_expert_intermediate_size whatever it says");
    if (const auto latent = f.nullableInteger("moe_latent_size")) m.latentWidth = *latent;
    if (mlpBias) f.fail("mlp_bias", "true: the biases of the shared expert and the latent projections of an MoE layer are not counted");
    const std::int64_t groups = f.integerOr("n_group", 1, classDefault(cls));
    if (m.nRouted % groups != 0) f.fail("n_group", std::to_string(groups) + " does not divide " + routedKey + " = " + std::to_string(m.nRouted));
}

ModelSpec parseNemotronH(Fields& f) {
    const std::string cls = "NemotronHConfig";
    ModelSpec s;
    s.dModel = f.integer("hidden_size");
    s.vocab = f.integer("vocab_size");
    s.tiedEmbeddings = f.boolean("tie_word_embeddings", false, classDefault(cls));
    // The layers: hybrid_override_pattern, or layers_block_type (newer NemotronHConfig, one name a layer).
    std::string pattern;
    const char* patternKey = f.has("layers_block_type") && !f.has("hybrid_override_pattern") ? "layers_block_type" : "hybrid_override_pattern";
    if (!f.has(patternKey)) f.fail("hybrid_override_pattern", "missing; the kind of each layer cannot be determined without it");
    if (patternKey == std::string("layers_block_type")) {
        // The names of NemotronHConfig._pattern_to_list, and the older mamba and attention it remaps.
        static const std::map<QString, char> kBlocks = {{"mamba", 'M'}, {"linear_attention", 'M'}, {"attention", '*'},
                                                        {"full_attention", '*'}, {"mlp", '-'}, {"moe", 'E'}};
        for (const QJsonValue& v : *f.strings(patternKey)) {
            const auto it = kBlocks.find(v.toString());
            if (it == kBlocks.end())
                f.fail(patternKey, "expected mamba (linear_attention), attention (full_attention), mlp or moe, got " + jsonText(v));
            pattern += it->second;
        }
    } else {
        pattern = f.text(patternKey, "", "");
    }
    const std::int64_t L = f.has("num_hidden_layers") ? f.integer("num_hidden_layers") : static_cast<std::int64_t>(pattern.size());
    if (static_cast<std::int64_t>(pattern.size()) != L)
        f.fail(patternKey, "has " + std::to_string(pattern.size()) + " layers; num_hidden_layers = " + std::to_string(L));
    setLayers(f, s, L, patternKey, LayerSpec{});
    s.layers.clear();
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == 'M' || c == '*') {
            s.layers.push_back({c == 'M' ? MixerKind::Mamba : MixerKind::Attention, false, FeedForwardKind::None});
        } else if (c == '-' || c == 'E') {
            const char* block = c == '-' ? "MLP" : "MoE";
            if (i == 0 || pattern[i - 1] == '-' || pattern[i - 1] == 'E')
                f.fail(patternKey, std::string("the ") + block + " layer at " + std::to_string(i) +
                                       " follows no Mamba or attention layer; Scalex counts an " + block + " after a mixer");
            s.layers.back().feedForward = c == '-' ? FeedForwardKind::Dense : FeedForwardKind::Moe;
        } else {
            f.fail(patternKey, "layer " + std::to_string(i) + " ('" + std::string(1, c) +
                                   "') is not a block Scalex reads (M: Mamba-2, *: attention, -: MLP, E: experts)");
        }
    }
    if (s.layerCount(MixerKind::Attention) > 0) {
        s.attention = readAttention(f, s.dModel, 128, cls, 8);
        if (f.has("attention_head_dim") && !f.has("head_dim")) s.attention.dQk = s.attention.dV = f.integer("attention_head_dim");
        s.attention.qkvBias = s.attention.outputBias = f.boolean("attention_bias", false, classDefault(cls));
    }
    const bool mlpBias = s.layerCount(FeedForwardKind::None) < static_cast<std::int64_t>(s.layers.size()) &&
                         f.boolean("mlp_bias", false, classDefault(cls));
    if (s.layerCount(FeedForwardKind::Dense) > 0) s.feedForward = {f.integerOr("intermediate_size", 21504, classDefault(cls)), false, mlpBias};
    if (s.layerCount(FeedForwardKind::Moe) > 0) readNemotronHExperts(f, s, cls, mlpBias);
    if (s.layerCount(MixerKind::Mamba) > 0) {
        auto& m = s.mamba;
        m.version = 2;
        m.nHeads = f.integerOr("mamba_num_heads", 128, classDefault(cls));
        m.dInner = m.nHeads * f.integerOr("mamba_head_dim", 64, classDefault(cls));
        m.dState = f.integerOr("ssm_state_size", 128, classDefault(cls));
        m.nGroups = f.has("n_groups") || f.has("mamba_n_groups") ? f.integerOfEither("n_groups", "mamba_n_groups")
                                                                 : f.integerOr("n_groups", 8, classDefault(cls));
        m.dConv = f.has("conv_kernel") || f.has("mamba_d_conv") ? f.integerOfEither("conv_kernel", "mamba_d_conv")
                                                                : f.integerOr("conv_kernel", 4, classDefault(cls));
        if (m.nHeads % m.nGroups != 0)
            f.fail("n_groups", std::to_string(m.nGroups) + " does not divide mamba_num_heads = " + std::to_string(m.nHeads));
        m.projBias = f.boolean(f.has("mamba_proj_bias") ? "mamba_proj_bias" : "use_bias", false, classDefault(cls));
        m.convBias = f.boolean(f.has("mamba_conv_bias") && !f.has("use_conv_bias") ? "mamba_conv_bias" : "use_conv_bias", true, classDefault(cls));
        f.ignore("expand", "the Mamba width is mamba_num_heads x mamba_head_dim (NemotronHMamba2Mixer)");
        f.ignore("mamba_expand", "the Mamba width is mamba_num_heads x mamba_head_dim (NemotronHMamba2Mixer)");
    }
    return s;
}

// Zamba2 (HF modeling_zamba2, Glorioso et al. 2024, arXiv:2411.15242): Mamba-2 layers
// (Zamba2MambaMixer: the shapes of Mamba2Mixer, conv1d always with a bias, in_proj and out_proj
// biased under add_bias_linear), and num_mem_blocks shared transformer blocks that the "hybrid"
// layers of layers_block_type use in turn before their Mamba layer (Zamba2Model: cycle(blocks)).
// The shared attention reads 2 hidden_size (the hidden state and the embeddings) with
// attention_head_dim = 2 hidden_size / num_attention_heads; each use has its own linear and adapters.
ModelSpec parseZamba2(Fields& f) {
    const std::string cls = "Zamba2Config";
    ModelSpec s;
    s.dModel = f.integer("hidden_size");
    s.vocab = f.integer("vocab_size");
    s.tiedEmbeddings = f.boolean("tie_word_embeddings", true, classDefault("PretrainedConfig"));
    if (!f.has("layers_block_type")) f.fail("layers_block_type", "missing; the kind of each layer cannot be determined without it");
    const QJsonArray kinds = *f.strings("layers_block_type");
    const std::int64_t L = f.has("num_hidden_layers") ? f.integer("num_hidden_layers") : static_cast<std::int64_t>(kinds.size());
    if (static_cast<std::int64_t>(kinds.size()) != L)
        f.fail("layers_block_type", "has " + std::to_string(kinds.size()) + " layers; num_hidden_layers = " + std::to_string(L));
    setLayers(f, s, L, "layers_block_type", LayerSpec{MixerKind::Mamba, false, FeedForwardKind::None});
    for (qsizetype i = 0; i < kinds.size(); ++i) {
        const QString kind = kinds[i].toString();
        if (kind != QLatin1String("mamba") && kind != QLatin1String("hybrid"))
            f.fail("layers_block_type", "layer " + std::to_string(i) + " is " + jsonText(kinds[i]) + "; expected mamba or hybrid");
        s.layers[static_cast<std::size_t>(i)].shared = kind == QLatin1String("hybrid");
    }
    const bool bias = f.boolean("add_bias_linear", false, classDefault(cls));
    auto& m = s.mamba;
    m.version = 2;
    m.dState = f.integerOr("mamba_d_state", 64, classDefault(cls));
    m.dConv = f.integerOr("mamba_d_conv", 4, classDefault(cls));
    m.dInner = innerWidth(f, "mamba_expand", static_cast<double>(f.integerOr("mamba_expand", 2, classDefault(cls))), s.dModel);
    m.nHeads = f.integerOr("n_mamba_heads", 8, classDefault(cls));
    m.nGroups = f.integerOr("mamba_ngroups", 1, classDefault(cls));
    if (m.dInner % m.nHeads != 0)
        f.fail("n_mamba_heads", std::to_string(m.nHeads) + " does not divide the Mamba width mamba_expand x hidden_size = " + std::to_string(m.dInner));
    if (m.nHeads % m.nGroups != 0)
        f.fail("mamba_ngroups", std::to_string(m.nGroups) + " does not divide n_mamba_heads = " + std::to_string(m.nHeads));
    m.convBias = true;
    m.projBias = bias;
    f.ignore("use_conv_bias", "Zamba2MambaMixer's conv1d has a bias whatever it says");
    const std::int64_t uses = s.sharedUses();
    if (uses > 0) {
        auto& a = s.attention;
        a.nHeads = f.integerOr("num_attention_heads", 32, classDefault(cls));
        a.nKvHeads = f.integerOr("num_key_value_heads", a.nHeads, "as many as num_attention_heads: multi-head attention");
        if (a.nKvHeads > a.nHeads || a.nHeads % a.nKvHeads != 0)
            f.fail("num_key_value_heads", std::to_string(a.nKvHeads) + " does not divide num_attention_heads = " + std::to_string(a.nHeads));
        if ((2 * s.dModel) % a.nHeads != 0)
            f.fail("num_attention_heads", std::to_string(a.nHeads) + " does not divide the shared attention's width 2 x hidden_size = " +
                                              std::to_string(2 * s.dModel));
        a.dQk = a.dV = 2 * s.dModel / a.nHeads;
        s.feedForward = {f.integerOr("intermediate_size", 4 * s.dModel, "4 x hidden_size (Zamba2Config)"), true, bias};
        auto& b = s.sharedBlock;
        b.blocks = f.integerOr("num_mem_blocks", 1, classDefault(cls));
        if (b.blocks > uses)
            f.fail("num_mem_blocks", std::to_string(b.blocks) + " shared blocks for " + std::to_string(uses) + " hybrid layers");
        b.adapterRank = f.integerOr("adapter_rank", 128, classDefault(cls));
        b.attentionAdapters = f.boolean("use_shared_attention_adapter", false, classDefault(cls));
        if (b.attentionAdapters && a.nKvHeads != a.nHeads)
            f.fail("num_key_value_heads", "the shared attention adapters add 2 x hidden_size to the keys and values; they need as many key-value heads as heads");
        // Zamba2MLP builds a gate_up adapter for each use whatever use_shared_mlp_adapter says.
        b.mlpAdapters = true;
        f.ignore("use_shared_mlp_adapter", "Zamba2MLP has a gate_up adapter at every use whatever it says");
    }
    return s;
}

// Jamba (HF JambaConfig, Lieber et al. 2024): attention every attn_layer_period-th layer, Mamba
// elsewhere; experts every expert_layer_period-th layer; a norm before each mixer and each MLP.
ModelSpec parseJamba(Fields& f) {
    const std::string cls = "JambaConfig";
    ModelSpec s = decoderBase(f, cls, false);
    s.attention = readAttention(f, s.dModel, std::nullopt, cls, 8);
    s.feedForward = gatedFeedForward(f);
    readExperts(f, s, "num_experts", 16, 2, cls);
    const std::int64_t experts = s.moe.nRouted;
    s.moe.expertWidth = s.feedForward.width;
    const std::int64_t attnPeriod = f.integerOr("attn_layer_period", 8, classDefault(cls));
    const std::int64_t attnOffset = f.integerOr("attn_layer_offset", 4, classDefault(cls), 0);
    const std::int64_t expertPeriod = f.integerOr("expert_layer_period", 2, classDefault(cls));
    const std::int64_t expertOffset = f.integerOr("expert_layer_offset", 1, classDefault(cls), 0);
    if (attnOffset >= attnPeriod)
        f.fail("attn_layer_offset", std::to_string(attnOffset) + " is not below attn_layer_period = " + std::to_string(attnPeriod));
    if (expertOffset >= expertPeriod)
        f.fail("expert_layer_offset", std::to_string(expertOffset) + " is not below expert_layer_period = " + std::to_string(expertPeriod));
    for (std::size_t i = 0; i < s.layers.size(); ++i) {
        const auto li = static_cast<std::int64_t>(i);
        s.layers[i].mixer = li % attnPeriod == attnOffset ? MixerKind::Attention : MixerKind::Mamba;
        s.layers[i].feedForward = experts > 1 && li % expertPeriod == expertOffset ? FeedForwardKind::Moe : FeedForwardKind::Dense;
    }
    // JambaMambaMixer: Mamba with RMSNorms on the time step, B and C.
    auto& m = s.mamba;
    m.version = 1;
    m.dState = f.integerOr("mamba_d_state", 16, classDefault(cls));
    m.dConv = f.integerOr("mamba_d_conv", 4, classDefault(cls));
    m.dInner = innerWidth(f, "mamba_expand", static_cast<double>(f.integerOr("mamba_expand", 2, classDefault(cls))), s.dModel);
    m.dtRank = f.integerOrAuto("mamba_dt_rank", (s.dModel + 15) / 16, "ceil(hidden_size / 16)");
    m.convBias = f.boolean("mamba_conv_bias", true, classDefault(cls));
    m.projBias = f.boolean("mamba_proj_bias", false, classDefault(cls));
    m.innerNorms = true;
    windowOnAllLayers(f, s, std::nullopt, cls);
    applyLayerTypes(f, s, "layers_block_type",
                    {{"attention", {MixerKind::Attention, s.attention.slidingWindow > 0, FeedForwardKind::Dense}},
                     {"mamba", {MixerKind::Mamba, false, FeedForwardKind::Dense}}});
    return s;
}

// round_up_to_next_multiple_of of the xLSTM code: int(((x + m - 1) // m) * m). With a
// fractional x it rounds up only when x is more than 1 above a multiple, so ffn_proj_factor 2.667
// gives the study's width at d = 4096 (10944) but not at every d (studyFeedForwardWidth).
double xlstmRoundUp(double x, std::int64_t m) {
    const double md = static_cast<double>(m);
    return std::floor((x + md - 1) / md) * md;
}

// xLSTM 7B (HF xLSTMConfig, Beck et al. 2025): the paper's mLSTM architecture.
ModelSpec parseXlstm(Fields& f) {
    const std::string cls = "xLSTMConfig";
    ModelSpec s;
    s.name = "xlstm";
    s.dModel = f.integerOfEither("embedding_dim", "hidden_size");
    setLayers(f, s, f.integerOfEither("num_blocks", "num_hidden_layers"), "num_blocks",
              LayerSpec{MixerKind::Mlstm, false, FeedForwardKind::Dense});
    s.vocab = f.integerOr("vocab_size", 50304, classDefault(cls));
    s.tiedEmbeddings = f.boolean("tie_word_embeddings", false, classDefault(cls));
    s.finalNorm = f.boolean("add_out_norm", true, classDefault(cls));
    if (f.boolean("use_bias", false, classDefault(cls)))
        f.fail("use_bias", "biases on the mLSTM's projections are not in the paper's count (Tab. param_counts_mlstm)");
    auto& m = s.mlstm;
    m.nHeads = f.integerOr("num_heads", 8, classDefault(cls));
    const double d = static_cast<double>(s.dModel);
    // xLSTMConfig.qk_dim / v_dim: round_up(hidden_size * factor, 64), split over the heads.
    const std::int64_t qk = innerWidth(f, "qk_dim_factor", xlstmRoundUp(d * f.number("qk_dim_factor", 0.5, classDefault(cls)), 64), 1);
    const std::int64_t v = innerWidth(f, "v_dim_factor", xlstmRoundUp(d * f.number("v_dim_factor", 1.0, classDefault(cls)), 64), 1);
    if (qk % m.nHeads != 0 || v % m.nHeads != 0)
        f.fail("num_heads", std::to_string(m.nHeads) + " does not divide the query/key width " + std::to_string(qk) +
                                " and value width " + std::to_string(v));
    m.dQk = qk / m.nHeads;
    m.dHv = v / m.nHeads;
    m.chunk = f.integerOr("chunk_size", 64, classDefault(cls));
    const double factor = f.number("ffn_proj_factor", 2.667, classDefault(cls));
    const std::int64_t multiple = f.integerOr("ffn_round_up_to_multiple_of", 64, classDefault(cls));
    s.feedForward = {innerWidth(f, "ffn_proj_factor", xlstmRoundUp(d * factor, multiple), 1), true, false};
    f.ignore("weight_mode", "fused and single weights have the same count");
    if (f.has("slstm_at")) f.fail("slstm_at", "sLSTM blocks are not supported");
    return s;
}

// --- Any decoder, read by its keys ------------------------------------------------------------------
//
// A config of a type without a parser of its own is read by the keys it has: widths, heads, layers,
// experts and their placement, per-layer types or the patterns that give them, windows, chunks and
// the linear-attention and convolution sizes. What no key says (q/k norms, attention sinks, biases
// on experts) comes from the model type when Scalex knows it (the hints below, each from the type's
// HF modeling file), else is assumed absent, and the report says so.

struct TypeHint {
    std::string cls;          // the HF configuration class whose defaults apply
    bool tiedDefault = false;
    QkNorm qkNorm = QkNorm::None;
    int normsPerBlock = 1;
    bool sinks = false;            // GptOssAttention.sinks
    bool expertBias = false;       // GptOssExperts biases
    bool routerBias = false;       // GptOssTopKRouter bias
    bool outputGate = false;       // Qwen3NextAttention gated output
    bool sharedExpert = false;     // one shared expert of the routed width (Llama4TextMoe.shared_expert)
    bool sharedExpertGate = false; // a d -> 1 gate on the shared expert (Qwen3NextSparseMoeBlock)
    bool qkvBiasOnly = false;      // Qwen2Attention: q, k and v with bias, o without, whatever attention_bias says
    NormKind norm = NormKind::Rms; // the norms around each block and the final one
    bool gatedMlp = true;          // gate, up and down (SwiGLU); false: up and down (StarCoder2's c_fc, c_proj)
    bool useBiasDefault = false;   // use_bias's default: biases on every projection (Starcoder2Config: true)
    std::optional<std::int64_t> headDim = {};  // the class's head_dim default
    std::int64_t slidingPattern = 0;           // Gemma 3: every n-th layer global (sliding_window_pattern default)
    std::optional<std::int64_t> windowDefault = {};  // the class's sliding_window default
    std::string note = {};  // what the hint adds, and its source, for the report
};

const std::map<std::string, TypeHint>& typeHints() {
    static const std::map<std::string, TypeHint> hints = [] {
        std::map<std::string, TypeHint> h;
        TypeHint gptOss{"GptOssConfig"};
        gptOss.sinks = gptOss.expertBias = gptOss.routerBias = true;
        gptOss.note = "a sink logit per head in every attention layer, biases on each expert and on the router "
                      "(HF modeling_gpt_oss: GptOssAttention.sinks, GptOssExperts, GptOssTopKRouter)";
        h["gpt_oss"] = gptOss;
        TypeHint llama4{"Llama4TextConfig"};
        llama4.sharedExpert = true;
        llama4.note = "one shared expert of intermediate_size beside the routed ones; q/k L2 norms without weights "
                      "(HF modeling_llama4: Llama4TextMoe.shared_expert, Llama4TextL2Norm)";
        h["llama4_text"] = llama4;
        TypeHint gemma3{"Gemma3TextConfig", true, QkNorm::PerHead, 2};
        gemma3.headDim = 256;
        gemma3.slidingPattern = 6;
        gemma3.windowDefault = 4096;
        gemma3.note = "q_norm and k_norm over head_dim; RMSNorms before and after attention and the MLP "
                      "(HF modeling_gemma3: Gemma3Attention, Gemma3DecoderLayer)";
        h["gemma3_text"] = gemma3;
        TypeHint qwen3Next{"Qwen3NextConfig", false, QkNorm::PerHead};
        qwen3Next.outputGate = qwen3Next.sharedExpertGate = true;
        qwen3Next.note = "q_norm and k_norm over head_dim, a sigmoid output gate from a double-width q_proj, a d -> 1 "
                         "gate on the shared expert (HF modeling_qwen3_next: Qwen3NextAttention, Qwen3NextSparseMoeBlock)";
        h["qwen3_next"] = qwen3Next;
        // Qwen3.5 (HF modular_qwen3_5_moe): Qwen3-Next's attention, gated DeltaNet and sparse MoE block,
        // the DeltaNet's input projections split four ways (the same count).
        qwen3Next.cls = "Qwen3_5MoeTextConfig";
        h["qwen3_5_moe_text"] = qwen3Next;
        qwen3Next.cls = "Qwen3_5TextConfig";
        h["qwen3_5_text"] = qwen3Next;
        TypeHint lfm2{"Lfm2Config", true, QkNorm::PerHead};
        lfm2.note = "q_layernorm and k_layernorm over head_dim (HF modeling_lfm2: Lfm2Attention)";
        h["lfm2"] = lfm2;
        h["smollm3"] = TypeHint{"SmolLM3Config", true};
        // MiMo (XiaomiMiMo modeling_mimo.py): MiMoModel is Qwen2Model, its attention Qwen2Attention.
        TypeHint mimo{"MiMoConfig"};
        mimo.qkvBiasOnly = true;
        mimo.note = "q, k and v projections with bias, o without (modeling_mimo.py: Qwen2Attention)";
        h["mimo"] = mimo;
        h["granitemoe"] = TypeHint{"GraniteMoeConfig"};
        TypeHint starcoder2{"Starcoder2Config", true};
        starcoder2.norm = NormKind::Layer;
        starcoder2.gatedMlp = false;
        starcoder2.useBiasDefault = true;
        starcoder2.note = "LayerNorms with bias, a GELU MLP of c_fc and c_proj, use_bias on q, k, v, o, c_fc and c_proj "
                          "(HF modeling_starcoder2: Starcoder2DecoderLayer, Starcoder2MLP, Starcoder2Attention)";
        h["starcoder2"] = starcoder2;
        TypeHint phimoe{"PhimoeConfig"};
        phimoe.norm = NormKind::Layer;
        phimoe.note = "LayerNorms with bias around each block and at the end, lm_head_bias on the LM head "
                      "(HF modeling_phimoe: PhimoeDecoderLayer, PhimoeModel.norm, PhimoeForCausalLM.lm_head)";
        h["phimoe"] = phimoe;
        h["granitemoeshared"] = TypeHint{"GraniteMoeSharedConfig"};
        h["granite"] = TypeHint{"GraniteConfig"};
        return h;
    }();
    return hints;
}

// The first of several spellings of one key that the config has; nullptr when none.
const char* firstKey(const Fields& f, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
        if (f.has(k)) return k;
    return nullptr;
}

const std::map<std::string, LayerSpec> kKeyedLayerTypes = {
    {"attention", {MixerKind::Attention, false, FeedForwardKind::Dense}},
    {"full_attention", {MixerKind::Attention, false, FeedForwardKind::Dense}},
    {"global_attention", {MixerKind::Attention, false, FeedForwardKind::Dense}},
    {"sliding_attention", {MixerKind::Attention, true, FeedForwardKind::Dense}},
    {"local_attention", {MixerKind::Attention, true, FeedForwardKind::Dense}},
    {"chunked_attention", {MixerKind::Attention, true, FeedForwardKind::Dense}},
    {"linear_attention", {MixerKind::DeltaNet, false, FeedForwardKind::Dense}},
    {"conv", {MixerKind::ShortConv, false, FeedForwardKind::Dense}},
};

// Which mixer each layer has: layer_types when given, else the pattern keys of the types that
// predate it (each HF configuration class derives layer_types from them the same way).
void keyedLayerKinds(Fields& f, ModelSpec& s, const TypeHint& hint) {
    const auto L = static_cast<std::int64_t>(s.layers.size());
    auto setLocal = [&](auto isLocal) {
        for (std::int64_t i = 0; i < L; ++i) s.layers[static_cast<std::size_t>(i)].local = isLocal(i);
    };
    if (f.has("layer_types")) {
        // Chunked and sliding layers share the one window of the spec: a config with both is refused.
        const QJsonValue v = f.value("layer_types");
        bool chunked = false, sliding = false;
        if (v.isArray())
            for (const QJsonValue& e : v.toArray()) {
                chunked = chunked || e.toString() == QLatin1String("chunked_attention");
                sliding = sliding || e.toString() == QLatin1String("sliding_attention") || e.toString() == QLatin1String("local_attention");
            }
        if (chunked && sliding) f.fail("layer_types", "has both chunked and sliding attention layers; Scalex counts one window per model");
        if (chunked) {
            s.attention.chunked = true;
            s.attention.slidingWindow = f.integer("attention_chunk_size");
        }
        applyLayerTypes(f, s, "layer_types", kKeyedLayerTypes);
        return;
    }
    if (f.has("full_attention_interval")) {  // Qwen3NextConfig: every k-th layer full, linear attention between
        const std::int64_t k = f.integer("full_attention_interval");
        for (std::int64_t i = 0; i < L; ++i)
            s.layers[static_cast<std::size_t>(i)].mixer = (i + 1) % k == 0 ? MixerKind::Attention : MixerKind::DeltaNet;
        return;
    }
    if (f.has("full_attn_idxs")) {  // Lfm2Config: attention at the listed layers, convolutions elsewhere
        const std::set<std::int64_t> attention = f.indices("full_attn_idxs", L);
        for (std::int64_t i = 0; i < L; ++i)
            s.layers[static_cast<std::size_t>(i)].mixer = attention.count(i) ? MixerKind::Attention : MixerKind::ShortConv;
        return;
    }
    if (f.has("attention_chunk_size")) {
        // Llama4TextConfig: layers with RoPE (no_rope_layers[i] = 1) attend within chunks, the NoPE
        // layers to everything; no_rope_layers defaults to every no_rope_layer_interval-th layer NoPE.
        s.attention.chunked = true;
        s.attention.slidingWindow = f.integer("attention_chunk_size");
        if (f.has("no_rope_layers")) {
            const QJsonValue v = f.value("no_rope_layers");
            if (!v.isArray() || v.toArray().size() != L)
                f.fail("no_rope_layers", "expected a list of " + std::to_string(L) + " flags (1: RoPE and chunked attention, 0: NoPE)");
            const QJsonArray flags = v.toArray();
            for (std::int64_t i = 0; i < L; ++i) {
                const QJsonValue e = flags.at(static_cast<qsizetype>(i));
                if (!e.isDouble() || (e.toDouble() != 0 && e.toDouble() != 1))
                    f.fail("no_rope_layers", "layer " + std::to_string(i) + ": expected 0 or 1, got " + jsonText(e));
            }
            f.markUsed("no_rope_layers");
            setLocal([&](std::int64_t i) { return flags.at(static_cast<qsizetype>(i)).toDouble() == 1; });
        } else {
            const std::int64_t every = f.integerOr("no_rope_layer_interval", 4, classDefault(hint.cls));
            setLocal([&](std::int64_t i) { return (i + 1) % every != 0; });
        }
        return;
    }
    if (hint.slidingPattern > 0 || f.has("sliding_window_pattern")) {
        // Gemma3TextConfig: every sliding_window_pattern-th layer global, the others local.
        const std::int64_t every = f.integerOr("sliding_window_pattern", hint.slidingPattern, classDefault(hint.cls));
        s.attention.slidingWindow = hint.windowDefault ? f.integerOr("sliding_window", *hint.windowDefault, classDefault(hint.cls))
                                                       : f.integer("sliding_window");
        setLocal([&](std::int64_t i) { return (i + 1) % every != 0; });
        return;
    }
    // No per-layer pattern: a window, where the config has one and does not turn it off, is on every layer.
    if (f.present("use_sliding_window") && !f.boolean("use_sliding_window", false, "")) {
        f.ignore("sliding_window", "use_sliding_window is false");
        f.ignore("max_window_layers", "use_sliding_window is false");
        return;
    }
    if (f.present("sliding_window")) {
        if (auto w = f.nullableInteger("sliding_window")) allLayersLocal(s, *w);
    }
}

// The experts and which layers have them, from the keys of the MoE families: the count
// (num_local_experts, num_experts, n_routed_experts), top-k, their width (moe_intermediate_size, else
// intermediate_size), shared experts (n_shared_experts of the expert width, DeepSeek; one of
// shared_expert_intermediate_size, Qwen; one of shared_intermediate_size, GraniteMoeShared), and the
// placement keys (moe_layers, interleave_moe_layer_step, first_k_dense_replace, moe_layer_freq,
// decoder_sparse_step, mlp_only_layers).
bool keyedExperts(Fields& f, ModelSpec& s, const TypeHint& hint) {
    const char* routedKey = firstKey(f, {"num_local_experts", "num_experts", "n_routed_experts"});
    if (!routedKey) return false;
    const std::int64_t routed = f.integer(routedKey, 0);
    if (routed == 0) return false;
    auto& m = s.moe;
    m.nRouted = routed;
    const char* topKey = firstKey(f, {"num_experts_per_tok", "experts_per_token"});
    if (!topKey) f.fail("num_experts_per_tok", std::string("missing; ") + routedKey + " gives experts but not how many a token uses");
    if (f.has("num_experts_per_tok") && f.has("experts_per_token")) m.topK = f.integerOfEither("num_experts_per_tok", "experts_per_token");
    else m.topK = f.integer(topKey);
    if (m.topK > m.nRouted) f.fail(topKey, std::to_string(m.topK) + " exceeds " + routedKey + " = " + std::to_string(m.nRouted));
    if (!f.has("moe_intermediate_size") && !f.has("intermediate_size"))
        f.fail("moe_intermediate_size", std::string("missing; ") + routedKey + " gives experts but no width (nor intermediate_size)");
    m.expertWidth = f.integer(f.has("moe_intermediate_size") ? "moe_intermediate_size" : "intermediate_size");
    if (f.has("n_shared_experts")) {
        m.nShared = f.integer("n_shared_experts", 0);
        m.sharedWidth = m.expertWidth;
    } else if (const char* sharedKey = firstKey(f, {"shared_expert_intermediate_size", "shared_intermediate_size"})) {
        m.sharedWidth = f.integer(sharedKey, 0);
        m.nShared = m.sharedWidth > 0 ? 1 : 0;
        m.sharedExpertGate = m.nShared > 0 && hint.sharedExpertGate;
    } else if (hint.sharedExpert) {
        m.nShared = 1;
        m.sharedWidth = m.expertWidth;
    }
    m.routerBias = hint.routerBias;
    m.expertBias = hint.expertBias;
    if (!m.routerBias && f.has("topk_method")) m.routerBias = f.text("topk_method", "", "") == "noaux_tc";  // DeepseekV3TopkRouter
    const auto L = static_cast<std::int64_t>(s.layers.size());
    std::vector<bool> moe(static_cast<std::size_t>(L), true);
    if (f.has("moe_layers")) {
        const std::set<std::int64_t> listed = f.indices("moe_layers", L);
        for (std::int64_t i = 0; i < L; ++i) moe[static_cast<std::size_t>(i)] = listed.count(i) > 0;
    } else {
        const std::int64_t step = f.integerOr("interleave_moe_layer_step", 1, "every layer", 1);
        const std::int64_t firstMoe = f.integerOr("first_k_dense_replace", 0, "no dense layers first", 0);
        const std::int64_t freq = f.integerOr("moe_layer_freq", 1, "every layer", 1);
        const std::int64_t sparseStep = f.integerOr("decoder_sparse_step", 1, "every layer", 1);
        const std::set<std::int64_t> denseOnly = f.indices("mlp_only_layers", L);
        for (std::int64_t i = 0; i < L; ++i)
            moe[static_cast<std::size_t>(i)] = (i + 1) % step == 0 && i >= firstMoe && i % freq == 0 && (i + 1) % sparseStep == 0 && !denseOnly.count(i);
    }
    for (std::int64_t i = 0; i < L; ++i)
        s.layers[static_cast<std::size_t>(i)].feedForward = moe[static_cast<std::size_t>(i)] ? FeedForwardKind::Moe : FeedForwardKind::Dense;
    return true;
}

// The dense feed-forward width: intermediate_size_mlp (Llama 4's dense layers) or intermediate_size
// (block_ff_dim in LFM2's own configs), with LFM2's adjustment where the config asks for it
// (Lfm2MLP: int(2 w / 3), times block_ffn_dim_multiplier, rounded up to block_multiple_of).
std::int64_t keyedDenseWidth(Fields& f, const TypeHint& hint) {
    if (f.has("intermediate_size_mlp")) return f.integer("intermediate_size_mlp");
    std::int64_t w = 0;
    if (f.has("intermediate_size") && f.has("block_ff_dim")) w = f.integerOfEither("intermediate_size", "block_ff_dim");
    else w = f.integer(f.has("block_ff_dim") ? "block_ff_dim" : "intermediate_size");
    if (!f.has("block_auto_adjust_ff_dim") || !f.boolean("block_auto_adjust_ff_dim", false, classDefault(hint.cls))) return w;
    w = 2 * w / 3;
    if (f.present("block_ffn_dim_multiplier") && !f.has("block_ffn_dim_multiplier")) {
        f.markUsed("block_ffn_dim_multiplier");  // null: no multiplier and no rounding
        return w;
    }
    w = innerWidth(f, "block_ffn_dim_multiplier", f.number("block_ffn_dim_multiplier", 1.0, classDefault(hint.cls)), w);
    const std::int64_t multiple = f.integerOr("block_multiple_of", 256, classDefault(hint.cls));
    return multiple * ((w + multiple - 1) / multiple);
}

// The norm: norm_type where the config names it (layer_norm: a weight and a bias; rms_norm: a
// weight), else the type's (LayerNorm for StarCoder2 and PhiMoE), else RMSNorm.
NormKind keyedNorm(Fields& f, const TypeHint& hint) {
    if (!f.has("norm_type")) return hint.norm;
    const std::string t = f.text("norm_type", "", "");
    if (t == "layer_norm" || t == "layernorm") return NormKind::Layer;
    if (t == "rms_norm" || t == "rmsnorm") return NormKind::Rms;
    f.fail("norm_type", "expected \"layer_norm\" or \"rms_norm\", got \"" + t + "\"");
}

ModelSpec parseByKeys(Fields& f, const std::string& type) {
    static const TypeHint kNoHint{"the keys alone"};
    const auto hintIt = typeHints().find(type);
    const TypeHint& hint = hintIt == typeHints().end() ? kNoHint : hintIt->second;
    ModelSpec s;
    s.dModel = f.integer("hidden_size");
    const char* layersKey = firstKey(f, {"num_hidden_layers", "num_layers", "n_layer", "n_layers"});
    if (!layersKey)
        f.fail("num_hidden_layers", "missing; the layers cannot be determined without it (nor num_layers, n_layer or n_layers)");
    setLayers(f, s, f.integer(layersKey), layersKey, LayerSpec{});
    s.vocab = f.integer("vocab_size");
    if (f.has("tie_embedding") && !f.has("tie_word_embeddings"))  // Lfm2Config reads LFM2's own spelling
        s.tiedEmbeddings = f.boolean("tie_embedding", hint.tiedDefault, classDefault(hint.cls));
    else
        s.tiedEmbeddings = f.boolean("tie_word_embeddings", hint.tiedDefault,
                                     hintIt == typeHints().end() ? "PretrainedConfig's default" : classDefault(hint.cls));
    s.normsPerBlock = hint.normsPerBlock;
    s.norm = keyedNorm(f, hint);
    // lm_head_bias (PhimoeConfig): a bias of n_vocab on the LM head.
    s.headBias = f.has("lm_head_bias") && f.boolean("lm_head_bias", false, "");
    // use_bias (Starcoder2Config): biases on every projection of attention and the MLP, unless the
    // attention's own key says otherwise.
    const bool useBias = f.has("use_bias") ? f.boolean("use_bias", false, "") : hint.useBiasDefault && f.boolean("use_bias", true, classDefault(hint.cls));
    keyedLayerKinds(f, s, hint);
    if (s.layerCount(MixerKind::Attention) > 0) {
        const std::int64_t window = s.attention.slidingWindow;
        const bool chunked = s.attention.chunked;
        s.attention = readAttention(f, s.dModel, hint.headDim, hint.cls);
        s.attention.slidingWindow = window;
        s.attention.chunked = chunked;
        if (hint.qkvBiasOnly) {
            s.attention.qkvBias = true;
            f.ignore("attention_bias", "Qwen2Attention has biases on q, k and v and none on o whatever it says");
        } else {
            // attention_bias, or PanguEmbeddedConfig's bias (modeling_openpangu_dense: q, k, v and o).
            const char* biasKey = f.has("bias") && !f.has("attention_bias") ? "bias" : "attention_bias";
            s.attention.qkvBias = s.attention.outputBias =
                f.has(biasKey) ? f.boolean(biasKey, false, "") : useBias || f.boolean(biasKey, false, "no key says otherwise");
        }
        s.attention.qkNorm = hint.qkNorm;
        s.attention.sinks = hint.sinks;
        s.attention.outputGate = f.has("attn_output_gate") ? f.boolean("attn_output_gate", false, "") : hint.outputGate;
    }
    if (s.layerCount(MixerKind::DeltaNet) > 0) {
        // Qwen3NextConfig's linear-attention keys (Qwen3NextGatedDeltaNet).
        auto& g = s.deltaNet;
        g.nKeyHeads = f.integer("linear_num_key_heads");
        g.nValueHeads = f.integer("linear_num_value_heads");
        g.dKey = f.integer("linear_key_head_dim");
        g.dValue = f.integer("linear_value_head_dim");
        g.dConv = f.integerOr("linear_conv_kernel_dim", 4, classDefault(hint.cls));
        if (g.nValueHeads % g.nKeyHeads != 0)
            f.fail("linear_num_value_heads", std::to_string(g.nValueHeads) + " is not a multiple of linear_num_key_heads = " +
                                                 std::to_string(g.nKeyHeads));
    }
    if (s.layerCount(MixerKind::ShortConv) > 0) {
        // Lfm2Config's convolution keys (Lfm2ShortConv).
        s.shortConv.dConv = f.integerOr("conv_L_cache", 3, classDefault(hint.cls));
        s.shortConv.bias = f.boolean("conv_bias", false, classDefault(hint.cls));
    }
    const bool experts = keyedExperts(f, s, hint);
    if (!experts || s.layerCount(FeedForwardKind::Dense) > 0)
        s.feedForward = {keyedDenseWidth(f, hint), hint.gatedMlp, f.has("mlp_bias") ? f.boolean("mlp_bias", false, "") : useBias};
    if (!hint.note.empty()) f.assume("model_type", "\"" + type + "\"", hint.note);
    if (hintIt == typeHints().end())
        f.assume("model_type", "\"" + type + "\"",
                 "read by its keys: no q/k norms, attention sinks or expert biases assumed, one RMSNorm before each block");
    return s;
}

// A state-space config of a type without a parser (FalconMamba): Mamba-2 where it names heads and
// groups, Mamba otherwise; FalconMamba's RMSNorms on B, C and dt have no weights (HF modeling_falcon_mamba).
ModelSpec parseMambaByKeys(Fields& f) {
    return f.has("n_groups") ? parseMamba2(f) : parseMamba(f);
}

using Parser = std::function<ModelSpec(Fields&)>;

const std::map<std::string, Parser>& parsers() {
    static const std::map<std::string, Parser> table = {
        {"deepseek_v2", [](Fields& f) { return parseDeepseek(f, false); }},
        {"deepseek_v3", [](Fields& f) { return parseDeepseek(f, true); }},
        {"gemma", parseGemma},
        {"gemma2", parseGemma2},
        {"gpt2", parseGpt2},
        {"gpt_neox", parseGptNeox},
        {"jamba", parseJamba},
        {"llama", parseLlama},
        {"mamba", parseMamba},
        {"mamba2", parseMamba2},
        {"mistral", parseMistral},
        {"mixtral", parseMixtral},
        {"nemotron_h", parseNemotronH},
        {"olmo2", parseOlmo2},
        {"phi3", parsePhi3},
        {"qwen2", parseQwen2},
        {"qwen2_moe", parseQwen2Moe},
        {"qwen3", parseQwen3},
        {"qwen3_moe", parseQwen3Moe},
        {"xlstm", parseXlstm},
        {"zamba2", parseZamba2},
    };
    return table;
}

// The config key a spec field came from, for errors found when the whole spec is checked.
std::string configKeyOf(const std::string& specField, const std::string& modelType) {
    if (specField == "sizes") return "";  // no one field: the sizes together
    if (specField == "layers") return modelType == "gpt2" ? "n_layer" : modelType == "mamba_ssm" ? "n_layer" : "num_hidden_layers";
    if (specField == "d_model") return modelType == "mamba_ssm" ? "d_model" : "hidden_size";
    if (specField == "vocab") return "vocab_size";
    if (specField == "feed_forward.width") return "intermediate_size";
    return specField;
}

// The SigLIP vision tower of a Gemma 3 config and its projector into the language model of width
// `textWidth`: the shapes of HF modeling_siglip (SiglipVisionEmbeddings: a patch convolution with
// bias and a position table of (image / patch)^2 rows; per encoder layer two LayerNorms, q, k, v and
// out projections with biases, an MLP fc1, fc2 with biases; the post-LayerNorm; the attention-pooling
// head where vision_use_head) and modeling_gemma3 (Gemma3MultiModalProjector: mm_input_projection
// of vision width x text width and an RMSNorm of the vision width).
std::int64_t gemma3VisionParameters(Fields& v, std::int64_t textWidth) {
    const std::string cls = "SiglipVisionConfig";
    const std::int64_t D = v.integerOr("hidden_size", 768, classDefault(cls));
    const std::int64_t I = v.integerOr("intermediate_size", 3072, classDefault(cls));
    const std::int64_t L = v.integerOr("num_hidden_layers", 12, classDefault(cls));
    const std::int64_t C = v.integerOr("num_channels", 3, classDefault(cls));
    const std::int64_t P = v.integerOr("patch_size", 16, classDefault(cls));
    const std::int64_t image = v.integerOr("image_size", 224, classDefault(cls));
    if (image % P != 0) v.fail("image_size", std::to_string(image) + " is not a multiple of patch_size = " + std::to_string(P));
    // Bounds far beyond any tower keep the count within 64 bits.
    if (D > 100'000) v.fail("hidden_size", std::to_string(D) + " is beyond any vision tower (at most 100000)");
    if (I > 1'000'000) v.fail("intermediate_size", std::to_string(I) + " is beyond any vision tower (at most 1000000)");
    if (L > 10'000) v.fail("num_hidden_layers", std::to_string(L) + " is beyond any vision tower (at most 10000)");
    if (C > 1000) v.fail("num_channels", std::to_string(C) + " is beyond any image (at most 1000)");
    if (P > 10'000 || image / P > 10'000) v.fail("image_size", "more than 10000 patches a side is beyond any vision tower");
    const std::int64_t patches = (image / P) * (image / P);
    const std::int64_t layer = 2 * 2 * D + 4 * (D * D + D) + (D * I + I) + (I * D + D);
    std::int64_t n = (C * P * P * D + D) + patches * D + L * layer + 2 * D;
    if (v.boolean("vision_use_head", true, classDefault(cls)))  // SiglipMultiheadAttentionPoolingHead
        n += D + (3 * D * D + 3 * D) + (D * D + D) + 2 * D + (D * I + I) + (I * D + D);
    return n + D * textWidth + D;
}

// A config's architecture: the type's own parser where Scalex has one, a state-space stack where
// the keys describe one (a state size, no attention heads), any other decoder by its keys.
ModelSpec parseTyped(Fields& f, const std::string& type) {
    const auto it = parsers().find(type);
    if (it != parsers().end()) return it->second(f);
    if (f.has("state_size") && !f.has("num_attention_heads")) return parseMambaByKeys(f);
    if (f.has("kv_lora_rank")) {  // latent attention (Kimi K2's kimi_k2 is DeepSeek-V3's architecture)
        f.assume("model_type", "\"" + type + "\"", "kv_lora_rank: multi-head latent attention, read as DeepSeek-V3 (HF modeling_deepseek_v3)");
        return parseDeepseek(f, true);
    }
    return parseByKeys(f, type);
}

}  // namespace

const std::vector<std::string>& hfModelTypes() {
    static const std::vector<std::string> types = [] {
        std::set<std::string> t;
        for (const auto& [name, _] : parsers()) t.insert(name);
        for (const auto& [name, _] : typeHints()) t.insert(name);
        return std::vector<std::string>(t.begin(), t.end());
    }();
    return types;
}

Expected<HfModel> parseHfConfig(const QByteArray& bytes, const std::string& file) {
    auto parsed = parseJsonObject(bytes, file, "a model's config.json");
    if (!parsed) return parsed.error();
    const QJsonObject object = *parsed;
    HfModel out;
    ConfigReport& report = out.report;
    try {
        Fields f(object, file, report);
        Parser parser;
        if (!object.contains(QLatin1String("model_type")) && object.contains(QLatin1String("d_model")) &&
            object.contains(QLatin1String("ssm_cfg"))) {
            report.modelType = "mamba_ssm";
            parser = parseMambaSsm;
        } else {
            report.modelType = f.has("model_type") ? f.text("model_type", "", "") : std::string();
        }
        if (parser) {
            out.spec = parser(f);
        } else if (f.has("text_config") && !parsers().count(report.modelType)) {
            // A multimodal config: the language model is text_config (its own model_type, or the
            // parent's with "_text", as Llama4Config and Gemma3Config name theirs).
            Fields text = f.object("text_config");
            const std::string textType = text.has("model_type") ? text.text("model_type", "", "") : report.modelType + "_text";
            out.spec = parseTyped(text, textType);
            text.finish();
            if (report.modelType == "gemma3" && f.has("vision_config")) {
                Fields vision = f.object("vision_config");
                if (vision.text("model_type", "siglip_vision_model", "Gemma3Config's default") == "siglip_vision_model") {
                    report.visionParameters = gemma3VisionParameters(vision, out.spec.dModel);
                    report.vision = "the SigLIP vision tower and the projector (HF modeling_siglip, modeling_gemma3)";
                }
                vision.finish();
            }
        } else {
            out.spec = parseTyped(f, report.modelType);
        }
        out.spec.name = report.modelType.empty() ? "decoder" : report.modelType;
        f.finish();
    } catch (const ConfigFailure& failure) {
        return failure.error;
    }
    if (auto problem = accounting::validate(out.spec))
        return LoadError{file, 0, configKeyOf(problem->field, report.modelType), problem->message, true};
    return out;
}

Expected<HfModel> readHfConfig(const std::string& path) {
    auto bytes = readSmallJsonFile(path, "a config.json");
    if (!bytes) return bytes.error();
    return parseHfConfig(*bytes, path);
}

}  // namespace scalex::data
