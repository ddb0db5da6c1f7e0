#include "app/figures/CheckpointMarks.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/Study.h"

namespace scalex::figures {

Control checkpointsControl() {
    return choiceControl(kCheckpointsControl, QObject::tr("Checkpoints"),
                         {{QStringLiteral("curves"), QObject::tr("predicted from curves")},
                          {QStringLiteral("fitted"), QObject::tr("predicted, and fitted")},
                          {QStringLiteral("none"), QObject::tr("none")}},
                         QStringLiteral("curves"),
                         QObject::tr("Each model's end-of-cooldown losses its loss curves' law predicts (as fit lnd --from-curves), drawn "
                                     "hollow with their interval; \"predicted, and fitted\": the view's fit takes them beside the "
                                     "measured runs, as fit lnd|isoflop --from-curves does"));
}

bool checkpointsFitted(const Controls& controls) { return controls.choice(kCheckpointsControl) == QLatin1String("fitted"); }

namespace {

// What the prediction reads: every curve set's name, bytes and described schedules, and the N of
// every run (the grouping into models).
std::string inputsDigest(const std::vector<data::ProjectCurves>& sets, const data::RunTable& table) {
    QCryptographicHash hash(QCryptographicHash::Sha1);
    const auto add = [&](const std::string& text) {
        hash.addData(QByteArrayView(text.data(), static_cast<qsizetype>(text.size())));
        hash.addData(QByteArrayView("\0", 1));
    };
    for (const auto& set : sets) {
        add(set.name);
        hash.addData(set.csv);
        for (const auto& [run, description] : set.schedules) add(run + '=' + description);
    }
    for (const auto& r : table.runs) add(r.runId + '=' + QByteArray::number(r.params, 'g', 17).toStdString());
    return hash.result().toHex().toStdString();
}

}  // namespace

StudyCheckpoints CheckpointInputs::predict(analysis::CheckpointPlacement placement, std::vector<double> budgets, const fit::FitControl& control) const {
    // One prediction per study and placement, whichever view or redraw asks (analysis::ResultCache).
    QJsonArray asked;
    for (double h : budgets) asked.append(h);
    const analysis::ResultKey key{"study-checkpoints", {},
                                  analysis::canonicalJson(QJsonObject{{"placement", placement == analysis::CheckpointPlacement::Budgets ? "budgets" : "tokens"},
                                                                      {"budgets", asked}}),
                                  inputsDigest(sets, *table)};
    StudyCheckpoints out;
    const auto compute = [&]() -> std::shared_ptr<const analysis::PredictedCheckpointsResult> {
        analysis::PredictedCheckpointOptions options;
        options.budgets = budgets;
        auto r = analysis::predictStudyCheckpoints(sets, *table, std::move(options), placement, control);
        if (r) return std::make_shared<const analysis::PredictedCheckpointsResult>(std::move(*r));
        out.error = QString::fromStdString(r.error().message);
        return nullptr;  // not kept: an error, or cancelled
    };
    out.result = analysis::ResultCache::shared().get<analysis::PredictedCheckpointsResult>(key, compute, control);
    // Another thread's that was not kept (an error): this one's own, with its message.
    if (!out.result && out.error.isEmpty() && !control.cancelled()) out.result = compute();
    return out;
}

bool CheckpointInputs::hasCurve(const std::string& runId) const { return runHasCurve(sets, runId); }

bool runHasCurve(const std::vector<data::ProjectCurves>& sets, const std::string& runId) {
    for (const auto& set : sets)
        for (const auto& curve : set.curves.curves)
            if (curve.runId == runId) return true;
    return false;
}

namespace {

// The key of a fit on the checkpoints: the prediction's inputs, the measured points and the settings.
analysis::ResultKey checkpointFitKey(const char* analysis, const std::vector<data::ProjectCurves>& sets, const data::RunTable& table,
                                     const std::vector<std::array<double, 4>>& measured, QJsonObject settings) {
    QJsonArray points;
    for (const auto& m : measured) points.append(QJsonArray{m[0], m[1], m[2], m[3]});
    settings["measured"] = points;
    return {analysis, {}, analysis::canonicalJson(settings), inputsDigest(sets, table)};
}

QJsonArray numbers(const std::vector<double>& values) {
    QJsonArray out;
    for (double v : values) out.append(v);
    return out;
}

// Kept by `key`, else fitted by `fit` (an Expected of Result): the error where it is not kept.
template <class Result, class Fit>
std::shared_ptr<const Result> keptFit(const analysis::ResultKey& key, const fit::FitControl& control, QString& error, Fit fit) {
    const auto compute = [&]() -> std::shared_ptr<const Result> {
        auto r = fit();
        if (!r) {
            error = QString::fromStdString(r.error().message);
            return nullptr;
        }
        if (control.cancelled()) return nullptr;
        return std::make_shared<const Result>(std::move(*r));
    };
    auto kept = analysis::ResultCache::shared().get<Result>(key, compute, control);
    if (!kept && error.isEmpty() && !control.cancelled()) kept = compute();  // another thread's error: this one's own message
    return kept;
}

// The replicates and level `fit lnd|isoflop --from-curves` use by default (LndQueries.cpp's replicateOptions).
analysis::CheckpointSurfaceOptions cliReplicates() {
    analysis::CheckpointSurfaceOptions o;
    o.level = analysis::PredictedCheckpointOptions{}.curves.level;
    return o;
}

}  // namespace

CheckpointInputs::Fitted<analysis::CheckpointSurfaceResult> CheckpointInputs::fitSurface(std::vector<fit::LossPoint> measured,
                                                                                         const fit::LossSurfaceSettings& settings,
                                                                                         const fit::FitControl& control) const {
    Fitted<analysis::CheckpointSurfaceResult> out;
    out.checkpoints = predict(analysis::CheckpointPlacement::Tokens, {}, control);
    if (!out.checkpoints.result) {
        out.error = out.checkpoints.error;
        return out;
    }
    std::vector<std::array<double, 4>> points;
    for (const auto& m : measured) points.push_back({m.params, m.tokens, 0.0, m.loss});
    const fit::InitGrid& g = settings.grid;
    const QJsonObject options{{"huber_delta", settings.huberDelta}, {"fit_gamma", settings.fitGamma},
                              {"grid", QJsonArray{numbers(g.logA), numbers(g.logB), numbers(g.logE), numbers(g.alpha), numbers(g.beta), numbers(g.gamma)}},
                              {"stop", settings.stopDelta}, {"screen_stop", settings.screenStopDelta}, {"refine", static_cast<double>(settings.refineCount)}};
    const auto key = checkpointFitKey("study-checkpoint-surface", sets, *table, points, options);
    const auto predicted = out.checkpoints.result;
    out.result = keptFit<analysis::CheckpointSurfaceResult>(key, control, out.error, [&] {
        return analysis::fitSurfaceWithCheckpoints(measured, predicted->checkpoints, settings, cliReplicates(), control);
    });
    return out;
}

CheckpointInputs::Fitted<analysis::CheckpointIsoFlopResult> CheckpointInputs::fitIsoFlop(std::vector<fit::IsoFlopRun> measured, fit::IsoFlopSettings settings,
                                                                                         const fit::FitControl& control) const {
    Fitted<analysis::CheckpointIsoFlopResult> out;
    out.checkpoints = predict(analysis::CheckpointPlacement::Budgets, settings.budgets, control);
    if (!out.checkpoints.result) {
        out.error = out.checkpoints.error;
        return out;
    }
    // The profiles at the budgets the checkpoints were predicted at (as --budgets sets both).
    std::set<double> budgets;
    for (const auto& c : out.checkpoints.result->checkpoints) budgets.insert(c.budget);
    settings.budgets.assign(budgets.begin(), budgets.end());
    std::vector<std::array<double, 4>> points;
    for (const auto& m : measured) points.push_back({m.params, m.tokens, m.flops, m.loss});
    const QJsonObject options{{"budgets", numbers(settings.budgets)}, {"tolerance", settings.tolerance}, {"fit_min", settings.fitMin},
                              {"fit_max", std::isfinite(settings.fitMax) ? QJsonValue(settings.fitMax) : QJsonValue("inf")},
                              {"min_runs", settings.minRunsPerProfile}, {"kept", numbers(settings.keptBudgets)}};
    const auto key = checkpointFitKey("study-checkpoint-isoflop", sets, *table, points, options);
    const auto predicted = out.checkpoints.result;
    out.result = keptFit<analysis::CheckpointIsoFlopResult>(key, control, out.error, [&] {
        return analysis::fitIsoFlopWithCheckpoints(measured, predicted->checkpoints, settings, cliReplicates(), control);
    });
    return out;
}

std::optional<CheckpointInputs> checkpointInputs(const FigureInput& in, const Controls& controls) {
    const QString chosen = controls.choice(kCheckpointsControl);
    if ((chosen != QLatin1String("curves") && chosen != QLatin1String("fitted")) || in.study->curveSets().empty()) return std::nullopt;
    return CheckpointInputs{in.study->curveSets(), runsForJob(in)};
}

JobOf<StudyCheckpoints> checkpointsJob(const FigureInput& in, const Controls& controls) {
    auto inputs = checkpointInputs(in, controls);
    if (!inputs) return {};
    return [inputs = std::move(*inputs)](const fit::FitControl& control) {
        return inputs.predict(analysis::CheckpointPlacement::Tokens, {}, control);
    };
}

void drawCheckpoints(PlotChart* chart, const StudyCheckpoints& checkpoints,
                     const std::function<QPointF(const analysis::PredictedCheckpoint&)>& at, bool bars,
                     const std::function<QColor(const analysis::PredictedCheckpoint&)>& colourOf) {
    if (!checkpoints.result || checkpoints.result->checkpoints.empty()) return;
    const QColor text = Theme::current().foreground;
    // The points of each colour, colours in the order they come.
    std::vector<std::pair<QColor, std::vector<QPointF>>> byColour;
    for (const auto& c : checkpoints.result->checkpoints) {
        const QColor colour = colourOf ? colourOf(c) : text;
        auto it = std::find_if(byColour.begin(), byColour.end(), [&](const auto& g) { return g.first == colour; });
        if (it == byColour.end()) it = byColour.insert(byColour.end(), {colour, {}});
        it->second.push_back(at(c));
        if (!bars) continue;
        analysis::PredictedCheckpoint low = c, high = c;
        low.loss = c.lower, high.loss = c.upper;
        PlotChart::hideFromLegend(chart, chart->addLine(QString(), colour, {at(low), at(high)}, 1.2));
    }
    // One legend entry, in the text's colour, for the markers of every colour.
    const bool one = byColour.size() == 1 && byColour.front().first == text;
    for (const auto& [colour, points] : byColour) {
        auto* s = chart->addScatter(one ? QObject::tr("predicted from curves") : QString(), colour, points, 8.0, true);
        if (!one) PlotChart::hideFromLegend(chart, s);
    }
    if (!one) chart->addScatter(QObject::tr("predicted from curves"), text, {}, 8.0, true);
}

QString checkpointsSummary(const StudyCheckpoints& checkpoints) {
    if (!checkpoints.error.isEmpty()) return QObject::tr("No checkpoints predicted from the loss curves: %1.").arg(checkpoints.error);
    if (!checkpoints.result) return {};
    std::set<std::string> models;
    for (const auto& c : checkpoints.result->checkpoints) models.insert(c.model);
    return QObject::tr("Hollow: %1 checkpoints of %2 models predicted from their loss curves (end of the best cooldown, %3 % intervals).")
        .arg(checkpoints.result->checkpoints.size())
        .arg(models.size())
        .arg(100 * checkpoints.result->level, 0, 'g', 3);
}

QString checkpointsExplain(const StudyCheckpoints& checkpoints) {
    if (!checkpoints.result && checkpoints.error.isEmpty()) return {};
    return QObject::tr("<p><b>Predicted from curves</b> (hollow): for each model of the study's loss curves (grouped by the N of "
                       "their runs), the Multi-Power Law (Luo et al. 2025) fitted to its curves predicts the loss at the end of the "
                       "best warm-up, stable, decay schedule for each token count or budget, as <tt>scalex fit lnd|isoflop "
                       "--from-curves</tt> does; their intervals carry the law's misfit.</p>") +
           QStringLiteral("<p>%1</p>").arg(checkpointsSummary(checkpoints).toHtmlEscaped());
}

}  // namespace scalex::figures
