#include "app/figures/CurveFitFigure.h"

#include <QAreaSeries>
#include <QGraphicsScene>
#include <QScatterSeries>
#include <QSet>
#include <QStringList>
#include <QObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"

namespace scalex::figures {

void addCurveBands(PlotChart* chart, const std::vector<analysis::CurveBand>& bands, bool accentLast) {
    long last = 0;
    for (const auto& b : bands)
        if (!b.steps.empty()) last = std::max(last, b.steps.back());
    // Run names of a study share most of their parts (model, data, batch, seed): the legend keeps
    // the parts that tell the runs apart ('_'-separated tokens not common to every run).
    std::map<QString, int> tokenRuns;
    int runs = 0;
    for (const auto& b : bands) {
        if (b.observed.empty()) continue;
        ++runs;
        const auto parts = QString::fromStdString(b.name).split('_');
        for (const auto& t : QSet<QString>(parts.begin(), parts.end())) ++tokenRuns[t];
    }
    const auto label = [&](const std::string& name) {
        QStringList kept;
        for (const auto& t : QString::fromStdString(name).split('_'))
            if (runs < 2 || tokenRuns[t] < runs) kept << t;
        const QString text = kept.isEmpty() ? QString::fromStdString(name) : kept.join(' ');
        return text.size() > 80 ? text.left(79) + QChar(0x2026) : text;
    };
    const Theme& theme = Theme::current();
    const double from = 0.05 * static_cast<double>(last);
    for (std::size_t k = 0; k < bands.size(); ++k) {
        const auto& b = bands[k];
        const bool accent = accentLast && k + 1 == bands.size();
        const QString name = label(b.name);
        const QColor color = accent ? theme.accent : theme.series(b.name, static_cast<int>(k));
        std::vector<QPointF> observed, line, low, high;
        for (const auto& p : b.observed)
            if (p.step >= from) observed.emplace_back(static_cast<double>(p.step), p.loss);
        for (std::size_t i = 0; i < b.steps.size(); ++i) {
            if (b.steps[i] < from) continue;
            line.emplace_back(static_cast<double>(b.steps[i]), b.loss[i]);
            low.emplace_back(static_cast<double>(b.steps[i]), b.lower[i]);
            high.emplace_back(static_cast<double>(b.steps[i]), b.upper[i]);
        }
        if (line.size() > 1) {
            QColor band = color;
            band.setAlphaF(0.25);
            PlotChart::hideFromLegend(chart, chart->addBand(name + QObject::tr(" (interval)"), band, low, high));
            chart->addLine(name + (b.heldOut ? QObject::tr(" (predicted)") : QObject::tr(" (fitted)")), color, line, accent ? 2.6 : 2.0,
                           b.heldOut ? Qt::DashLine : Qt::SolidLine);
        }
        if (!observed.empty()) PlotChart::hideFromLegend(chart, chart->addScatter(name, color, observed, 4.0, true));
    }
}

bool writeCurveFitFigure(const std::vector<analysis::CurveBand>& bands, const QString& title, const QString& out, const FigureStyle& style,
                         QString* error) {
    long last = 0;
    for (const auto& b : bands)
        if (!b.steps.empty()) last = std::max(last, b.steps.back());
    if (last <= 0) {
        if (error) *error = QObject::tr("no curve to draw");
        return false;
    }
    QGraphicsScene scene;  // owns the chart; writeFigure renders the scene, as a view's
    auto* chart = new PlotChart();
    scene.addItem(chart);
    chart->resize(QSizeF(900, 600));
    chart->setAxes({QObject::tr("Step"), false, 0, static_cast<double>(last)}, {QObject::tr("Validation loss"), false, 2, 4});
    addCurveBands(chart, bands);
    chart->fitRangesToData(0.03);
    chart->setTitle(title);
    return writeFigure({chart}, QObject::tr("curve fit"), out, style, error);
}

}  // namespace scalex::figures
