#include "core/data/SpecJson.h"

#include "core/data/JsonObject.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>
#include <set>
#include <tuple>
#include <variant>

namespace scalex::data {

using namespace accounting;

namespace {

constexpr double kMaxWholeNumber = 9007199254740992.0;  // 2^53
constexpr std::int64_t kMaxLayers = 100000;             // as the config reader: keeps the layer list bounded

// One scalar field of a block: its JSON key and the member it is.
template <class S>
struct Field {
    const char* key;
    std::variant<std::int64_t S::*, int S::*, bool S::*> member;
};

const std::vector<Field<ModelSpec>>& modelFields() {
    static const std::vector<Field<ModelSpec>> f = {
        {"d_model", &ModelSpec::dModel},           {"vocab", &ModelSpec::vocab},
        {"tied_embeddings", &ModelSpec::tiedEmbeddings}, {"learned_positions", &ModelSpec::learnedPositions},
        {"norms_per_block", &ModelSpec::normsPerBlock},  {"final_norm", &ModelSpec::finalNorm},
    };
    return f;
}
// Written only where set, so that specs without them keep their files.
const std::vector<Field<ModelSpec>>& optionalModelFields() {
    static const std::vector<Field<ModelSpec>> f = {{"head_bias", &ModelSpec::headBias}};
    return f;
}
const std::vector<Field<AttentionSpec>>& attentionFields() {
    static const std::vector<Field<AttentionSpec>> f = {
        {"n_heads", &AttentionSpec::nHeads},       {"n_kv_heads", &AttentionSpec::nKvHeads},
        {"d_qk", &AttentionSpec::dQk},             {"d_v", &AttentionSpec::dV},
        {"qkv_bias", &AttentionSpec::qkvBias},     {"output_bias", &AttentionSpec::outputBias},
        {"q_lora_rank", &AttentionSpec::qLoraRank}, {"kv_lora_rank", &AttentionSpec::kvLoraRank},
        {"rope_dim", &AttentionSpec::ropeDim},     {"sliding_window", &AttentionSpec::slidingWindow},
        {"chunked", &AttentionSpec::chunked},      {"sinks", &AttentionSpec::sinks},
        {"output_gate", &AttentionSpec::outputGate},
    };
    return f;
}
const std::vector<Field<FeedForwardSpec>>& feedForwardFields() {
    static const std::vector<Field<FeedForwardSpec>> f = {
        {"width", &FeedForwardSpec::width}, {"gated", &FeedForwardSpec::gated}, {"bias", &FeedForwardSpec::bias}};
    return f;
}
const std::vector<Field<MoeSpec>>& moeFields() {
    static const std::vector<Field<MoeSpec>> f = {
        {"n_routed", &MoeSpec::nRouted},         {"top_k", &MoeSpec::topK},
        {"expert_width", &MoeSpec::expertWidth}, {"n_shared", &MoeSpec::nShared},
        {"shared_width", &MoeSpec::sharedWidth}, {"router_bias", &MoeSpec::routerBias},
        {"shared_expert_gate", &MoeSpec::sharedExpertGate}, {"expert_bias", &MoeSpec::expertBias},
        {"gated_experts", &MoeSpec::gatedExperts}, {"latent_width", &MoeSpec::latentWidth},
    };
    return f;
}
const std::vector<Field<MlstmSpec>>& mlstmFields() {
    static const std::vector<Field<MlstmSpec>> f = {
        {"n_heads", &MlstmSpec::nHeads}, {"d_qk", &MlstmSpec::dQk}, {"d_hv", &MlstmSpec::dHv}, {"chunk", &MlstmSpec::chunk}};
    return f;
}
const std::vector<Field<MambaSpec>>& mambaFields() {
    static const std::vector<Field<MambaSpec>> f = {
        {"version", &MambaSpec::version},     {"d_inner", &MambaSpec::dInner},   {"d_state", &MambaSpec::dState},
        {"d_conv", &MambaSpec::dConv},        {"dt_rank", &MambaSpec::dtRank},   {"n_heads", &MambaSpec::nHeads},
        {"n_groups", &MambaSpec::nGroups},    {"conv_bias", &MambaSpec::convBias}, {"proj_bias", &MambaSpec::projBias},
        {"inner_norms", &MambaSpec::innerNorms},
    };
    return f;
}

const std::vector<Field<DeltaNetSpec>>& deltaNetFields() {
    static const std::vector<Field<DeltaNetSpec>> f = {
        {"n_key_heads", &DeltaNetSpec::nKeyHeads}, {"n_value_heads", &DeltaNetSpec::nValueHeads},
        {"d_key", &DeltaNetSpec::dKey},            {"d_value", &DeltaNetSpec::dValue},
        {"d_conv", &DeltaNetSpec::dConv},
    };
    return f;
}
const std::vector<Field<ShortConvSpec>>& shortConvFields() {
    static const std::vector<Field<ShortConvSpec>> f = {{"d_conv", &ShortConvSpec::dConv}, {"bias", &ShortConvSpec::bias}};
    return f;
}

const std::vector<Field<SharedBlockSpec>>& sharedBlockFields() {
    static const std::vector<Field<SharedBlockSpec>> f = {
        {"blocks", &SharedBlockSpec::blocks}, {"adapter_rank", &SharedBlockSpec::adapterRank},
        {"attention_adapters", &SharedBlockSpec::attentionAdapters}, {"mlp_adapters", &SharedBlockSpec::mlpAdapters},
    };
    return f;
}

// Names of the enumerations, in the order of their values.
const std::vector<std::pair<MixerKind, const char*>> kMixers = {
    {MixerKind::Attention, "attention"}, {MixerKind::Mlstm, "mlstm"}, {MixerKind::Mamba, "mamba"},
    {MixerKind::DeltaNet, "delta_net"}, {MixerKind::ShortConv, "short_conv"}};
const std::vector<std::pair<FeedForwardKind, const char*>> kFeedForwards = {
    {FeedForwardKind::None, "none"}, {FeedForwardKind::Dense, "dense"}, {FeedForwardKind::Moe, "moe"}};
const std::vector<std::pair<NormKind, const char*>> kNorms = {{NormKind::Rms, "rmsnorm"}, {NormKind::Layer, "layernorm"}};
const std::vector<std::pair<QkNorm, const char*>> kQkNorms = {
    {QkNorm::None, "none"}, {QkNorm::PerHead, "per_head"}, {QkNorm::AllHeads, "all_heads"}};

template <class E>
const char* nameOf(const std::vector<std::pair<E, const char*>>& names, E value) {
    for (const auto& [v, n] : names)
        if (v == value) return n;
    return names.front().second;
}

template <class S>
void writeFields(QJsonObject& o, const S& s, const std::vector<Field<S>>& fields) {
    for (const auto& f : fields)
        std::visit([&](auto m) { o[QLatin1String(f.key)] = QJsonValue(static_cast<std::conditional_t<
                                     std::is_same_v<decltype(s.*m), const bool&>, bool, qint64>>(s.*m)); },
                   f.member);
}

template <class S>
void writeBlock(QJsonObject& o, const char* key, const S& s, const std::vector<Field<S>>& fields,
                std::initializer_list<std::pair<const char*, QJsonValue>> extra = {}) {
    if (s == S{}) return;
    QJsonObject block;
    writeFields(block, s, fields);
    for (const auto& [k, v] : extra) block[QLatin1String(k)] = v;
    o[QLatin1String(key)] = block;
}

struct Failure {
    LoadError error;
};

// Typed reads of one object of the spec; every key must be read by the end (finish()).
class Reader {
public:
    Reader(QJsonObject o, std::string file, std::string prefix) : o_(std::move(o)), file_(std::move(file)), prefix_(std::move(prefix)) {}

