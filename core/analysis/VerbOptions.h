#pragma once
// The options of a verb as QtCore's QCommandLineParser holds them, read with errors that name the
// option: shared by the program's verbs (app/cli) and the Python module (app/python), which parses
// its keywords as the verb's command line, so both give the same defaults and the same messages.
#include <QByteArray>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "core/accounting/ModelConfig.h"

namespace scalex::analysis {

// Bad input to a verb: the message names the option (the program prints "scalex <verb>: <message>"
// and exits 2; the module raises scalex.Error with it).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Parses `args` (verb first, then its options) and throws UsageError on unknown options.
void parseOrThrow(QCommandLineParser& parser, const QStringList& args);

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

}  // namespace scalex::analysis
