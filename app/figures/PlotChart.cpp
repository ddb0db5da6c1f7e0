#include "app/figures/PlotChart.h"

#include "app/figures/CurveBundle.h"

#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>

#include <QFontMetricsF>
#include <QPen>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>

#include "app/figures/LogTicks.h"
#include "app/figures/Theme.h"
#include "app/figures/TickLayout.h"

namespace scalex::figures {

PlotChart::PlotChart(QGraphicsItem* parent) : QChart(parent) {
    Theme::current().applyTo(this);
    legend()->setAlignment(Qt::AlignBottom);
    legend()->setShowToolTips(true);  // the whole name of an entry the legend had to shorten
    setMargins(QMargins(6, 6, 6, 6));
    // Tick labels that would run into each other (a narrow chart, a long label) are dropped once
    // the chart is laid out at its size, and again whenever that changes (thinTickLabels()).
    connect(this, &QChart::plotAreaChanged, this, &PlotChart::thinTickLabels, Qt::QueuedConnection);
}

void PlotChart::setAxes(const AxisSpec& x, const AxisSpec& y) {
    xSpec_ = x;
    ySpec_ = y;
    rebuildAxis(Qt::Horizontal);
    rebuildAxis(Qt::Vertical);
}

QPointF PlotChart::toPlot(double x, double y) const {
    return {xSpec_.log ? std::log10(x) : x, ySpec_.log ? std::log10(y) : y};
}

QPointF PlotChart::toData(const QPointF& p) const {
    return {xSpec_.log ? std::pow(10.0, p.x()) : p.x(), ySpec_.log ? std::pow(10.0, p.y()) : p.y()};
}

void PlotChart::includeInRange(double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y) || (xSpec_.log && x <= 0) || (ySpec_.log && y <= 0)) return;
    if (!haveData_) {
        dataXlo_ = dataXhi_ = x;
        dataYlo_ = dataYhi_ = y;
        haveData_ = true;
        return;
    }
    dataXlo_ = std::min(dataXlo_, x);
    dataXhi_ = std::max(dataXhi_, x);
    dataYlo_ = std::min(dataYlo_, y);
    dataYhi_ = std::max(dataYhi_, y);
}

void PlotChart::attach(QXYSeries* series) {
    addSeries(series);
    for (QAbstractAxis* a : axes()) series->attachAxis(a);
}

namespace {

// The ticks of an axis as PlotChart built them, before thinTickLabels() dropped any.
constexpr const char* kBuiltLabels = "scalexBuiltLabels";
constexpr const char* kBuiltValues = "scalexBuiltValues";

constexpr const char* kHiddenFromLegend = "scalexHiddenFromLegend";
}

void PlotChart::hideFromLegend(QChart* chart, QAbstractSeries* series) {
    if (!series) return;
    series->setProperty(kHiddenFromLegend, true);  // the markers' own visibility is not reliable off screen
    for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
}

bool PlotChart::hiddenFromLegend(const QAbstractSeries* series) {
    return series && series->property(kHiddenFromLegend).toBool();
}

void PlotChart::retitle(QChart* chart) {
    const QString title = chart->title();
    chart->setTitle(QString());
    chart->setTitle(title);
    for (QAbstractAxis* a : chart->axes()) {
        const QString text = a->titleText();
        a->setTitleText(QString());
        a->setTitleText(text);
    }
}

QScatterSeries* PlotChart::addScatter(const QString& name, const QColor& color, const std::vector<QPointF>& data,
                                      double markerSize, bool hollow) {
    auto* s = new QScatterSeries();
    s->setName(name);
    s->setMarkerSize(markerSize * Theme::current().lineScale);
    s->setColor(hollow ? Theme::current().background : color);
    s->setBorderColor(hollow ? color : color.darker(125));
    QPen pen(hollow ? color : color.darker(125));
    pen.setWidthF((hollow ? 1.5 : 0.8) * Theme::current().lineScale);
    s->setPen(pen);
    for (const QPointF& p : data) {
        includeInRange(p.x(), p.y());
        if ((xSpec_.log && p.x() <= 0) || (ySpec_.log && p.y() <= 0)) continue;
        s->append(toPlot(p.x(), p.y()));
    }
    attach(s);
    return s;
}

QLineSeries* PlotChart::addLine(const QString& name, const QColor& color, const std::vector<QPointF>& data, double width,
                                Qt::PenStyle style) {
    auto* s = new QLineSeries();
    s->setName(name);
    QPen pen(color);
    pen.setWidthF(width * Theme::current().lineScale);
    pen.setStyle(style);
    pen.setCapStyle(Qt::RoundCap);
    s->setPen(pen);
    // One replace, not an append (and a signal) per point.
    QList<QPointF> plotted;
    plotted.reserve(static_cast<qsizetype>(data.size()));
    for (const QPointF& p : data) {
        if ((xSpec_.log && p.x() <= 0) || (ySpec_.log && p.y() <= 0) || !std::isfinite(p.y())) continue;
        includeInRange(p.x(), p.y());
        plotted.append(toPlot(p.x(), p.y()));
    }
    s->replace(plotted);
    attach(s);
    return s;
}