    [[noreturn]] void fail(const std::string& key, const std::string& message) const {
        throw Failure{LoadError{file_, 0, prefix_ + key, message, true}};
    }
    bool has(const char* key) const { return o_.contains(QLatin1String(key)); }
    QJsonValue take(const char* key) {
        seen_.insert(key);
        return o_.value(QLatin1String(key));
    }
    std::int64_t whole(const char* key, double min, double max) {
        const QJsonValue v = take(key);
        const double x = v.toDouble(NAN);
        if (!v.isDouble() || std::floor(x) != x || x < min || x > max)
            fail(key, "expected a whole number " +
                          (max >= kMaxWholeNumber ? "of at least " + std::to_string(static_cast<long long>(min))
                                                  : "from " + std::to_string(static_cast<long long>(min)) + " to " +
                                                        std::to_string(static_cast<long long>(max))) +
                          ", got " + text(v));
        return static_cast<std::int64_t>(x);
    }
    template <class S>
    void fields(S& s, const std::vector<Field<S>>& fields) {
        for (const auto& f : fields) {
            if (!has(f.key)) continue;
            std::visit(
                [&](auto m) {
                    using T = std::remove_reference_t<decltype(s.*m)>;
                    if constexpr (std::is_same_v<T, bool>) {
                        const QJsonValue v = take(f.key);
                        if (!v.isBool()) fail(f.key, "expected true or false, got " + text(v));
                        s.*m = v.toBool();
                    } else {
                        constexpr double top = std::is_same_v<T, int> ? 1e9 : kMaxWholeNumber;
                        s.*m = static_cast<T>(whole(f.key, 0, top));
                    }
                },
                f.member);
        }
    }
    template <class E>
    E choice(const char* key, const std::vector<std::pair<E, const char*>>& names, E fallback) {
        if (!has(key)) return fallback;
        const QJsonValue v = take(key);
        std::string known;
        for (const auto& [value, name] : names) {
            if (v.toString() == QLatin1String(name)) return value;
            known += (known.empty() ? "" : ", ") + std::string(name);
        }
        fail(key, "expected one of " + known + ", got " + text(v));
    }
    std::string string(const char* key) {
        if (!has(key)) return {};
        const QJsonValue v = take(key);
        if (!v.isString()) fail(key, "expected a string, got " + text(v));
        return v.toString().toStdString();
    }
    Reader object(const char* key) {
        const QJsonValue v = take(key);
        if (!v.isObject()) fail(key, "expected a JSON object, got " + text(v));
        return Reader(v.toObject(), file_, prefix_ + key + ".");
    }
    void finish() const {
        for (auto it = o_.begin(); it != o_.end(); ++it)
            if (!seen_.count(it.key().toStdString())) fail(it.key().toStdString(), "unknown field of a model spec");
    }
    static std::string text(const QJsonValue& v) {
        if (v.isString()) return "\"" + v.toString().toStdString() + "\"";
        if (v.isUndefined()) return "nothing";
        return QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1).toStdString();
    }

private:
    QJsonObject o_;
    std::string file_;
    std::string prefix_;
    std::set<std::string> seen_;
};

template <class S>
void readBlock(Reader& r, const char* key, S& s, const std::vector<Field<S>>& fields) {
    if (!r.has(key)) return;
    Reader block = r.object(key);
    block.fields(s, fields);
    if constexpr (std::is_same_v<S, AttentionSpec>) s.qkNorm = block.choice("qk_norm", kQkNorms, QkNorm::None);
    block.finish();
}

void readLayers(Reader& r, ModelSpec& s, const std::string& file) {
    const QJsonValue v = r.take("layers");
    if (!v.isArray()) r.fail("layers", "expected a list of layer runs, got " + Reader::text(v));
    const QJsonArray runs = v.toArray();
    for (int i = 0; i < runs.size(); ++i) {
        if (!runs[i].isObject()) r.fail("layers", "expected a JSON object for run " + std::to_string(i) + ", got " + Reader::text(runs[i]));
        Reader run(runs[i].toObject(), file, "layers[" + std::to_string(i) + "].");
        LayerSpec layer;
        layer.mixer = run.choice("mixer", kMixers, MixerKind::Attention);
        layer.feedForward = run.choice("feed_forward", kFeedForwards, FeedForwardKind::Dense);
        const auto flag = [&run](const char* key) {
            const QJsonValue v = run.take(key);
            if (!v.isBool()) run.fail(key, "expected true or false, got " + Reader::text(v));
            return v.toBool();
        };
        if (run.has("local")) layer.local = flag("local");
        if (run.has("shared")) layer.shared = flag("shared");
        const std::int64_t repeat =
            run.has("repeat") ? run.whole("repeat", 1, static_cast<double>(kMaxLayers - static_cast<std::int64_t>(s.layers.size()))) : 1;
        run.finish();
        s.layers.insert(s.layers.end(), static_cast<std::size_t>(repeat), layer);
    }
}

}  // namespace

