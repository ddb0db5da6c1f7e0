#include "core/analysis/AccountJson.h"

#include <QJsonArray>
#include <algorithm>

#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"

namespace scalex::analysis {

using namespace scalex::accounting;

namespace {

QJsonObject splitJson(const FlopSplit& s) {
    return {{"total", s.total()}, {"linear", s.linear}, {"seq_mix", s.seqMix}, {"other", s.other}};
}

QJsonObject splitJson(const ByteSplit& s) {
    return {{"total", s.total()}, {"linear", s.linear}, {"seq_mix", s.seqMix}, {"other", s.other}, {"weights", s.weights}};
}

QJsonObject groupsJson(const ParamGroups& g) {
    return {{"embedding", qint64(g.embedding)},     {"attention", qint64(g.attention)},
            {"feed_forward", qint64(g.feedForward)}, {"experts", qint64(g.experts)},
            {"recurrent", qint64(g.recurrent)},      {"norms", qint64(g.norms)},
            {"head", qint64(g.head)},                {"shared_blocks", qint64(g.shared)},
            {"non_embedding", qint64(g.nonEmbedding())},
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

// The architecture in a few numbers: width, layers by kind, heads, feed-forward, experts, states.
QJsonObject specJson(const ModelSpec& s) {
    QJsonObject layers;
    for (MixerKind k : kMixerKinds)
        if (s.layerCount(k) > 0) layers[mixerKindName(k)] = qint64(s.layerCount(k));
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
    if (s.layerCount(FeedForwardKind::Moe) > 0) {
        QJsonObject experts{{"routed", qint64(s.moe.nRouted)}, {"top_k", qint64(s.moe.topK)},
                            {"d_expert", qint64(s.moe.expertWidth)}, {"shared", qint64(s.moe.nShared)},
                            {"gated", s.moe.gatedExperts}, {"layers", qint64(s.layerCount(FeedForwardKind::Moe))}};
        if (s.moe.latentWidth > 0) experts["d_latent"] = qint64(s.moe.latentWidth);
        o["experts"] = experts;
    }
    if (s.sharedUses() > 0) {
        const SharedBlockParams shared = sharedBlockParams(s);
        o["shared_blocks"] = QJsonObject{{"blocks", qint64(s.sharedBlock.blocks)}, {"uses", qint64(s.sharedUses())},
                                         {"params_per_block", qint64(shared.perBlock)}, {"params_per_use", qint64(shared.perUse)}};
    }
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

}  // namespace

QString mixerKindName(MixerKind k) {
    switch (k) {
        case MixerKind::Attention: return "attention";
        case MixerKind::Mlstm: return "mlstm";
        case MixerKind::Mamba: return "mamba";
        case MixerKind::DeltaNet: return "delta_net";
        case MixerKind::ShortConv: return "short_conv";
    }
    return "attention";
}

std::optional<ModelConfig> studyConfigFromSizes(Family family, std::int64_t dModel, std::int64_t nLayers, std::int64_t nHeads,
                                                const ConfigOverrides& ov, const std::string& headsOption, std::string* problem) {
    const auto fail = [&](std::string why) -> std::optional<ModelConfig> {
        *problem = std::move(why);
        return std::nullopt;
    };
    if (family == Family::Xlstm && ov.nKvHeads) return fail("--n-kv-heads applies to Transformers only (an mLSTM has no key/value head groups)");
    if (family == Family::Transformer && ov.chunk) return fail("--chunk applies to the mLSTM only");
    const ModelConfig c = makeStudyConfig(family, dModel, nLayers, nHeads, ov);
    if (auto why = validate(c)) {
        std::replace(why->begin(), why->end(), '_', '-');
        return fail("--" + *why);
    }
    if (!ov.dQk && !ov.dHv && c.dQk * c.nHeads * (family == Family::Xlstm ? 2 : 1) != c.dModel)
        return fail("--" + headsOption + " must divide --d-model (or give --d-qk and --d-hv)");
    return c;
}

std::optional<SequenceMix> cacheKindFor(const ModelConfig& config, const std::optional<std::string>& cache, const std::string& familyText,
                                        std::string* problem) {
    if (!cache) return defaultSequenceMix(config);
    const auto m = parseSequenceMix(*cache);
    if (!m) *problem = "--cache: unknown kind '" + *cache + "' (expected mha, gqa, mla or mlstm)";
    else if ((*m == SequenceMix::Mlstm) != (config.family == Family::Xlstm))
        *problem = "--cache " + *cache + " contradicts --family " + familyText;
    else return m;
    return std::nullopt;
}

QJsonObject accountStudyJson(const ModelConfig& config, SequenceMix mix, const FlopConvention& convention, const ByteWidths& bytes,
                             double ctx, double batch, double prefill, double generate) {
    const ParamBreakdown params = countParameters(config);
    const FlopSplit fwd = forwardFlops(config, ctx, convention);
    const double trainPerToken = trainingFlopsPerToken(config, ctx, convention);
    const FlopSplit prefillF = prefillFlops(config, batch, prefill, convention);
    const ByteSplit prefillB = forwardBytes(config, batch, prefill, bytes);
    const FlopSplit stepF = decodeStepFlops(config, batch, prefill, 1, convention);
    const ByteSplit stepB = decodeStepBytes(config, batch, prefill, 1, bytes);
    const FlopSplit genF = generationFlops(config, batch, prefill, generate, convention);
    const double cache = cacheBytes(config, mix, batch, prefill + generate, bytes);
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
        {"convention", QString::fromStdString(convention.name)},
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
    return out;
}

SpecAccount accountSpec(const ModelSpec& spec, const FlopConvention& convention, const ByteWidths& bytes, double ctx, double batch) {
    SpecAccount a;
    a.params = paramCounts(spec);
    a.forward = forwardFlopsPerToken(spec, ctx, convention);
    a.train = trainingFlopsPerToken(spec, ctx, convention);
    a.sixN = 6.0 * static_cast<double>(a.params.activeTotal());
    a.cache = cacheElements(spec, ctx);
    a.cacheBytes = cacheBytes(spec, ctx, batch, bytes);
    return a;
}

QJsonObject accountModelJson(const data::HfModel& model, const QString& file, const FlopConvention& convention, const ByteWidths& bytes,
                             double ctx, double batch) {
    const ModelSpec& spec = model.spec;
    const data::ConfigReport& report = model.report;
    const auto [params, fwd, train, sixN, cache, cacheTotal] = accountSpec(spec, convention, bytes, ctx, batch);
    QJsonObject out{
        {"config", specJson(spec)},
        {"config_file", file},
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
    return out;
}

}  // namespace scalex::analysis
