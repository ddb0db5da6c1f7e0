#include "app/gui/FigureExport.h"

#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QtCharts/QAbstractAxis>
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
#include "app/gui/PlotChart.h"
#include "app/gui/Session.h"
#include "core/data/Export.h"
#include "core/data/RunAnalyses.h"
#include "app/gui/Theme.h"
#include "app/gui/ViewPanel.h"

namespace scalex::gui {

QStringList renderableViews() {
    return {"pareto", "surface", "overtraining", "isoflop", "context", "breakdown", "roofline", "inference"};
}

namespace {

bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("--out: cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

// The appendix tables, recomputed from the project's runs.
std::vector<std::pair<QString, data::ExportTable>> paperTables(const data::RunTable& runs) {
    using accounting::Family;
    std::vector<std::pair<QString, data::ExportTable>> out;
    auto filter = [](Family f, data::ExperimentSet set) {
        data::RunFilter r;
        r.family = f;
        r.experimentSet = set;
        r.context = 8192;
        r.selectedOnly = true;
        return r;
    };
    // Tab. lnd_fit_params (delta 1e-3, gamma free).
    data::ExportTable lnd;
    lnd.caption = "Fit parameters of the loss surface L(N,D) (Huber delta 1e-3, gamma fitted), from the token/param runs at context 8192.";
    lnd.label = "tab:lnd_fit_params";
    lnd.columns = {{"family", "Model", data::CellStyle::Text},   {"log_a", "$\\log A$", data::CellStyle::Fixed2},
                   {"log_b", "$\\log B$", data::CellStyle::Fixed2}, {"log_e", "$\\log E$", data::CellStyle::Fixed2},
                   {"alpha", "$\\alpha$", data::CellStyle::Fixed2}, {"beta", "$\\beta$", data::CellStyle::Fixed2},
                   {"gamma", "$\\gamma$", data::CellStyle::Fixed2}};
    // Tab. tokenparam_slopes.
    data::ExportTable eta;
    eta.caption = "Power-law exponents eta of L(C) = lambda C^(-eta) per tokens-to-parameter ratio M.";
    eta.label = "tab:tokenparam_slopes";
    eta.columns = {{"tokens_per_param", "$M$", data::CellStyle::Integer},
                   {"eta_transformer", "Transformer $\\eta$", data::CellStyle::Fixed3},
                   {"eta_xlstm", "xLSTM $\\eta$", data::CellStyle::Fixed3}};
    // Tab. estimated_optimal_flops_tokens_powerlaw.
    data::ExportTable opt;
    opt.caption = "Compute-optimal training FLOPs, tokens and tokens per parameter from the IsoFLOP power laws (context 8192).";
    opt.label = "tab:estimated_optimal_flops_tokens_powerlaw";
    opt.columns = {{"params", "Params", data::CellStyle::Count},
                   {"transformer_flops", "Transformer FLOPs", data::CellStyle::Scientific},
                   {"transformer_tokens", "Tokens", data::CellStyle::Count},
                   {"transformer_tokens_per_param", "Tok/Param", data::CellStyle::Fixed1},
                   {"xlstm_flops", "xLSTM FLOPs", data::CellStyle::Scientific},
                   {"xlstm_tokens", "Tokens", data::CellStyle::Count},
                   {"xlstm_tokens_per_param", "Tok/Param", data::CellStyle::Fixed1}};
    const std::vector<double> sizes{1e8, 4e8, 1e9, 3e9, 7e9, 1.5e10, 3e10, 7e10};
    std::vector<std::vector<data::ExportCell>> optRows(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) optRows[i].push_back(sizes[i]);
    std::map<double, std::array<data::ExportCell, 2>> etas;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const int k = f == Family::Xlstm;
        fit::LossSurfaceSettings settings;
        const auto points = data::lossSurfacePoints(runs, filter(f, data::ExperimentSet::TokenParam)).points;
        if (points.size() >= 6) {
            const auto fitted = fit::fitLossSurface(points, settings);
            const auto& b = fitted.best;
            lnd.rows.push_back({std::string(accounting::familyLabel(f)), b.logA, b.logB, b.logE, b.alpha, b.beta, b.gamma});
        }
        const auto slopes = data::fitOvertrainingSlopes(runs, filter(f, data::ExperimentSet::TokenParam), fit::SlopeSettings{});
        for (const auto& g : slopes.groups)
            if (g.fitted) etas[g.ratio][static_cast<std::size_t>(k)] = g.eta;
        fit::IsoFlopSettings iso;
        iso.fitMin = 5e18;
        iso.fitMax = 2e20;
        const auto result = data::fitIsoFlop(runs, filter(f, data::ExperimentSet::IsoFlop), iso);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (!result.nOptLaw || !result.dOptLaw) {
                optRows[i].insert(optRows[i].end(), {data::ExportCell{}, data::ExportCell{}, data::ExportCell{}});
                continue;
            }
            // N* = A' H^a  =>  H = (N / A')^(1/a); D* = B' H^b.
            const double H = std::pow(sizes[i] / result.nOptLaw->coefficient, 1.0 / result.nOptLaw->exponent);
            const double D = (*result.dOptLaw)(H);
            optRows[i].insert(optRows[i].end(), {H, D, D / sizes[i]});
        }
    }
    for (const auto& [m, values] : etas) eta.rows.push_back({m, values[0], values[1]});
    opt.rows = optRows;
    out.push_back({QStringLiteral("tab_lnd_fit_params"), lnd});
    out.push_back({QStringLiteral("tab_tokenparam_slopes"), eta});
    out.push_back({QStringLiteral("tab_estimated_optimal_flops_tokens_powerlaw"), opt});
    return out;
}

}  // namespace

