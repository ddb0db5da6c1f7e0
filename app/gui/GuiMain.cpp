#include "app/gui/GuiMain.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QImage>
#include <QPainter>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>
#include <cstring>

#include "app/gui/MainWindow.h"
#include "app/gui/Theme.h"
#include "app/gui/ViewPanel.h"
#include "ScalexRevision.h"  // generated at build time: the source revision
#include <QSettings>

// The resources live in the static scalex_app library and must be registered explicitly.
static void initResources() { Q_INIT_RESOURCE(scalex); }

namespace scalex::gui {

namespace {
// Quits at the first paint of the main window and reports the time since the process started
// (for the start-up benchmark).
class FirstPaintProbe : public QObject {
public:
    explicit FirstPaintProbe(QElapsedTimer* clock) : clock_(clock) {}
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint && !done_) {
            done_ = true;
            std::printf("first paint after %.1f ms\n", clock_->nsecsElapsed() / 1e6);
            std::fflush(stdout);
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QElapsedTimer* clock_;
    bool done_ = false;
};
}  // namespace

int runGui(int argc, char** argv) {
    QElapsedTimer clock;
    clock.start();
    // Headless renders never need a display: without one, draw offscreen.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        headless = headless || !std::strcmp(argv[i], "--screenshot") || !std::strcmp(argv[i], "--first-paint-exit");
    if (headless && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    initResources();
    QApplication::setApplicationName(QStringLiteral("scalex"));
    QApplication::setApplicationDisplayName(QStringLiteral("Scalex"));
    QApplication::setOrganizationName(QStringLiteral("Scalex"));
    QApplication::setApplicationVersion(QStringLiteral(SCALEX_VERSION " (revision " SCALEX_SOURCE_REVISION ")"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Scalex explorer window. Run `scalex help` for the headless verbs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({"example", "Open the built-in example project."});
    parser.addOption({"screenshot", "Render the main window to this PNG and exit.", "file"});
    parser.addOption({"size", "Window size WIDTHxHEIGHT in pixels.", "size", "1280x800"});
    parser.addOption({"view", "Show this view first (e.g. breakdown).", "id"});
    parser.addOption({"theme", "light or dark.", "name"});
    parser.addOption({"first-paint-exit", "Quit at the first paint and print the time since start (benchmarks)."});
    parser.addPositionalArgument("project", "A .scalex project or a run table to open.", "[project]");
    parser.process(app);

    const QString theme = parser.isSet("theme") ? parser.value("theme") : QSettings().value("ui/theme").toString();
    Theme::setCurrent(theme == QLatin1String("dark") ? Theme::dark() : Theme::light());
    Theme::current().applyTo(app);

    MainWindow window;
    headless = parser.isSet("screenshot");
    if (!parser.positionalArguments().isEmpty()) {
        const QString path = parser.positionalArguments().first();
        if (!window.openPath(path, !headless)) {
            std::fprintf(stderr, "scalex: %s\n", qPrintable(window.lastError()));
            if (headless) return 2;
            window.openExample(false);
        }
    } else if (parser.isSet("example") || headless) {
        if (!window.openExample(!headless) && headless) {
            std::fprintf(stderr, "scalex: %s\n", qPrintable(window.lastError()));
            return 2;
        }
    } else {
        window.restoreLastSession();
    }
    if (parser.isSet("view") && !window.showView(parser.value("view"))) {
        std::fprintf(stderr, "scalex: --view: no view named '%s'\n", qPrintable(parser.value("view")));
        return 2;
    }
    const QStringList size = parser.value("size").split('x');
    if (size.size() == 2) window.resize(size[0].toInt(), size[1].toInt());

    if (parser.isSet("screenshot")) {
        const QString out = parser.value("screenshot");
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.show();
        QApplication::processEvents();
        if (ViewPanel* panel = window.currentPanel()) {
            panel->computeNow();
            QApplication::processEvents();
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced chart items
        }
        const QImage image = window.grab().toImage();
        if (image.isNull() || !image.save(out, "PNG")) {
            std::fprintf(stderr, "scalex: could not write screenshot to %s\n", qPrintable(out));
            return 2;
        }
        std::printf("scalex: main window rendered to %s (%dx%d)\n", qPrintable(out), image.width(), image.height());
        return 0;
    }
    FirstPaintProbe probe(&clock);
    if (parser.isSet("first-paint-exit")) window.installEventFilter(&probe);
    window.show();
    return app.exec();
}

}  // namespace scalex::gui
