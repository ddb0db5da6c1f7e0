#include "app/figures/PlanFigure.h"

#include <QGraphicsScene>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/analysis/LawVariables.h"

namespace scalex::figures {

namespace {

QString g3(double v) { return QString::number(v, 'g', 3); }

}  // namespace

bool writePlanFigure(const analysis::PlanCandidates& plan, const data::RunTable& study, const analysis::AnalysisSettings& settings,
                     const QString& title, const QString& out, const FigureStyle& style, QString* error) {
    std::vector<QPointF> runs, targets;
    for (const data::Run* run : analysis::runsInScope(study, settings))
        if (run->params > 0 && run->tokens > 0 && std::isfinite(run->params) && std::isfinite(run->tokens)) runs.emplace_back(run->params, run->tokens);
    for (const auto& point : plan.options.targetPoints) {
        const auto n = point.find("N"), d = point.find("D");
        if (n != point.end() && d != point.end() && n->second > 0 && d->second > 0) targets.emplace_back(n->second, d->second);
    }
    bool anyPick = false;
    for (const auto& g : plan.groups)
        for (const auto& p : g.picks) anyPick = anyPick || (p.n > 0 && p.d > 0);
    if (!anyPick) {
        if (error) *error = QObject::tr("the plan has no pick with N and D to draw");
        return false;
    }
    QGraphicsScene scene;  // owns the chart; writeFigure renders the scene
    auto* chart = new PlotChart();
    scene.addItem(chart);
    chart->resize(QSizeF(800, 600));
    // The plane's extent: every run, pick and target.
    double nLo = std::numeric_limits<double>::infinity(), nHi = 0, dLo = nLo, dHi = 0;
    auto extend = [&](double n, double d) { nLo = std::min(nLo, n), nHi = std::max(nHi, n), dLo = std::min(dLo, d), dHi = std::max(dHi, d); };
    for (const auto& p : runs) extend(p.x(), p.y());
    for (const auto& p : targets) extend(p.x(), p.y());
    for (const auto& g : plan.groups)
        for (const auto& p : g.picks)
            if (p.n > 0 && p.d > 0) extend(p.n, p.d);
    chart->setAxes({QObject::tr("Parameters N"), true, nLo, nHi, true}, {QObject::tr("Training tokens D"), true, dLo, dHi, true});
    const Theme& theme = Theme::current();
    // Lines of equal cost 6ND, one per decade across the plane.
    const double cLo = std::floor(std::log10(6 * nLo * dLo)), cHi = std::ceil(std::log10(6 * nHi * dHi));
    bool first = true;
    for (double e = cLo; e <= cHi; ++e) {
        const double c = std::pow(10.0, e);
        std::vector<QPointF> line;
        for (int k = 0; k <= 64; ++k) {
            const double n = nLo * std::pow(nHi / nLo, k / 64.0), d = c / (6 * n);
            if (d >= dLo / 2 && d <= dHi * 2) line.emplace_back(n, d);
        }
        if (line.size() < 2) continue;
        auto* s = chart->addLine(first ? QObject::tr("6ND = const (one per decade)") : QString(), theme.grid.darker(130), line, 1.0, Qt::DotLine);
        if (!first) PlotChart::hideFromLegend(chart, s);
        first = false;
    }
    if (!runs.empty()) chart->addScatter(QObject::tr("study's runs"), theme.muted, runs, 6.0, true);
    if (!targets.empty()) chart->addScatter(QObject::tr("target"), theme.highlight, targets, 12.0);
    int groupIndex = 0;
    for (const auto& g : plan.groups) {
        const QColor color = theme.series(g.name, groupIndex++);
        int k = 0;
        for (const auto& p : g.picks) {
            ++k;
            if (!(p.n > 0 && p.d > 0)) continue;
            QString label = QObject::tr("%1%2. N %3, D %4: cost %5")
                                .arg(plan.groups.size() > 1 ? QString::fromStdString(g.name) + QStringLiteral(" ") : QString())
                                .arg(k)
                                .arg(g3(p.n), g3(p.d), g3(p.cost));
            if (!p.halfWidthAfter.empty()) label += QObject::tr(", \u00b1 %1 after").arg(g3(p.halfWidthAfter.front()));
            // Earlier picks larger: the order reads from the marker sizes.
            chart->addScatter(label, color, {QPointF(p.n, p.d)}, std::max(6.0, 16.0 - 2.0 * (k - 1)));
        }
    }
    chart->fitRangesToData(0.06);
    chart->setTitle(title);
    return writeFigure({chart}, QObject::tr("plan"), out, style, error);
}

}  // namespace scalex::figures
