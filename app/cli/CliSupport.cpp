#include "app/cli/CliSupport.h"

#include <cstdio>

namespace scalex::cli {

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

void printJson(const QJsonObject& object) { printJson(QJsonDocument(object)); }

void printJson(const QJsonDocument& document) {
    const QByteArray bytes = document.toJson(QJsonDocument::Indented);
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
    std::fflush(stdout);
}

namespace {
void write(std::FILE* stream, const QString& text) {
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stream);
    std::fflush(stream);
}
}  // namespace

void printText(const QString& text) { write(stdout, text); }
void printError(const QString& text) { write(stderr, text); }

}  // namespace scalex::cli
