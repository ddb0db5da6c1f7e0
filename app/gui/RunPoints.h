#pragma once
// Runs drawn as points in a chart: hovering shows the run's numbers, clicking selects it in every
// view (through the session), and selected runs are ringed.
#include <QColor>
#include <QPointF>
#include <QString>
#include <functional>
#include <vector>

#include "app/gui/FigureNames.h"

class QScatterSeries;

namespace scalex::gui {

class Session;

struct RunPoint {
    QPointF data;  // data units (x, y)
    int run = -1;  // index into the session's run table
};

// Adds the points as one series; returns it (null when there are no valid points).
QScatterSeries* addRunPoints(PlotChart* chart, Session* session, const QString& name, const QColor& color,
                             const std::vector<RunPoint>& points, double markerSize = 7.0);
// Rings around the session's selected runs among `points`.
void addSelectionRings(PlotChart* chart, Session* session, const std::vector<RunPoint>& points);

// "N 406M · D 8.1B · C 2.0e19 · D/N 20 · loss 3.112" for tooltips.
QString runSummary(const Session* session, int run);

}  // namespace scalex::gui
