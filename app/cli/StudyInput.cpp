#include "app/cli/StudyInput.h"

#include <QFileInfo>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/data/DataFileKind.h"
#include "core/data/Series.h"

namespace scalex::cli {

namespace {

std::vector<std::string> seriesColumns(const QCommandLineParser& p) {
    std::vector<std::string> out;
    if (!p.isSet("series")) return out;
    for (const QString& v : p.values("series"))
        for (const QString& c : v.split(',', Qt::SkipEmptyParts)) out.push_back(c.trimmed().toStdString());
    if (out.empty()) throw UsageError("--series expects one or more column names, separated by commas");
    return out;
}

}  // namespace

void addScopeOptions(QCommandLineParser& p) {
    p.addOptions({
        {"series", "Group runs into series by these columns (COL[,COL...]; default: the first of the file's series, family, "
                   "model and experiment columns whose series are each one experiment, else the file name; `check` says "
                   "which and why).", "columns"},
        {"where", "Only runs where COL=VALUE, COL!=VALUE, COL<X, COL>X, COL<=X or COL>=X holds (repeatable; any column).",
         "condition"},
        {"all-runs", "Also the runs a table's selection column (selected_in_paper) leaves out."},
        {"selected-only", "Leave out the runs the study deselected (the default wherever a table has a selection column)."},
        {"all-sweep-runs", "Every run of a hyperparameter sweep (runs of a series at the same N and D that differ in a "
                           "learning rate, batch size, seed, ... column); by default only the best of each."},
        {"keep-budget", "Keep this IsoFLOP budget in the power laws although its optimum lies outside its sampled sizes "
                        "(repeatable; by default such budgets are left out and named).", "H"},
        {"role", "Read column COL as ROLE (repeatable): quantity, budget, condition (its values are separate experiments: "
                 "series), knob (a tuned hyperparameter: the best setting stands for each point), repeat (a seed), identifier, "
                 "descriptor, step, measure or constant; the other columns are read from their values (`check` shows how).",
         "COL=ROLE"},
        {"ctx", "Only runs with this training context length.", "T"},
        {"experiment-set", "Only this experiment set: tokenparam, isoflop or other.", "name"},
        {"family", "Only runs of this architecture family: transformer (llama) or xlstm (mlstm).", "name"},
    });
}

void applyScopeOptions(const QCommandLineParser& p, analysis::AnalysisSettings& s) {
    if (p.isSet("all-runs") && p.isSet("selected-only")) throw UsageError("--all-runs and --selected-only contradict each other");
    if (p.isSet("all-runs")) s.scope.allRuns = true;
    if (p.isSet("selected-only")) s.scope.allRuns = false;
    if (p.isSet("all-sweep-runs")) s.scope.allSweepRuns = true;
    for (const QString& b : p.values("keep-budget")) {
        bool ok = false;
        const double h = b.toDouble(&ok);
        if (!ok || !(h > 0)) throw UsageError(("--keep-budget expects a positive budget in FLOPs, got '" + b + "'").toStdString());
        s.keptBudgets.push_back(h);
    }
    if (p.isSet("ctx")) s.scope.context = static_cast<double>(*intOption(p, "ctx", 1));
    if (p.isSet("experiment-set")) {
        s.scope.experimentSet = analysis::parseExperimentSet(p.value("experiment-set").toLower().toStdString());
        if (!s.scope.experimentSet)
            throw UsageError(("--experiment-set expects tokenparam, isoflop or other, got '" + p.value("experiment-set") + "'").toStdString());
    }
    if (p.isSet("family")) {
        const auto f = accounting::parseFamily(p.value("family").toStdString());
        if (!f) throw UsageError(("--family expects transformer or xlstm (or an alias), got '" + p.value("family") + "'").toStdString());
        s.scope.where.push_back(*analysis::parseCondition("model_family=" + std::string(accounting::familyName(*f))));
    }
    for (const QString& w : p.values("where")) {
        auto c = analysis::parseCondition(w.toStdString());
        if (!c) throw UsageError("--where '" + w.toStdString() + "': " + c.error().message);
        s.scope.where.push_back(*c);
    }
    if (p.isSet("series")) s.seriesBy = seriesColumns(p);
    for (const QString& r : p.values("role")) {
        const qsizetype eq = r.lastIndexOf('=');
        const std::string column = eq > 0 ? r.left(eq).trimmed().toStdString() : std::string();
        const std::string role = eq > 0 ? r.mid(eq + 1).trimmed().toStdString() : std::string();
        if (column.empty() || !analysis::parseRole(role))
            throw UsageError("--role '" + r.toStdString() + "': expected COL=ROLE with ROLE one of " + analysis::roleNames());
        s.roles[column] = role;
    }
}

StudyInput loadStudy(const QStringList& files, const data::LoadOptions& options) {
    StudyInput in;
    in.files = files;
    in.project = files.size() == 1 && files.first().toLower().endsWith(".scalex");
    for (const QString& file : files) {
        if (file.toLower().endsWith(".scalex")) {
            ensureBuiltinResources();
            auto project = data::loadProject(file);
            if (!project) throw UsageError(project.error().toString());
            if (in.project) {
                if (const std::string why = in.study.setProject(std::move(*project)); !why.empty())
                    throw UsageError(file.toStdString() + ": " + why);
            } else {
                for (auto& spec : project->specs) in.study.addSpec(std::move(spec));
                for (auto& t : project->tables) in.study.addRuns(std::move(t.table), t.name);
            }
        } else if (data::dataFileKind(file) == data::DataFileKind::LossCurves) {
            // Curves files and tracker exports beside run tables: the study's curve sets.
            auto curves = data::loadProjectCurves(file, QFileInfo(file).completeBaseName().toStdString());
            if (!curves) throw UsageError(curves.error().toString());
            in.study.addCurves(std::move(*curves));
        } else {
            auto loaded = data::loadRunTable(file.toStdString(), options);
            if (!loaded) throw UsageError(loaded.error().toString());
            in.study.addRuns(std::move(*loaded), QFileInfo(file).fileName().toStdString());
        }
    }
    const std::vector<std::string> by = options.seriesBy.empty() ? in.study.settings().seriesBy : options.seriesBy;
    if (!by.empty())
        if (auto e = in.study.groupRunsBy(by)) throw UsageError(e->toString());
    // A run naming a spec nobody has would be counted with no architecture: refused, as a bad cell.
    if (!in.study.specErrors().empty()) throw UsageError(in.study.specErrors().front().toString());
    return in;
}

namespace {

// A project's own settings first; the options given on the command line win.
void applyScope(StudyInput& in, const QCommandLineParser& p) {
    analysis::AnalysisSettings settings = in.settings();
    applyScopeOptions(p, settings);
    if (auto e = analysis::checkColumns(in.table(), settings.scope.where)) throw UsageError(e->toString());
    in.study.setSettings(settings);
    if (!in.study.reading().roleErrors.empty()) throw UsageError("--role: " + in.study.reading().roleErrors.front().toString());
}

}  // namespace

StudyInput loadStudy(const QStringList& files, const QCommandLineParser& p, data::LoadOptions options) {
    analysis::AnalysisSettings fromOptions;
    applyScopeOptions(p, fromOptions);
    options.seriesBy = fromOptions.seriesBy;
    StudyInput in = loadStudy(files, options);
    applyScope(in, p);
    return in;
}

StudyInput openStudy(const QString& file, const QCommandLineParser& p) {
    const data::DataFileKind kind = file.isEmpty() ? data::DataFileKind::Project : data::dataFileKind(file);
    if (!file.isEmpty() && kind != data::DataFileKind::LossCurves && kind != data::DataFileKind::InferenceMeasurements)
        return loadStudy({file}, p);
    StudyInput in;
    const std::string name = QFileInfo(file).fileName().toStdString();
    if (file.isEmpty()) {
        ensureBuiltinResources();
        QString error;
        auto example = data::loadExampleProject(&error);
        if (!example) throw UsageError(error.toStdString());
        in.study.setProject(std::move(*example));
        in.project = true;
    } else if (kind == data::DataFileKind::LossCurves) {
        auto curves = data::loadProjectCurves(file, name);
        if (!curves) throw UsageError(curves.error().toString());
        in.study.addCurves(std::move(*curves));
        in.files = {file};
    } else {
        auto measurements = data::loadProjectInference(file, name);
        if (!measurements) throw UsageError(measurements.error().toString());
        in.study.setInference(std::move(*measurements));
        in.files = {file};
    }
    analysis::AnalysisSettings fromOptions;
    applyScopeOptions(p, fromOptions);
    if (!fromOptions.seriesBy.empty())
        if (auto e = in.study.groupRunsBy(fromOptions.seriesBy)) throw UsageError(e->toString());
    applyScope(in, p);
    return in;
}

}  // namespace scalex::cli
