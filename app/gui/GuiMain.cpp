#include "app/gui/GuiMain.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPainter>
#include <QElapsedTimer>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include "app/gui/MainWindow.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/data/Lesson.h"
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
    // A study loading in the background: the window's first paint is reported, and the paint that
    // ends the probe is the first after the load.
    void waitForLoad(MainWindow& window) {
        waiting_ = true;
        connect(&window, &MainWindow::loadFinished, this, [this, &window] {
            waiting_ = false;
            window.update();
        });
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint && waiting_ && !shown_) {
            shown_ = true;
            std::printf("window shown after %.1f ms\n", clock_->nsecsElapsed() / 1e6);
        } else if (event->type() == QEvent::Paint && !done_ && !waiting_) {
            done_ = true;
            std::printf("first paint after %.1f ms\n", clock_->nsecsElapsed() / 1e6);
            std::fflush(stdout);
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QElapsedTimer* clock_;
    bool done_ = false, waiting_ = false, shown_ = false;
};
}  // namespace

namespace {
// Offscreen renders: Qt's note that the offscreen platform cannot pass size hints on is noise.
QtMessageHandler previousHandler = nullptr;
void quietOffscreen(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints"))) return;
    if (previousHandler)
        previousHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

// `scalex --list-lessons [--json]`: the shipped lessons, no window.
int listLessons(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    initResources();
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json")) json = true;
        else if (std::strcmp(argv[i], "--list-lessons")) {
            std::fprintf(stderr, "scalex: --list-lessons: unexpected argument '%s' (it takes only --json)\n", argv[i]);
            return 2;
        }
    }
    QJsonArray lessons;
    QString text;
    int status = 0;
    for (const QString& path : data::builtinLessonPaths()) {
        auto lesson = data::loadLesson(path);
        if (!lesson) {
            std::fprintf(stderr, "scalex: %s\n", lesson.error().toString().c_str());
            status = 2;
            continue;
        }
        lessons.append(QJsonObject{{"id", QString::fromStdString(lesson->id)},
                                   {"title", QString::fromStdString(lesson->title)},
                                   {"steps", static_cast<int>(lesson->steps.size())}});
        text += QStringLiteral("%1\t%2 (%3 steps)\n")
                    .arg(QString::fromStdString(lesson->id), QString::fromStdString(lesson->title))
                    .arg(lesson->steps.size());
    }
    const QByteArray out = json ? QJsonDocument(lessons).toJson(QJsonDocument::Indented) : text.toUtf8();
    std::fwrite(out.constData(), 1, static_cast<std::size_t>(out.size()), stdout);
    return status;
}
}  // namespace

int runGui(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--list-lessons")) return listLessons(argc, argv);
    QElapsedTimer clock;
    clock.start();
    // Headless renders never need a display: without one, draw offscreen.
    bool headless = false;
    for (int i = 1; i < argc; ++i)
        headless = headless || !std::strcmp(argv[i], "--screenshot") || !std::strcmp(argv[i], "--first-paint-exit");
    if (headless && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (headless) {
        previousHandler = qInstallMessageHandler(quietOffscreen);
        // Qt wants a private runtime directory; headless sessions (CI, ssh) often have none.
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
            const QString dir = QDir::tempPath() + QStringLiteral("/scalex-runtime-") + QString::number(getuid());
            QDir().mkpath(dir);
            QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            qputenv("XDG_RUNTIME_DIR", dir.toUtf8());
        }
    }
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
    parser.addOption({"lesson", "Open this lesson (a shipped lesson's id or a lesson file) in the side pane.", "id"});
    parser.addOption({"step", "With --lesson: show this step (1 is the first).", "k", "1"});
    parser.addOption({"list-lessons", "Print the shipped lessons (id, title, steps) and exit; --json as a JSON list."});
    parser.addOption({"presentation", "Start in presentation mode (larger fonts and lines)."});
    parser.addOption({"first-paint-exit", "Quit at the first paint and print the time since start (benchmarks)."});
    parser.addPositionalArgument("files", "A .scalex project, or run tables, loss curves and measurements to open together.",
                                 "[project | files...]");
    parser.process(app);

    const QString theme = parser.isSet("theme") ? parser.value("theme") : QSettings().value("ui/theme").toString();
    Theme::setCurrent(theme == QLatin1String("dark") ? Theme::dark() : Theme::light());
    Theme::current().applyTo(app);

    MainWindow window;
    headless = parser.isSet("screenshot");
    if (!parser.positionalArguments().isEmpty()) {
        if (!window.openPaths(parser.positionalArguments(), !headless)) {
            std::fprintf(stderr, "scalex: %s\n", qPrintable(window.lastError()));
            if (headless) return 2;
            window.openExample(false);
        } else if (window.loading()) {
            // Read in the background: a file that turns out unusable leaves the example open, as above.
            QObject::connect(&window, &MainWindow::loadFinished, &window, [&window](bool opened) {
                if (opened) return;
                std::fprintf(stderr, "scalex: %s\n", qPrintable(window.lastError()));
                window.openExample(false);
            });
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
    if (parser.isSet("presentation")) window.setPresentation(true);
    if (parser.isSet("step") && !parser.isSet("lesson")) {
        std::fprintf(stderr, "scalex: --step needs --lesson\n");
        return 2;
    }
    if (parser.isSet("lesson")) {
        bool ok = false;
        const int step = parser.value("step").toInt(&ok);
        if (!ok || step < 1) {
            std::fprintf(stderr, "scalex: --step: expected a step number from 1, found '%s'\n", qPrintable(parser.value("step")));
            return 2;
        }
        if (!window.openLessonFile(parser.value("lesson"), step - 1, !headless)) {
            std::fprintf(stderr, "scalex: --lesson: %s\n", qPrintable(window.lastError()));
            if (headless) return 2;
        }
    }

    if (parser.isSet("screenshot")) {
        const QString out = parser.value("screenshot");
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.show();
        const QImage image = window.screenshot();
        if (image.isNull() || !image.save(out, "PNG")) {
            std::fprintf(stderr, "scalex: could not write screenshot to %s\n", qPrintable(out));
            return 2;
        }
        std::printf("scalex: main window rendered to %s (%dx%d)\n", qPrintable(out), image.width(), image.height());
        return 0;
    }
    FirstPaintProbe probe(&clock);
    if (parser.isSet("first-paint-exit")) {
        window.installEventFilter(&probe);
        if (window.loading()) probe.waitForLoad(window);
    }
    window.show();
    return app.exec();
}

}  // namespace scalex::gui
