#pragma once
// Many curves drawn as one item of a chart (issue "Millions of rows"). Qt Charts gives every
// series its own graphics item, legend marker and layout pass, so a thousand runs' loss curves
// take seconds to lay out; one item painting a thousand short polylines takes milliseconds. The
// item lies over the chart's plot area and maps plotted coordinates with the chart's axis ranges;
// it is part of the chart's scene, so exported figures hold it too.
#include <QGraphicsObject>
#include <QPen>
#include <QPointF>
#include <vector>

class QChart;

namespace scalex::figures {

class CurveBundle : public QGraphicsObject {
public:
    explicit CurveBundle(QChart* chart);
    // A polyline in plotted coordinates (PlotChart::toPlot).
    void addCurve(const QPen& pen, std::vector<QPointF> plotted);
    std::size_t curves() const { return curves_.size(); }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    struct Curve {
        QPen pen;
        std::vector<QPointF> points;
    };
    QChart* chart_;
    std::vector<Curve> curves_;
};

}  // namespace scalex::figures
