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
#include "core/analysis/VerbOptions.h"

namespace scalex::cli {

// Bad input (analysis/VerbOptions.h): printed as "scalex <verb>: <message>", and the verb exits 2.
using analysis::UsageError;

inline constexpr int kExitOk = 0;
inline constexpr int kExitUnusable = 1;  // the input was read but is not usable (e.g. `check`)
inline constexpr int kExitUsage = 2;

// Option parsing with errors that name the option, shared with the Python module (analysis/VerbOptions.h).
using analysis::addModelOptions;
using analysis::doubleOption;
using analysis::familyOption;
using analysis::intOption;
using analysis::modelFromOptions;
using analysis::parseOrThrow;
using analysis::requiredIntOption;
using analysis::writeAtomically;  // a UsageError naming the file when it cannot

// parseOrThrow, then: --help prints the help and returns false (the verb returns kExitOk);
// positional arguments are refused unless `allowPositionals`.
bool parseVerbArguments(QCommandLineParser& parser, const QStringList& args, bool allowPositionals = false);

void printJson(const QJsonObject& object);
void printJson(const QJsonDocument& document);

// Writes `text` to stdout.
void printText(const QString& text);
// Writes `text` to stderr (warnings: the verb goes on).
void printError(const QString& text);

}  // namespace scalex::cli
