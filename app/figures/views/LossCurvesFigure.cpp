#include "app/figures/views/LossCurvesFigure.h"

#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <map>

#include "app/figures/Decimation.h"
#include "app/figures/PlotChart.h"
#include "app/figures/RunMarks.h"
#include "app/figures/Theme.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/Study.h"
#include "core/data/Series.h"

namespace scalex::figures {

LossCurvesFigure::LossCurvesFigure() : chart_(makeChart()) {
    controls().add(choiceControl(QStringLiteral("axis"), QObject::tr("Over"),
                                 {{QStringLiteral("tokens"), QObject::tr("Training tokens D")},
                                  {QStringLiteral("compute"), QObject::tr("Training compute C")}},
                                 QStringLiteral("tokens")));
}

std::vector<QChart*> LossCurvesFigure::charts() const { return {chart_}; }

QJsonObject LossCurvesFigure::jobControls() const {
    return {{QStringLiteral("axis"), controls().choice(QStringLiteral("axis"))}};
}

bool LossCurvesFigure::answersAtOnce(const FigureInput& in) const { return in.study->runs().rowCount() < kDrawAtOnceRows; }

QString LossCurvesFigure::problem() const {
    if (curves_ > 0) return {};
    return QObject::tr("no loss curves: the runs in scope have one row each (a table of checkpoints, or a loss-curves file, "
                       "has curves)");
}

namespace {

constexpr std::size_t kPointBudget = 100'000;
constexpr std::size_t kMinPointsPerCurve = 96;
constexpr std::size_t kMaxChartSeries = 64;

// The points LTTB keeps of a line drawn on log-log axes.
std::vector<QPointF> decimated(const std::vector<QPointF>& line, std::size_t threshold) {
    if (line.size() <= threshold) return line;
    std::vector<std::pair<double, double>> logs;
    logs.reserve(line.size());
    for (const auto& p : line) logs.emplace_back(std::log(p.x()), std::log(p.y()));
    std::vector<QPointF> out;
    for (std::size_t i : largestTriangleThreeBuckets(logs, threshold)) out.push_back(line[i]);
    return out;
}

}  // namespace

JobOf<LossCurvesFigure::Answer> LossCurvesFigure::job(const FigureInput& in) const {
    const bool overCompute = controls().choice(QStringLiteral("axis")) == QLatin1String("compute");
    return [runs = runsForJob(in), settings = in.study->settings(), overCompute](const fit::FitControl&) {
        const auto curves = analysis::lossCurves(*runs, settings);
        std::vector<std::size_t> order(curves.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return curves[a].last()->params < curves[b].last()->params;
        });
        // A thousand curves of a thousand checkpoints draw as fast as a few: each keeps the points
        // that shape it on the log-log axes (Decimation.h), within a budget for the whole view.
        const std::size_t perCurve = std::max<std::size_t>(kMinPointsPerCurve, kPointBudget / std::max<std::size_t>(curves.size(), 1));
        Answer answer;
        answer.curves.reserve(curves.size());
        for (std::size_t i : order) {
            const auto& c = curves[i];
            std::vector<QPointF> line;
            for (const auto& p : c.checkpoints) {
                const double x = overCompute ? p.flops : p.tokens;
                if (x > 0 && p.loss > 0) line.push_back({x, p.loss});
            }
            const data::Run* last = c.last();
            const std::ptrdiff_t endRun = last - runs->runs.data();
            answer.curves.push_back({c.series, c.run, decimated(line, perCurve), {overCompute ? last->flops : last->tokens, last->loss()},
                                     endRun >= 0 && endRun < static_cast<std::ptrdiff_t>(runs->runs.size()) ? static_cast<int>(endRun) : -1,
                                     static_cast<int>(c.checkpoints.size())});
        }
        return answer;
    };
}

