#include "app/gui/FigureExport.h"

#include "core/analysis/ExportTables.h"

#include <QDateTime>
#include <QHashFunctions>
#include <QScopeGuard>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGraphicsItemGroup>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QtCharts/QAbstractAxis>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QBuffer>
#include <QCoreApplication>

#include <QDir>
#include <array>
#include <map>

#include "app/gui/MainWindow.h"
#include "app/gui/PlotView.h"
#include "app/gui/Recipes.h"
#include "app/gui/Session.h"
#include "core/data/Export.h"
#include "core/analysis/RunSelection.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "app/gui/ViewPanel.h"

namespace scalex::gui {

QStringList renderableViews() {
    return {"pareto", "curves", "surface", "overtraining", "isoflop", "context", "optimal", "breakdown", "roofline", "inference"};
}

QString unknownViewError(const QString& view) {
    return QStringLiteral("--view: unknown view '%1' (expected one of %2)").arg(view, renderableViews().join(", "));
}

std::vector<std::pair<QString, QStringList>> viewTables() {
    return {{"runs", {"runs"}},         {"pareto", {"frontier"}},          {"surface", {"fit"}},
            {"overtraining", {"slopes"}}, {"isoflop", {"laws", "optima", "contexts"}}, {"context", {"optima"}},
            {"optimal", {"sizes", "query", "methods"}}};
}

QStringList tableViews() {
    QStringList views;
    for (const auto& [view, tables] : viewTables()) views << view;
    return views;
}


bool renderPaperFigures(const QString& project, const QString& outDir, const FigureStyle& style, QStringList* written,
                        QString* error) {
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
                              {"fig4_isoflop", "isoflop", {{"family", "both families"}}},
                              {"fig5_context_length", "isoflop", {{"panels", "fig5"}}},
                              {"fig6_inference_runtimes", "inference", {{"stage", "TTFT and step time (Fig. 6)"}}},
                              {"fig_roofline", "roofline", {}},
                              {"fig_context_optimum", "context", {}}};
    for (const Figure& f : figures)
        for (const char* suffix : {"pdf", "png"}) {
            RenderRequest r;
            r.project = project;
            r.view = QString::fromLatin1(f.view);
            r.out = QDir(outDir).filePath(QStringLiteral("%1.%2").arg(QLatin1String(f.name), QLatin1String(suffix)));
            r.style = style;
            r.controls = f.controls;
            if (QLatin1String(suffix) == QLatin1String("png")) r.style.dpi = 150;
            if (!renderFigure(r, error)) return false;
            *written << QFileInfo(r.out).fileName();
        }
    // Tables from the same runs.
    MainWindow window;
    const bool opened = project.isEmpty() ? window.openExample(false) : window.openPath(project, false);
    if (!opened) {
        *error = window.lastError();
        return false;
    }
    for (const auto& [name, table] : analysis::paperAppendixTables(window.session()->runs())) {
        for (const QString& suffix : {QStringLiteral("tex"), QStringLiteral("csv")}) {
            const QString path = QDir(outDir).filePath(QString::fromStdString(name) + '.' + suffix);
            if (!figures::writeTable({{QString::fromStdString(name), QString(), table}}, QStringLiteral("paper"), QString(), path, error))
                return false;
            *written << QFileInfo(path).fileName();
        }
    }
    return true;
}

std::unique_ptr<MainWindow> openHeadless(const QString& project, bool dark, QString* error) {
    Theme::setCurrent(dark ? Theme::dark() : Theme::light());
    auto window = std::make_unique<MainWindow>();
    window->setAttribute(Qt::WA_DontShowOnScreen, true);
    window->resize(1400, 900);
    window->show();
    const bool opened = project.isEmpty() ? window->openExample(false) : window->openPath(project, false);
    if (!opened) {
        *error = window->lastError();
        return nullptr;
    }
    return window;
}

