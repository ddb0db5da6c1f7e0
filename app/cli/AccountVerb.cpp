// scalex account: the accounting of one model configuration as JSON or a readable summary.
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/accounting/CacheSize.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ParamCount.h"

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

}  // namespace

int verbAccount(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Parameter, FLOP, memory-traffic and cache accounting (paper App. \"Accounting\").");
    p.addHelpOption();
    addModelOptions(p);
    p.addOptions({
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

    const Family family = familyOption(p);
    const ModelConfig config = modelFromOptions(p, family);

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
        {"params_breakdown", breakdown},
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
