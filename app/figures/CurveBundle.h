#pragma once
// Many curves drawn as one item of a chart (issue "Millions of rows"). Qt Charts gives every
// series its own graphics item, legend marker and layout pass, so a thousand runs' loss curves
// take seconds to lay out; one item painting a thousand short polylines takes milliseconds. The
// item lies over the chart's plot area and maps plotted coordinates with the chart's axis ranges;
// it is part of the chart's scene, so exported figures hold it too.
//
// Stroking a hundred thousand points with an antialiased pen wider than a pixel still takes a
// quarter to half a second, too long for the window's UI thread on each paint. A bundle of more
// than kImagePoints points is therefore drawn on screen as an image of its curves, rendered on a
// worker thread for the plot area's size and axis ranges and kept until they or the curves change
// (until the new one is made the view shows the image it had, stretched, if the axes are the same:
// a redraw of the same curves, for a new selection or style, keeps its image). Exports (painted
// with no widget: SVG, PDF, a PNG file) draw the curves themselves, as vectors.
#include <QGraphicsObject>
#include <QImage>
#include <QPen>
#include <QPointF>
#include <atomic>
#include <memory>
#include <vector>

class QChart;

namespace scalex::figures {

class CurveBundle : public QGraphicsObject {
public:
    static constexpr std::size_t kImagePoints = 20'000;

    explicit CurveBundle(QChart* chart);
    ~CurveBundle() override;
    // A polyline in plotted coordinates (PlotChart::toPlot).
    void addCurve(const QPen& pen, std::vector<QPointF> plotted);
    // Removes the curves (the image stays until the curves drawn next have theirs).
    void clear();
    std::size_t curves() const { return curves_->size(); }

    // The image the window's next paint needs made now, on this thread, when it is not there yet
    // (a screenshot waits for it); true when one was made.
    bool finishImage();

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    struct Curve {
        QPen pen;
        std::vector<QPointF> points;
        bool operator==(const Curve&) const = default;
    };
    using Curves = std::shared_ptr<const std::vector<Curve>>;
    // Where the curves land: the plot area's size in device pixels and the axes' ranges.
    struct Frame {
        QSizeF area;
        double dpr = 1, xMin = 0, xMax = 1, yMin = 0, yMax = 1;
        bool sameAxes(const Frame& o) const { return xMin == o.xMin && xMax == o.xMax && yMin == o.yMin && yMax == o.yMax; }
        bool operator==(const Frame& o) const { return area == o.area && dpr == o.dpr && sameAxes(o); }
    };
    // The frame of the chart now; false when its axes cannot place a point.
    bool frameNow(double dpr, Frame* frame) const;
    // The image shows the curves drawn now in `frame`.
    bool imageFits(const Frame& frame);
    static void drawCurves(QPainter* painter, const std::vector<Curve>& curves, const Frame& frame, const QPointF& origin,
                           const std::atomic<bool>* cancel = nullptr);
    static QImage render(const std::vector<Curve>& curves, const Frame& frame, const std::atomic<bool>* cancel = nullptr);
    void startRender(const Frame& frame);

    QChart* chart_;
    std::shared_ptr<std::vector<Curve>> curves_;  // shared with a render under way, copied on a change
    std::size_t points_ = 0;
    QImage image_;  // of imageCurves_ in imageFrame_; null when none
    Curves imageCurves_;
    Frame imageFrame_;
    Frame renderingFrame_;                    // of the render under way
    std::shared_ptr<std::atomic<bool>> cancel_;  // of the render under way; null when none
    Frame lastFrame_;                         // of the last paint on screen
    bool paintedOnScreen_ = false;
};

}  // namespace scalex::figures
