#include "app/gui/GuiMain.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QImage>
#include <QPainter>
#include <QTimer>
#include <cstdio>

#include "app/gui/MainWindow.h"

namespace scalex::gui {

int runGui(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("scalex"));
    QApplication::setApplicationDisplayName(QStringLiteral("Scalex"));
    QApplication::setOrganizationName(QStringLiteral("Scalex"));
    QApplication::setApplicationVersion(QStringLiteral(SCALEX_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Scalex explorer window. Run `scalex help` for the headless verbs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({"example", "Open the built-in example project."});
    parser.addOption({"screenshot", "Render the main window to this PNG and exit.", "file"});
    parser.addOption({"size", "Window size WIDTHxHEIGHT in pixels.", "size", "1280x800"});
    parser.addPositionalArgument("project", "A .scalex project or a run table to open.", "[project]");
    parser.process(app);

    MainWindow window;
    const QStringList size = parser.value("size").split('x');
    if (size.size() == 2) window.resize(size[0].toInt(), size[1].toInt());

    if (parser.isSet("screenshot")) {
        const QString out = parser.value("screenshot");
        window.setAttribute(Qt::WA_DontShowOnScreen, true);
        window.show();
        QApplication::processEvents();
        const QImage image = window.grab().toImage();
        if (image.isNull() || !image.save(out, "PNG")) {
            std::fprintf(stderr, "scalex: could not write screenshot to %s\n", qPrintable(out));
            return 2;
        }
        std::printf("scalex: main window rendered to %s (%dx%d)\n", qPrintable(out), image.width(), image.height());
        return 0;
    }
    window.show();
    return app.exec();
}

}  // namespace scalex::gui
