#include "app/figures/ReplayCurveFigure.h"

#include <QGraphicsScene>
#include <QObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"

namespace scalex::figures {

bool writeReplayCurveFigure(const analysis::ReplayCurves& curves, const QString& title, const QString& out, const FigureStyle& style,
                            QString* error) {
    if (curves.points.empty()) {
        if (error) *error = QObject::tr("the replay has no curve to draw");
        return false;
    }
    const Theme& theme = Theme::current();
    // The chart lives in a scene, as a view's does (writeFigure renders the scene); the scene owns it.
    QGraphicsScene scene;
    auto* chart = new PlotChart();
    scene.addItem(chart);
    chart->resize(QSizeF(800, 600));
    // Percent on both axes; an error that is not a positive number is left out (log axis).
    std::vector<QPointF> planner, cheapest, random, low, high;
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    auto add = [&](std::vector<QPointF>& line, double fraction, double mape) {
        if (!(mape > 0) || !std::isfinite(mape)) return;
        line.emplace_back(100 * fraction, 100 * mape);
        lo = std::min(lo, 100 * mape), hi = std::max(hi, 100 * mape);
    };
    for (const auto& p : curves.points) {
        add(planner, p.fraction, p.plannerMape);
        add(cheapest, p.fraction, p.cheapestMape);
        if (p.randomMapeLow > 0 && p.randomMapeHigh > 0) {
            add(random, p.fraction, p.randomMape);
            add(low, p.fraction, p.randomMapeLow);
            add(high, p.fraction, p.randomMapeHigh);
        }
    }
    if (planner.empty()) {
        if (error) *error = QObject::tr("the replay's target error is not a positive number anywhere on its curve");
        return false;
    }
    const double x0 = 100 * curves.points.front().fraction, x1 = 100 * curves.points.back().fraction;
    chart->setAxes({QObject::tr("Pool's cost spent (%)"), true, x0, x1}, {QObject::tr("Target's mean relative error (%)"), true, lo, hi});
    const QColor plannerColor = theme.accent, randomColor = theme.series("random", 1), cheapestColor = theme.muted;
    if (low.size() > 1 && low.size() == high.size()) {
        QColor band = randomColor;
        band.setAlphaF(0.25);
        chart->addBand(QObject::tr("random: quartiles over %1 seeds").arg(curves.randomSeeds), band, low, high);
    }
    if (!random.empty()) chart->addLine(QObject::tr("random: median"), randomColor, random, 2.0);
    chart->addLine(QObject::tr("cheapest first"), cheapestColor, cheapest, 2.0, Qt::DashLine);
    chart->addLine(QObject::tr("planner"), plannerColor, planner, 2.5);
    std::vector<QPointF> marks;
    for (const auto& [at, p] : curves.planner.checkpoints)
        if (p.mape > 0 && std::isfinite(p.mape)) marks.emplace_back(100 * at, 100 * p.mape);
    if (!marks.empty()) chart->addScatter(QObject::tr("planner at 1 %, 5 %, 10 % of the cost"), plannerColor, marks, 8.0);
    chart->fitRangesToData(0.04);
    chart->setTitle(title);
    return writeFigure({chart}, QObject::tr("replay curve"), out, style, error);
}

}  // namespace scalex::figures
