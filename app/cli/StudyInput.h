#pragma once
// What the verbs that analyse runs share: reading run tables and projects into one study, and
// the scope options (--series, --where, --all-runs, --ctx, --experiment-set) that set the one
// analysis::AnalysisSettings value the window and projects use too.
#include <QCommandLineParser>
#include <QStringList>
#include <optional>

#include "core/analysis/AnalysisSettings.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"

namespace scalex::cli {

struct StudyInput {
    data::RunTable table;                  // the runs of every file (a project's tables merged)
    QStringList files;
    std::optional<data::Project> project;  // the project, when the input was one .scalex file
    analysis::AnalysisSettings settings;   // the project's (or the defaults), then the options
};

// --series, --where, --all-runs, --selected-only (the default, kept for scripts), --ctx,
// --experiment-set and --family (the runs of one architecture family).
void addScopeOptions(QCommandLineParser& parser);
// Applies them on top of `settings`; bad values throw UsageError naming the option.
void applyScopeOptions(const QCommandLineParser& parser, analysis::AnalysisSettings& settings);

// Reads each file: a .scalex project (its tables and settings) or a run table. `seriesBy` regroups
// every table (UsageError naming the column when a table lacks it).
StudyInput loadStudy(const QStringList& files, const data::LoadOptions& options = {});
// loadStudy, then the scope options, with --series regrouping the runs.
StudyInput loadStudy(const QStringList& files, const QCommandLineParser& parser, data::LoadOptions options = {});

}  // namespace scalex::cli
