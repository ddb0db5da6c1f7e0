#include "app/gui/RunPoints.h"

#include <QCursor>
#include <QToolTip>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QScatterSeries>
#include <cmath>
#include <memory>

#include "app/gui/LogTicks.h"
#include "app/gui/PlotChart.h"
#include "app/gui/Session.h"
#include "app/gui/Theme.h"

#include "core/data/Series.h"

namespace scalex::gui {

QString runSummary(const Session* session, int index) {
    const auto& runs = session->runs().runs;
    if (index < 0 || index >= static_cast<int>(runs.size())) return {};
    const data::Run& r = runs[static_cast<std::size_t>(index)];
    QString s = QStringLiteral("<b>%1</b> %2<br>N %3 · D %4 · D/N %5<br>C %6 FLOPs · loss %7")
                    .arg(QString::fromStdString(data::seriesLabel(r.series)).toHtmlEscaped(),
                         QString::fromStdString(r.name.empty() ? r.runId : r.name).toHtmlEscaped(), formatCount(r.params),
                         formatCount(r.tokens))
                    .arg(r.tokensPerParam(), 0, 'f', 1)
                    .arg(formatFlops(r.flops))
                    .arg(r.loss(), 0, 'f', 4);
    if (data::known(r.context)) s += QStringLiteral(" · T %1").arg(r.context);
    return s;
}

QScatterSeries* addRunPoints(PlotChart* chart, Session* session, const QString& name, const QColor& color,
                             const std::vector<RunPoint>& points, double markerSize) {
    std::vector<QPointF> data;
    auto runs = std::make_shared<std::vector<int>>();
    for (const RunPoint& p : points) {
        if (!(p.data.x() > 0) || !(p.data.y() > 0) || !std::isfinite(p.data.x()) || !std::isfinite(p.data.y())) continue;
        data.push_back(p.data);
        runs->push_back(p.run);
    }
    if (data.empty()) return nullptr;
    QScatterSeries* s = chart->addScatter(name, color, data, markerSize);
    QObject::connect(s, &QScatterSeries::hovered, s, [session, s, runs](const QPointF& p, bool state) {
        if (!state) {
            QToolTip::hideText();
            return;
        }
        const auto pts = s->points();
        for (int i = 0; i < pts.size(); ++i)
            if (pts[i] == p && i < static_cast<int>(runs->size())) {
                QToolTip::showText(QCursor::pos(), runSummary(session, (*runs)[static_cast<std::size_t>(i)]));
                return;
            }
    });
    QObject::connect(s, &QScatterSeries::clicked, s, [session, s, runs](const QPointF& p) {
        const auto pts = s->points();
        for (int i = 0; i < pts.size(); ++i)
            if (pts[i] == p && i < static_cast<int>(runs->size())) {
                session->setSelection({(*runs)[static_cast<std::size_t>(i)]});
                return;
            }
    });
    return s;
}

void addSelectionRings(PlotChart* chart, Session* session, const std::vector<RunPoint>& points) {
    std::vector<QPointF> ringed;
    for (const RunPoint& p : points)
        if (session->selection().contains(p.run)) ringed.push_back(p.data);
    if (ringed.empty()) return;
    QScatterSeries* s = chart->addScatter(QObject::tr("selected"), Theme::current().highlight, ringed, 14, true);
    PlotChart::hideFromLegend(chart, s);
}

}  // namespace scalex::gui
