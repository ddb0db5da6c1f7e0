#include "core/analysis/VerbOptions.h"

#include <QSaveFile>
#include <cmath>
#include <string>

#include "core/analysis/AccountJson.h"

namespace scalex::analysis {

void parseOrThrow(QCommandLineParser& parser, const QStringList& args) {
    // args[0] is the verb; QCommandLineParser skips the first element as the program name.
    if (!parser.parse(args)) throw UsageError(parser.errorText().toStdString());
}

std::optional<std::int64_t> intOption(const QCommandLineParser& parser, const QString& name, std::int64_t min) {
    // value() falls back to the option's default, which isSet() does not report.
    if (!parser.isSet(name) && parser.value(name).isEmpty()) return std::nullopt;
    const QString text = parser.value(name);
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    if (!ok) {
        // Accept 8e3-style integers, reject fractions.
        const double d = text.toDouble(&ok);
        if (!ok || d != std::floor(d) || std::fabs(d) > 9.0e15)
            throw UsageError(("--" + name + " expects a whole number, got '" + text + "'").toStdString());
        return static_cast<std::int64_t>(d);
    }
    if (v < min)
        throw UsageError(("--" + name + " must be at least " + QString::number(min) + ", got " + text).toStdString());
    return v;
}

std::int64_t requiredIntOption(const QCommandLineParser& parser, const QString& name, std::int64_t min) {
    auto v = intOption(parser, name, min);
    if (!v) throw UsageError(("missing required option --" + name).toStdString());
    return *v;
}

std::optional<double> doubleOption(const QCommandLineParser& parser, const QString& name) {
    if (!parser.isSet(name) && parser.value(name).isEmpty()) return std::nullopt;
    bool ok = false;
    const double v = parser.value(name).toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw UsageError(("--" + name + " expects a number, got '" + parser.value(name) + "'").toStdString());
    return v;
}

void addModelOptions(QCommandLineParser& p, bool withFamily) {
    if (withFamily) p.addOption({"family", "transformer (llama) or xlstm (mlstm).", "name"});
    p.addOptions({
        {"d-model", "Model width.", "n"},
        {"n-layers", "Number of layers.", "n"},
        {"n-heads", "Number of (query) heads.", "n"},
        {"n-kv-heads", "Key/value heads (Transformer GQA); default n-heads.", "n"},
        {"d-qk", "Per-head query/key width; default d/H (Transformer) or d/2/H (mLSTM).", "n"},
        {"d-hv", "Per-head value width; default d/H.", "n"},
        {"d-ff", "Feed-forward width; default the study's rounding of 2.667 d.", "n"},
        {"vocab", "Vocabulary size.", "n", "50304"},
        {"chunk", "mLSTM chunk size L.", "n", "64"},
    });
}

accounting::Family familyOption(const QCommandLineParser& p, const QString& name) {
    if (!p.isSet(name)) throw UsageError(("missing required option --" + name + " (transformer or xlstm)").toStdString());
    const auto f = accounting::parseFamily(p.value(name).toStdString());
    if (!f)
        throw UsageError(("--" + name + ": unknown family '" + p.value(name) + "' (expected transformer or xlstm)").toStdString());
    return *f;
}

accounting::ModelConfig modelFromOptions(const QCommandLineParser& p, accounting::Family family, const QString& headsOption) {
    accounting::ConfigOverrides ov;
    ov.nKvHeads = intOption(p, "n-kv-heads");
    ov.dQk = intOption(p, "d-qk");
    ov.dHv = intOption(p, "d-hv");
    ov.dFf = intOption(p, "d-ff");
    ov.vocab = intOption(p, "vocab");
    ov.chunk = intOption(p, "chunk");
    // --chunk has a default (64): only a chunk given by hand contradicts a Transformer.
    if (!p.isSet("chunk")) ov.chunk.reset();
    std::string problem;
    // In this order, so that a missing size is named as the module (scalex.account) names it.
    const std::int64_t dModel = requiredIntOption(p, "d-model"), nLayers = requiredIntOption(p, "n-layers"),
                       nHeads = requiredIntOption(p, headsOption);
    const auto c = analysis::studyConfigFromSizes(family, dModel, nLayers, nHeads, ov, headsOption.toStdString(), &problem);
    if (!c) throw UsageError(problem);
    return *c;
}

void writeAtomically(const QString& path, const QByteArray& bytes) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        throw UsageError(("cannot write '" + path + "': " + f.errorString()).toStdString());
}

}  // namespace scalex::analysis
