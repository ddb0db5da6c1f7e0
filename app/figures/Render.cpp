#include "app/figures/Render.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QScopeGuard>
#include <QSizeF>
#include <algorithm>
#include <utility>
#include <unordered_map>

#include "app/figures/Theme.h"
#include "app/figures/ViewFigure.h"
#include "core/accounting/FlopCount.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/Study.h"
#include "core/data/Series.h"

namespace scalex::figures {

namespace {

// The size charts are laid out at before a figure's writer lays them out at the figure's size.
const QSizeF kChartSize(800, 600);

// A figure of `view` from `study` with `controls` set and its analyses done; null with `error`.
std::unique_ptr<ViewFigure> figureFor(const FigureInput& in, const QString& view, const QJsonObject& controls, bool compute,
                                      QString* error, bool* noResults = nullptr) {
    auto figure = makeFigure(view);
    if (!figure) {
        *error = unknownViewError(view);
        return nullptr;
    }
    if (const QStringList notes = figure->setControls(controls, in); !notes.isEmpty()) {
        *error = QStringLiteral("the view '%1': %2").arg(view, notes.join("; "));
        return nullptr;
    }
    if (!compute) return figure;
    figure->compute(in);
    figure->placeInScenes(kChartSize);
    figure->draw(in);
    // Large run series get their points once drawn (a queued call); replaced chart items go.
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    if (const QString why = figure->scaleNotice().isEmpty() ? figure->problem() : figure->scaleNotice(); !why.isEmpty()) {
        *error = QStringLiteral("the view '%1' has no results for these settings: %2").arg(view, why);
        if (noResults) *noResults = true;
        return nullptr;
    }
    return figure;
}

// The theme a figure is drawn in (the dark one for a dark screen-style figure), until it is written.
class ThemeFor {
public:
    explicit ThemeFor(const FigureStyle& style) : before_(Theme::current()) {
        Theme::setCurrent(style.dark && !style.paper ? Theme::dark() : Theme::light());
    }
    ~ThemeFor() { Theme::setCurrent(before_); }
    ThemeFor(const ThemeFor&) = delete;
    ThemeFor& operator=(const ThemeFor&) = delete;

private:
    Theme before_;
};

}  // namespace

bool renderFigure(const analysis::Study& study, const RenderRequest& request, QString* error) {
    if (const QString problem = figureSuffixProblem(request.out); !problem.isEmpty()) {
        *error = "--out: " + problem;
        return false;
    }
    if (!figureViews().contains(request.view)) {
        *error = unknownViewError(request.view);
        return false;
    }
    ThemeFor theme(request.style);
    FigureInput in;
    in.study = &study;
    in.selection = request.selection;
    auto figure = figureFor(in, request.view, request.controls, true, error);
    if (!figure) return false;
    const std::vector<QChart*> charts = figure->charts();
    if (charts.empty()) {
        *error = QStringLiteral("--view: the view '%1' has no chart").arg(request.view);
        return false;
    }
    return writeFigure(charts, request.view, request.out, request.style, error);
}

FigureTable runListTable(const analysis::Study& study) {
    std::vector<int> rows(study.runs().runs.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int>(i);
    return {QStringLiteral("runs"), QStringLiteral("Runs as the table shows them"), analysis::runListTable(study, rows)};
}

bool renderTable(const analysis::Study& study, const RenderRequest& request, const QString& tableId, QString* error) {
    const QStringList views = tableViews();
    if (!views.contains(request.view)) {
        *error = QStringLiteral("--view: no table in view '%1' (views with tables: %2)").arg(request.view, views.join(", "));
        return false;
    }
    if (request.view == QLatin1String("runs")) {
        if (!request.controls.isEmpty()) {
            *error = QStringLiteral("the view 'runs': the view has no control '%1' (it has none)").arg(request.controls.keys().front());
            return false;
        }
        return writeTable({runListTable(study)}, request.view, tableId, request.out, error);
    }
    FigureInput in;
    in.study = &study;
    in.selection = request.selection;
    auto figure = figureFor(in, request.view, request.controls, true, error);
    if (!figure) return false;
    const ViewFigure::TablesJob job = figure->tablesJob(in);
    const std::vector<FigureTable> tables = job ? job(fit::FitControl{}) : std::vector<FigureTable>{};
    // A header alone would pass for an answer: a table the study gives no rows is an error.
    for (const FigureTable& t : tables)
        if ((tableId.isEmpty() ? &t == &tables.front() : t.id == tableId) && t.table.rows.empty()) {
            *error = QStringLiteral("the view '%1' has no rows in its table '%2' for this study; nothing written").arg(request.view, t.id);
            return false;
        }
    return writeTable(tables, request.view, tableId, request.out, error);
}

namespace {

// The controls of `view` for `study` once `controls` are set; null with `error`.
std::unique_ptr<ViewFigure> controlsOf(const analysis::Study& study, const QString& view, const QJsonObject& controls, QString* error) {
    FigureInput in;
    in.study = &study;
    return figureFor(in, view, controls, false, error);
}

}  // namespace

bool describeControls(const analysis::Study& study, const QString& view, const QJsonObject& controls, QString* text,
                      QString* error) {
    const auto figure = controlsOf(study, view, controls, error);
    if (figure) *text = figure->controls().describe();
    return figure != nullptr;
}

bool controlValues(const analysis::Study& study, const QString& view, const QJsonObject& controls, QJsonObject* values,
                   QString* error) {
    const auto figure = controlsOf(study, view, controls, error);
    if (figure) *values = figure->controls().values();
    return figure != nullptr;
}

data::FigureRecipe captureRecipe(const analysis::Study& study, const QSet<int>& selection, const QString& view,
                                 const QJsonObject& controls, const FigureStyle& style, const QString& format) {
    data::FigureRecipe r;
    r.view = view.toStdString();
    r.format = format.toLower().toStdString();
    r.widthInches = style.widthInches;
    r.heightInches = style.heightInches;
    r.dpi = style.dpi;
    r.paper = style.paper;
    r.font = style.fontFamily.toStdString();
    r.dark = style.dark;
    // The analysis settings in their one JSON form (AnalysisSettings): the figure fits what it draws from them.
    r.analysis = study.settings().toJson();
    r.controls = controls;
    const std::vector<std::string> keys = study.runKeys();
    const auto& runs = study.runs().runs;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].userIncluded) r.include[keys[i]] = *runs[i].userIncluded;
    QList<int> selected = selection.values();
    std::sort(selected.begin(), selected.end());
    for (int i : selected)
        if (i >= 0 && static_cast<std::size_t>(i) < keys.size()) r.selection.push_back(keys[static_cast<std::size_t>(i)]);
    r.dataDigest = study.dataDigest();
    r.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    return r;
}

