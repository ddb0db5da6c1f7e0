// scalex account: the accounting of one model configuration as JSON or a readable summary: the
// paper's study architecture from options (--family ...), or any architecture from a Hugging Face
// config.json (--config).
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <algorithm>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/analysis/AccountJson.h"
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

QString specText(const ModelSpec& s) {
    QString t = QString::fromStdString(s.name) + ": d_model " + QString::number(s.dModel) + ", " +
                QString::number(s.layers.size()) + " layers";
    QStringList kinds;
    for (MixerKind k : analysis::kMixerKinds)
        if (s.layerCount(k) > 0) kinds << QString::number(s.layerCount(k)) + " " + analysis::mixerKindName(k);
    t += " (" + kinds.join(", ") + ")";
    if (s.sharedUses() > 0)
        t += QStringLiteral(", %1 shared transformer blocks used by %2 layers").arg(s.sharedBlock.blocks).arg(s.sharedUses());
    if (s.layerCount(MixerKind::Attention) > 0 || s.sharedUses() > 0) {
        const auto& a = s.attention;
        t += QStringLiteral(", %1 heads (kv %2), d_qk %3, d_v %4").arg(a.nHeads).arg(a.nKvHeads).arg(a.dQk).arg(a.dV);
        if (a.latent()) t += QStringLiteral(", latent kv %1 + rope %2").arg(a.kvLoraRank).arg(a.ropeDim);
        if (a.slidingWindow > 0) {
            const auto local = std::count_if(s.layers.begin(), s.layers.end(), [](const LayerSpec& l) { return l.local; });
            t += QStringLiteral(", window %1 on %2 layers").arg(a.slidingWindow).arg(local);
        }
    }
    if (s.layerCount(FeedForwardKind::Dense) > 0 || s.sharedUses() > 0) t += ", d_ff " + QString::number(s.feedForward.width);
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
    const auto [params, fwd, train, sixN, cache, cacheTotal] = analysis::accountSpec(spec, convention, bytes, ctx, batch);
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
          << ", norms " << g.norms << ", head " << g.head;
        if (g.shared > 0) {
            const SharedBlockParams shared = sharedBlockParams(spec);
            s << ", shared blocks " << g.shared << " (" << spec.sharedBlock.blocks << " x " << shared.perBlock << " counted once, "
              << spec.sharedUses() << " uses x " << shared.perUse << ")";
        }
        s << "\n";
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
    printJson(analysis::accountModelJson(*model, p.value(source), convention, bytes, ctx, batch));
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
    for (const auto& f : analysis::kAccountFactorOptions) p.addOption({f.name, QStringLiteral("FLOP factor %1.").arg(f.name), "x"});
    for (const auto& b : analysis::kAccountByteOptions) p.addOption({b.name, QStringLiteral("Bytes per element, %1.").arg(b.name), "x"});
    if (!parseVerbArguments(p, args)) return kExitOk;

    auto convention = conventionByName(p.value("convention").toStdString());
    if (!convention)
        throw UsageError(("--convention: unknown convention '" + p.value("convention") +
                          "' (expected study, appendix, chinchilla or 6nd)").toStdString());
    for (const auto& f : analysis::kAccountFactorOptions)
        if (auto v = doubleOption(p, f.name)) convention->ops.*(f.field) = *v;
    ByteWidths bytes;
    for (const auto& b : analysis::kAccountByteOptions)
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

    std::string problem;
    const auto mix = analysis::cacheKindFor(config, p.isSet("cache") ? std::optional(p.value("cache").toStdString()) : std::nullopt,
                                            p.value("family").toStdString(), &problem);
    if (!mix) throw UsageError(problem);
    if (p.isSet("json")) {
        printJson(analysis::accountStudyJson(config, *mix, *convention, bytes, ctx, batch, prefill, generate));
        return kExitOk;
    }

    const ParamBreakdown params = countParameters(config);
    const FlopSplit fwd = forwardFlops(config, ctx, *convention);
    const double trainPerToken = trainingFlopsPerToken(config, ctx, *convention);
    const FlopSplit prefillF = prefillFlops(config, batch, prefill, *convention);
    const ByteSplit prefillB = forwardBytes(config, batch, prefill, bytes);
    const FlopSplit stepF = decodeStepFlops(config, batch, prefill, 1, *convention);
    const ByteSplit stepB = decodeStepBytes(config, batch, prefill, 1, bytes);
    const double cache = cacheBytes(config, *mix, batch, prefill + generate, bytes);

    {
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
        s << "cache (" << sequenceMixName(*mix).data() << ")            " << QString::number(cache, 'g', 6) << " bytes\n";
        printText(out);
    }
    return kExitOk;
}

}  // namespace scalex::cli
