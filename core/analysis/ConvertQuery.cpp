#include "core/analysis/ConvertQuery.h"

#include <QFileInfo>
#include <cstring>
#include <set>

#include "core/data/DataFileKind.h"
#include "core/data/Export.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "core/data/TrackerJson.h"

namespace scalex::analysis {

namespace {

enum class Kind { RunTable, Project };

// Reads are by the extension before an optional .gz; writes support .csv, .json and .scalex.
std::optional<Kind> inputKind(const QString& path) {
    QString p = path.toLower();
    if (p.endsWith(".gz")) p.chop(3);
    if (p.endsWith(".scalex")) return Kind::Project;
    for (const char* ext : {".csv", ".tsv", ".txt", ".json", ".jsonl", ".ndjson"})
        if (p.endsWith(QLatin1String(ext))) return Kind::RunTable;
    return std::nullopt;
}

std::string tableNameFor(const QString& path) {
    QString stem = QFileInfo(path).fileName();
    for (const char* ext : {".gz", ".csv", ".tsv", ".txt", ".jsonl", ".ndjson", ".json"})
        if (stem.toLower().endsWith(QLatin1String(ext))) stem.chop(static_cast<int>(std::strlen(ext)));
    QString name;
    for (const QChar c : stem) name += (c.isLetterOrNumber() && c.unicode() < 128) || c == '.' || c == '_' || c == '-' ? c : QChar('_');
    if (name.isEmpty() || name.startsWith('.') || name.startsWith('-')) name.prepend("runs");
    return name.left(100).toStdString();
}

}  // namespace

void addConvertOptions(QCommandLineParser& p) {
    p.addOptions({{"table", "Project input: only the run table of this name.", "name"}});
    p.addPositionalArgument("IN", "Input file (several for a project).");
    p.addPositionalArgument("OUT", "Output file: .csv, .json, .tex (LaTeX booktabs table) or .scalex.");
}

void convertQuery(const QCommandLineParser& p) {
    const QStringList pos = p.positionalArguments();
    if (pos.size() < 2) throw UsageError("expected two arguments: IN OUT (or several inputs IN... and a project OUT)");
    const QString out = pos.last();
    const bool oneSet = pos.size() == 2 && inputKind(pos[0]) == Kind::RunTable &&
                        data::dataFileKind(pos[0]) != data::DataFileKind::RunTable && out.toLower().endsWith(".scalex");
    if (pos.size() > 2 || oneSet) {
        // Several inputs (or one set of curves or measurements): one project, each input a run
        // table, a loss-curve set or an inference set, named after its file.
        if (!out.toLower().endsWith(".scalex")) throw UsageError("several inputs make a project: OUT must end in .scalex");
        if (p.isSet("table")) throw UsageError("--table applies to .scalex input only");
        data::Project project;
        QStringList names;
        std::set<std::string> curveNames, inferenceNames;
        auto unique = [](const std::string& name, auto taken) {
            std::string u = name;
            for (int i = 2; taken(u); ++i) u = name + "-" + std::to_string(i);
            return u;
        };
        std::vector<data::TrackerRun> trackerRuns;  // their config keys: the columns of one more run table
        for (const QString& in : pos.mid(0, pos.size() - 1)) {
            if (inputKind(in) != Kind::RunTable)
                throw UsageError(("'" + in + "' is not a run table, loss curves or inference measurements (expected .csv, .tsv, "
                                  ".json or .jsonl; projects are not merged)").toStdString());
            if (QFileInfo(in).absoluteFilePath() == QFileInfo(out).absoluteFilePath()) throw UsageError("IN and OUT are the same file");
            const std::string name = tableNameFor(in);
            switch (data::dataFileKind(in)) {
                case data::DataFileKind::LossCurves: {
                    auto set = data::loadProjectCurves(in, unique(name, [&](const std::string& n) { return curveNames.count(n) > 0; }));
                    if (!set) throw UsageError(set.error().toString());
                    curveNames.insert(set->name);
                    project.curves.push_back(std::move(*set));
                    if (data::isTrackerJsonFile(in)) {
                        auto run = data::loadTrackerRun(in.toStdString());
                        if (!run) throw UsageError(run.error().toString());
                        trackerRuns.push_back(std::move(*run));
                    }
                    break;
                }
                case data::DataFileKind::InferenceMeasurements: {
                    auto set = data::loadProjectInference(in, unique(name, [&](const std::string& n) { return inferenceNames.count(n) > 0; }));
                    if (!set) throw UsageError(set.error().toString());
                    inferenceNames.insert(set->name);
                    project.inference.push_back(std::move(*set));
                    break;
                }
                default: {
                    auto table = data::loadRunTable(in.toStdString());
                    if (!table) throw UsageError(table.error().toString());
                    project.tables.push_back({unique(name, [&](const std::string& n) { return project.table(n) != nullptr; }), std::move(*table)});
                }
            }
            names << QFileInfo(in).fileName();
        }
        if (!trackerRuns.empty()) {
            // One row per tracker export, its config's keys as columns (data::trackerRunsCsv).
            auto table = data::parseRunTable(data::trackerRunsCsv(trackerRuns), "tracker_runs");
            if (!table) throw UsageError(table.error().toString());
            project.tables.push_back({unique("tracker_runs", [&](const std::string& n) { return project.table(n) != nullptr; }), std::move(*table)});
        }
        project.title = names.join(", ").toStdString();
        if (auto e = data::saveProject(project, out)) throw UsageError(e->toString());
        return;
    }
    const QString in = pos[0];

    const auto kind = inputKind(in);
    if (!kind)
        throw UsageError(("unknown input extension of '" + in + "' (expected .csv, .tsv, .json, .jsonl or .scalex)").toStdString());
    const QString outLower = out.toLower();
    const bool outProject = outLower.endsWith(".scalex"), outCsv = outLower.endsWith(".csv"), outJson = outLower.endsWith(".json");
    const bool outLatex = outLower.endsWith(".tex");
    if (!outProject && !outCsv && !outJson && !outLatex)
        throw UsageError(("unknown output extension of '" + out + "' (expected .csv, .json, .tex or .scalex)").toStdString());
    if (QFileInfo(in).absoluteFilePath() == QFileInfo(out).absoluteFilePath())
        throw UsageError("IN and OUT are the same file");

    data::Project project;
    if (*kind == Kind::Project) {
        auto loaded = data::loadProject(in);
        if (!loaded) throw UsageError(loaded.error().toString());
        project = std::move(*loaded);
        if (p.isSet("table")) {
            const auto* t = project.table(p.value("table").toStdString());
            if (!t) throw UsageError(("--table: the project has no run table '" + p.value("table") + "'").toStdString());
            data::ProjectTable keep = *t;
            project.tables = {std::move(keep)};
        }
    } else {
        if (p.isSet("table")) throw UsageError("--table applies to .scalex input only");
        if (const auto holds = data::dataFileKind(in); holds != data::DataFileKind::RunTable)
            throw UsageError(("'" + in + "' holds " +
                              (holds == data::DataFileKind::LossCurves ? "loss curves" : "inference measurements") +
                              ", not runs: only a project (OUT.scalex) keeps them").toStdString());
        auto table = data::loadRunTable(in.toStdString());
        if (!table) throw UsageError(table.error().toString());
        project.title = QFileInfo(in).fileName().toStdString();
        project.tables.push_back({tableNameFor(in), std::move(*table)});
    }

    if (outProject) {
        if (auto e = data::saveProject(project, out)) throw UsageError(e->toString());
    } else {
        // Every row, the checkpoints a large table keeps as columns too.
        data::RunTable all = project.mergedRuns();
        all.source = in.toStdString();
        writeAtomically(out, outCsv    ? data::writeRunTableCsv(all)
                             : outLatex ? data::toLatex(data::runTableExport(all))  // booktabs, as the appendix tables
                                        : data::toRecordsJson(data::runTableExport(all)));
    }
}

}  // namespace scalex::analysis