FigureStyle styleOf(const data::FigureRecipe& r) {
    FigureStyle s;
    s.widthInches = r.widthInches;
    s.heightInches = r.heightInches;
    s.dpi = r.dpi;
    s.paper = r.paper;
    s.fontFamily = QString::fromStdString(r.font);
    s.dark = r.dark;
    return s;
}

bool applyRecipeScope(analysis::Study& study, const data::FigureRecipe& recipe, QSet<int>* selection, QStringList* warnings,
                      QString* error) {
    const QString view = QString::fromStdString(recipe.view);
    if (!figureViews().contains(view)) {
        *error = QStringLiteral("the recipe's view '%1' is not one of %2").arg(view, figureViews().join(", "));
        return false;
    }
    if (!recipe.dataDigest.empty() && recipe.dataDigest != study.dataDigest())
        *warnings << QStringLiteral("the runs have changed since the recipe was saved; the figure shows the runs as they are now");

    // Analysis settings in their JSON form; recipes saved before it name a few with keys of their own.
    const QJsonObject& a = recipe.analysis;
    analysis::AnalysisSettings settings = study.settings();
    if (a.contains("flop_convention")) {
        auto parsed = analysis::AnalysisSettings::fromJson(a, "recipe");
        if (!parsed) {
            *error = QStringLiteral("the recipe's analysis settings: %1").arg(QString::fromStdString(parsed.error().toString()));
            return false;
        }
        settings = *parsed;
    } else {
        if (a.contains("convention")) {
            const QString name = a.value("convention").toString();
            if (!accounting::conventionByName(name.toStdString())) {
                *error = QStringLiteral("the recipe's FLOP convention '%1' is unknown").arg(name);
                return false;
            }
            settings.convention = name.toStdString();
        }
        if (a.value("context").toDouble() > 0) settings.contextLength = a.value("context").toDouble();
        if (a.value("huber_delta").toDouble() > 0) settings.huberDelta = a.value("huber_delta").toDouble();
        if (a.value("gamma_free").isBool()) settings.fitGamma = a.value("gamma_free").toBool();
    }
    if (settings.seriesBy != study.settings().seriesBy)
        if (auto e = study.groupRunsBy(settings.seriesBy)) {
            *error = QStringLiteral("the recipe's series: %1").arg(QString::fromStdString(e->toString()));
            return false;
        }
    // Recipes saved before kept the surfaces the window had fitted ("fitted_surfaces"): left alone,
    // as every figure fits its surfaces from the runs and these settings.
    study.setSettings(settings);

    // Include toggles and selection, by run key.
    const std::vector<std::string> keys = study.runKeys();
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
    std::vector<std::optional<bool>> toggles(keys.size());
    QStringList missing;
    for (const auto& [key, on] : recipe.include) {
        const auto it = index.find(key);
        if (it == index.end()) missing << QString::fromStdString(key);
        else toggles[it->second] = on;
    }
    study.setIncludeToggles(toggles);
    selection->clear();
    for (const std::string& key : recipe.selection) {
        const auto it = index.find(key);
        if (it == index.end()) missing << QString::fromStdString(key);
        else selection->insert(static_cast<int>(it->second));
    }
    if (!missing.isEmpty()) *warnings << QStringLiteral("runs of the recipe not in the project: %1").arg(missing.join(", "));
    return true;
}

