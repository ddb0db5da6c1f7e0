// The Python module's figures: any view of a study drawn to a PDF, SVG or PNG file by the code
// `scalex render` uses (app/figures/Render.h), so a figure from a notebook is the verb's figure.
// The charts are widgets: the first figure starts a QApplication, on the offscreen platform
// where there is no display, as the verbs that draw do (app/cli/Cli.cpp).
#include "app/python/FigureRender.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <unistd.h>

#include "app/figures/Controls.h"
#include "app/figures/FigureWriter.h"
#include "app/figures/Render.h"
#include "app/figures/ViewFigure.h"
#include "core/data/SpecJson.h"

namespace scalex::python {

namespace {

QtMessageHandler previousHandler = nullptr;

// The offscreen platform says it cannot propagate size hints for every window; nothing is lost.
void quietOffscreen(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("propagateSizeHints"))) return;
    if (previousHandler) previousHandler(type, context, message);
}

void ensureApplication() {
    if (qobject_cast<QApplication*>(QCoreApplication::instance())) return;
    if (QCoreApplication::instance()) throw std::runtime_error("a Qt application without widgets is running: figures need one with widgets");
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen") {
        previousHandler = qInstallMessageHandler(quietOffscreen);
        if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {  // as app/cli/Cli.cpp: headless sessions often have none
            const QByteArray dir = QDir::tempPath().toUtf8() + "/scalex-runtime-" + QByteArray::number(static_cast<qlonglong>(getuid()));
            QDir().mkpath(QString::fromUtf8(dir));
            QFile::setPermissions(QString::fromUtf8(dir), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            qputenv("XDG_RUNTIME_DIR", dir);
        }
    }
    // Lives as long as the interpreter: Qt keeps pointers to argc and argv.
    static int argc = 1;
    static char name[] = "scalex";
    static char* argv[] = {name, nullptr};
    new QApplication(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("scalex"));
    QCoreApplication::setOrganizationName(QStringLiteral("Scalex"));
}

}  // namespace

namespace {

// The request of `o`, or the verb's message for the first option it cannot take (the view, the
// controls' syntax, size, style, dpi; with `withOut` the file too). Draws nothing.
std::string request(const FigureOptions& o, bool withOut, figures::RenderRequest* request) {
    const QString view = QString::fromStdString(o.view);
    if (view.isEmpty()) return "missing required option --view (" + figures::figureViews().join(", ").toStdString() + ")";
    if (!figures::figureViews().contains(view)) return figures::unknownViewError(view).toStdString();
    request->view = view;
    request->out = QString::fromStdString(o.out);
    const QString suffix = QFileInfo(request->out).suffix().toLower();
    const bool table = figures::tableSuffixes().contains(suffix);
    if (withOut && suffix != "pdf" && suffix != "svg" && suffix != "png" && !table)
        return "--out: '" + o.out + "' is neither a figure file (.pdf, .svg or .png) nor a table (.tex, .csv or .json)";
    if (withOut && !table && !o.table.empty()) return "--table: tables are written to .tex, .csv or .json; --out names a figure";
    QString error;
    QStringList assignments;
    for (const auto& a : o.set) assignments << QString::fromStdString(a);
    if (!figures::parseControlAssignments(assignments, &request->controls, &error)) return error.toStdString();
    if (!figures::parseFigureSize(QString::fromStdString(o.size), &request->style, &error)) return error.toStdString();
    if (o.style != "paper" && o.style != "screen") return "--style: expected paper or screen, got '" + o.style + "'";
    request->style.paper = o.style == "paper";
    request->style.fontFamily = QString::fromStdString(o.font);
    if (o.dpi < 30) return "--dpi must be at least 30, got " + std::to_string(o.dpi);
    if (o.dpi > 2400) return "--dpi: at most 2400";
    request->style.dpi = o.dpi;
    for (const auto& file : o.models)  // as `scalex render --model`
        if (const auto model = data::readModelFile(file); !model) return "--model: " + model.error().toString();
    return {};
}

}  // namespace

std::string checkFigure(const FigureOptions& o) {
    figures::RenderRequest r;
    return request(o, false, &r);
}

std::string renderView(const analysis::Study& study, const FigureOptions& o) {
    figures::RenderRequest r;
    if (auto error = request(o, true, &r); !error.empty()) return error;
    analysis::Study withModels = study;
    for (const auto& file : o.models) {  // each model named after its file, as `scalex render --model`
        const auto model = data::readModelFile(file);
        if (!model) return "--model: " + model.error().toString();
        withModels.addSpec({QFileInfo(QString::fromStdString(file)).completeBaseName().toStdString(), file, model->spec});
    }
    ensureApplication();
    QString error;
    if (figures::tableSuffixes().contains(QFileInfo(r.out).suffix().toLower())) {
        if (!figures::renderTable(withModels, r, QString::fromStdString(o.table), &error)) return error.toStdString();
        return {};
    }
    if (!figures::renderFigure(withModels, r, &error)) return error.toStdString();
    return {};
}

}  // namespace scalex::python
