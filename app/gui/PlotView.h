#pragma once
// The on-screen view of a PlotChart (app/figures): antialiasing, a hover read-out of data
// coordinates and a legend that moves beside the plot when its row is full.
#include <QtCharts/QChartView>

#include "app/figures/PlotChart.h"
#include "app/gui/FigureNames.h"

namespace scalex::gui {

// A chart view with antialiasing and a hover read-out of data coordinates.
class PlotView : public QChartView {
    Q_OBJECT
public:
    explicit PlotView(PlotChart* chart, QWidget* parent = nullptr);
    PlotChart* plot() const { return static_cast<PlotChart*>(chart()); }
    // Moves a bottom legend whose entries do not fit its one row to the right of the plot, when
    // they fit there whole.
    void arrangeLegend();

signals:
    // The left button pressed, or moved while held, at `value` (in the units of the chart's axes)
    // inside the plot area: what a figure that can be dragged reads.
    void draggedTo(QPointF value);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void dragAt(const QPoint& position);
};

}  // namespace scalex::gui