bool renderPaperFigures(const QString& project, const QString& outDir, const FigureStyle& style, QStringList* written,
                        QString* error) {
    if (!QDir().mkpath(outDir)) {
        *error = QStringLiteral("--out: cannot create the directory %1").arg(outDir);
        return false;
    }
    struct Figure {
        const char* name;
        const char* view;
    };
    const Figure figures[] = {{"fig1_pareto_front", "pareto"},      {"fig3_overtraining_slopes", "overtraining"},
                              {"fig4_isoflop", "isoflop"},          {"fig5_context_length", "context"},
                              {"fig6_inference_runtimes", "inference"}, {"fig_roofline", "roofline"}};
    for (const Figure& f : figures)
        for (const char* suffix : {"pdf", "png"}) {
            RenderRequest r;
            r.project = project;
            r.view = QString::fromLatin1(f.view);
            r.out = QDir(outDir).filePath(QStringLiteral("%1.%2").arg(QLatin1String(f.name), QLatin1String(suffix)));
            r.style = style;
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
    for (const auto& [name, table] : paperTables(window.session()->runs())) {
        for (const auto& [suffix, bytes] : {std::pair{QStringLiteral("tex"), data::toLatex(table)}, {QStringLiteral("csv"), data::toCsv(table)}}) {
            const QString path = QDir(outDir).filePath(name + '.' + suffix);
            if (!writeFile(path, bytes, error)) return false;
            *written << QFileInfo(path).fileName();
        }
    }
    return true;
}

bool parseFigureSize(const QString& text, FigureStyle* style, QString* error) {
    const QString t = text.trimmed().toLower();
    if (t == "single") return style->widthInches = 3.25, style->heightInches = 0, true;
    if (t == "double") return style->widthInches = 6.75, style->heightInches = 0, true;
    if (t == "slides") return style->widthInches = 13.33, style->heightInches = 7.5, true;
    static const QRegularExpression re(QStringLiteral("^([0-9]*\\.?[0-9]+)(?:x([0-9]*\\.?[0-9]+))?(in|cm|mm)?$"));
    const auto m = re.match(t);
    if (!m.hasMatch()) {
        *error = QStringLiteral("--size: expected WIDTHxHEIGHT with a unit (e.g. 3.25x2.4in, 16x9cm) or single, double, slides; got '%1'").arg(text);
        return false;
    }
    const double unit = m.captured(3) == "cm" ? 1 / 2.54 : (m.captured(3) == "mm" ? 1 / 25.4 : 1.0);
    style->widthInches = m.captured(1).toDouble() * unit;
    style->heightInches = m.captured(2).isEmpty() ? 0 : m.captured(2).toDouble() * unit;
    if (style->widthInches < 1 || style->widthInches > 40 || style->heightInches < 0 || style->heightInches > 40) {
        *error = QStringLiteral("--size: %1 is outside 1 to 40 inches").arg(text);
        return false;
    }
    return true;
}

namespace {

// Font sizes matched to the physical width, as a LaTeX document sets them (8 pt in a single
// column, 9 pt in a double column, larger on slides).
double basePointSize(double widthInches) { return widthInches <= 3.6 ? 7.5 : (widthInches <= 7.5 ? 8.5 : 14); }

void applyPaperStyle(QChart* chart, const FigureStyle& style, double widthInches) {
    const double pt = basePointSize(widthInches);
    QFont base(style.fontFamily);
    base.setPointSizeF(pt);
    chart->setBackgroundBrush(Qt::white);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setBackgroundRoundness(0);
    chart->setDropShadowEnabled(false);
    chart->setMargins(QMargins(2, 2, 2, 2));
    QFont title = base;
    title.setPointSizeF(pt + 0.5);
    title.setWeight(QFont::DemiBold);
    chart->setTitleFont(title);
    chart->setTitleBrush(Qt::black);
    QFont small = base;
    small.setPointSizeF(pt - 0.5);
    chart->legend()->setFont(small);
    chart->legend()->setLabelColor(Qt::black);
    for (QAbstractAxis* a : chart->axes()) {
        a->setLabelsFont(small);
        a->setTitleFont(base);
        a->setLabelsBrush(Qt::black);
        a->setTitleBrush(Qt::black);
        QPen line(QColor(0x40, 0x40, 0x40));
        line.setWidthF(0.6);
        a->setLinePen(line);
        QPen grid(QColor(0xe0, 0xe0, 0xe0));
        grid.setWidthF(0.4);
        a->setGridLinePen(grid);
    }
}

// Logical units of the figure: 1/96 inch, the resolution Qt lays charts and fonts out at, so
// point sizes come out at their physical size on paper.
constexpr double kUnitsPerInch = 96.0;

// Thinner lines and smaller markers than on screen, where the figure is a few inches wide.
void shrinkMarks(QChart* chart, bool narrow) {
    for (QAbstractSeries* s : chart->series()) {
        if (auto* scatter = qobject_cast<QScatterSeries*>(s)) {
            scatter->setMarkerSize(std::max(3.0, scatter->markerSize() * 0.6));
            QPen pen = scatter->pen();
            pen.setWidthF(pen.widthF() * 0.6);
            scatter->setPen(pen);
        } else if (auto* line = qobject_cast<QLineSeries*>(s)) {
            QPen pen = line->pen();
            pen.setWidthF(std::max(0.6, pen.widthF() * 0.7));
            line->setPen(pen);
        }
    }
    // Entries without a name only take space; many entries read better as a column.
    int named = 0;
    for (QLegendMarker* m : chart->legend()->markers()) {
        if (m->label().isEmpty()) m->setVisible(false);
        named += !m->label().isEmpty();
    }
    if (narrow && named > 4) chart->legend()->setAlignment(Qt::AlignRight);
}

// Sizes each chart for its share of the figure and rebuilds its ticks for that size.
void layoutCharts(const std::vector<QChart*>& charts, double widthUnits, double heightUnits) {
    const double each = widthUnits / static_cast<double>(charts.size());
    for (QChart* chart : charts) {
        chart->resize(QSizeF(each, heightUnits));
        if (auto* plot = qobject_cast<PlotChart*>(chart)) plot->setAxes(plot->xSpec(), plot->ySpec());
    }
}

// Draws the charts side by side into `painter`, whose coordinates are 1/96 inch.
void paint(QPainter& painter, const std::vector<QChart*>& charts, double widthPt, double heightPt) {
    const double each = widthPt / static_cast<double>(charts.size());
    for (std::size_t i = 0; i < charts.size(); ++i) {
        QChart* chart = charts[i];
        const QRectF target(each * static_cast<double>(i), 0, each, heightPt);
        chart->scene()->render(&painter, target, chart->sceneBoundingRect(), Qt::IgnoreAspectRatio);
    }
}

}  // namespace

bool renderFigure(const RenderRequest& request, QString* error) {
    const QString suffix = QFileInfo(request.out).suffix().toLower();
    if (suffix != "pdf" && suffix != "svg" && suffix != "png") {
        *error = QStringLiteral("--out: '%1' must end in .pdf, .svg or .png").arg(request.out);
        return false;
    }
    if (!renderableViews().contains(request.view)) {
        *error = QStringLiteral("--view: unknown view '%1' (expected one of %2)").arg(request.view, renderableViews().join(", "));
        return false;
    }
    Theme::setCurrent(request.style.dark && !request.style.paper ? Theme::dark() : Theme::light());
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen, true);
    window.resize(1400, 900);
    window.show();
    const bool opened = request.project.isEmpty() ? window.openExample(false) : window.openPath(request.project, false);
    if (!opened) {
        *error = window.lastError();
        return false;
    }
    window.showView(request.view);
    ViewPanel* panel = window.currentPanel();
    QCoreApplication::processEvents();
    panel->computeNow();
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced chart items
    if (panel->charts().empty()) {
        *error = QStringLiteral("--view: the view '%1' has no chart").arg(request.view);
        return false;
    }
    return exportPanel(panel, request.out, request.style, error);
}

