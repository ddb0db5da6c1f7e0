// scalex account: the accounting of one model configuration as JSON or a readable summary: the
// paper's study architecture from options (--family ...), or any architecture from a Hugging Face
// config.json (--config).
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <algorithm>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/accounting/CacheSize.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"
#include "core/data/SpecJson.h"

namespace scalex::cli {

using namespace scalex::accounting;

namespace {

QJsonObject splitJson(const FlopSplit& s) {
    return {{"total", s.total()}, {"linear", s.linear}, {"seq_mix", s.seqMix}, {"other", s.other}};
}

QJsonObject splitJson(const ByteSplit& s) {
    return {{"total", s.total()}, {"linear", s.linear}, {"seq_mix", s.seqMix}, {"other", s.other}, {"weights", s.weights}};
}

struct FactorOption {
    const char* name;
    double OpFactors::*field;
};
constexpr FactorOption kFactorOptions[] = {
    {"f-causal", &OpFactors::causal}, {"f-softmax", &OpFactors::softmax}, {"f-norm", &OpFactors::norm},
    {"f-skip", &OpFactors::skip},     {"f-exp", &OpFactors::exp},         {"f-log", &OpFactors::log},
    {"f-sig", &OpFactors::sig},       {"f-max", &OpFactors::max},         {"f-abs", &OpFactors::abs},
    {"f-swish", &OpFactors::swish},
};

struct ByteOption {
    const char* name;
    double ByteWidths::*field;
};
constexpr ByteOption kByteOptions[] = {
    {"bytes-weights", &ByteWidths::weights}, {"bytes-embedding", &ByteWidths::embedding},
    {"bytes-qkv", &ByteWidths::qkv},         {"bytes-gates", &ByteWidths::gates},
    {"bytes-state", &ByteWidths::state},     {"bytes-act", &ByteWidths::act},
    {"bytes-act-norm", &ByteWidths::actNorm}, {"bytes-act-ff", &ByteWidths::actFf},
    {"bytes-norm-weights", &ByteWidths::normWeights},
};

QJsonObject groupsJson(const ParamGroups& g) {
    return {{"embedding", qint64(g.embedding)},     {"attention", qint64(g.attention)},
            {"feed_forward", qint64(g.feedForward)}, {"experts", qint64(g.experts)},
            {"recurrent", qint64(g.recurrent)},      {"norms", qint64(g.norms)},
            {"head", qint64(g.head)},                {"non_embedding", qint64(g.nonEmbedding())},
            {"total", qint64(g.total())}};
}

QJsonArray fieldsJson(const std::vector<data::ConfigField>& fields) {
    QJsonArray out;
    for (const auto& f : fields) {
        QJsonObject o{{"field", QString::fromStdString(f.name)}, {"value", QString::fromStdString(f.value)}};
        if (!f.note.empty()) o["note"] = QString::fromStdString(f.note);
        out.append(o);
    }
    return out;
}

QString fieldsText(const std::vector<data::ConfigField>& fields, bool withValues) {
    QStringList parts;
    for (const auto& f : fields) {
        QString part = QString::fromStdString(f.name);
        if (withValues) part += " = " + QString::fromStdString(f.value);
        if (!f.note.empty()) part += " (" + QString::fromStdString(f.note) + ")";
        parts << part;
    }
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(", ");
}

constexpr MixerKind kMixerKinds[] = {MixerKind::Attention, MixerKind::Mlstm, MixerKind::Mamba, MixerKind::DeltaNet,
                                     MixerKind::ShortConv};

QString mixerName(MixerKind k) {
    switch (k) {
        case MixerKind::Attention: return "attention";
        case MixerKind::Mlstm: return "mlstm";
        case MixerKind::Mamba: return "mamba";
        case MixerKind::DeltaNet: return "delta_net";
        case MixerKind::ShortConv: return "short_conv";
    }
    return "attention";
}

// The architecture in a few numbers: width, layers by kind, heads, feed-forward, experts, states.
QJsonObject specJson(const ModelSpec& s) {
    QJsonObject layers;
    for (MixerKind k : kMixerKinds)
        if (s.layerCount(k) > 0) layers[mixerName(k)] = qint64(s.layerCount(k));
    const auto local = std::count_if(s.layers.begin(), s.layers.end(), [](const LayerSpec& l) { return l.local; });
    QJsonObject o{{"model_type", QString::fromStdString(s.name)},
                  {"d_model", qint64(s.dModel)},
                  {"n_layers", qint64(s.layers.size())},
                  {"layers", layers},
                  {"vocab", qint64(s.vocab)},
                  {"tied_embeddings", s.tiedEmbeddings},
                  {"norm", s.norm == NormKind::Layer ? "layernorm" : "rmsnorm"}};
    if (s.layerCount(MixerKind::Attention) > 0) {
        const auto& a = s.attention;
        QJsonObject att{{"n_heads", qint64(a.nHeads)}, {"n_kv_heads", qint64(a.nKvHeads)}, {"d_qk", qint64(a.dQk)},
                        {"d_v", qint64(a.dV)}, {"local_layers", qint64(local)}};
        if (a.slidingWindow > 0) att["sliding_window"] = qint64(a.slidingWindow);
        if (a.latent()) {
            att["kv_lora_rank"] = qint64(a.kvLoraRank);
            att["q_lora_rank"] = qint64(a.qLoraRank);
            att["rope_dim"] = qint64(a.ropeDim);
        }
        o["attention"] = att;
    }
    if (s.layerCount(FeedForwardKind::Dense) > 0)
        o["feed_forward"] = QJsonObject{{"d_ff", qint64(s.feedForward.width)}, {"gated", s.feedForward.gated},
                                        {"layers", qint64(s.layerCount(FeedForwardKind::Dense))}};
    if (s.layerCount(FeedForwardKind::Moe) > 0)
        o["experts"] = QJsonObject{{"routed", qint64(s.moe.nRouted)}, {"top_k", qint64(s.moe.topK)},
                                   {"d_expert", qint64(s.moe.expertWidth)}, {"shared", qint64(s.moe.nShared)},
                                   {"layers", qint64(s.layerCount(FeedForwardKind::Moe))}};
    if (s.layerCount(MixerKind::Mlstm) > 0)
        o["mlstm"] = QJsonObject{{"n_heads", qint64(s.mlstm.nHeads)}, {"d_qk", qint64(s.mlstm.dQk)},
                                 {"d_hv", qint64(s.mlstm.dHv)}, {"chunk", qint64(s.mlstm.chunk)}};
    if (s.layerCount(MixerKind::Mamba) > 0)
        o["mamba"] = QJsonObject{{"version", s.mamba.version}, {"d_inner", qint64(s.mamba.dInner)},
                                 {"d_state", qint64(s.mamba.dState)}, {"d_conv", qint64(s.mamba.dConv)}};
    if (s.layerCount(MixerKind::DeltaNet) > 0)
        o["delta_net"] = QJsonObject{{"n_key_heads", qint64(s.deltaNet.nKeyHeads)}, {"n_value_heads", qint64(s.deltaNet.nValueHeads)},
                                     {"d_key", qint64(s.deltaNet.dKey)}, {"d_value", qint64(s.deltaNet.dValue)},
                                     {"d_conv", qint64(s.deltaNet.dConv)}};
    if (s.layerCount(MixerKind::ShortConv) > 0)
        o["short_conv"] = QJsonObject{{"d_conv", qint64(s.shortConv.dConv)}, {"bias", s.shortConv.bias}};
    return o;
}

QString specText(const ModelSpec& s) {
    QString t = QString::fromStdString(s.name) + ": d_model " + QString::number(s.dModel) + ", " +
                QString::number(s.layers.size()) + " layers";
    QStringList kinds;
    for (MixerKind k : kMixerKinds)
        if (s.layerCount(k) > 0) kinds << QString::number(s.layerCount(k)) + " " + mixerName(k);
    t += " (" + kinds.join(", ") + ")";
    if (s.layerCount(MixerKind::Attention) > 0) {
        const auto& a = s.attention;
        t += QStringLiteral(", %1 heads (kv %2), d_qk %3, d_v %4").arg(a.nHeads).arg(a.nKvHeads).arg(a.dQk).arg(a.dV);
        if (a.latent()) t += QStringLiteral(", latent kv %1 + rope %2").arg(a.kvLoraRank).arg(a.ropeDim);
        if (a.slidingWindow > 0) {
            const auto local = std::count_if(s.layers.begin(), s.layers.end(), [](const LayerSpec& l) { return l.local; });
            t += QStringLiteral(", window %1 on %2 layers").arg(a.slidingWindow).arg(local);
        }
    }
    if (s.layerCount(FeedForwardKind::Dense) > 0) t += ", d_ff " + QString::number(s.feedForward.width);
    if (s.layerCount(FeedForwardKind::Moe) > 0)
        t += QStringLiteral(", %1 experts top-%2 of %3 (+%4 shared) on %5 layers")
                 .arg(s.moe.nRouted).arg(s.moe.topK).arg(s.moe.expertWidth).arg(s.moe.nShared).arg(s.layerCount(FeedForwardKind::Moe));
    if (s.layerCount(MixerKind::Mamba) > 0)
        t += QStringLiteral(", Mamba-%1 d_inner %2 N %3").arg(s.mamba.version).arg(s.mamba.dInner).arg(s.mamba.dState);
    t += ", vocab " + QString::number(s.vocab) + (s.tiedEmbeddings ? " (tied)" : "");
    return t;
}

// --config or --spec: any architecture a Hugging Face config.json or a spec file describes,
// counted from its spec; --write-spec saves the spec in Scalex's JSON.
int accountConfig(const QCommandLineParser& p, const FlopConvention& convention, const ByteWidths& bytes) {
    const char* source = p.isSet("spec") ? "spec" : "config";
    if (p.isSet("spec") && p.isSet("config")) throw UsageError("--spec and --config are two sources of one model: give one");
    for (const char* option : {"family", "d-model", "n-layers", "n-heads", "n-kv-heads", "d-qk", "d-hv", "d-ff", "vocab",
                               "chunk", "cache", "prefill", "generate"})
        if (p.isSet(option))
            throw UsageError(QStringLiteral("--%1 does not go with --%2 (the file gives the architecture)").arg(option, source).toStdString());
    const auto model = data::readModelFile(p.value(source).toStdString());
    if (!model) throw UsageError(model.error().toString());
    const ModelSpec& spec = model->spec;
    if (p.isSet("write-spec")) writeAtomically(p.value("write-spec"), data::specJsonBytes(spec));
    const double ctx = static_cast<double>(*intOption(p, "ctx"));
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const ParamCounts params = paramCounts(spec);
    const FlopSplit fwd = forwardFlopsPerToken(spec, ctx, convention);
    const double train = trainingFlopsPerToken(spec, ctx, convention);
    const double sixN = 6.0 * static_cast<double>(params.activeTotal());
    const CacheElements cache = cacheElements(spec, ctx);
    const double cacheTotal = cacheBytes(spec, ctx, batch, bytes);
    const data::ConfigReport& report = model->report;

    if (!p.isSet("json")) {
        QString out;
        QTextStream s(&out);
        const ParamGroups& g = params.all;
        s << specText(spec) << "\n";
        s << "parameters              " << params.total() << "  (active " << params.activeTotal() << ", non-embedding "
          << g.nonEmbedding() << ")\n";
        s << "  embedding " << g.embedding << ", attention " << g.attention << ", feed-forward " << g.feedForward
          << ", experts " << g.experts << " (active " << params.active.experts << "), recurrent " << g.recurrent
          << ", norms " << g.norms << ", head " << g.head << "\n";
        s << "convention              " << QString::fromStdString(convention.name) << ", context " << ctx << "\n";
        s << "forward FLOPs / token   " << QString::number(fwd.total(), 'g', 10) << "  linear " << QString::number(fwd.linear, 'g', 6)
          << ", seq-mix " << QString::number(fwd.seqMix, 'g', 6) << ", other " << QString::number(fwd.other, 'g', 6) << "\n";
        s << "training FLOPs / token  " << QString::number(train, 'g', 10) << "  (" << QString::number(train / sixN, 'f', 4)
          << " x 6N, N active)\n";
        s << "cache (B " << batch << ", T " << ctx << ")      " << QString::number(cacheTotal, 'g', 6) << " bytes  (KV "
          << QString::number(batch * cache.kv * bytes.qkv, 'g', 6) << " at " << bytes.qkv << " B, state "
          << QString::number(batch * cache.state * bytes.state, 'g', 6) << " at " << bytes.state << " B)\n";
        if (report.visionParameters > 0)
            s << "vision                  " << report.visionParameters << "  (" << QString::fromStdString(report.vision)
              << ", not in the parameters above: they are the language model's)\n";
        s << "fields used:    " << fieldsText(report.used, true) << "\n";
        s << "fields ignored: " << fieldsText(report.ignored, false) << "\n";
        s << "assumed:        " << fieldsText(report.assumed, true) << "\n";
        printText(out);
        return kExitOk;
    }
    QJsonObject out{
        {"config", specJson(spec)},
        {"config_file", p.value(source)},
        {"config_fields", QJsonObject{{"used", fieldsJson(report.used)},
                                      {"ignored", fieldsJson(report.ignored)},
                                      {"assumed", fieldsJson(report.assumed)}}},
        {"convention", QString::fromStdString(convention.name)},
        {"ctx", ctx},
        {"batch", batch},
        {"params", qint64(params.total())},
        {"params_active", qint64(params.activeTotal())},
        {"params_groups", groupsJson(params.all)},
        {"params_active_groups", groupsJson(params.active)},
        {"fwd_flops_per_token", fwd.total()},
        {"fwd_flops_per_token_split", splitJson(fwd)},
        {"train_flops_per_token", train},
        {"train_flops_per_token_over_6n", train / sixN},
        {"cache_bytes", cacheTotal},
        {"cache_kv_bytes", batch * cache.kv * bytes.qkv},
        {"cache_state_bytes", batch * cache.state * bytes.state},
    };
    if (report.visionParameters > 0) {  // a multimodal config: params are the language model's
        out["vision_params"] = qint64(report.visionParameters);
        out["vision_params_of"] = QString::fromStdString(report.vision);
    }
    printJson(out);
    return kExitOk;
}

}  // namespace

int verbAccount(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Parameter, FLOP, memory-traffic and cache accounting (paper App. \"Accounting\").");
    p.addHelpOption();
    addModelOptions(p);
    QString types;
    for (const auto& t : data::hfModelTypes()) types += (types.isEmpty() ? "" : ", ") + QString::fromStdString(t);
    p.addOptions({
        {"config", "A Hugging Face config.json instead of --family and the sizes: any decoder read by its keys (" + types +
                       " known by type; state-spaces' mamba configs).", "file"},
        {"spec", "A model spec in Scalex's JSON (as --write-spec writes it) instead of --family and the sizes.", "file"},
        {"write-spec", "With --config or --spec: write the model's spec in Scalex's JSON to this file.", "file"},
        {"ctx", "Training context length T.", "n", "8192"},
        {"convention", "FLOP convention: study, appendix, chinchilla or 6nd.", "name", "study"},
        {"batch", "Inference batch size B.", "n", "1"},
        {"prefill", "Prefill length T_p; default the context length.", "n"},
        {"generate", "Generated tokens T_g.", "n", "1"},
        {"cache", "Cache kind: mha, gqa, mla (Transformer) or mlstm; default from the family.", "kind"},
        {"json", "Print one JSON object."},
    });
    for (const auto& f : kFactorOptions) p.addOption({f.name, QStringLiteral("FLOP factor %1.").arg(f.name), "x"});
    for (const auto& b : kByteOptions) p.addOption({b.name, QStringLiteral("Bytes per element, %1.").arg(b.name), "x"});
    if (!parseVerbArguments(p, args)) return kExitOk;

    auto convention = conventionByName(p.value("convention").toStdString());
    if (!convention)
        throw UsageError(("--convention: unknown convention '" + p.value("convention") +
                          "' (expected study, appendix, chinchilla or 6nd)").toStdString());
    for (const auto& f : kFactorOptions)
        if (auto v = doubleOption(p, f.name)) convention->ops.*(f.field) = *v;
    ByteWidths bytes;
    for (const auto& b : kByteOptions)
        if (auto v = doubleOption(p, b.name)) {
            if (*v < 0) throw UsageError(QStringLiteral("--%1 must not be negative").arg(b.name).toStdString());
            bytes.*(b.field) = *v;
        }
    if (p.isSet("config") || p.isSet("spec")) return accountConfig(p, *convention, bytes);
    if (p.isSet("write-spec")) throw UsageError("--write-spec needs --config or --spec");

    const Family family = familyOption(p);
    const ModelConfig config = modelFromOptions(p, family);

    const double ctx = static_cast<double>(*intOption(p, "ctx"));
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const double prefill = static_cast<double>(intOption(p, "prefill", 0).value_or(static_cast<std::int64_t>(ctx)));
    const double generate = static_cast<double>(*intOption(p, "generate"));

    SequenceMix mix = defaultSequenceMix(config);
    if (p.isSet("cache")) {
        auto m = parseSequenceMix(p.value("cache").toStdString());
        if (!m) throw UsageError(("--cache: unknown kind '" + p.value("cache") + "' (expected mha, gqa, mla or mlstm)").toStdString());
        if ((*m == SequenceMix::Mlstm) != (family == Family::Xlstm))
            throw UsageError(("--cache " + p.value("cache") + " contradicts --family " + p.value("family")).toStdString());
        mix = *m;
    }

    const ParamBreakdown params = countParameters(config);
    const FlopSplit fwd = forwardFlops(config, ctx, *convention);
    const double trainPerToken = trainingFlopsPerToken(config, ctx, *convention);
    const FlopSplit prefillF = prefillFlops(config, batch, prefill, *convention);
    const ByteSplit prefillB = forwardBytes(config, batch, prefill, bytes);
    const FlopSplit stepF = decodeStepFlops(config, batch, prefill, 1, *convention);
    const ByteSplit stepB = decodeStepBytes(config, batch, prefill, 1, bytes);
    const FlopSplit genF = generationFlops(config, batch, prefill, generate, *convention);
    const double cache = cacheBytes(config, mix, batch, prefill + generate, bytes);

    if (!p.isSet("json")) {
        QString out;
        QTextStream s(&out);
        s << familyLabel(config.family).data() << ": d_model " << config.dModel << ", " << config.nLayers << " layers, "
          << config.nHeads << " heads (kv " << config.nKvHeads << "), d_qk " << config.dQk << ", d_hv " << config.dHv
          << ", d_ff " << config.dFf << ", vocab " << config.vocab;
        if (config.family == Family::Xlstm) s << ", chunk " << config.chunk;
        s << "\nparameters              " << params.total() << "  (non-embedding " << params.nonEmbedding() << ")\n";
        s << "convention              " << QString::fromStdString(convention->name) << ", context " << ctx << "\n";
        s << "training FLOPs / token  " << QString::number(trainPerToken, 'g', 10) << "  (" << QString::number(trainPerToken / (6.0 * params.total()), 'f', 4) << " x 6N)\n";
        s << "forward FLOPs / seq     " << QString::number(fwd.total(), 'g', 10) << "  linear " << QString::number(fwd.linear, 'g', 6)
          << ", seq-mix " << QString::number(fwd.seqMix, 'g', 6) << ", other " << QString::number(fwd.other, 'g', 6) << "\n";
        s << "prefill (B " << batch << ", T_p " << prefill << ")  " << QString::number(prefillF.total(), 'g', 6) << " FLOPs, "
          << QString::number(prefillB.total(), 'g', 6) << " bytes\n";
        s << "decode step             " << QString::number(stepF.total(), 'g', 6) << " FLOPs, " << QString::number(stepB.total(), 'g', 6) << " bytes\n";
        s << "cache (" << sequenceMixName(mix).data() << ")            " << QString::number(cache, 'g', 6) << " bytes\n";
        printText(out);
        return kExitOk;
    }

    QJsonObject cfg{{"family", QString::fromUtf8(familyName(config.family).data())},
                    {"d_model", qint64(config.dModel)},  {"n_layers", qint64(config.nLayers)},
                    {"n_heads", qint64(config.nHeads)},  {"n_kv_heads", qint64(config.nKvHeads)},
                    {"d_qk", qint64(config.dQk)},        {"d_hv", qint64(config.dHv)},
                    {"d_ff", qint64(config.dFf)},        {"vocab", qint64(config.vocab)},
                    {"chunk", qint64(config.chunk)}};
    QJsonObject breakdown{{"embedding", qint64(params.embedding)},
                          {"unembedding", qint64(params.unembedding)},
                          {"final_norm", qint64(params.finalNorm)},
                          {"per_layer", qint64(params.perLayer())},
                          {"seq_mix_layer", qint64(params.seqMixLayer())},
                          {"ffn_layer", qint64(params.ffnLayer())},
                          {"qkv", qint64(params.qkv)},
                          {"gates", qint64(params.gates)},
                          {"output_gate", qint64(params.outputGate)},
                          {"output_norm", qint64(params.outputNorm)},
                          {"output_projection", qint64(params.outputProjection)},
                          {"ffn_mlp", qint64(params.ffnMlp)},
                          {"norms", qint64(params.seqMixPreNorm + params.ffnPreNorm)},
                          {"non_embedding", qint64(params.nonEmbedding())}};
    QJsonObject out{
        {"config", cfg},
        {"convention", QString::fromStdString(convention->name)},
        {"ctx", ctx},
        {"params", qint64(params.total())},
        {"params_active", qint64(params.total())},  // dense: every parameter is active
        {"params_breakdown", breakdown},
        {"params_groups", groupsJson(paramCounts(fromPaperConfig(config)).all)},
        {"train_flops_per_token", trainPerToken},
        {"train_flops_per_token_over_6n", trainPerToken / (6.0 * static_cast<double>(params.total()))},
        {"fwd_flops_per_seq", splitJson(fwd)},
        {"batch", batch},
        {"prefill", prefill},
        {"generate", generate},
        {"prefill_flops", prefillF.total()},
        {"prefill_flops_split", splitJson(prefillF)},
        {"prefill_bytes", prefillB.total()},
        {"prefill_bytes_split", splitJson(prefillB)},
        {"decode_step_flops", stepF.total()},
        {"decode_step_flops_split", splitJson(stepF)},
        {"decode_step_bytes", stepB.total()},
        {"decode_step_bytes_split", splitJson(stepB)},
        {"generation_flops", genF.total()},
        {"cache_kind", QString::fromUtf8(sequenceMixName(mix).data())},
        {"cache_bytes", cache},
    };
    printJson(out);
    return kExitOk;
}

}  // namespace scalex::cli
