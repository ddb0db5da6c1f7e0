#pragma once
// Runs drawn as points in a chart: one series per group of runs (a large group drawn by one
// graphics item), selected runs ringed, and, in the window, each point linked to its run (hover
// read-out, click to select) through FigureInput::linkRuns.
#include <QColor>
#include <QPointF>
#include <QString>
#include <vector>

class QScatterSeries;

namespace scalex::analysis {
class Study;
}

namespace scalex::figures {

class PlotChart;
struct FigureInput;

struct RunPoint {
    QPointF data;  // data units (x, y)
    int run = -1;  // index into the study's run table
};

// Adds the points as one series; returns it (null when there are no valid points).
QScatterSeries* addRunPoints(PlotChart* chart, const FigureInput& in, const QString& name, const QColor& color,
                             const std::vector<RunPoint>& points, double markerSize = 7.0);
// Planned runs (no loss yet) as hollow squares with a thick border in `color`, one legend entry
// "planned runs (no loss yet)"; null when there are none.
QScatterSeries* addPlannedRuns(PlotChart* chart, const FigureInput& in, const QColor& color, const std::vector<RunPoint>& points);
// Rings around the selected runs among `points`.
void addSelectionRings(PlotChart* chart, const FigureInput& in, const std::vector<RunPoint>& points);

// "<b>series</b> name<br>N 406M · D 8.1B · D/N 20<br>C 2.0e19 FLOPs · loss 3.112" for tooltips.
QString runSummary(const analysis::Study& study, int run);

}  // namespace scalex::figures
