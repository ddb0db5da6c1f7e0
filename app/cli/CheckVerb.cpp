// scalex check: loads a run table and reports what it holds and every row with a problem; a
// project also each of its run tables, loss-curve sets and inference-measurement sets.
// Exit 0 when at least one run is usable (or a project holds curves or measurements), 1 when
// none is, 2 when the file cannot be read.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <map>

#include "app/cli/CliSupport.h"
#include "app/cli/StudyInput.h"
#include "app/cli/Verbs.h"
#include "core/data/DataFileKind.h"
#include "core/data/Series.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/LossCurves.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"

namespace scalex::cli {

using namespace scalex::data;

namespace {

QString numberKey(double v) { return std::isnan(v) ? QStringLiteral("none") : QString::number(v, 'g', 6); }

QString experimentSetName(ExperimentSet s) {
    switch (s) {
        case ExperimentSet::IsoFlop: return "isoflop";
        case ExperimentSet::TokenParam: return "tokenparam";
        default: return "other";
    }
}

QString provenanceName(Provenance p) {
    switch (p) {
        case Provenance::FromFile: return "file";
        case Provenance::Derived: return "derived";
        case Provenance::SixNdFallback: return "6nd_fallback";
        case Provenance::NominalBudget: return "nominal_budget";
        case Provenance::NoColumn: return "no column";
        default: return "missing";
    }
}

// Counts keyed by text, ordered by a numeric or textual sort key.
struct Tally {
    std::map<std::pair<double, QString>, int> counts;
    // A row's key follows from its order; the key is made once per order seen (millions of rows).
    template <typename Key>
    void add(double order, Key&& key) {
        if (!(order == lastOrder_ && last_)) {
            auto it = seen_.find(order);
            if (it == seen_.end()) it = seen_.emplace(order, &counts[{order, QString(key())}]).first;
            last_ = it->second;
            lastOrder_ = order;
        }
        ++*last_;
    }
    QString text() const {
        QStringList parts;
        for (const auto& [k, n] : counts) parts << QStringLiteral("%1 %2").arg(k.second).arg(n);
        return parts.join(", ");
    }
    QJsonObject json() const {
        QJsonObject o;
        for (const auto& [k, n] : counts) o.insert(k.second, n);
        return o;
    }

private:
    std::map<double, int*> seen_;
    double lastOrder_ = 0;
    int* last_ = nullptr;
};

}  // namespace

namespace {

// What a project holds besides its merged runs: each run table, loss-curve set and inference set.
struct ProjectParts {
    QJsonArray tables, curves, inference;
    QStringList lines;
    bool anySet = false;
};

ProjectParts projectParts(const Project& project) {
    ProjectParts out;
    for (const auto& t : project.tables) {
        int usable = 0;
        forEachRow(t.table, [&](const Run& r) { usable += r.userIncluded.value_or(!r.hasProblems()); }, /*withCells=*/false);
        QJsonArray series;
        QStringList labels;
        for (const auto& name : seriesNames(t.table)) {
            series.append(QString::fromStdString(name));
            labels << QString::fromStdString(seriesLabel(name));
        }
        out.tables.append(QJsonObject{{"name", QString::fromStdString(t.name)},
                                      {"rows", static_cast<qint64>(t.table.rowCount())},
                                      {"usable", usable},
                                      {"series", series}});
        out.lines << QStringLiteral("run table %1: %2 rows, %3 usable, series: %4")
                         .arg(QString::fromStdString(t.name))
                         .arg(t.table.rowCount())
                         .arg(usable)
                         .arg(labels.join(", "));
    }
    for (const auto& c : project.curves) {
        int withVal = 0;
        for (const auto& curve : c.curves.curves) withVal += !std::isnan(curve.finalValLoss());
        out.curves.append(QJsonObject{{"name", QString::fromStdString(c.name)},
                                      {"source", QString::fromStdString(c.source)},
                                      {"curves", static_cast<qint64>(c.curves.curves.size())},
                                      {"points", static_cast<qint64>(c.curves.pointCount())},
                                      {"runs_with_validation", withVal}});
        out.lines << QStringLiteral("loss curves %1: %2 curves, %3 logged steps, %4 with a validation loss")
                         .arg(QString::fromStdString(c.name))
                         .arg(c.curves.curves.size())
                         .arg(c.curves.pointCount())
                         .arg(withVal);
        out.anySet = out.anySet || c.curves.pointCount() > 0;
    }
    for (const auto& m : project.inference) {
        int failed = 0, withArchitecture = 0;
        for (const auto& point : m.data.points) failed += !point.ttftValid() || !point.stepValid();
        for (const auto& model : m.data.models) withArchitecture += model.config.has_value();
        out.inference.append(QJsonObject{{"name", QString::fromStdString(m.name)},
                                         {"source", QString::fromStdString(m.source)},
                                         {"measurements", static_cast<qint64>(m.data.points.size())},
                                         {"models", static_cast<qint64>(m.data.models.size())},
                                         {"models_with_architecture", withArchitecture},
                                         {"failed_points", failed}});
        out.lines << QStringLiteral("inference measurements %1: %2 measurements of %3 models, %4 failed")
                         .arg(QString::fromStdString(m.name))
                         .arg(m.data.points.size())
                         .arg(m.data.models.size())
                         .arg(failed);
        out.anySet = out.anySet || !m.data.points.empty();
    }
    return out;
}

int checkCurves(const std::string& path, bool json) {
    // As a study reads a curves file (a curves CSV or a tracker's JSON export).
    auto set = loadProjectCurves(QString::fromStdString(path), "curves");
    if (!set) throw UsageError(set.error().toString());
    const auto* curves = &set->curves;
    int withVal = 0;
    for (const auto& c : curves->curves) withVal += !std::isnan(c.finalValLoss());
    if (json) {
        printJson(QJsonObject{{"file", QString::fromStdString(path)}, {"kind", "loss_curves"},
                              {"runs", static_cast<qint64>(curves->curves.size())},
                              {"points", static_cast<qint64>(curves->pointCount())}, {"runs_with_validation", withVal}});
    } else {
        printText(QStringLiteral("%1: loss curves of %2 runs, %3 logged steps, %4 runs with a validation loss\n")
                      .arg(QString::fromStdString(path))
                      .arg(curves->curves.size())
                      .arg(curves->pointCount())
                      .arg(withVal));
    }
    return curves->curves.empty() ? kExitUnusable : kExitOk;
}

int checkMeasurements(const QString& path, bool json) {
    QString error;
    auto data = loadInferenceMeasurements(path, &error);
    if (!data) throw UsageError(error.toStdString());
    int failed = 0;
    for (const auto& m : data->points) failed += !m.ttftValid() || !m.stepValid();
    if (json) {
        printJson(QJsonObject{{"file", path}, {"kind", "inference_measurements"},
                              {"models", static_cast<qint64>(data->models.size())},
                              {"points", static_cast<qint64>(data->points.size())}, {"failed_points", failed}});
    } else {
        printText(QStringLiteral("%1: inference measurements of %2 models, %3 points, %4 with a failed (OOM) measurement\n")
                      .arg(path)
                      .arg(data->models.size())
                      .arg(data->points.size())
                      .arg(failed));
    }
    return data->points.empty() ? kExitUnusable : kExitOk;
}

}  // namespace

int verbCheck(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Load a run table (CSV, TSV, JSON, JSON Lines, optionally .gz) or a .scalex project and report how its columns "
        "were read, its series, its runs and every row with a problem; a project also each run table, loss-curve set "
        "and inference-measurement set it holds. Loss curves and inference measurements are recognised by their columns.\n"
        "Exit status: 0 usable, 1 no usable row, 2 the file cannot be read.");
    p.addHelpOption();
    p.addPositionalArgument("FILE", "The run table or project.");
    p.addOptions({
        {"convention", "FLOP convention for C derived from the architecture: study, appendix, chinchilla or 6nd; "
                       "default the file's attention_flop_calc_mode, else study.", "name"},
        {"recompute-flops", "Recompute C from the architecture even where the file gives it."},
        {"mapping", "Column mapping (JSON object field -> column) for columns with unusual names.", "file"},
        {"json", "Print one JSON object."},
    });
    addScopeOptions(p);
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    const QStringList files = p.positionalArguments();
    if (files.size() != 1) throw UsageError(files.isEmpty() ? "missing FILE (the run table to check)" : "expected one FILE");

