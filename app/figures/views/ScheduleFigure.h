#pragma once
// Schedules: a schedule-aware law (the Multi-Power Law, the LR-annealing law, a power law in
// tokens; core/analysis/CurveFits.h) fitted to the study's loss curves that log their learning
// rate, drawn over them with its interval as a band, and the loss it predicts under the schedule
// the controls describe (shape, cooldown fraction and decay, length): the schedule editor, whose
// cooldown start also follows a press or drag on the chart. The fit runs once per law; moving a
// schedule control only evaluates the law again.
#include <memory>
#include <optional>
#include <string>

#include "app/figures/ViewFigure.h"
#include "core/analysis/BestCooldown.h"
#include "core/analysis/CurveFits.h"

namespace scalex::figures {

class ScheduleFigure : public FigureWithAnswer<ScheduleFigure> {
public:
    struct Answer {
        std::shared_ptr<const analysis::CurveFitsResult> fit;  // null when nothing could be fitted
        std::string error;
    };

    ScheduleFigure();
    QString viewId() const override { return QStringLiteral("schedules"); }
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer) { answer_ = std::move(answer); }
    QJsonObject jobControls() const override;
    bool analysesReadCurves() const override { return true; }
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    QString problem() const override;
    QString summary() const override { return summary_; }
    // "Best cooldown": the WSD schedule of the editor's length, warm-up and peak (ending at rate 0,
    // as the editor's do) whose predicted final loss is lowest over the cooldown fraction and decay
    // shape (core/analysis/BestCooldown.h); taken, it sets the editor to it.
    std::vector<Action> actions() const override;
    JobOf<Taking> actionJob(const QString& name) override;
    // A press or drag on the chart moves the cooldown's start to the step under the mouse (the
    // schedule becomes WSD; the fraction to the slider's 0.01).
    bool chartDragged(QChart* chart, QPointF value) override;
    // The schedule described for a run (the same grammar as `--schedule`), typed in the field beside
    // the run's choice: checked as typed (controlProblem, the parser's message naming the key) and,
    // once it reads, kept in the project with the run (describedSchedule; the window stores it in the
    // set's schedules, which the fit uses where the curve logs no rate or logs from after the warm-up).
    void refresh(const FigureInput& in) override;
    QString controlProblem(const QString& name) const override;
    std::optional<DescribedSchedule> describedSchedule() const override;

    // The last best schedule found for the editor's length (empty before the button is pressed).
    const std::optional<analysis::BestCooldownResult>& bestCooldown() const { return best_; }

    // The schedule the controls describe for the fitted curves (their peak rate, warm-up and
    // longest length times the length control), and the loss predicted at its end.
    const fit::ScheduleSpec& schedule() const { return schedule_; }
    const fit::CurvePrediction& finalLoss() const { return final_; }

private:
    PlotChart* chart_;
    Answer answer_;
    fit::ScheduleSpec schedule_;
    fit::CurvePrediction final_;
    std::optional<analysis::BestCooldownResult> best_;
    QString summary_;
    // The run whose kept description the field was last filled with, and that description.
    QString describedFor_, describedKept_;
};

// The Explain pane: the laws' formulas and sources, the fit, the schedule and its predicted loss.
QString explainSchedules(const ViewFigure& figure, const FigureInput& in);

}  // namespace scalex::figures