void PlotChart::addBundledLine(const QColor& color, const std::vector<QPointF>& data, double width) {
    if (!bundle_) bundle_ = new CurveBundle(this);
    QPen pen(color);
    pen.setWidthF(width * Theme::current().lineScale);
    pen.setCapStyle(Qt::RoundCap);
    pen.setJoinStyle(Qt::RoundJoin);
    std::vector<QPointF> plotted;
    plotted.reserve(data.size());
    for (const QPointF& p : data) {
        if ((xSpec_.log && p.x() <= 0) || (ySpec_.log && p.y() <= 0) || !std::isfinite(p.y())) continue;
        includeInRange(p.x(), p.y());
        plotted.push_back(toPlot(p.x(), p.y()));
    }
    bundle_->addCurve(pen, std::move(plotted));
}

QAreaSeries* PlotChart::addBand(const QString& name, const QColor& color, const std::vector<QPointF>& lower,
                                const std::vector<QPointF>& upper) {
    auto* lo = new QLineSeries(this);
    auto* hi = new QLineSeries(this);
    for (const QPointF& p : lower) lo->append(toPlot(p.x(), p.y()));
    for (const QPointF& p : upper) hi->append(toPlot(p.x(), p.y()));
    auto* area = new QAreaSeries(hi, lo);
    area->setName(name);
    QColor fill = color;
    fill.setAlphaF(0.18);
    area->setBrush(fill);
    area->setPen(Qt::NoPen);
    addSeries(area);
    for (QAbstractAxis* a : axes()) area->attachAxis(a);
    return area;
}

void PlotChart::clearSeries() {
    removeAllSeries();
    if (bundle_) bundle_->clear();  // kept: the image of its curves serves a redraw of the same ones
    Theme::current().applyTo(this);  // a redraw takes up a changed theme, presentation mode or zoom
    haveData_ = false;
}

void PlotChart::fitRangesToData(double margin) {
    if (!haveData_) return;
    auto pad = [margin](double& lo, double& hi, bool log) {
        if (log) {
            double a = std::log10(lo), b = std::log10(hi);
            const double m = std::max((b - a) * margin, 0.02);
            lo = std::pow(10.0, a - m);
            hi = std::pow(10.0, b + m);
        } else {
            const double m = std::max((hi - lo) * margin, 1e-12);
            lo -= m;
            hi += m;
        }
    };
    xSpec_.lo = dataXlo_;
    xSpec_.hi = dataXhi_;
    ySpec_.lo = dataYlo_;
    ySpec_.hi = dataYhi_;
    pad(xSpec_.lo, xSpec_.hi, xSpec_.log);
    pad(ySpec_.lo, ySpec_.hi, ySpec_.log);
    rebuildAxis(Qt::Horizontal);
    rebuildAxis(Qt::Vertical);
}

int PlotChart::tickTarget(Qt::Orientation orientation) const {
    const bool horizontal = orientation == Qt::Horizontal;
    const double extent = horizontal ? size().width() : size().height();
    return extent > 0 ? std::clamp(static_cast<int>(extent / (horizontal ? 64 : 48)), 3, 8) : 6;
}

bool PlotChart::retickToSize() {
    bool changed = false;
    for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
        const int built = builtTarget_[o == Qt::Horizontal ? 0 : 1];
        if (built == 0 || axes(o).isEmpty() || tickTarget(o) == built) continue;
        rebuildAxis(o);
        changed = true;
    }
    return changed;
}

