#include "app/gui/PlotView.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QtCharts/QAbstractSeries>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

namespace scalex::gui {

PlotView::PlotView(PlotChart* chart, QWidget* parent) : QChartView(chart, parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(320, 240);
    // Series come and go when a view redraws; the legend's entries with them.
    connect(chart, &QChart::plotAreaChanged, this, [this] { arrangeLegend(); });
    // Ticks for the size the chart has on screen, not the one it had when it was drawn.
    connect(chart, &QChart::plotAreaChanged, chart, [chart] { chart->retickToSize(); }, Qt::QueuedConnection);
}

void PlotView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) dragAt(event->position().toPoint());
    QChartView::mousePressEvent(event);
}

void PlotView::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) dragAt(event->position().toPoint());
    QChartView::mouseMoveEvent(event);
}

void PlotView::dragAt(const QPoint& position) {
    QChart* c = chart();
    if (!c || c->series().isEmpty()) return;
    const QPointF inChart = c->mapFromScene(mapToScene(position));
    if (!c->plotArea().contains(inChart)) return;
    // In the axes of the first series (every series of a plot shares them).
    emit draggedTo(plot()->toData(c->mapToValue(inChart, c->series().front())));
}

void PlotView::arrangeLegend() {
    // A legend below the plot has one row and Qt cuts entries short ("Transfo…") when they do not
    // fit. Then, in turn: a smaller legend font (down to 75 % of the theme's), the legend to the
    // right of the plot, one entry per line, where Qt gives it about a third of the chart's width,
    // and there with the smaller font. Only legends the view left at the bottom are rearranged
    // (and put back when the entries fit again).
    QChart* c = chart();
    if (!c || !c->legend()->isVisible()) return;
    QLegend* legend = c->legend();
    const bool moved = legend->property("scalexLegendMoved").toBool();
    if (legend->alignment() != Qt::AlignBottom && !moved) return;
    // The theme's size, remembered across the changes made here (a theme change resets it).
    QFont font = legend->font();
    if (legend->property("scalexLegendSetPt").toDouble() != font.pointSizeF()) legend->setProperty("scalexLegendBasePt", font.pointSizeF());
    const double base = legend->property("scalexLegendBasePt").toDouble();
    auto measure = [&](double pt, double* row, double* widest) {
        QFont f = font;
        f.setPointSizeF(pt);
        const QFontMetricsF metrics(f);
        *row = 0, *widest = 0;
        for (QLegendMarker* m : legend->markers()) {
            // By its series: a marker of a series just added is not visible until the legend's next layout.
            if (!m->series() || !m->series()->isVisible() || m->label().isEmpty() || PlotChart::hiddenFromLegend(m->series())) continue;
            const double w = metrics.horizontalAdvance(m->label()) + 3.0 * metrics.height();  // swatch and gaps
            *row += w;
            *widest = std::max(*widest, w);
        }
    };
    Qt::Alignment where = Qt::AlignBottom;
    double pt = base;
    bool fits = false;
    for (double scale : {1.0, 0.9, 0.8, 0.75}) {
        double row, widest;
        measure(base * scale, &row, &widest);
        if (row <= 0.92 * width()) {
            pt = base * scale, where = Qt::AlignBottom, fits = true;
            break;
        }
    }
    if (!fits)
        for (double scale : {1.0, 0.9, 0.8, 0.75}) {
            double row, widest;
            measure(base * scale, &row, &widest);
            pt = base * scale, where = Qt::AlignRight;
            if (widest <= 0.3 * width()) break;
        }
    if (pt != font.pointSizeF()) {
        font.setPointSizeF(pt);
        legend->setFont(font);
    }
    legend->setProperty("scalexLegendSetPt", pt);
    if (where != legend->alignment()) legend->setAlignment(where);
    legend->setProperty("scalexLegendMoved", where == Qt::AlignRight);
}

void PlotView::resizeEvent(QResizeEvent* event) {
    arrangeLegend();
    QChartView::resizeEvent(event);
}

}  // namespace scalex::gui