bool exportPanel(ViewPanel* panel, const QString& out, const FigureStyle& style, QString* error) {
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (suffix != "pdf" && suffix != "svg" && suffix != "png") {
        *error = QStringLiteral("'%1' must end in .pdf, .svg or .png").arg(out);
        return false;
    }
    const std::vector<QChart*> charts = panel->charts();
    if (charts.empty()) {
        *error = QStringLiteral("the view '%1' has no chart").arg(panel->viewId());
        return false;
    }
    const RenderRequest request{QString(), panel->viewId(), out, style};
    const double widthIn = request.style.widthInches;
    const double heightIn = request.style.heightInches > 0 ? request.style.heightInches
                                                           : widthIn * (charts.size() > 1 ? 0.42 : 0.75);
    const double wPt = widthIn * kUnitsPerInch, hPt = heightIn * kUnitsPerInch;
    // Style first so the layout at the figure's size sees the figure's fonts and legend; the
    // axes rebuilt for that size take the style again.
    if (request.style.paper)
        for (QChart* c : charts) {
            applyPaperStyle(c, request.style, widthIn);
            shrinkMarks(c, charts.size() > 1);
        }
    std::vector<QSizeF> shown;  // the on-screen sizes, restored after painting
    for (QChart* c : charts) shown.push_back(c->size());
    layoutCharts(charts, wPt, hPt);
    if (request.style.paper)
        for (QChart* c : charts) applyPaperStyle(c, request.style, widthIn);
    // Let the charts lay out at their new size, and drop the items of the axes they replaced.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCoreApplication::processEvents();

    QByteArray bytes;
    if (suffix == "png") {
        const QSize px(qRound(widthIn * request.style.dpi), qRound(heightIn * request.style.dpi));
        QImage image(px, QImage::Format_ARGB32);
        image.fill(Qt::white);
        image.setDotsPerMeterX(qRound(request.style.dpi / 0.0254));
        image.setDotsPerMeterY(qRound(request.style.dpi / 0.0254));
        {
            QPainter p(&image);
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::TextAntialiasing);
            p.scale(request.style.dpi / kUnitsPerInch, request.style.dpi / kUnitsPerInch);
            paint(p, charts, wPt, hPt);
        }
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        image.save(&buffer, "PNG");
    } else if (suffix == "svg") {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(qRound(wPt), qRound(hPt)));
        svg.setViewBox(QRectF(0, 0, wPt, hPt));
        svg.setResolution(static_cast<int>(kUnitsPerInch));
        svg.setTitle(QStringLiteral("Scalex: %1").arg(request.view));
        svg.setDescription(QStringLiteral("Rendered by Scalex"));
        QPainter p(&svg);
        paint(p, charts, wPt, hPt);
    } else {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter pdf(&buffer);
        pdf.setCreator(QStringLiteral("Scalex"));
        pdf.setTitle(QStringLiteral("Scalex: %1").arg(request.view));
        pdf.setPageSize(QPageSize(QSizeF(widthIn, heightIn), QPageSize::Inch, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(static_cast<int>(10 * kUnitsPerInch));
        QPainter p(&pdf);
        p.scale(10.0, 10.0);  // figure units -> the writer's resolution
        paint(p, charts, wPt, hPt);
    }
    for (std::size_t i = 0; i < charts.size(); ++i) {
        charts[i]->resize(shown[i]);
        if (auto* plot = qobject_cast<PlotChart*>(charts[i])) plot->setAxes(plot->xSpec(), plot->ySpec());
    }
    QSaveFile file(request.out);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("--out: cannot write %1: %2").arg(request.out, file.errorString());
        return false;
    }
    return true;
}

}  // namespace scalex::gui
