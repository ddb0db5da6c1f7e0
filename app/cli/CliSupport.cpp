#include "app/cli/CliSupport.h"

#include <cmath>
#include <cstdio>

namespace scalex::cli {

void parseOrThrow(QCommandLineParser& parser, const QStringList& args) {
    // args[0] is the verb; QCommandLineParser skips the first element as the program name.
    if (!parser.parse(args)) throw UsageError(parser.errorText().toStdString());
}

bool parseVerbArguments(QCommandLineParser& parser, const QStringList& args, bool allowPositionals) {
    parseOrThrow(parser, args);
    if (parser.isSet(QStringLiteral("help"))) {
        printText(parser.helpText());
        return false;
    }
    if (!allowPositionals && !parser.positionalArguments().isEmpty())
        throw UsageError(("unexpected argument '" + parser.positionalArguments().first() + "'").toStdString());
    return true;
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

void printJson(const QJsonObject& object) { printJson(QJsonDocument(object)); }

void printJson(const QJsonDocument& document) {
    const QByteArray bytes = document.toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

void printText(const QString& text) {
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

}  // namespace scalex::cli