bool renderRecipe(const analysis::Study& original, const data::FigureRecipe& recipe, const QString& out, QStringList* warnings,
                  QString* error, const std::optional<QString>& table) {
    analysis::Study study = original;  // nothing of one recipe leaks into the next
    RenderRequest request;
    if (!applyRecipeScope(study, recipe, &request.selection, warnings, error)) return false;
    request.view = QString::fromStdString(recipe.view);
    request.out = out;
    request.style = styleOf(recipe);
    // A control that is gone or has changed is a warning, not a failure: the figure is drawn with
    // the others (as the window shows a recipe).
    {
        FigureInput in;
        in.study = &study;
        in.selection = request.selection;
        auto figure = makeFigure(request.view);
        if (!figure) {
            *error = unknownViewError(request.view);
            return false;
        }
        *warnings << figure->setControls(recipe.controls, in);
        request.controls = figure->controls().values();
    }
    return table ? renderTable(study, request, *table, error) : renderFigure(study, request, error);
}

bool renderRecipes(const analysis::Study& study, const QString& projectLabel, const QString& name, const QString& out,
                   QStringList* written, QStringList* warnings, QString* error, const QString& tableId) {
    const data::FigureRecipes& recipes = study.recipes();
    std::vector<std::string> names;
    QStringList known;
    for (const auto& [n, r] : recipes) known << QString::fromStdString(n);
    const bool intoDirectory = name == QLatin1String("all");
    if (intoDirectory) {
        if (recipes.empty()) {
            *error = QStringLiteral("--recipe: the project %1 has no figure recipes").arg(projectLabel);
            return false;
        }
        for (const auto& [n, r] : recipes) names.push_back(n);
        if (!out.isEmpty() && !QDir().mkpath(out)) {
            *error = QStringLiteral("--out: cannot create the directory %1").arg(out);
            return false;
        }
    } else if (!recipes.count(name.toStdString())) {
        *error = QStringLiteral("--recipe: the project has no recipe '%1' (it has: %2)")
                     .arg(name, known.isEmpty() ? QStringLiteral("none") : known.join(", "));
        return false;
    } else {
        names.push_back(name.toStdString());
    }
    for (const std::string& n : names) {
        const data::FigureRecipe& recipe = recipes.at(n);
        const QString file = QString::fromStdString(n + "." + recipe.format);
        // One recipe to a table file: the table of its view as the recipe sets it.
        const bool table = !intoDirectory && tableSuffixes().contains(QFileInfo(out).suffix().toLower());
        if (!intoDirectory && !out.isEmpty() && !table && QFileInfo(out).suffix().toLower() != QString::fromStdString(recipe.format)) {
            *error = QStringLiteral("--out: recipe '%1' makes a .%2 file, not '%3'")
                         .arg(QString::fromStdString(n), QString::fromStdString(recipe.format), out);
            return false;
        }
        const QString path = intoDirectory ? QDir(out.isEmpty() ? QStringLiteral(".") : out).filePath(file)
                                           : (out.isEmpty() ? file : out);
        QStringList notes;
        if (!renderRecipe(study, recipe, path, &notes, error, table ? std::optional<QString>(tableId) : std::nullopt)) {
            *error = QStringLiteral("recipe '%1': %2").arg(QString::fromStdString(n), *error);
            return false;
        }
        for (const QString& note : notes) *warnings << QStringLiteral("recipe '%1': %2").arg(QString::fromStdString(n), note);
        *written << path;
    }
    return true;
}

