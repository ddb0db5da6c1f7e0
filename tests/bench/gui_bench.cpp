// The explorer window's responsiveness:
// - launch to first painted window (the `scalex` process, offscreen, on the built-in example);
// - one context-slider step on the study's data: recount the FLOPs of every IsoFLOP run at the
//   new context, refit the N*(H) power laws, re-solve the optima on the loss surface, redraw;
// - a paper-style SVG export of the loss surface of a 20,000-run project;
// - regrouping a 20,000-run project into series and back (the Runs view's "Group runs by"), up to
//   the visible view's redraw: what the UI thread does before the next event;
// - a table of a million checkpoints opened in the background on the Loss curves view: the UI
//   thread's longest gap between two events from the start of the load to the curves drawn, and a
//   repaint of the drawn curves.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QElapsedTimer>
#include <QProcess>
#include <QTabWidget>

#include "app/figures/views/ContextFigure.h"
#include "app/gui/FigureView.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Session.h"
#include "core/data/Project.h"
#include "tests/support/LargeProject.h"
#include "tests/support/UiStallWatchdog.h"
#include "CheckpointStudy.h"

#include <QTemporaryDir>
#include <memory>

static void initResources() { Q_INIT_RESOURCE(scalex); }

namespace {

QApplication* application() {
    static int argc = 1;
    static char name[] = "scalex_gui_bench";
    static char* argv[] = {name, nullptr};
    if (!QApplication::instance()) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        new QApplication(argc, argv);
        initResources();
    }
    return qApp;
}

void BM_LaunchToFirstPaint(benchmark::State& state) {
    QProcess probe;
    QStringList env = QProcess::systemEnvironment();
    env << QStringLiteral("QT_QPA_PLATFORM=offscreen");
    probe.setEnvironment(env);
    double inProcessMs = 0;
    for (auto _ : state) {
        probe.start(QStringLiteral(SCALEX_EXECUTABLE), {"--example", "--first-paint-exit"});
        probe.waitForFinished(60000);
        const QString out = QString::fromUtf8(probe.readAllStandardOutput());
        inProcessMs = out.section(' ', 3, 3).toDouble();
        if (probe.exitCode() != 0 || !out.startsWith("first paint")) state.SkipWithError("scalex did not paint");
    }
    state.counters["in_process_ms"] = inProcessMs;
}
BENCHMARK(BM_LaunchToFirstPaint)->Unit(benchmark::kMillisecond)->Iterations(5)->UseRealTime();

// Opening a table of checkpoints (CheckpointStudy.h; state.range(0) runs of 1000 checkpoints) on
// the Loss curves view: the `scalex` process from launch to its first painted window.
void BM_OpenCheckpointTableToFirstPaint(benchmark::State& state) {
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("log.csv"));
    {
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly)) {
            state.SkipWithError("cannot write the table");
            return;
        }
        const std::string text = scalex::bench::checkpointStudy(static_cast<int>(state.range(0)), 1000);
        f.write(text.data(), static_cast<qint64>(text.size()));
    }
    QProcess probe;
    QStringList env = QProcess::systemEnvironment();
    env << QStringLiteral("QT_QPA_PLATFORM=offscreen");
    probe.setEnvironment(env);
    double inProcessMs = 0;
    for (auto _ : state) {
        probe.start(QStringLiteral(SCALEX_EXECUTABLE), {file, "--view", "curves", "--first-paint-exit"});
        probe.waitForFinished(120000);
        const QString out = QString::fromUtf8(probe.readAllStandardOutput());
        inProcessMs = out.section(' ', 3, 3).toDouble();
        if (probe.exitCode() != 0 || !out.startsWith("first paint")) state.SkipWithError("scalex did not paint");
    }
    state.counters["in_process_ms"] = inProcessMs;
}
BENCHMARK(BM_OpenCheckpointTableToFirstPaint)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// A generated table of checkpoints (CheckpointStudy.h: `runs` runs of 1000 checkpoints) in `dir`;
// empty, with the benchmark marked skipped, when it cannot be written.
QString writeCheckpointTable(benchmark::State& state, const QTemporaryDir& dir, int runs) {
    const QString file = dir.filePath(QStringLiteral("log.csv"));
    QFile f(file);
    const std::string text = scalex::bench::checkpointStudy(runs, 1000);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size())) {
        state.SkipWithError("cannot write the table");
        return {};
    }
    return file;
}

