// The explorer window's responsiveness:
// - launch to first painted window (the `scalex` process, offscreen, on the built-in example);
// - one context-slider step on the study's data: recount the FLOPs of every IsoFLOP run at the
//   new context, refit the N*(H) power laws, re-solve the optima on the loss surface, redraw.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QTabWidget>

#include "app/gui/ContextView.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Session.h"

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
    auto* view = qobject_cast<scalex::gui::ContextView*>(window.currentPanel());
    QApplication::processEvents();
    int position = 0;
    for (auto _ : state) {
        view->setContext(scalex::gui::ContextView::contextAt(position));  // recomputes synchronously
        view->repaint();                                                 // and draws
        position = (position + 1) % 33;
    }
    state.counters["runs"] = static_cast<double>(window.session()->runs().runs.size());
}
BENCHMARK(BM_ContextSliderStep)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