bool renderPaperFigures(const analysis::Study& study, const QString& outDir, const FigureStyle& style, QStringList* written,
                        QStringList* skipped, QString* error) {
    if (!QDir().mkpath(outDir)) {
        *error = QStringLiteral("--out: cannot create the directory %1").arg(outDir);
        return false;
    }
    struct Figure {
        const char* name;
        const char* view;
        QJsonObject controls;
    };
    const Figure figures[] = {{"fig1_pareto_front", "pareto", {{"panels", "fig1"}}},
                              {"fig3_overtraining_slopes", "overtraining", {}},
                              {"fig4_isoflop", "isoflop", {{"family", "both families"}, {"range", "fig4"}}},
                              {"fig5_context_length", "isoflop", {{"panels", "fig5"}, {"range", "fig4"}}},
                              {"fig6_inference_runtimes", "inference", {{"stage", "TTFT and step time (Fig. 6)"}}},
                              {"fig_roofline", "roofline", {}},
                              {"fig_context_optimum", "context", {}}};
    ThemeFor theme(style);
    FigureInput in;
    in.study = &study;
    for (const Figure& f : figures) {
        // A figure the runs cannot give (no IsoFLOP runs, say) is left out and named; the others are written.
        bool noResults = false;
        auto figure = figureFor(in, QString::fromLatin1(f.view), f.controls, true, error, &noResults);
        if (!figure && noResults) {
            *skipped << QStringLiteral("%1: %2").arg(QLatin1String(f.name), *error);
            error->clear();
            continue;
        }
        if (!figure) return false;
        bool first = true;
        for (const char* suffix : {"pdf", "png"}) {
            if (!std::exchange(first, false)) figure->draw(in);  // the paper style of the last file undone
            FigureStyle s = style;
            if (QLatin1String(suffix) == QLatin1String("png")) s.dpi = 150;
            const QString out = QDir(outDir).filePath(QStringLiteral("%1.%2").arg(QLatin1String(f.name), QLatin1String(suffix)));
            QCoreApplication::processEvents();
            if (!writeFigure(figure->charts(), QString::fromLatin1(f.view), out, s, error)) return false;
            *written << QFileInfo(out).fileName();
        }
    }
    // Tables from the same runs.
    for (const auto& [name, table] : analysis::paperAppendixTables(study.runs())) {
        for (const QString& suffix : {QStringLiteral("tex"), QStringLiteral("csv")}) {
            const QString path = QDir(outDir).filePath(QString::fromStdString(name) + '.' + suffix);
            if (!writeTable({{QString::fromStdString(name), QString(), table}}, QStringLiteral("paper"), QString(), path, error))
                return false;
            *written << QFileInfo(path).fileName();
        }
    }
    return true;
}

}  // namespace scalex::figures
