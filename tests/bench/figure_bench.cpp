// Figures and tables for papers, on the built-in example project:
// - exporting each view at single-column size in the paper style as SVG, PDF and PNG (300 dpi):
//   restyling the view's charts, laying them out at the figure's size, painting, writing;
// - the paper's multi-panel layouts (Fig. 1: frontiers beside the L(N,D) fit; Fig. 5: IsoFLOP
//   profiles at every context length and their laws) at double-column size;
// - a view's tables, as the export builds them: the loss surface's fit of both families with
//   200 bootstrap refits each (a fresh fit every round), and the IsoFLOP power laws and optima,
//   whose bootstrap intervals the view already holds (the table only gathers and formats them).
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QTemporaryDir>

#include "app/gui/FigureExport.h"
#include "app/figures/views/LossSurfaceFigure.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Recipes.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/ResultCache.h"

static void initResources() { Q_INIT_RESOURCE(scalex); }

namespace {

using scalex::gui::MainWindow;

QApplication* application() {
    static int argc = 1;
    static char name[] = "scalex_figure_bench";
    static char* argv[] = {name, nullptr};
    if (!QApplication::instance()) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        new QApplication(argc, argv);
        initResources();
    }
    return qApp;
}

// One window on the example for every benchmark: opening it is not what is measured.
MainWindow& window() {
    static std::unique_ptr<MainWindow> w = [] {
        application();
        QString error;
        auto opened = scalex::gui::openHeadless(QString(), false, &error);
        if (!opened) qFatal("cannot open the example: %s", qPrintable(error));
        return opened;
    }();
    return *w;
}

scalex::gui::ViewPanel* shown(const QString& view) {
    window().showView(view);
    scalex::gui::ViewPanel* panel = window().currentPanel();
    panel->computeNow();
    QApplication::processEvents();
    return panel;
}

// Exports what `panel` shows, `widthInches` wide in the paper style at 300 dpi, once per round.
void exportRounds(benchmark::State& state, scalex::gui::ViewPanel* panel, double widthInches, const QString& suffix) {
    QTemporaryDir dir;
    scalex::gui::FigureStyle style;
    style.widthInches = widthInches;
    style.dpi = 300;
    const QString out = dir.filePath("figure." + suffix);
    QString error;
    for (auto _ : state)
        if (!scalex::gui::exportPanel(panel, out, style, &error)) state.SkipWithError(qPrintable(error));
    state.counters["bytes"] = static_cast<double>(QFileInfo(out).size());
    state.counters["panels"] = static_cast<double>(panel->charts().size());
}

void BM_ExportFigure(benchmark::State& state, const QString& view, const QString& suffix) {
    exportRounds(state, shown(view), 3.25, suffix);
}

// A view with one control set (as `scalex render --set` does), set back afterwards.
void BM_ExportLayout(benchmark::State& state, const QString& view, const QJsonObject& controls, const QString& suffix) {
    scalex::gui::ViewPanel* panel = shown(view);
    const QJsonObject before = scalex::gui::captureControls(panel);
    if (const QStringList notes = scalex::gui::restoreControls(panel, controls); !notes.isEmpty()) {
        state.SkipWithError(qPrintable(notes.join("; ")));
        return;
    }
    panel->computeNow();
    QApplication::processEvents();
    exportRounds(state, panel, 6.75, suffix);
    scalex::gui::restoreControls(panel, before);
}

void BM_ViewTable(benchmark::State& state, const QString& view) {
    scalex::gui::ViewPanel* panel = shown(view);
    std::size_t rows = 0;
    for (auto _ : state) {
        // The kept fits and intervals (the result cache, and the view's own) would make later
        // rounds cheaper than a user's first export: a fresh fit each round (cache_bench.cpp
        // measures the export that reads them).
        if (auto* surface = dynamic_cast<scalex::figures::LossSurfaceFigure*>(panel->figure())) {
            scalex::analysis::ResultCache::shared().clear();
            surface->forget();
            panel->computeNow();
        }
        const auto tables = panel->tables();
        rows = tables.empty() ? 0 : tables.front().table.rows.size();
    }
    state.counters["rows"] = static_cast<double>(rows);
}

const bool registered = [] {
    for (const QString& view : scalex::gui::renderableViews())
        for (const QString suffix : {"svg", "pdf", "png"})
            benchmark::RegisterBenchmark(("BM_ExportFigure/" + view + "/" + suffix).toStdString().c_str(),
                                         [view, suffix](benchmark::State& s) { BM_ExportFigure(s, view, suffix); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
    const std::pair<const char*, std::pair<QString, QJsonObject>> layouts[] = {
        {"fig1", {"pareto", {{"panels", "Frontiers beside the L(N,D) fit (Fig. 1)"}}}},
        {"fig5", {"isoflop", {{"panels", "Every context length (Fig. 5)"}}}}};
    for (const auto& [name, layout] : layouts)
        for (const QString suffix : {"svg", "pdf", "png"})
            benchmark::RegisterBenchmark((QStringLiteral("BM_ExportLayout/%1/").arg(QLatin1String(name)) + suffix).toStdString().c_str(),
                                         [view = layout.first, controls = layout.second, suffix](benchmark::State& s) {
                                             BM_ExportLayout(s, view, controls, suffix);
                                         })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
    for (const QString view : {"surface", "isoflop"})
        benchmark::RegisterBenchmark(("BM_ViewTable/" + view).toStdString().c_str(),
                                     [view](benchmark::State& s) { BM_ViewTable(s, view); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    return true;
}();

}  // namespace
