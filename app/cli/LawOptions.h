#pragma once
// The options that state a law, shared by `fit law` and `plan`: --formula / --param or --law,
// --loss, --space, --huber-delta, --starts, --no-projection; and row conditions given as options.
#include <QCommandLineParser>
#include <optional>
#include <vector>

#include "core/analysis/Condition.h"
#include "core/analysis/LawAnalysis.h"

namespace scalex::cli {

// --formula, --param, --law, --loss, --space, --huber-delta, --starts (default `starts`), --no-projection.
void addLawOptions(QCommandLineParser& parser, int starts = fit::LawFitSettings{}.starts);
// The law those options describe (UsageError naming the option at fault).
fit::LawDefinition lawFromOptions(const QCommandLineParser& parser);
// --starts and --no-projection on top of `settings`.
void applyLawFitOptions(const QCommandLineParser& parser, fit::LawFitSettings& settings);

// The conditions of a repeatable option (all must hold); nullopt when it is not given.
std::optional<std::vector<analysis::RowCondition>> conditionOptions(const QCommandLineParser& parser, const QString& name);

}  // namespace scalex::cli