    LoadOptions options;
    if (p.isSet("convention")) {
        auto convention = accounting::conventionByName(p.value("convention").toStdString());
        if (!convention) {
            QStringList names;
            for (const auto& n : accounting::conventionNames()) names << QString::fromStdString(n);
            throw UsageError(("--convention: unknown convention '" + p.value("convention") + "' (expected " +
                              names.join(", ") + ")")
                                 .toStdString());
        }
        options.convention = *convention;
    }
    options.recomputeFlops = p.isSet("recompute-flops");
    if (p.isSet("mapping")) {
        auto mapping = ColumnMapping::load(p.value("mapping").toStdString());
        if (!mapping) throw UsageError("--mapping: " + mapping.error().toString());
        options.mapping = *mapping;
    }

    const std::string path = files.first().toStdString();
    // Curves and inference measurements are the study's other CSVs: recognise them by header.
    if (const DataFileKind kind = dataFileKind(files.first()); kind == DataFileKind::LossCurves) {
        return checkCurves(path, p.isSet("json"));
    } else if (kind == DataFileKind::InferenceMeasurements) {
        return checkMeasurements(files.first(), p.isSet("json"));
    }
    const StudyInput study = loadStudy(files, p, options);
    const RunTable& table = study.table();
    const analysis::AnalysisSettings& settings = study.settings();
    const analysis::RunFilter scope = settings.scope.filter();

