#include "app/figures/RunMarks.h"

#include <QImage>
#include <QPainter>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <memory>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "app/figures/ViewFigure.h"
#include "core/analysis/Study.h"
#include "core/data/Series.h"

namespace scalex::figures {

QString runSummary(const analysis::Study& study, int index) {
    const auto& runs = study.runs().runs;
    if (index < 0 || index >= static_cast<int>(runs.size())) return {};
    const data::Run& r = runs[static_cast<std::size_t>(index)];
    const bool planned = !std::isfinite(r.loss());
    QString s = QStringLiteral("<b>%1</b> %2<br>N %3 · D %4 · D/N %5<br>C %6 FLOPs · ")
                    .arg(QString::fromStdString(data::seriesLabel(r.series)).toHtmlEscaped(),
                         QString::fromStdString(r.name.empty() ? r.runId : r.name).toHtmlEscaped(), formatCount(r.params),
                         formatCount(r.tokens))
                    .arg(r.tokensPerParam(), 0, 'f', 1)
                    .arg(formatFlops(r.flops));
    s += planned ? QObject::tr("planned (no loss yet)") : QStringLiteral("loss %1").arg(r.loss(), 0, 'f', 4);
    if (data::known(r.context)) s += QStringLiteral(" · T %1").arg(r.context);
    if (planned) {
        // What `plan --out` wrote beside a pick: its cost and the target's 95 % half-width after it.
        const auto cost = data::runNumber(r, "cost"), after = data::runNumber(r, "halfwidth_after");
        if (cost && std::isfinite(*cost)) s += QObject::tr("<br>cost %1").arg(formatFlops(*cost));
        if (after && std::isfinite(*after))
            s += (cost && std::isfinite(*cost) ? QStringLiteral(" · ") : QStringLiteral("<br>")) +
                 QObject::tr("target ± %1 (95 %) after it").arg(*after, 0, 'g', 3);
    }
    return s;
}

namespace {

// Past this many points a series is drawn by one graphics item (see addRunPoints).
constexpr std::size_t kManyPoints = 1000;

// The marker `style` draws (its size, shape, fill and border), as an image four times its size
// for sharp exports, and the extent it covers in chart units (the size plus the border).
std::pair<QImage, double> markerImage(const QScatterSeries* style) {
    const double size = style->markerSize();
    const QPen pen = style->pen();
    const double border = pen.style() == Qt::NoPen ? 0.0 : pen.widthF();
    const double extent = size + border;
    constexpr double kScale = 4.0;
    const int pixels = std::max(1, static_cast<int>(std::ceil(extent * kScale)));
    QImage image(pixels, pixels, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(pixels / extent, pixels / extent);
    painter.setPen(pen);
    painter.setBrush(style->brush());
    const QRectF rect(border / 2, border / 2, size, size);
    if (style->markerShape() == QScatterSeries::MarkerShapeRectangle) painter.drawRect(rect);
    else painter.drawEllipse(rect);
    return {image, extent};
}

}  // namespace

QScatterSeries* addRunPoints(PlotChart* chart, const FigureInput& in, const QString& name, const QColor& color,
                             const std::vector<RunPoint>& points, double markerSize) {
    std::vector<QPointF> data;
    auto runs = std::make_shared<std::vector<int>>();
    for (const RunPoint& p : points) {
        if (!(p.data.x() > 0) || !(p.data.y() > 0) || !std::isfinite(p.data.x()) || !std::isfinite(p.data.y())) continue;
        data.push_back(p.data);
        runs->push_back(p.run);
    }
    if (data.empty()) return nullptr;
    // Qt Charts makes a graphics item per point of a scatter series, which takes a second for
    // 20,000 runs. Past kManyPoints the scatter series keeps the style and the legend entry but no
    // points, and a line series without a line draws them all in one item, each as an image of the
    // scatter series' marker (its light marker), redrawn whenever the style changes (a paper
    // figure's smaller marks, a hollow or square marker).
    const bool many = data.size() > kManyPoints;
    QScatterSeries* s = chart->addScatter(name, color, many ? std::vector<QPointF>{} : data, markerSize);
    QXYSeries* drawn = s;
    if (many) {
        // The points go in once the view has drawn the rest: every change of the axes recomputes
        // the geometry of a series with points (a path through all of them), an empty one is free.
        QLineSeries* cloud = chart->addLine(QString(), color, {}, 1.0);
        QList<QPointF> plotted;
        plotted.reserve(static_cast<qsizetype>(data.size()));
        for (const QPointF& p : data) {
            chart->includeInRange(p.x(), p.y());
            plotted.push_back(chart->toPlot(p.x(), p.y()));
        }
        QMetaObject::invokeMethod(cloud, [cloud, plotted] { cloud->replace(plotted); }, Qt::QueuedConnection);
        cloud->setPen(QPen(Qt::NoPen));
        PlotChart::hideFromLegend(chart, cloud);
        auto restyle = [s, cloud] {
            const auto [image, extent] = markerImage(s);
            if (cloud->markerSize() != extent) cloud->setMarkerSize(extent);
            cloud->setLightMarker(image);
        };
        restyle();
        QObject::connect(s, &QScatterSeries::colorChanged, cloud, restyle);
        QObject::connect(s, &QScatterSeries::borderColorChanged, cloud, restyle);
        QObject::connect(s, &QScatterSeries::markerShapeChanged, cloud, restyle);
        QObject::connect(s, &QScatterSeries::markerSizeChanged, cloud, restyle);
        QObject::connect(s, &QXYSeries::penChanged, cloud, restyle);
        drawn = cloud;
    }
    if (in.linkRuns) in.linkRuns(drawn, runs);
    return s;
}

QScatterSeries* addPlannedRuns(PlotChart* chart, const FigureInput& in, const QColor& color, const std::vector<RunPoint>& points) {
    QScatterSeries* s = addRunPoints(chart, in, QObject::tr("planned runs (no loss yet)"), color, points, 11);
    if (!s) return nullptr;
    s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    s->setColor(Qt::transparent);
    s->setBorderColor(color);
    QPen pen = s->pen();
    pen.setWidthF(2.0);
    pen.setColor(color);
    s->setPen(pen);
    return s;
}

void addSelectionRings(PlotChart* chart, const FigureInput& in, const std::vector<RunPoint>& points) {
    std::vector<QPointF> ringed;
    for (const RunPoint& p : points)
        if (in.selection.contains(p.run)) ringed.push_back(p.data);
    if (ringed.empty()) return;
    QScatterSeries* s = chart->addScatter(QObject::tr("selected"), Theme::current().highlight, ringed, 14, true);
    PlotChart::hideFromLegend(chart, s);
}

}  // namespace scalex::figures