void LossCurvesFigure::draw(const FigureInput& in) {
    const analysis::Study& study = *in.study;
    const Theme& theme = Theme::current();
    const bool overCompute = controls().choice(QStringLiteral("axis")) == QLatin1String("compute");
    chart_->clearSeries();
    chart_->setAxes({overCompute ? QObject::tr("Training compute C (FLOPs)") : QObject::tr("Training tokens D"), true, 1e9, 1e12},
                    {QObject::tr("Validation loss"), true, 2, 5});
    const auto& curves = answer_.curves;
    curves_ = static_cast<int>(curves.size());
    checkpoints_ = 0;
    // Several series: a colour each; one series: its runs from small to large along a ramp.
    std::map<std::string, int> perSeries;
    for (const auto& c : curves) ++perSeries[c.series];
    const bool oneSeries = perSeries.size() == 1;
    // A legend entry per run while they fit; past that one per series, the colours ordered by size.
    const bool legendPerRun = curves.size() <= 8;
    // Past a few dozen curves each series' first is a series of the chart (its legend entry), the
    // others are drawn together in one item (CurveBundle.h).
    const bool bundled = curves.size() > kMaxChartSeries;
    std::map<std::string, bool> listed;
    std::vector<RunPoint> ends;
    int rank = 0;
    for (const auto& c : curves) {
        const QColor colour = oneSeries ? theme.sequential(rank++, static_cast<int>(curves.size()))
                                        : theme.series(c.series, study.seriesIndex(c.series));
        checkpoints_ += c.checkpoints;
        QString name = legendPerRun ? QString::fromStdString(c.run) : QString::fromStdString(data::seriesLabel(c.series));
        if (bundled && listed.count(c.series)) {
            chart_->addBundledLine(colour, c.line, 1.6);
        } else {
            auto* s = chart_->addLine(name, colour, c.line, 1.6);
            if (!legendPerRun && !listed.emplace(c.series, true).second) PlotChart::hideFromLegend(chart_, s);
        }
        ends.push_back({c.end, c.endRun});
    }
    // The curve sets (curves files: one row per logged step, joined on run_id): the validation
    // loss where logged, a colour per set, over compute where the joined run gives C per token.
    std::map<std::string, const data::Run*> byRunId;
    for (const auto& r : study.runs().runs)
        if (!r.runId.empty() && !r.intermediateCheckpoint) byRunId.emplace(r.runId, &r);
    int setIndex = 0, fromSets = 0;
    for (const auto& set : study.curveSets()) {
        const QColor colour = theme.series(set.name, static_cast<int>(study.seriesNames().size()) + setIndex++);
        bool named = false;
        for (const auto& c : set.curves.curves) {
            const auto joined = byRunId.find(c.runId);
            const double flopsPerToken = joined != byRunId.end() && joined->second->flops > 0 && joined->second->tokens > 0
                                             ? joined->second->flops / joined->second->tokens
                                             : 0;
            if (overCompute && !(flopsPerToken > 0)) continue;
            std::vector<QPointF> line;
            for (const auto& p : c.points)
                if (p.tokens > 0 && p.valLoss > 0) line.push_back({overCompute ? p.tokens * flopsPerToken : p.tokens, p.valLoss});
            if (line.empty()) continue;
            ++fromSets;
            checkpoints_ += static_cast<int>(line.size());
            auto* s = chart_->addLine(QString::fromStdString(set.name), colour, line, 1.2);
            if (named) PlotChart::hideFromLegend(chart_, s);
            named = true;
        }
    }
    curves_ += fromSets;
    chart_->fitRangesToData(0.05);
    if (!ends.empty()) {
        if (QScatterSeries* s = addRunPoints(chart_, in, QObject::tr("runs (last checkpoint)"), theme.foreground, ends, 5))
            s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        addSelectionRings(chart_, in, ends);
    }
    chart_->setTitle(curves_ == 0 ? QObject::tr("Loss curves")
                     : curves_ == 1 ? QObject::tr("Loss curve of 1 run")
                                    : QObject::tr("Loss curves of %1 runs").arg(curves_));
    summary_ = curves_ == 0
                   ? QObject::tr("No loss curves: the runs in scope have one row each. A table of checkpoints (a step column "
                                 "and runs on several rows) is drawn here, one curve per run, and so are the curves of a loss-curves "
                                 "file (run_id, step, tokens, val_loss) opened with File › Open.")
               : curves.empty()
                   ? QObject::tr("%1 validation-loss points along %2 curves from %3 loss-curve files (a colour each). Over compute, a curve "
                                 "needs the run its run_id names, with its C and D, in the project.")
                         .arg(checkpoints_)
                         .arg(curves_)
                         .arg(study.curveSets().size())
                   : QObject::tr("%1 checkpoints along %2 runs. Each curve is one training run%3; its last checkpoint (square) is "
                                 "the run the other views use. A checkpoint's loss is not the loss of a run trained to that point: "
                                 "runs whose learning rate decays to their own end reach lower.")
                         .arg(checkpoints_)
                         .arg(curves_)
                         .arg(oneSeries && !legendPerRun ? QObject::tr(", coloured from the smallest model (dark) to the largest (light)")
                                                         : QString());
}

}  // namespace scalex::figures