void PlotChart::rebuildAxis(Qt::Orientation orientation) {
    const AxisSpec& spec = orientation == Qt::Horizontal ? xSpec_ : ySpec_;
    for (QAbstractAxis* old : axes(orientation)) {
        for (QAbstractSeries* s : series()) s->detachAxis(old);
        removeAxis(old);
        delete old;
    }
    const Theme& theme = Theme::current();
    auto* axis = new QCategoryAxis();
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setTruncateLabels(false);  // a category is the span to the previous tick, often narrower than its label
    axis->setTitleText(spec.title);
    axis->setTitleBrush(theme.foreground);
    axis->setLabelsBrush(theme.foreground);
    QFont labelFont(theme.fontFamily, theme.basePointSize - 1);
    axis->setLabelsFont(labelFont);
    QFont titleFont(theme.fontFamily, theme.basePointSize);
    axis->setTitleFont(titleFont);
    axis->setGridLineColor(theme.grid);
    axis->setLinePenColor(theme.axis);
    axis->setMinorGridLineVisible(false);
    const double lo = spec.log ? std::log10(spec.lo) : spec.lo;
    const double hi = spec.log ? std::log10(spec.hi) : spec.hi;
    axis->setRange(lo, hi);
    std::vector<Tick> ticks;
    if (spec.log) {
        // About one label per 64 pixels of a horizontal axis and per 48 of a vertical one (its
        // labels stack, so only their height counts), so narrow charts and paper figures stay
        // legible and every decade of a few-decade axis is labelled.
        const int target = tickTarget(orientation);
        builtTarget_[orientation == Qt::Horizontal ? 0 : 1] = target;
        ticks = logTicks(spec.lo, spec.hi, target);
    } else {
        builtTarget_[orientation == Qt::Horizontal ? 0 : 1] = 0;
        // Linear axes reuse the narrow-range branch of logTicks by shifting into positive values.
        const double span = spec.hi - spec.lo;
        const double step = std::pow(10.0, std::floor(std::log10(span / 5)));
        double s = step;
        for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
            if (span / (m * step) <= 7) { s = m * step; break; }
        for (double v = std::ceil(spec.lo / s) * s; v <= spec.hi + 1e-12 * std::fabs(spec.hi); v += s)
            ticks.push_back({v, spec.siLabels ? formatCount(v) : QString::number(v, 'g', 6), true});
    }
    int unnamed = 0;
    for (const Tick& t : ticks) {
        if (!t.major) continue;
        const double pos = spec.log ? std::log10(t.value) : t.value;
        if (pos < lo || pos > hi) continue;
        QString label = spec.siLabels && spec.log ? formatCount(t.value) : t.label;
        // Category labels must be unique; pad invisible duplicates.
        if (axis->categoriesLabels().contains(label)) label += QString(++unnamed, QChar(0x200B));
        axis->append(label, pos);
    }
    addAxis(axis, orientation == Qt::Horizontal ? Qt::AlignBottom : Qt::AlignLeft);
    for (QAbstractSeries* s : series()) s->attachAxis(axis);
    // New axes of an unchanged size (a view redrawn) change no plot area: thinned all the same.
    QMetaObject::invokeMethod(this, &PlotChart::thinTickLabels, Qt::QueuedConnection);
}

// Drops the tick labels that would run into a neighbour at the chart's present size and fonts
// (PlotChart picks the ticks when the chart is drawn, before its size is known), as
// keptTickLabels() picks them (TickLayout.h). Dropped labels come back when the chart grows again.
void PlotChart::thinTickLabels() {
    const QRectF plot = plotArea();
    if (plot.width() < 1 || plot.height() < 1) return;
    for (QAbstractAxis* a : axes()) {
        auto* axis = qobject_cast<QCategoryAxis*>(a);
        if (!axis) continue;
        if (!axis->property(kBuiltLabels).isValid()) {
            QVariantList values;
            for (const QString& label : axis->categoriesLabels()) values.push_back(axis->endValue(label));
            axis->setProperty(kBuiltLabels, axis->categoriesLabels());
            axis->setProperty(kBuiltValues, values);
        }
        const QStringList labels = axis->property(kBuiltLabels).toStringList();
        const QVariantList values = axis->property(kBuiltValues).toList();
        const int n = static_cast<int>(labels.size());
        const bool horizontal = axis->orientation() == Qt::Horizontal;
        const bool log = horizontal ? xSpec_.log : ySpec_.log;
        const QFontMetricsF metrics(axis->labelsFont());
        const double pixels = (horizontal ? plot.width() : plot.height()) / (axis->max() - axis->min());
        const double room = horizontal ? size().width() : size().height();
        // The labels' centres and extents along the axis, in pixels from the chart's left or top.
        std::vector<PlacedLabel> placed;
        for (int i = 0; i < n; ++i) {
            const double v = values[i].toDouble();
            const double offset = (v - axis->min()) * pixels;
            placed.push_back({v, horizontal ? plot.left() + offset : plot.bottom() - offset,
                              horizontal ? metrics.horizontalAdvance(labels[i]) : metrics.height()});
        }
        const std::vector<int> kept = keptTickLabels(placed, log, metrics.averageCharWidth(), room);
        QStringList wanted;
        for (int i : kept) wanted.push_back(labels[i]);
        if (wanted == axis->categoriesLabels()) continue;
        for (const QString& label : axis->categoriesLabels()) axis->remove(label);
        for (int i : kept) axis->append(labels[i], values[i].toDouble());
    }
}

}  // namespace scalex::figures
