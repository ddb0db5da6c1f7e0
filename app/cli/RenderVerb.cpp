// scalex render: a view of a project (or the built-in example) as a figure for a paper.
#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "app/gui/FigureExport.h"

namespace scalex::cli {

int verbRender(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Render a view as a PDF, SVG or PNG figure, without a display.");
    p.addHelpOption();
    p.addOptions({
        {"project", "A .scalex project or a run table.", "file"},
        {"example", "Use the built-in example project (the default)."},
        {"view", "pareto, surface, overtraining, isoflop, context or breakdown.", "id"},
        {"out", "Output file: .pdf, .svg or .png.", "file"},
        {"size", "WIDTHxHEIGHT with a unit (3.25x2.4in, 16x9cm) or single, double, slides.", "size", "double"},
        {"style", "paper (white, fonts matched to the size) or screen.", "style", "paper"},
        {"font", "Font family of the paper style.", "family", "DejaVu Sans"},
        {"dpi", "PNG resolution.", "dpi", "300"},
        {"paper-figures", "Regenerate the paper's figures 1, 3, 4, 5, 6 and its appendix tables into the directory --out."},
    });
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (p.isSet("paper-figures")) {
        if (!p.isSet("out")) throw UsageError("missing required option --out (a directory for the figures and tables)");
        gui::FigureStyle style;
        QString error;
        if (!gui::parseFigureSize(p.value("size"), &style, &error)) throw UsageError(error.toStdString());
        style.fontFamily = p.value("font");
        QStringList written;
        if (!gui::renderPaperFigures(p.value("project"), p.value("out"), style, &written, &error)) throw UsageError(error.toStdString());
        printText(QStringLiteral("scalex render: wrote %1 files to %2: %3\n").arg(written.size()).arg(p.value("out"), written.join(", ")));
        return kExitOk;
    }
    if (!p.isSet("view")) throw UsageError("missing required option --view (" + gui::renderableViews().join(", ").toStdString() + ")");
    if (!p.isSet("out")) throw UsageError("missing required option --out (a .pdf, .svg or .png file)");
    if (p.isSet("project") && p.isSet("example")) throw UsageError("--project and --example exclude each other");
    gui::RenderRequest request;
    request.project = p.value("project");
    request.view = p.value("view");
    request.out = p.value("out");
    QString error;
    if (!gui::parseFigureSize(p.value("size"), &request.style, &error)) throw UsageError(error.toStdString());
    const QString style = p.value("style");
    if (style != "paper" && style != "screen") throw UsageError("--style: expected paper or screen, got '" + style.toStdString() + "'");
    request.style.paper = style == "paper";
    request.style.fontFamily = p.value("font");
    request.style.dpi = static_cast<int>(*intOption(p, "dpi", 30));
    if (request.style.dpi > 2400) throw UsageError("--dpi: at most 2400");
    if (!gui::renderFigure(request, &error)) throw UsageError(error.toStdString());
    printText(QStringLiteral("scalex render: wrote %1\n").arg(request.out));
    return kExitOk;
}

}  // namespace scalex::cli
