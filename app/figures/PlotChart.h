#pragma once
// A QChart whose axes may be logarithmic with readable ticks (see LogTicks.h): series store
// log10 of the data on log axes, and the axes are category axes labelled in data units.
#include <QPointF>
#include <QString>
#include <QtCharts/QChart>
#include <vector>

class QScatterSeries;
class QLineSeries;
class QAreaSeries;
class QXYSeries;

namespace scalex::figures {

class CurveBundle;

struct AxisSpec {
    QString title;
    bool log = true;
    double lo = 1, hi = 10;  // data units
    bool siLabels = false;   // 1.2B-style labels for counts
};

class PlotChart : public QChart {
    Q_OBJECT
public:
    explicit PlotChart(QGraphicsItem* parent = nullptr);

    void setAxes(const AxisSpec& x, const AxisSpec& y);
    const AxisSpec& xSpec() const { return xSpec_; }
    const AxisSpec& ySpec() const { return ySpec_; }

    // Data -> plotted coordinates and back.
    QPointF toPlot(double x, double y) const;
    QPointF toData(const QPointF& plotted) const;

    QScatterSeries* addScatter(const QString& name, const QColor& color, const std::vector<QPointF>& data,
                               double markerSize = 7.0, bool hollow = false);
    QLineSeries* addLine(const QString& name, const QColor& color, const std::vector<QPointF>& data, double width = 2.0,
                         Qt::PenStyle style = Qt::SolidLine);
    // A line drawn with others in one item (CurveBundle.h): no legend entry and no hover, for
    // views of hundreds of curves.
    void addBundledLine(const QColor& color, const std::vector<QPointF>& data, double width = 2.0);
    // The item the bundled lines are drawn in; null before the first.
    CurveBundle* bundle() const { return bundle_; }
    // A shaded band between two curves sampled at the same x.
    QAreaSeries* addBand(const QString& name, const QColor& color, const std::vector<QPointF>& lower,
                         const std::vector<QPointF>& upper);

    // Leaves `series` out of the legend, on screen and in exported figures.
    static void hideFromLegend(QChart* chart, QAbstractSeries* series);
    static bool hiddenFromLegend(const QAbstractSeries* series);

    // Sets the chart's title and axis titles again, so that Qt Charts lays them out (and cuts them
    // short, or not) for the present fonts: it does so when a text or a geometry changes, not a font.
    static void retitle(QChart* chart);

    // Removes every series (axes stay).
    void clearSeries();
    // Fits the axis ranges to all data added since the last clear, with a margin.
    void fitRangesToData(double marginFraction = 0.05);
    void includeInRange(double x, double y);
    // Drops the tick labels that would run into a neighbour at the chart's present size and
    // fonts (the ticks are picked before the size is known); they come back when it grows.
    void thinTickLabels();

    // Picks the log axes' ticks again where the chart's size now asks for another number of them
    // (the ticks are picked for the size the chart had when its axes were set: a chart drawn
    // before its window showed would keep a small chart's ticks). False when nothing changed.
    bool retickToSize();

private:
    void rebuildAxis(Qt::Orientation orientation);
    // How many ticks a log axis of this orientation wants at the chart's present size.
    int tickTarget(Qt::Orientation orientation) const;
    int builtTarget_[2] = {0, 0};  // the target each axis was built with (horizontal, vertical); 0: linear
    void attach(QXYSeries* series);

    CurveBundle* bundle_ = nullptr;  // an item of the chart, emptied with the series
    AxisSpec xSpec_, ySpec_;
    double dataXlo_ = 0, dataXhi_ = 0, dataYlo_ = 0, dataYhi_ = 0;
    bool haveData_ = false;
};

}  // namespace scalex::figures