    Tally families, sets, budgets, contexts, flopSources, tokenSources, paramSources;
    int usable = 0, selected = 0, withSelection = 0, inAnalyses = 0, checkpoints = 0;
    std::map<std::string, std::pair<int, int>> seriesCounts;  // series -> (rows, in the analyses)
    QJsonArray problemRows, sweepRows;
    QStringList problemLines, sweepLines;
    forEachRow(table, [&](const Run& r) {
        families.add(r.family ? static_cast<double>(*r.family) : 9, [&] {
            return r.family ? QString::fromUtf8(accounting::familyName(*r.family)) : QStringLiteral("unknown");
        });
        sets.add(static_cast<double>(r.experimentSet), [&] { return experimentSetName(r.experimentSet); });
        budgets.add(std::isnan(r.budget) ? 1e300 : r.budget, [&] { return numberKey(r.budget); });
        contexts.add(std::isnan(r.context) ? 1e300 : r.context, [&] { return numberKey(r.context); });
        flopSources.add(static_cast<double>(r.flopsSource), [&] { return provenanceName(r.flopsSource); });
        tokenSources.add(static_cast<double>(r.tokensSource), [&] { return provenanceName(r.tokensSource); });
        paramSources.add(static_cast<double>(r.paramsSource), [&] { return provenanceName(r.paramsSource); });
        const bool in = analysis::passes(r, scope);
        auto& counts = seriesCounts[r.series];
        ++counts.first;
        counts.second += in;
        inAnalyses += in;
        checkpoints += r.intermediateCheckpoint;
        if (r.userIncluded.value_or(!r.hasProblems())) ++usable;  // a run a sweep beat is usable, and left out
        if (r.selectedInPaper) {
            ++withSelection;
            if (*r.selectedInPaper) ++selected;
        }
        if (!r.sweepLeftOut.empty()) {
            sweepRows.append(QJsonObject{{"line", r.sourceLine}, {"run", QString::fromStdString(runLabel(r))},
                                         {"reason", QString::fromStdString(r.sweepLeftOut)}});
            sweepLines << QStringLiteral("  line %1 (%2): %3")
                              .arg(r.sourceLine)
                              .arg(QString::fromStdString(runLabel(r)), QString::fromStdString(r.sweepLeftOut));
        }
        if (r.problems.empty()) return;
        const QString who = QString::fromStdString(runLabel(r));
        QStringList reasons;
        QJsonArray reasonsJson;
        for (const auto& reason : r.problems) {
            reasons << QString::fromStdString(reason);
            reasonsJson.append(QString::fromStdString(reason));
        }
        problemLines << QStringLiteral("  line %1%2: %3")
                            .arg(r.sourceLine)
                            .arg(who.isEmpty() ? QString() : " (" + who + ")")
                            .arg(reasons.join("; "));
        problemRows.append(QJsonObject{{"line", r.sourceLine}, {"run", who}, {"reasons", reasonsJson}});
    }, /*withCells=*/!scope.where.empty());
    const int rows = static_cast<int>(table.rowCount());
    const ProjectParts parts = study.project ? projectParts(study.study.loaded()) : ProjectParts{};
    const bool ok = usable > 0 || parts.anySet;

