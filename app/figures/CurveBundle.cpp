#include "app/figures/CurveBundle.h"

#include <QPainter>
#include <QCoreApplication>
#include <QThreadPool>
#include <QWidget>
#include <QtCharts/QChart>
#include <QtCharts/QValueAxis>
#include <cmath>

namespace scalex::figures {

CurveBundle::CurveBundle(QChart* chart) : QGraphicsObject(chart), chart_(chart), curves_(std::make_shared<std::vector<Curve>>()) {
    setZValue(4);  // with the chart's series: above grid and axes, under markers added later
    connect(chart, &QChart::plotAreaChanged, this, [this] {
        prepareGeometryChange();
        update();
    });
}

CurveBundle::~CurveBundle() {
    if (cancel_) *cancel_ = true;  // the render under way stops; its image is dropped
}

void CurveBundle::addCurve(const QPen& pen, std::vector<QPointF> plotted) {
    if (cancel_) *cancel_ = true, cancel_.reset();  // the render under way is of other curves
    if (curves_.use_count() > 1) curves_ = std::make_shared<std::vector<Curve>>(*curves_);  // a render reads the old ones
    points_ += plotted.size();
    curves_->push_back({pen, std::move(plotted)});
    update();
}

void CurveBundle::clear() {
    if (cancel_) *cancel_ = true, cancel_.reset();  // the render under way is of the curves cleared
    curves_ = std::make_shared<std::vector<Curve>>();
    points_ = 0;
    update();
}

bool CurveBundle::imageFits(const Frame& frame) {
    if (image_.isNull() || !(imageFrame_ == frame)) return false;
    if (imageCurves_ == curves_) return true;
    if (*imageCurves_ != *curves_) return false;
    imageCurves_ = curves_;  // drawn again alike: compared once
    return true;
}

QRectF CurveBundle::boundingRect() const { return chart_->plotArea(); }

bool CurveBundle::frameNow(double dpr, Frame* frame) const {
    const auto* x = qobject_cast<const QValueAxis*>(chart_->axes(Qt::Horizontal).value(0));
    const auto* y = qobject_cast<const QValueAxis*>(chart_->axes(Qt::Vertical).value(0));
    if (!x || !y || !(x->max() > x->min()) || !(y->max() > y->min())) return false;
    *frame = {chart_->plotArea().size(), dpr, x->min(), x->max(), y->min(), y->max()};
    return !frame->area.isEmpty();
}

void CurveBundle::drawCurves(QPainter* painter, const std::vector<Curve>& curves, const Frame& frame, const QPointF& origin,
                             const std::atomic<bool>* cancel) {
    const double sx = frame.area.width() / (frame.xMax - frame.xMin), sy = frame.area.height() / (frame.yMax - frame.yMin);
    const double bottom = origin.y() + frame.area.height();
    painter->setRenderHint(QPainter::Antialiasing, true);
    QPolygonF line;
    for (const Curve& c : curves) {
        if (cancel && *cancel) return;
        line.resize(static_cast<qsizetype>(c.points.size()));
        for (std::size_t i = 0; i < c.points.size(); ++i)
            line[static_cast<qsizetype>(i)] = {origin.x() + (c.points[i].x() - frame.xMin) * sx, bottom - (c.points[i].y() - frame.yMin) * sy};
        painter->setPen(c.pen);
        painter->drawPolyline(line);
    }
}

QImage CurveBundle::render(const std::vector<Curve>& curves, const Frame& frame, const std::atomic<bool>* cancel) {
    QImage image(static_cast<int>(std::ceil(frame.area.width() * frame.dpr)), static_cast<int>(std::ceil(frame.area.height() * frame.dpr)),
                 QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(frame.dpr);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    drawCurves(&painter, curves, frame, {0, 0}, cancel);
    return image;
}

void CurveBundle::startRender(const Frame& frame) {
    if (cancel_) {
        if (renderingFrame_ == frame) return;  // under way already
        *cancel_ = true;
    }
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    renderingFrame_ = frame;
    QThreadPool::globalInstance()->start([curves = Curves(curves_), frame, cancel = cancel_, self = this] {
        QImage image = render(*curves, frame, cancel.get());
        if (*cancel) return;
        // Delivered on the UI thread, where the bundle lives and dies: a bundle gone or drawing
        // something else since has set `cancel`, and `self` is not touched.
        QMetaObject::invokeMethod(qApp, [self, image = std::move(image), frame, cancel, curves]() mutable {
            if (*cancel) return;
            self->image_ = std::move(image);
            self->imageCurves_ = curves;
            self->imageFrame_ = frame;
            self->cancel_.reset();
            self->update();
        }, Qt::QueuedConnection);
    });
}

bool CurveBundle::finishImage() {
    if (!paintedOnScreen_ || points_ <= kImagePoints || imageFits(lastFrame_)) return false;
    if (cancel_) *cancel_ = true, cancel_.reset();
    image_ = render(*curves_, lastFrame_);
    imageCurves_ = curves_;
    imageFrame_ = lastFrame_;
    update();
    return true;
}

void CurveBundle::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget* widget) {
    Frame frame;
    if (!frameNow(widget ? widget->devicePixelRatioF() : painter->device()->devicePixelRatioF(), &frame)) return;
    const QRectF area = chart_->plotArea();
    painter->save();
    painter->setClipRect(area);
    if (curves_->empty()) {
        // nothing to draw (an image of curves drawn before is not shown for none)
    } else if (!widget || points_ <= kImagePoints) {
        drawCurves(painter, *curves_, frame, area.topLeft());
    } else {
        lastFrame_ = frame;
        paintedOnScreen_ = true;
        if (!imageFits(frame)) startRender(frame);
        // The image of another size or of the curves drawn before stands in while this one is made;
        // one of other axes would mislead.
        if (!image_.isNull() && imageFrame_.sameAxes(frame)) painter->drawImage(area, image_);
    }
    painter->restore();
}

}  // namespace scalex::figures