namespace {

// The view `id` of a headless window, shown and brought up to date (fits and bootstraps done).
ViewPanel* showViewNow(MainWindow& window, const QString& id) {
    window.showView(id);
    ViewPanel* panel = window.currentPanel();
    QCoreApplication::processEvents();
    panel->computeNow();
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced chart items
    return panel;
}

// Applies the request's analysis settings to the window's session.
bool adjustSettings(MainWindow& window, const RenderRequest& request, QString* error) {
    if (!request.adjust) return true;
    Session* session = window.session();
    analysis::AnalysisSettings settings = session->settings();
    request.adjust(settings);
    if (settings.seriesBy != session->settings().seriesBy)
        if (auto e = session->groupRunsBy(settings.seriesBy)) {
            *error = QString::fromStdString(e->toString());
            return false;
        }
    if (auto e = analysis::checkColumns(session->runs(), settings.scope.where)) {
        *error = QString::fromStdString(e->toString());
        return false;
    }
    session->setSettings(settings);
    return true;
}

// Sets the request's controls of the view and brings it up to date again.
bool setControlsNow(ViewPanel* panel, const RenderRequest& request, QString* error) {
    if (request.controls.isEmpty()) return true;
    if (const QStringList notes = restoreControls(panel, request.controls); !notes.isEmpty()) {
        *error = QStringLiteral("the view '%1': %2").arg(request.view, notes.join("; "));
        return false;
    }
    panel->computeNow();
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    return true;
}

// False, with the view's own words, when the view has no results to write.
bool reportProblem(const ViewPanel* panel, QString* error) {
    const QString why = panel->problem();
    if (why.isEmpty()) return true;
    *error = QStringLiteral("the view '%1' has no results for these settings: %2").arg(panel->viewId(), why);
    return false;
}

}  // namespace

bool renderFigure(const RenderRequest& request, QString* error) {
    const QString suffix = QFileInfo(request.out).suffix().toLower();
    if (suffix != "pdf" && suffix != "svg" && suffix != "png") {
        *error = QStringLiteral("--out: '%1' must end in .pdf, .svg or .png").arg(request.out);
        return false;
    }
    if (!renderableViews().contains(request.view)) {
        *error = unknownViewError(request.view);
        return false;
    }
    auto opened = openHeadless(request.project, request.style.dark && !request.style.paper, error);
    if (!opened || !adjustSettings(*opened, request, error)) return false;
    ViewPanel* panel = showViewNow(*opened, request.view);
    if (!setControlsNow(panel, request, error) || !reportProblem(panel, error)) return false;
    if (panel->charts().empty()) {
        *error = QStringLiteral("--view: the view '%1' has no chart").arg(request.view);
        return false;
    }
    return exportPanel(panel, request.out, request.style, error);
}


bool exportViewTable(ViewPanel* panel, const QString& tableId, const QString& out, QString* error) {
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (!tableSuffixes().contains(suffix)) {
        *error = QStringLiteral("'%1' must end in .tex (LaTeX booktabs), .csv or .json (records)").arg(out);
        return false;
    }
    return exportViewTable(panel->tables(), panel->viewId(), tableId, out, error);
}


bool renderTable(const RenderRequest& request, const QString& tableId, QString* error) {
    const QStringList views = tableViews();
    if (!views.contains(request.view)) {
        *error = QStringLiteral("--view: no table in view '%1' (views with tables: %2)").arg(request.view, views.join(", "));
        return false;
    }
    auto opened = openHeadless(request.project, false, error);
    if (!opened || !adjustSettings(*opened, request, error)) return false;
    ViewPanel* panel = showViewNow(*opened, request.view);
    return setControlsNow(panel, request, error) && reportProblem(panel, error) && exportViewTable(panel, tableId, request.out, error);
}

bool exportPanel(ViewPanel* panel, const QString& out, const FigureStyle& style, QString* error) {
    const std::vector<QChart*> charts = panel->charts();
    if (charts.empty() && QStringList{"pdf", "svg", "png"}.contains(QFileInfo(out).suffix().toLower())) {
        *error = QStringLiteral("the view '%1' has no chart").arg(panel->viewId());
        return false;
    }
    return figures::writeFigure(charts, panel->viewId(), out, style, error);
}

bool exportViewTable(const std::vector<ViewTable>& tables, const QString& viewId, const QString& tableId, const QString& out,
                     QString* error) {
    return figures::writeTable(tables, viewId, tableId, out, error);
}

}  // namespace scalex::gui