QJsonObject specToJson(const ModelSpec& s) {
    QJsonObject o{{"format", QLatin1String(kSpecFormatName)}, {"format_version", kSpecFormatVersion},
                  {"name", QString::fromStdString(s.name)}, {"norm", QLatin1String(nameOf(kNorms, s.norm))}};
    writeFields(o, s, modelFields());
    if (s.headBias) writeFields(o, s, optionalModelFields());
    writeBlock(o, "attention", s.attention, attentionFields(), {{"qk_norm", QLatin1String(nameOf(kQkNorms, s.attention.qkNorm))}});
    writeBlock(o, "feed_forward", s.feedForward, feedForwardFields());
    writeBlock(o, "moe", s.moe, moeFields());
    writeBlock(o, "mlstm", s.mlstm, mlstmFields());
    writeBlock(o, "mamba", s.mamba, mambaFields());
    writeBlock(o, "delta_net", s.deltaNet, deltaNetFields());
    writeBlock(o, "short_conv", s.shortConv, shortConvFields());
    writeBlock(o, "shared_block", s.sharedBlock, sharedBlockFields());
    QJsonArray layers;
    for (std::size_t i = 0; i < s.layers.size();) {
        std::size_t j = i;
        while (j < s.layers.size() && s.layers[j] == s.layers[i]) ++j;
        QJsonObject run{{"mixer", QLatin1String(nameOf(kMixers, s.layers[i].mixer))},
                        {"feed_forward", QLatin1String(nameOf(kFeedForwards, s.layers[i].feedForward))}};
        if (s.layers[i].local) run["local"] = true;
        if (s.layers[i].shared) run["shared"] = true;
        if (j - i > 1) run["repeat"] = static_cast<qint64>(j - i);
        layers.append(run);
        i = j;
    }
    o["layers"] = layers;
    return o;
}

