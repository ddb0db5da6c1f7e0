#include "app/figures/views/ScheduleFigure.h"

#include <QObject>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>

#include "app/figures/CurveFitFigure.h"
#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/analysis/Study.h"

namespace scalex::figures {

namespace {

const QString kLaw = QStringLiteral("law"), kShape = QStringLiteral("shape"), kCooldown = QStringLiteral("cooldown"),
              kDecay = QStringLiteral("decay"), kLength = QStringLiteral("length"), kRun = QStringLiteral("run"),
              kDescribed = QStringLiteral("described");

// A run of the study's curve sets as a choice's key: "<set>/<run id>" (set names hold no '/').
QString runKey(const data::ProjectCurves& set, const data::LossCurve& curve) {
    return QString::fromStdString(set.name) + QLatin1Char('/') + QString::fromStdString(curve.runId);
}

// The decay control's key of a decay shape.
QString decayKey(fit::DecayShape decay) {
    return decay == fit::DecayShape::Sqrt ? QStringLiteral("sqrt") : decay == fit::DecayShape::Exponential ? QStringLiteral("exp") : QStringLiteral("linear");
}

}  // namespace

ScheduleFigure::ScheduleFigure() : chart_(makeChart()) {
    controls().add(choiceControl(kLaw, QObject::tr("Law"),
                                 {{QStringLiteral("mpl"), QObject::tr("Multi-Power Law")},
                                  {QStringLiteral("lra"), QObject::tr("LR-annealing law")},
                                  {QStringLiteral("power"), QObject::tr("Power law in tokens")}},
                                 QStringLiteral("mpl")));
    controls().add(choiceControl(kShape, QObject::tr("Schedule"),
                                 {{QStringLiteral("wsd"), QObject::tr("Warm-up, stable, decay")},
                                  {QStringLiteral("cosine"), QObject::tr("Cosine to 10 %")},
                                  {QStringLiteral("constant"), QObject::tr("Constant")}},
                                 QStringLiteral("wsd")));
    std::vector<double> fractions;
    for (int i = 1; i <= 99; ++i) fractions.push_back(i / 100.0);  // fine enough for the best cooldown's fraction
    controls().add(valueControl(kCooldown, QObject::tr("Cooldown fraction"), fractions, 0.2, 0));
    controls().add(choiceControl(kDecay, QObject::tr("Decay"),
                                 {{QStringLiteral("linear"), QObject::tr("Linear")},
                                  {QStringLiteral("sqrt"), QObject::tr("1 − sqrt")},
                                  {QStringLiteral("exp"), QObject::tr("Exponential")}},
                                 QStringLiteral("linear")));
    controls().add(valueControl(kLength, QObject::tr("Length (× longest curve)"), {0.5, 0.75, 1, 1.5, 2, 3, 4}, 1, 0));
    controls().add(choiceControl(kRun, QObject::tr("Schedule of run"), {}, QString(),
                                 QObject::tr("A run of the loss curves whose learning-rate schedule the field beside describes")));
    controls().add(textControl(kDescribed, QObject::tr("wsd:peak=1e-3,steps=50000,warmup=300,cooldown=0.2,decay=linear"), QString(),
                               QObject::tr("The run's schedule as --schedule takes it: constant | cosine | wsd | step, then peak, steps, "
                                           "warmup, final, cooldown, decay (linear | sqrt | exp), milestones, factor; kept in the project "
                                           "and used where the run's curve logs no rate or logs from after the warm-up. Empty: none")));
}

void ScheduleFigure::refresh(const FigureInput& in) {
    std::vector<ControlChoice> runs;
    const auto& sets = in.study->curveSets();
    for (const auto& set : sets)
        for (const auto& curve : set.curves.curves)
            runs.push_back({runKey(set, curve), QString::fromStdString(sets.size() > 1 && set.curves.curves.size() > 1 ? set.name + ": " + curve.runId
                                                                                                                   : curve.runId)});
    controls().setChoices(kRun, std::move(runs));
    // Another run, or another description kept for it (a project opened, the text kept on Enter):
    // the field shows the kept one.
    const QString key = controls().choice(kRun);
    QString kept;
    for (const auto& set : sets)
        for (const auto& curve : set.curves.curves)
            if (runKey(set, curve) == key)
                if (const auto it = set.schedules.find(curve.runId); it != set.schedules.end())
                    kept = QString::fromStdString(analysis::normalScheduleDescription(it->second));
    if (key == describedFor_ && kept == describedKept_) return;
    describedFor_ = key;
    describedKept_ = kept;
    controls().at(kDescribed).value = kept;
}

QString ScheduleFigure::controlProblem(const QString& name) const {
    if (name != kRun && name != kDescribed) return {};
    const QString text = controls().at(kDescribed).value.toString().trimmed();
    if (text.isEmpty()) return {};
    const std::string why = analysis::scheduleDescriptionProblem(text.toStdString());
    return why.empty() ? QString() : QObject::tr("Schedule '%1': %2").arg(text, QString::fromStdString(why));
}

std::optional<ViewFigure::DescribedSchedule> ScheduleFigure::describedSchedule() const {
    const QString key = controls().choice(kRun);
    const qsizetype slash = key.indexOf(QLatin1Char('/'));
    if (slash < 0 || key != describedFor_ || !controlProblem(kDescribed).isEmpty()) return std::nullopt;
    return DescribedSchedule{key.left(slash).toStdString(), key.mid(slash + 1).toStdString(),
                             controls().at(kDescribed).value.toString().trimmed().toStdString()};
}

std::vector<QChart*> ScheduleFigure::charts() const { return {chart_}; }

std::vector<ViewFigure::Action> ScheduleFigure::actions() const {
    Action best{QStringLiteral("bestCooldown"), QObject::tr("Best cooldown"),
                QObject::tr("Set the editor to the warm-up, stable, decay schedule of this length and peak rate whose predicted final loss "
                            "is lowest (cooldown fraction and decay searched; the rate ends at 0)"),
                QString(), QObject::tr("Searching cooldowns…"), QObject::tr("%p%")};
    best.ofTheControls = true;
    return {best};
}

JobOf<ViewFigure::Taking> ScheduleFigure::actionJob(const QString& name) {
    if (name != QLatin1String("bestCooldown") || !answer_.fit || schedule_.steps < 1) return {};
    return [this, fitted = answer_.fit, budget = schedule_](const fit::FitControl&) -> Taking {
        analysis::BestCooldownOptions options;
        options.maxFinalRatio = 0;  // the editor's schedules end at rate 0
        auto best = std::make_shared<analysis::BestCooldownResult>(analysis::bestCooldown(*fitted, budget, options));
        return [this, best] {
            if (!std::isfinite(best->best.final.loss)) return;
            const auto& s = best->best.schedule;
            controls().set(kShape, QStringLiteral("wsd"));
            controls().set(kCooldown, std::clamp(std::round(s.cooldownFraction * 100) / 100, 0.01, 0.99));
            controls().set(kDecay, decayKey(s.decay));
            best_ = std::move(*best);
        };
    };
}

bool ScheduleFigure::chartDragged(QChart* chart, QPointF value) {
    if (chart != chart_ || !answer_.fit || schedule_.steps < 1 || !std::isfinite(value.x())) return false;
    const double fraction = std::clamp(std::round(100 * (1 - value.x() / static_cast<double>(schedule_.steps))) / 100, 0.01, 0.99);
    if (controls().choice(kShape) == QLatin1String("wsd") && std::abs(controls().number(kCooldown) - fraction) < 1e-9) return false;
    controls().set(kShape, QStringLiteral("wsd"));
    controls().set(kCooldown, fraction);
    return true;
}

QJsonObject ScheduleFigure::jobControls() const { return {{kLaw, controls().choice(kLaw)}}; }

JobOf<ScheduleFigure::Answer> ScheduleFigure::job(const FigureInput& in) const {
    analysis::CurveFitOptions options;
    options.law = analysis::curveLawFromName(controls().choice(kLaw).toStdString()).value_or(fit::CurveLaw::MultiPower);
    return [sets = in.study->curveSets(), options](const fit::FitControl& control) {
        Answer answer;
        auto r = analysis::fitStudyCurves(sets, options, control);
        if (r) answer.fit = std::make_shared<const analysis::CurveFitsResult>(std::move(*r));
        else answer.error = r.error().message;
        return answer;
    };
}

QString ScheduleFigure::problem() const {
    if (answer_.fit) return {};
    return answer_.error.empty() ? QObject::tr("no loss curves with a logged learning rate (open a curves file with an lr column or a "
                                               "tracker's JSON export)")
                                 : QString::fromStdString(answer_.error);
}

void ScheduleFigure::draw(const FigureInput& in) {
    refresh(in);  // the runs of the curves, and the field of the run chosen
    chart_->clearSeries();
    chart_->setAxes({QObject::tr("Step"), false, 0, 1}, {QObject::tr("Validation loss"), false, 2, 4});
    summary_.clear();
    if (!answer_.fit) {
        chart_->setTitle(QObject::tr("Schedules"));
        summary_ = problem();
        return;
    }
    const auto& result = *answer_.fit;
    // The schedule the controls describe, on the scale of the fitted curves.
    const QString shape = controls().choice(kShape), decay = controls().choice(kDecay);
    schedule_ = analysis::scheduleForCurves(result,
                                            shape == QLatin1String("cosine")     ? fit::ScheduleShape::Cosine
                                            : shape == QLatin1String("constant") ? fit::ScheduleShape::Constant
                                                                                 : fit::ScheduleShape::Wsd,
                                            controls().number(kCooldown),
                                            decay == QLatin1String("sqrt")  ? fit::DecayShape::Sqrt
                                            : decay == QLatin1String("exp") ? fit::DecayShape::Exponential
                                                                            : fit::DecayShape::Linear,
                                            controls().number(kLength));
    auto bands = analysis::curveBands(result);
    bands.push_back(analysis::scheduleBand(result, schedule_));
    const auto& predicted = bands.back();
    final_ = predicted.steps.empty() ? fit::CurvePrediction{NAN, NAN, NAN}
                                     : fit::CurvePrediction{predicted.loss.back(), predicted.lower.back(), predicted.upper.back()};

    addCurveBands(chart_, bands, true);
    // The cooldown's start, the handle a press or drag on the chart moves.
    if (schedule_.shape == fit::ScheduleShape::Wsd && !predicted.steps.empty()) {
        const double start = static_cast<double>(schedule_.steps) * (1 - schedule_.cooldownFraction);
        // Over the cooldown's losses and a third more above them (not the warm-up's, which would
        // stretch the axis).
        double low = INFINITY, high = -INFINITY;
        for (std::size_t i = 0; i < predicted.steps.size(); ++i)
            if (static_cast<double>(predicted.steps[i]) >= start) low = std::min(low, predicted.lower[i]), high = std::max(high, predicted.upper[i]);
        if (!(high >= low)) low = high = predicted.loss.back();
        high += std::max(0.3 * (high - low), 0.02 * high);
        PlotChart::hideFromLegend(chart_, chart_->addLine(QObject::tr("Cooldown start"), Theme::current().muted, {{start, low}, {start, high}}, 1.5,
                                                          Qt::DashDotLine));
    }
    chart_->fitRangesToData(0.03);
    chart_->setTitle(QObject::tr("%1 fitted to %2 curves").arg(QString::fromStdString(analysis::curveLawLabel(result.fit.law)).toUpper()).arg(result.fit.curves.size()));
    summary_ = QObject::tr("Predicted loss at the end of %1 (step %2): %3 [%4, %5] (%6 % interval). Fitted curves: mean relative error %7 %.")
                   .arg(QString::fromStdString(analysis::scheduleLabel(schedule_)))
                   .arg(schedule_.steps)
                   .arg(final_.loss, 0, 'f', 4)
                   .arg(final_.lower, 0, 'f', 4)
                   .arg(final_.upper, 0, 'f', 4)
                   .arg(result.fit.level * 100, 0, 'g', 3)
                   .arg([&] {
                       double e = 0;
                       for (const auto& c : result.fit.curves) e += c.predE;
                       return 100 * e / std::max<std::size_t>(1, result.fit.curves.size());
                   }(),
                        0, 'f', 2);
    if (best_ && best_->budget.steps == schedule_.steps && best_->budget.peakLr == schedule_.peakLr)
        summary_ += QObject::tr(" Best cooldown for %1 steps: %2 % %3, final loss %4 [%5, %6].")
                        .arg(best_->budget.steps)
                        .arg(best_->best.schedule.cooldownFraction * 100, 0, 'f', 1)
                        .arg(decayKey(best_->best.schedule.decay))
                        .arg(best_->best.final.loss, 0, 'f', 4)
                        .arg(best_->best.final.lower, 0, 'f', 4)
                        .arg(best_->best.final.upper, 0, 'f', 4);
}

QString explainSchedules(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const ScheduleFigure&>(figure);
    const QString now = !f.problem().isEmpty() ? QObject::tr("<p>Now: %1.</p>").arg(f.problem().toHtmlEscaped())
                                               : QObject::tr("<p>Now: %1, predicted final loss %2 [%3, %4].</p>")
                                                     .arg(QString::fromStdString(analysis::scheduleLabel(f.schedule())))
                                                     .arg(f.finalLoss().loss, 0, 'f', 4)
                                                     .arg(f.finalLoss().lower, 0, 'f', 4)
                                                     .arg(f.finalLoss().upper, 0, 'f', 4);
    return QObject::tr(
               "<h3>Schedules</h3>"
               "<p>A law of a run's loss curve under its learning-rate schedule η<sub>t</sub>, fitted to every loss curve of the "
               "study that logs its rate (Σ Huber<sub>δ=1e-3</sub> of ln L − ln L̂, several starts, bounded L-BFGS):</p>"
               "<ul><li>Multi-Power Law (Luo et al. 2025, arXiv:2503.12811): L(t) = L<sub>0</sub> + A·(S<sub>1</sub>(t)+S<sub>W</sub>)<sup>−α</sup> "
               "− B·Σ<sub>k</sub> (η<sub>k−1</sub>−η<sub>k</sub>)·(1 − (C·η<sub>k</sub><sup>−γ</sup>·S<sub>k</sub>(t)+1)<sup>−β</sup>), "
               "S<sub>k</sub>(t) = Σ<sub>τ=k..t</sub> η<sub>τ</sub>;</li>"
               "<li>LR-annealing law (Tissue et al. 2024, arXiv:2408.11029): L = L<sub>0</sub> + A·S<sub>1</sub><sup>−α</sup> − C·S<sub>2</sub>, "
               "S<sub>2</sub> the area of the annealing momentum;</li>"
               "<li>a power law in tokens, L<sub>0</sub> + A·D<sup>−α</sup>, which ignores the schedule.</li></ul>"
               "<p>Dashed: the loss the law predicts under the schedule the controls describe (shape, cooldown fraction and decay, "
               "length), with its interval as a band. The interval comes from the fit's curvature, widened for the correlation of the "
               "residuals along a curve; with three or more curves it adds the law's own misfit, measured by predicting each curve from "
               "a fit to the others (at Student's t quantile).</p>"
               "<p>Press or drag on the chart to move the cooldown's start (the dash-dotted line) to the step under the mouse.</p>"
               "<p><b>Schedule of run</b>: the schedule of the run chosen, as <tt>--schedule</tt> takes it (e.g. "
               "<tt>wsd:peak=1e-3,steps=50000,warmup=300,cooldown=0.2,decay=linear</tt>), checked as it is typed; Enter keeps it "
               "with the run in the project, and the fit uses it where the run's curve logs no rate or logs from after the "
               "warm-up.</p>"
               "<p><b>Best cooldown</b> sets the editor to the warm-up, stable, decay schedule of its length and peak rate whose "
               "predicted final loss is lowest, searched over the cooldown fraction and the decay shape (a grid, then a compass "
               "search), as MPL's authors choose a schedule by minimising the law's final loss.</p>") +
           now;
}

}  // namespace scalex::figures
