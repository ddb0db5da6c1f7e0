#include "app/figures/CurveBundle.h"

#include <QPainter>
#include <QtCharts/QChart>
#include <QtCharts/QValueAxis>

namespace scalex::figures {

CurveBundle::CurveBundle(QChart* chart) : QGraphicsObject(chart), chart_(chart) {
    setZValue(4);  // with the chart's series: above grid and axes, under markers added later
    connect(chart, &QChart::plotAreaChanged, this, [this] {
        prepareGeometryChange();
        update();
    });
}

void CurveBundle::addCurve(const QPen& pen, std::vector<QPointF> plotted) {
    curves_.push_back({pen, std::move(plotted)});
    update();
}

QRectF CurveBundle::boundingRect() const { return chart_->plotArea(); }

void CurveBundle::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const auto* x = qobject_cast<const QValueAxis*>(chart_->axes(Qt::Horizontal).value(0));
    const auto* y = qobject_cast<const QValueAxis*>(chart_->axes(Qt::Vertical).value(0));
    if (!x || !y || !(x->max() > x->min()) || !(y->max() > y->min())) return;
    const QRectF area = chart_->plotArea();
    const double sx = area.width() / (x->max() - x->min()), sy = area.height() / (y->max() - y->min());
    painter->save();
    painter->setClipRect(area);
    painter->setRenderHint(QPainter::Antialiasing, true);
    QPolygonF line;
    for (const Curve& c : curves_) {
        line.resize(static_cast<qsizetype>(c.points.size()));
        for (std::size_t i = 0; i < c.points.size(); ++i)
            line[static_cast<qsizetype>(i)] = {area.left() + (c.points[i].x() - x->min()) * sx,
                                               area.bottom() - (c.points[i].y() - y->min()) * sy};
        painter->setPen(c.pen);
        painter->drawPolyline(line);
    }
    painter->restore();
}

}  // namespace scalex::figures
