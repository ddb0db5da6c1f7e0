#pragma once
// What the verbs that analyse runs share: reading run tables and projects into one study, and
// the scope options (--series, --where, --all-runs, --ctx, --experiment-set) that set the one
// analysis::AnalysisSettings value the window and projects use too.
#include <QCommandLineParser>
#include <QStringList>
#include <optional>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/Study.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"

namespace scalex::cli {

// The files a verb reads, as the one analysis::Study the window holds too: every file's tables
// merged the same way, and one project's settings (or the defaults), then the options.
struct StudyInput {
    analysis::Study study;
    QStringList files;
    bool project = false;  // the input was one .scalex file: study.loaded() is that project

    const data::RunTable& table() const { return study.runs(); }
    const analysis::AnalysisSettings& settings() const { return study.settings(); }
};

// --series, --where, --all-runs, --selected-only (the default, kept for scripts), --ctx,
// --experiment-set and --family (the runs of one architecture family).
void addScopeOptions(QCommandLineParser& parser);
// Applies them on top of `settings`; bad values throw UsageError naming the option.
void applyScopeOptions(const QCommandLineParser& parser, analysis::AnalysisSettings& settings);

// Reads each file: a .scalex project (its tables; its settings when it is the only file) or a run
// table. `seriesBy`, else the project's, regroups every table (UsageError naming the column when
// a table lacks it).
StudyInput loadStudy(const QStringList& files, const data::LoadOptions& options = {});
// loadStudy, then the scope options, with --series regrouping the runs.
StudyInput loadStudy(const QStringList& files, const QCommandLineParser& parser, data::LoadOptions options = {});
// What the window opens from one file, as a study: a project, a run table, a file of loss curves or
// of inference measurements (a study of those alone); the built-in example when `file` is empty.
// Then the scope options, as loadStudy.
StudyInput openStudy(const QString& file, const QCommandLineParser& parser);

}  // namespace scalex::cli