QByteArray specJsonBytes(const ModelSpec& spec) { return QJsonDocument(specToJson(spec)).toJson(QJsonDocument::Indented); }

bool isSpecJson(const QJsonObject& object) { return object.value("format").toString() == QLatin1String(kSpecFormatName); }

Expected<ModelSpec> specFromJson(const QJsonObject& object, const std::string& file) {
    ModelSpec s;
    try {
        Reader r(object, file, "");
        if (r.string("format") != kSpecFormatName)
            r.fail("format", std::string("not a Scalex model spec (expected \"format\": \"") + kSpecFormatName + "\")");
        if (r.whole("format_version", 1, 1e9) > kSpecFormatVersion)
            r.fail("format_version", "a newer spec format than this Scalex reads (" + std::to_string(kSpecFormatVersion) + ")");
        s.name = r.string("name");
        s.norm = r.choice("norm", kNorms, NormKind::Rms);
        r.fields(s, modelFields());
        r.fields(s, optionalModelFields());
        readBlock(r, "attention", s.attention, attentionFields());
        readBlock(r, "feed_forward", s.feedForward, feedForwardFields());
        readBlock(r, "moe", s.moe, moeFields());
        readBlock(r, "mlstm", s.mlstm, mlstmFields());
        readBlock(r, "mamba", s.mamba, mambaFields());
        readBlock(r, "delta_net", s.deltaNet, deltaNetFields());
        readBlock(r, "short_conv", s.shortConv, shortConvFields());
        readBlock(r, "shared_block", s.sharedBlock, sharedBlockFields());
        if (!r.has("layers")) r.fail("layers", "missing; a spec lists its layers");
        readLayers(r, s, file);
        r.finish();
    } catch (const Failure& f) {
        return f.error;
    }
    if (auto problem = validate(s)) return LoadError{file, 0, problem->field, problem->message, true};
    return s;
}

Expected<ModelSpec> parseSpecJson(const QByteArray& bytes, const std::string& file) {
    auto object = parseJsonObject(bytes, file, "a Scalex model spec");
    if (!object) return object.error();
    return specFromJson(*object, file);
}

Expected<HfModel> parseModelFile(const QByteArray& bytes, const std::string& file) {
    auto object = parseJsonObject(bytes, file, "a model spec or a model's config.json");
    if (!object) return object.error();
    if (!isSpecJson(*object)) return parseHfConfig(bytes, file);
    auto spec = specFromJson(*object, file);
    if (!spec) return spec.error();
    HfModel model{std::move(*spec), {}};
    model.report.modelType = kSpecFormatName;
    for (auto it = object->begin(); it != object->end(); ++it)
        model.report.used.push_back({it.key().toStdString(), Reader::text(it.value()), ""});
    return model;
}

Expected<HfModel> readModelFile(const std::string& path) {
    auto bytes = readSmallJsonFile(path, "a model file");
    if (!bytes) return bytes.error();
    return parseModelFile(*bytes, path);
}

}  // namespace scalex::data