    QJsonArray mappingJson;
    QStringList mappingText;
    for (const auto& c : table.mapping) {
        QJsonArray alternatives;
        for (const auto& a : c.alternatives) alternatives.append(QString::fromStdString(a));
        mappingJson.append(QJsonObject{{"field", QString::fromStdString(c.field)},
                                       {"column", QString::fromStdString(c.column)},
                                       {"rule", QString::fromStdString(c.rule)},
                                       {"alternatives", alternatives}});
        QString line = QStringLiteral("%1 <- '%2' (%3)").arg(QString::fromStdString(c.field), QString::fromStdString(c.column),
                                                           QString::fromStdString(c.rule));
        if (!c.alternatives.empty()) {
            QStringList others;
            for (const auto& a : c.alternatives) others << "'" + QString::fromStdString(a) + "'";
            line += ", not " + others.join(", ");
        }
        mappingText << line;
    }
    QJsonArray seriesJson;
    QStringList seriesText;
    for (const auto& name : seriesNames(table)) {
        const auto [n, in] = seriesCounts[name];
        seriesJson.append(QJsonObject{{"name", QString::fromStdString(name)},
                                      {"label", QString::fromStdString(seriesLabel(name))},
                                      {"rows", n},
                                      {"in_analyses", in}});
        seriesText << QStringLiteral("%1 %2").arg(QString::fromStdString(seriesLabel(name))).arg(n);
    }
    // The groupings the default series weighed, and why it took the one it took.
    QJsonArray consideredJson;
    QStringList consideredText;
    for (const auto& g : table.seriesConsidered) {
        QJsonArray columns;
        QStringList names;
        for (const auto& c : g.columns) {
            columns.append(QString::fromStdString(c));
            names << QString::fromStdString(c);
        }
        consideredJson.append(QJsonObject{{"columns", columns},
                                          {"series", static_cast<int>(g.series)},
                                          {"clashes", static_cast<int>(g.clashes)},
                                          {"single_size", g.singleSize},
                                          {"chosen", g.chosen},
                                          {"verdict", QString::fromStdString(g.verdict)}});
        consideredText << QStringLiteral("  %1: %2").arg(names.isEmpty() ? QStringLiteral("the file name") : names.join(" / "),
                                                         QString::fromStdString(g.verdict));
    }
    QJsonArray seriesBy, notes, where;
    const std::vector<std::string> by =
        !settings.seriesBy.empty() ? settings.seriesBy : study.project ? std::vector<std::string>{} : table.seriesBy;
    for (const auto& c : by) seriesBy.append(QString::fromStdString(c));
    for (const auto& n : table.notes) notes.append(QString::fromStdString(n));
    for (const auto& c : settings.scope.where) where.append(QString::fromStdString(c.text()));
    const QString byText = study.project && settings.seriesBy.empty() ? QStringLiteral("the project's tables, as saved")
                           : by.empty()                                  ? QStringLiteral("the file name") : QString::fromStdString([&] {
        std::string t;
        for (const auto& c : by) t += (t.empty() ? "" : ", ") + c;
        return t;
    }());

    // How the columns were read (analysis/StudyReading.h), and the budgets it found.
    const analysis::StudyReading& reading = study.study.reading();
    QJsonArray rolesJson, unassignedJson, levelsJson;
    QStringList roleLines, unassignedLines;
    for (const auto& c : reading.columns) {
        rolesJson.append(QJsonObject{{"column", QString::fromStdString(c.column)},
                                     {"role", QString::fromUtf8(analysis::roleName(c.role).data())},
                                     {"evidence", QString::fromStdString(c.evidence)},
                                     {"weighed", QString::fromStdString(c.weighed)},
                                     {"chosen", c.chosen}});
        roleLines << QStringLiteral("  %1: %2 (%3%4)")
                         .arg(QString::fromStdString(c.column), QString::fromUtf8(analysis::roleName(c.role).data()),
                              QString::fromStdString(c.evidence),
                              c.weighed.empty() ? QString() : "; " + QString::fromStdString(c.weighed));
    }
    for (double b : reading.budgets.levels) levelsJson.append(b);
    for (const auto& [index, why] : reading.budgets.unassigned) {
        const Run& r = table.runs[index];
        unassignedJson.append(QJsonObject{{"line", r.sourceLine}, {"run", QString::fromStdString(runLabel(r))},
                                          {"reason", QString::fromStdString(why)}});
        unassignedLines << QStringLiteral("  line %1 (%2): %3")
                               .arg(r.sourceLine)
                               .arg(QString::fromStdString(runLabel(r)), QString::fromStdString(why));
    }
    QJsonArray roleErrors;
    for (const auto& e : reading.roleErrors) roleErrors.append(QString::fromStdString(e.toString()));

