// scalex render: a view of a project (or the built-in example) as a figure for a paper.
#include <QFileInfo>

#include "app/cli/CliSupport.h"
#include "app/cli/StudyInput.h"
#include "app/cli/Verbs.h"
#include "app/figures/Controls.h"
#include "app/figures/Render.h"
#include "app/figures/ViewFigure.h"
#include "core/data/Project.h"
#include "core/data/SpecJson.h"

namespace scalex::cli {

namespace {

// Whether `name` may be kept as a recipe in `project` (a valid name, a .scalex file).
void checkRecipeTarget(const QString& project, const QString& name) {
    if (!data::validRecipeName(name.toStdString()))
        throw UsageError(("--save-recipe: '" + name + "' is not a recipe name (1 to 100 letters, digits, '.', '_' or '-')").toStdString());
    if (!project.endsWith(QLatin1String(".scalex")))
        throw UsageError(("--save-recipe: recipes are kept in a .scalex project, not in '" + project + "'").toStdString());
}

// Keeps the figure just drawn as recipe `name` in the project file: its view, every control's
// value, the scope it was drawn with and the style. The project is saved with its own settings.
void saveRecipe(const analysis::Study& study, const QString& project, const QString& name, const figures::RenderRequest& request,
                const QString& format) {
    QJsonObject values;
    QString error;
    if (!figures::controlValues(study, request.view, request.controls, &values, &error)) throw UsageError(error.toStdString());
    auto saved = data::loadProject(project);
    if (!saved) throw UsageError(saved.error().toString());
    saved->recipes[name.toStdString()] = figures::captureRecipe(study, request.selection, request.view, values, request.style, format);
    if (const auto e = data::saveProject(*saved, project)) throw UsageError(e->toString());
}

}  // namespace

int verbRender(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Render a view as a PDF, SVG or PNG figure, or write its table as LaTeX, CSV or JSON, without a display.");
    p.addHelpOption();
    p.addOptions({
        {{"data", "project"}, "A .scalex project or a run table (as every verb takes it: --data; --project is the same); given more than once, one study of every file.", "file"},
        {"example", "Use the built-in example project (the default)."},
        {"view", "The view: " + figures::figureViews().join(", ") + "; for tables also runs.", "id"},
        {"out", "Output file: a figure (.pdf, .svg, .png) or the view's table (.tex booktabs, .csv, .json records).", "file"},
        {"table", "Which of the view's tables (default: its first); see --list-tables.", "id"},
        {"list-tables", "List the tables of every view."},
        {"size", "WIDTHxHEIGHT with a unit (3.25x2.4in, 16x9cm) or single, double, slides.", "size", "double"},
        {"style", "paper (white, fonts matched to the size) or screen.", "style", "paper"},
        {"font", "Font family of the paper style.", "family", "DejaVu Sans"},
        {"dpi", "PNG resolution.", "dpi", "300"},
        {"paper-figures", "Regenerate the paper's figures 1, 3, 4, 5, 6 and its appendix tables into the directory --out."},
        {"recipe", "Render the figure recipe NAME saved in the --project (all: every recipe, into the directory --out); to a .tex, .csv or .json --out, write its view's --table as the recipe sets the view.", "name"},
        {"save-recipe", "Also keep this figure as recipe NAME in the --project (a .scalex file, saved in place).", "name"},
        {"list-recipes", "List the figure recipes of the --project."},
        {"set", "Set a control of the --view first, as in the window (repeatable); see --list-controls.", "name=value"},
        {"list-controls", "List the controls of the --view: name, kind, current value, choices."},
        {"keep-outliers", "Keep the runs far from their IsoFLOP profile in the fits."},
        {"model", "Add a model of any architecture (Scalex's spec JSON or a Hugging Face config.json) to the project's "
                  "specs, as File > Add model does: the context view draws its ladder, the roofline view its operating "
                  "points, the breakdown view's side-by-side mode its bars (repeatable).", "file"},
    });
    addScopeOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (p.isSet("list-tables")) {
        QString text;
        for (const auto& [view, tables] : figures::viewTables()) text += view + '\t' + tables.join(", ") + '\n';
        printText(text);
        return kExitOk;
    }
    // Every file given (--data, or --project, may be given more than once): one study of them all,
    // as the other verbs read them; a project's recipes are of one project.
    const QStringList files = p.values("project");
    if (files.size() > 1 && (p.isSet("list-recipes") || p.isSet("recipe") || p.isSet("save-recipe")))
        throw UsageError("--recipe, --list-recipes and --save-recipe take one project; --data was given " + std::to_string(files.size()) +
                         " times");
    auto study = [&] { return files.size() > 1 ? loadStudy(files, p) : openStudy(p.value("project"), p); };
    if (p.isSet("list-recipes") || p.isSet("recipe")) {
        if (!p.isSet("project")) throw UsageError("missing required option --project (a .scalex project with figure recipes)");
        if (p.isSet("view") || p.isSet("save-recipe") || p.isSet("paper-figures") || p.isSet("set"))
            throw UsageError("--recipe and --list-recipes take the view, its controls and the style from the recipe: leave out --view, --set, --save-recipe and --paper-figures");
    }
    if (p.isSet("list-recipes")) {
        auto project = data::loadProject(p.value("project"));
        if (!project) throw UsageError(project.error().toString());
        std::vector<const data::RunTable*> tables;
        for (const auto& t : project->tables) tables.push_back(&t.table);
        const std::string digest = data::runTablesDigest(tables);
        QString text;
        for (const auto& [name, r] : project->recipes)
            text += QStringLiteral("%1\t%2\t%3\t%4 x %5 in\t%6\t%7\t%8\n")
                        .arg(QString::fromStdString(name), QString::fromStdString(r.view), QString::fromStdString(r.format))
                        .arg(r.widthInches)
                        .arg(r.heightInches > 0 ? QString::number(r.heightInches) : QStringLiteral("auto"))
                        .arg(r.paper ? QStringLiteral("paper") : QStringLiteral("screen"), QString::fromStdString(r.created),
                             r.dataDigest == digest ? QStringLiteral("runs unchanged") : QStringLiteral("runs changed since"));
        printText(text.isEmpty() ? QStringLiteral("the project has no figure recipes\n") : text);
        return kExitOk;
    }
    if (p.isSet("recipe")) {
        QStringList written, warnings;
        QString error;
        const StudyInput in = loadStudy({p.value("project")});
        if (!figures::renderRecipes(in.study, p.value("project"), p.value("recipe"), p.value("out"), &written, &warnings, &error,
                                    p.value("table")))
            throw UsageError(error.toStdString());
        for (const QString& w : warnings) printError(QStringLiteral("scalex render: warning: %1\n").arg(w));
        printText(QStringLiteral("scalex render: wrote %1\n").arg(written.join(", ")));
        return kExitOk;
    }
    if (p.isSet("paper-figures")) {
        if (!p.isSet("out")) throw UsageError("missing required option --out (a directory for the figures and tables)");
        if (p.isSet("set") || p.isSet("view")) throw UsageError("--paper-figures sets each figure's view and controls: leave out --view and --set");
        figures::FigureStyle style;
        QString error;
        if (!figures::parseFigureSize(p.value("size"), &style, &error)) throw UsageError(error.toStdString());
        style.fontFamily = p.value("font");
        QStringList written, skipped;
        const StudyInput in = study();
        if (!figures::renderPaperFigures(in.study, p.value("out"), style, &written, &skipped, &error))
            throw UsageError(error.toStdString());
        for (const QString& s : skipped) printError(QStringLiteral("scalex render: left out %1\n").arg(s));
        printText(QStringLiteral("scalex render: wrote %1 files to %2: %3\n").arg(written.size()).arg(p.value("out"), written.join(", ")));
        return kExitOk;
    }
    if (!p.isSet("view")) throw UsageError("missing required option --view (" + figures::figureViews().join(", ").toStdString() + ")");
    if (p.isSet("project") && p.isSet("example")) throw UsageError("--project and --example exclude each other");
    QJsonObject controls;
    QString error;
    if (!figures::parseControlAssignments(p.values("set"), &controls, &error)) throw UsageError(error.toStdString());
    if (p.isSet("list-controls")) {
        const StudyInput in = study();
        QString text;
        if (!figures::figureViews().contains(p.value("view"))) throw UsageError(figures::unknownViewError(p.value("view")).toStdString());
        if (!figures::describeControls(in.study, p.value("view"), controls, &text, &error)) throw UsageError(error.toStdString());
        printText(text.isEmpty() ? QStringLiteral("the view '%1' has no controls\n").arg(p.value("view")) : text);
        return kExitOk;
    }
    if (!p.isSet("out")) throw UsageError("missing required option --out (a .pdf, .svg or .png file)");
    if (p.isSet("save-recipe") && !p.isSet("project")) throw UsageError("--save-recipe: recipes are kept in a --project (.scalex)");
    figures::RenderRequest request;
    request.view = p.value("view");
    request.out = p.value("out");
    request.controls = controls;
    const bool table = figures::tableSuffixes().contains(QFileInfo(request.out).suffix().toLower());
    if (table && p.isSet("save-recipe")) throw UsageError("--save-recipe: recipes keep figures; a table is written from the view as it is");
    if (!table && p.isSet("table")) throw UsageError("--table: tables are written to .tex, .csv or .json; --out names a figure");
    if (!table) {
        if (!figures::parseFigureSize(p.value("size"), &request.style, &error)) throw UsageError(error.toStdString());
        const QString style = p.value("style");
        if (style != "paper" && style != "screen") throw UsageError("--style: expected paper or screen, got '" + style.toStdString() + "'");
        request.style.paper = style == "paper";
        request.style.fontFamily = p.value("font");
        request.style.dpi = static_cast<int>(*intOption(p, "dpi", 30));
        if (request.style.dpi > 2400) throw UsageError("--dpi: at most 2400");
        if (p.isSet("save-recipe")) checkRecipeTarget(p.value("project"), p.value("save-recipe"));
    }
    StudyInput in = study();
    for (const QString& file : p.values("model")) {
        const auto model = data::readModelFile(file.toStdString());
        if (!model) throw UsageError("--model: " + model.error().toString());
        in.study.addSpec({QFileInfo(file).completeBaseName().toStdString(), file.toStdString(), model->spec});
    }
    if (p.isSet("keep-outliers")) {
        analysis::AnalysisSettings s = in.study.settings();
        s.keepOutliers = true;
        in.study.setSettings(s);
    }
    if (table) {
        if (!figures::renderTable(in.study, request, p.value("table"), &error)) throw UsageError(error.toStdString());
        printText(QStringLiteral("scalex render: wrote %1\n").arg(request.out));
        return kExitOk;
    }
    if (!figures::renderFigure(in.study, request, &error)) throw UsageError(error.toStdString());
    printText(QStringLiteral("scalex render: wrote %1\n").arg(request.out));
    if (p.isSet("save-recipe")) {
        saveRecipe(in.study, p.value("project"), p.value("save-recipe"), request, QFileInfo(request.out).suffix().toLower());
        printText(QStringLiteral("scalex render: kept recipe '%1' in %2\n").arg(p.value("save-recipe"), p.value("project")));
    }
    return kExitOk;
}

}  // namespace scalex::cli
