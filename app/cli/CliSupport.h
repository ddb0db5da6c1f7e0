#pragma once
// Small helpers shared by the verbs: option parsing with errors that name the option,
// and JSON output.
#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "core/accounting/ModelConfig.h"

namespace scalex::cli {

// Thrown for bad input; the message is printed as "scalex <verb>: <message>" and the verb exits 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitUnusable = 1;  // the input was read but is not usable (e.g. `check`)
inline constexpr int kExitUsage = 2;

// Parses `args` (argv without the program name, verb first) and throws UsageError on unknown options.
void parseOrThrow(QCommandLineParser& parser, const QStringList& args);

// parseOrThrow, then: --help prints the help and returns false (the verb returns kExitOk);
// positional arguments are refused unless `allowPositionals`.
bool parseVerbArguments(QCommandLineParser& parser, const QStringList& args, bool allowPositionals = false);

std::optional<std::int64_t> intOption(const QCommandLineParser& parser, const QString& name, std::int64_t min = 1);
std::int64_t requiredIntOption(const QCommandLineParser& parser, const QString& name, std::int64_t min = 1);
std::optional<double> doubleOption(const QCommandLineParser& parser, const QString& name);

// The architecture options every model verb shares: --family (optional), --d-model, --n-layers,
// --n-heads, --n-kv-heads, --d-qk, --d-hv, --d-ff, --vocab, --chunk.
void addModelOptions(QCommandLineParser& parser, bool withFamily = true);
accounting::Family familyOption(const QCommandLineParser& parser, const QString& name = QStringLiteral("family"));
// The configuration those options describe, the study's rules filling what is not given; bad or
// contradictory options throw UsageError naming the option.
accounting::ModelConfig modelFromOptions(const QCommandLineParser& parser, accounting::Family family,
                                         const QString& headsOption = QStringLiteral("n-heads"));

// Writes a file atomically (QSaveFile); a UsageError naming the file when it cannot.
void writeAtomically(const QString& path, const QByteArray& bytes);

// While a JsonCapture lives on this thread, printJson and printText append to it instead of
// writing to stdout (the Python module runs a verb and takes its --json as it would print it).
struct JsonCapture {
    JsonCapture();
    ~JsonCapture();
    JsonCapture(const JsonCapture&) = delete;
    JsonCapture& operator=(const JsonCapture&) = delete;
    QByteArray bytes;
    JsonCapture* previous;
};

void printJson(const QJsonObject& object);
void printJson(const QJsonDocument& document);

// Writes `text` to stdout.
void printText(const QString& text);
// Writes `text` to stderr (warnings: the verb goes on).
void printError(const QString& text);

}  // namespace scalex::cli
