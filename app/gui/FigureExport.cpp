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

#include "app/gui/MainWindow.h"
#include "app/gui/Theme.h"
#include "app/gui/ViewPanel.h"

namespace scalex::gui {

QStringList renderableViews() {
    return {"pareto", "surface", "overtraining", "isoflop", "context", "breakdown", "roofline", "inference"};
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
void shrinkMarks(QChart* chart) {
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
    // Entries without a name only take space.
    for (QLegendMarker* m : chart->legend()->markers())
        if (m->label().isEmpty()) m->setVisible(false);
}

// Draws the charts side by side into `painter`, whose coordinates are 1/96 inch.
void paint(QPainter& painter, const std::vector<QChart*>& charts, double widthPt, double heightPt) {
    const double each = widthPt / static_cast<double>(charts.size());
    for (std::size_t i = 0; i < charts.size(); ++i) {
        QChart* chart = charts[i];
        chart->resize(QSizeF(each, heightPt));
        chart->scene()->setSceneRect(chart->scene()->itemsBoundingRect());
        QCoreApplication::processEvents();  // let the chart lay out at its new size
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
    const std::vector<QChart*> charts = panel->charts();
    if (charts.empty()) {
        *error = QStringLiteral("--view: the view '%1' has no chart").arg(request.view);
        return false;
    }
    const double widthIn = request.style.widthInches;
    const double heightIn = request.style.heightInches > 0 ? request.style.heightInches
                                                           : widthIn * (charts.size() > 1 ? 0.42 : 0.75);
    if (request.style.paper)
        for (QChart* c : charts) {
            applyPaperStyle(c, request.style, widthIn);
            shrinkMarks(c);
        }
    const double wPt = widthIn * kUnitsPerInch, hPt = heightIn * kUnitsPerInch;

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
    QSaveFile file(request.out);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("--out: cannot write %1: %2").arg(request.out, file.errorString());
        return false;
    }
    return true;
}

}  // namespace scalex::gui