// A window (never shown on screen) on the Loss curves view that opens the table at `file` in the
// background as a person would; returns once the table is the project and the curves are drawn.
// `watchdog`, when given, watches the UI thread throughout.
std::unique_ptr<scalex::gui::MainWindow> openCheckpointTable(benchmark::State& state, const QString& file,
                                                             scalex::test::UiStallWatchdog* watchdog = nullptr) {
    application();
    auto window = std::make_unique<scalex::gui::MainWindow>();
    window->setAttribute(Qt::WA_DontShowOnScreen, true);
    window->resize(1280, 800);
    window->show();
    window->showView(QStringLiteral("curves"));
    QApplication::processEvents();
    bool done = false, opened = false;
    QObject::connect(window.get(), &scalex::gui::MainWindow::loadFinished, [&](bool ok) { opened = ok, done = true; });
    if (watchdog) watchdog->current = QStringLiteral("load");
    window->loadRunTableInBackground(file, false);
    QElapsedTimer bound;
    bound.start();
    while (!done && bound.elapsed() < 300000) QApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!opened) {
        state.SkipWithError("the table did not open");
        return nullptr;
    }
    if (watchdog) watchdog->current = QStringLiteral("draw");
    window->currentPanel()->computeNow();
    for (int i = 0; i < 10; ++i) QApplication::processEvents(QEventLoop::AllEvents, 20);  // the paints that follow
    return window;
}

// The UI thread's longest gap between two events while a table of state.range(0) runs of 1000
// checkpoints loads in the background and the Loss curves view draws it (the aim: 200 ms).
void BM_CheckpointTableLongestUiGap(benchmark::State& state) {
    QTemporaryDir dir;
    const QString file = writeCheckpointTable(state, dir, static_cast<int>(state.range(0)));
    if (file.isEmpty()) return;
    double longest = 0, longestCpu = 0;
    for (auto _ : state) {
        scalex::test::UiStallWatchdog watchdog;
        if (!openCheckpointTable(state, file, &watchdog)) return;
        longest = std::max(longest, watchdog.longestMs());
        longestCpu = std::max(longestCpu, watchdog.longestCpuMs());
        state.counters["longest_gap_ms"] = longest;
        state.counters["longest_gap_ui_cpu_ms"] = longestCpu;
        state.SetLabel(watchdog.longestAction().toStdString());
    }
}
BENCHMARK(BM_CheckpointTableLongestUiGap)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// The drawn Loss curves of state.range(0) runs of 1000 checkpoints painted again (an expose, a
// hover, a dialog closed over them): the window's whole paint on the UI thread.
void BM_CheckpointCurvesRepaint(benchmark::State& state) {
    QTemporaryDir dir;
    const QString file = writeCheckpointTable(state, dir, static_cast<int>(state.range(0)));
    if (file.isEmpty()) return;
    auto window = openCheckpointTable(state, file);
    if (!window) return;
    for (auto _ : state) benchmark::DoNotOptimize(window->currentPanel()->grab());
}
BENCHMARK(BM_CheckpointCurvesRepaint)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ContextSliderStep(benchmark::State& state) {
    application();
    scalex::gui::MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen, true);
    window.resize(1280, 800);
    window.show();
    const QString data = QStringLiteral(SCALEX_SHARED_DIR "/data/xlstm/");
    if (QDir(data).exists()) {
        window.openPath(data + "runs_isoflop_llama_ctx8192.csv", false);
        window.addRunTable(data + "runs_isoflop_mlstm_ctx16384.csv", false);
        window.addRunTable(data + "tokenparam_runs_ctx8192.csv", false);
    } else {
        window.openExample(false);  // the study's data is not beside the checkout
    }
    window.showView(QStringLiteral("context"));
    auto* view = qobject_cast<scalex::gui::FigureView*>(window.currentPanel());
    QApplication::processEvents();
    int position = 0;
    for (auto _ : state) {
        view->applyControls({{QStringLiteral("context"), scalex::figures::ContextFigure::contextAt(position)}});
        view->computeNow();  // the job done
        view->repaint();     // and drawn
        position = (position + 1) % 33;
    }
    state.counters["runs"] = static_cast<double>(window.session()->runs().runs.size());
}
BENCHMARK(BM_ContextSliderStep)->Unit(benchmark::kMillisecond)->UseRealTime();

