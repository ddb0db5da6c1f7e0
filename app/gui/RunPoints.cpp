#include "app/gui/RunPoints.h"

#include <QCursor>
#include <QToolTip>
#include <QtCharts/QXYSeries>
#include <memory>

#include "app/gui/Session.h"

namespace scalex::gui {

QString runSummary(const Session* session, int index) { return figures::runSummary(session->study(), index); }

figures::FigureInput figureInput(Session* session) {
    figures::FigureInput in;
    in.study = &session->study();
    in.runsSnapshot = [session] { return session->runsSnapshot(); };
    in.selection = session->selection();
    in.linkRuns = [session](QXYSeries* drawn, const std::shared_ptr<const std::vector<int>>& runs) {
        QObject::connect(drawn, &QXYSeries::hovered, drawn, [session, s = drawn, runs](const QPointF& p, bool state) {
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
        QObject::connect(drawn, &QXYSeries::clicked, drawn, [session, s = drawn, runs](const QPointF& p) {
            const auto pts = s->points();
            for (int i = 0; i < pts.size(); ++i)
                if (pts[i] == p && i < static_cast<int>(runs->size())) {
                    session->setSelection({(*runs)[static_cast<std::size_t>(i)]});
                    return;
                }
        });
    };
    return in;
}

QScatterSeries* addRunPoints(PlotChart* chart, Session* session, const QString& name, const QColor& color,
                             const std::vector<RunPoint>& points, double markerSize) {
    return figures::addRunPoints(chart, figureInput(session), name, color, points, markerSize);
}

void addSelectionRings(PlotChart* chart, Session* session, const std::vector<RunPoint>& points) {
    figures::addSelectionRings(chart, figureInput(session), points);
}

}  // namespace scalex::gui