    if (p.isSet("json")) {
        QJsonObject report{
            {"file", QString::fromStdString(path)},
            {"kind", study.project ? "project" : "run_table"},
            {"rows", rows},
            {"usable", usable},
            {"in_analyses", inAnalyses},
            {"with_problems", problemRows.size()},
            {"intermediate_checkpoints", checkpoints},
            {"mapping", mappingJson},
            {"series_by", seriesBy},
            {"series", seriesJson},
            {"series_considered", consideredJson},
            {"where", where},
            {"all_runs", settings.scope.allRuns},
            {"families", families.json()},
            {"experiment_sets", sets.json()},
            {"budgets", budgets.json()},
            {"roles", rolesJson},
            {"role_errors", roleErrors},
            {"budget_source", QString::fromStdString(reading.budgets.source)},
            {"budget_levels", levelsJson},
            {"in_no_budget", unassignedJson},
            {"context_lengths", contexts.json()},
            {"flops_source", flopSources.json()},
            {"tokens_source", tokenSources.json()},
            {"params_source", paramSources.json()},
            {"selected_in_paper", withSelection ? QJsonValue(selected) : QJsonValue()},
            {"notes", notes},
            {"problems", problemRows},
            {"not_best_of_sweep", sweepRows},
            {"all_sweep_runs", settings.scope.allSweepRuns},
            {"status", ok ? "usable" : "not usable"},
        };
        if (study.project) {
            report["tables"] = parts.tables;
            report["curve_sets"] = parts.curves;
            report["inference_sets"] = parts.inference;
        }
        printJson(report);
        return ok ? kExitOk : kExitUnusable;
    }
    QString out = QStringLiteral("%1: %2 rows, %3 usable, %4 with problems, %5 in the analyses\n")
                      .arg(QString::fromStdString(path))
                      .arg(rows)
                      .arg(usable)
                      .arg(problemRows.size())
                      .arg(inAnalyses);
    if (!parts.lines.isEmpty()) out += parts.lines.join("\n") + "\n";
    if (!mappingText.isEmpty()) out += "columns: " + mappingText.join("; ") + "\n";
    out += "series (by " + byText + "): " + seriesText.join(", ") + "\n";
    if (!consideredText.isEmpty()) out += "series groupings weighed:\n" + consideredText.join("\n") + "\n";
    out += "families: " + families.text() + "\n";
    out += "experiment sets: " + sets.text() + "\n";
    out += "budgets: " + budgets.text() + "\n";
    out += "budgets from: " + QString::fromStdString(reading.budgets.source) + "\n";
    if (!unassignedLines.isEmpty()) out += "in no budget:\n" + unassignedLines.join("\n") + "\n";
    if (!roleLines.isEmpty()) out += "columns read as:\n" + roleLines.join("\n") + "\n";
    for (const auto& e : reading.roleErrors) out += "--role " + QString::fromStdString(e.toString()) + "\n";
    out += "context lengths: " + contexts.text() + "\n";
    out += "N from: " + paramSources.text() + "\n";
    out += "D from: " + tokenSources.text() + "\n";
    out += "C from: " + flopSources.text() + "\n";
    out += withSelection ? QStringLiteral("selected in paper: %1 of %2%3\n")
                               .arg(selected)
                               .arg(withSelection)
                               .arg(settings.scope.allRuns ? " (all runs analysed: --all-runs)" : " (the others are left out; --all-runs takes them in)")
                         : QStringLiteral("selected in paper: no selection column\n");
    for (const auto& n : table.notes) out += QString::fromStdString(n) + "\n";
    if (!where.isEmpty()) {
        QStringList w;
        for (const auto& c : settings.scope.where) w << QString::fromStdString(c.text());
        out += "where: " + w.join(", ") + "\n";
    }
    if (!sweepLines.isEmpty())
        out += QStringLiteral("left out of the analyses, the best of their sweep standing for them%1:\n")
                   .arg(settings.scope.allSweepRuns ? " (all taken in: --all-sweep-runs)" : " (--all-sweep-runs takes them in)") +
               sweepLines.join("\n") + "\n";
    if (!problemLines.isEmpty()) out += "problems (kept, excluded from fits until included):\n" + problemLines.join("\n") + "\n";
    if (!ok) out += "not usable: no row without problems\n";
    printText(out);
    return ok ? kExitOk : kExitUnusable;
}

}  // namespace scalex::cli