// A window (never shown on screen) with a generated project of `runs` runs open; null, with the
// benchmark marked skipped, when it cannot be made.
std::unique_ptr<scalex::gui::MainWindow> largeProjectWindow(benchmark::State& state, std::size_t runs) {
    application();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("large.scalex"));
    if (scalex::data::saveProject(scalex::test::makeLargeProject(QStringLiteral(SCALEX_SOURCE_DIR "/datasets/paper"), runs), path)) {
        state.SkipWithError("cannot save the project");
        return nullptr;
    }
    auto window = std::make_unique<scalex::gui::MainWindow>();
    window->setAttribute(Qt::WA_DontShowOnScreen, true);
    window->resize(1280, 800);
    window->show();
    if (!window->openPath(path, false)) {
        state.SkipWithError("cannot open the project");
        return nullptr;
    }
    return window;
}

void BM_RegroupLargeProject(benchmark::State& state) {
    auto window = largeProjectWindow(state, static_cast<std::size_t>(state.range(0)));
    if (!window) return;
    window->showView(QStringLiteral("pareto"));
    QApplication::processEvents();
    const std::vector<std::vector<std::string>> groupings = {{"experiment_set"}, {}};
    std::size_t k = 0;
    for (auto _ : state) {
        if (window->session()->groupRunsBy(groupings[k++ % groupings.size()])) state.SkipWithError("cannot regroup");
        QApplication::processEvents();
    }
    state.counters["runs"] = static_cast<double>(window->session()->runs().runs.size());
}
BENCHMARK(BM_RegroupLargeProject)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

// largeProjectWindow of state.range(0) runs showing the loss surface, fitted.
std::unique_ptr<scalex::gui::MainWindow> largeSurfaceWindow(benchmark::State& state) {
    auto window = largeProjectWindow(state, static_cast<std::size_t>(state.range(0)));
    if (!window) return nullptr;
    window->showView(QStringLiteral("surface"));
    window->currentPanel()->computeNow();
    QApplication::processEvents();
    return window;
}

// A paper-style SVG of the loss surface of a 20,000-run project, exported from the window, and the
// view drawn in the screen style again.
void BM_ExportLargeSurfaceSvg(benchmark::State& state) {
    auto window = largeSurfaceWindow(state);
    if (!window) return;
    QTemporaryDir out;
    for (auto _ : state) {
        scalex::figures::FigureStyle style;
        style.dpi = 96;
        if (!window->exportView(out.filePath(QStringLiteral("surface.svg")), style, QString(), false)) state.SkipWithError("export failed");
        QApplication::processEvents();
    }
}
BENCHMARK(BM_ExportLargeSurfaceSvg)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

// What exporting the loss surface's table does on the UI thread for a 20,000-run project, its fit
// done: making the table job (its work then runs on the views' pool).
void BM_LargeSurfaceTablesJob(benchmark::State& state) {
    auto window = largeSurfaceWindow(state);
    if (!window) return;
    for (auto _ : state) {
        auto job = window->currentPanel()->tablesJob();
        benchmark::DoNotOptimize(job);
    }
}
BENCHMARK(BM_LargeSurfaceTablesJob)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

// The loss surface of a 20,000-run project drawn again (a new style: no refit), on the UI thread.
void BM_LargeSurfaceRedraw(benchmark::State& state) {
    auto window = largeSurfaceWindow(state);
    if (!window) return;
    for (auto _ : state) {
        window->session()->restyle();
        QApplication::processEvents();
    }
}
BENCHMARK(BM_LargeSurfaceRedraw)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
