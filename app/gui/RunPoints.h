#pragma once
// Runs drawn in the window's charts: app/figures draws them (RunMarks.h); the window links each
// point to its run: hovering shows the run's numbers, clicking selects it in every view (through
// the session).
#include <QColor>
#include <QString>
#include <vector>

#include "app/figures/RunMarks.h"
#include "app/figures/ViewFigure.h"
#include "app/gui/FigureNames.h"

class QScatterSeries;

namespace scalex::gui {

class Session;

using figures::RunPoint;

// What a figure draws from in the window: the session's study and selection, and its points
// linked to hover read-outs and clicks.
figures::FigureInput figureInput(Session* session);

// Adds the points as one series; returns it (null when there are no valid points).
QScatterSeries* addRunPoints(PlotChart* chart, Session* session, const QString& name, const QColor& color,
                             const std::vector<RunPoint>& points, double markerSize = 7.0);
// Rings around the session's selected runs among `points`.
void addSelectionRings(PlotChart* chart, Session* session, const std::vector<RunPoint>& points);

// "N 406M · D 8.1B · C 2.0e19 · D/N 20 · loss 3.112" for tooltips.
QString runSummary(const Session* session, int run);

}  // namespace scalex::gui
