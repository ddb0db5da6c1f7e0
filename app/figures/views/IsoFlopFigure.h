#pragma once
// IsoFLOP (the paper's Figs. 4 and 5): the loss of each budget's runs over N or D with the
// parabola through them and its minimum, and the compute-optimal power laws N*(H), D*(H) with
// bootstrap bands; of one series and the other of its pair, of the pair in one chart, or (Fig. 5)
// of the pair at every context length of the runs, a chart each, beside the laws of every context.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "app/figures/CheckpointMarks.h"
#include "app/figures/RunMarks.h"
#include "app/figures/ViewFigure.h"
#include "core/analysis/IsoFlopQuery.h"

namespace scalex::figures {

class IsoFlopFigure : public FigureWithAnswer<IsoFlopFigure> {
public:
    // The answer of the fits' job: the fits, and the copy of the runs they point into.
    struct Fits {
        std::shared_ptr<const data::RunTable> table;
        analysis::IsoFlopAnswer answer;
        // Predicted from the study's loss curves (CheckpointMarks.h) at the budgets of the fits'
        // profiles, or where the study has none at budgets placed from the curves.
        StudyCheckpoints checkpoints;
        // With the Checkpoints control at "predicted, and fitted": the first fit made on its runs
        // without a loss curve and the checkpoints, as `fit isoflop --from-curves` makes it.
        std::shared_ptr<const analysis::CheckpointIsoFlopResult> withCheckpoints;
    };
    using Answer = Fits;
    using Bands = std::vector<fit::BootstrapResult>;

    IsoFlopFigure();
    QString viewId() const override { return QStringLiteral("isoflop"); }
    // The series with IsoFLOP runs into the "family" choice (each series, and the pair).
    void refresh(const FigureInput& in) override;
    // The fits (analysis::answerIsoFlopQuery) of the series and budgets the controls name.
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    // The fits, then their bootstrap bands.
    void compute(const FigureInput& in, const fit::FitControl& control = {}) override;
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    // The power laws with their intervals, the optimum of every profile, the laws at every context.
    // Intervals not yet known are bootstrapped by the job.
    TablesJob tablesJob(const FigureInput& in) const override;

    // The 95 % bootstrap bands of the laws of the fits taken last, as a second job (empty when
    // there are none to fit); takeBands() hands its answer to the figure.
    JobOf<Bands> bandsJob() const;
    void takeBands(Bands bands);
    bool bandsKnown() const { return bandsKnown_; }
    // The values of the controls the fits depend on (a change of another control only redraws).
    QJsonObject fitControls() const;
    // Enables the controls that apply to the others' values: the budget while one is picked, the
    // series outside Fig. 5 (which shows the pair).
    void enableControls() override;
    // For the window's view: the fits rerun when these change, the bands follow the fits, the
    // picked budget reads beside its slider.
    QJsonObject jobControls() const override { return fitControls(); }
    JobOf<Taking> followUpJob() override {
        return takingJobOf<Bands>(bandsJob(), [this](Bands bands) { takeBands(std::move(bands)); });
    }
    QString readout(const QString& name) const override;

    // The paper's Fig. 5 layout: a chart per context length of the runs, then the laws.
    bool contextsLayout() const;
    // Every chart made for the Fig. 5 layout (charts() has those shown); made when fits are taken.
    const std::vector<PlotChart*>& contextCharts() const { return contextCharts_; }
    PlotChart* profileChart() const { return profileChart_; }
    PlotChart* lawChart() const { return lawChart_; }

    // What the fits give: the fit of the first (false) or second (true) series shown, its name
    // and label, and its profile at the picked budget (none unless a budget is picked).
    const fit::IsoFlopResult& result(bool second) const;
    const std::string& seriesShown(bool second) const;
    QString seriesLabel(std::size_t k) const;
    const std::optional<analysis::BudgetProfile>& picked(bool second) const;
    // The words under the charts after the last draw.
    QString summary() const override { return summary_; }
    QString problem() const override;
    bool analysesReadCurves() const override { return true; }
    // The checkpoints predicted with the fits taken last, drawn hollow on the profiles with their intervals.
    const StudyCheckpoints& checkpoints() const { return checkpoints_; }
    // The first fit's fit on its runs and the checkpoints, when the control asks for it (else none).
    const std::shared_ptr<const analysis::CheckpointIsoFlopResult>& fitWithCheckpoints() const { return withCheckpoints_; }

private:
    void makeContextCharts();
    QColor seriesColour(const FigureInput& in, std::size_t k) const;
    int runIndex(const data::Run* run) const;
    void drawContexts(const FigureInput& in);
    // The profiles of `fits` (two: discs and squares) over N or D, points coloured by budget among
    // `budgets`, with their parabolas; the minima and the key to the series' marks when asked. A
    // budget whose label is in `listed` stays out of the legend. `planned`: planned runs drawn on
    // their budget's profile (their points count in the axes' ranges).
    void drawProfiles(PlotChart* chart, const FigureInput& in, const std::vector<const analysis::IsoFlopSeriesFit*>& fits,
                      std::vector<double> budgets, bool minima, bool key, std::set<QString>* listed,
                      const std::vector<RunPoint>& planned = {});

    PlotChart* profileChart_;
    PlotChart* lawChart_;
    std::vector<PlotChart*> contextCharts_;  // one per context length, then the laws
    // The "family" choice: the series each key names, and the key of the pair.
    std::map<QString, std::string> seriesOfKey_;
    QString bothKey_;
    // The fits drawn, and the copy of the runs they point into (its indices are the study's).
    std::shared_ptr<const data::RunTable> runs_;
    analysis::IsoFlopAnswer answer_;
    std::vector<std::optional<fit::BootstrapResult>> bands_;  // per fit, once bootstrapped
    bool bandsKnown_ = false;
    std::vector<double> bandBudgets_;
    std::vector<std::optional<analysis::BudgetProfile>> picked_;  // per fit
    StudyCheckpoints checkpoints_;
    std::shared_ptr<const analysis::CheckpointIsoFlopResult> withCheckpoints_;
    QString summary_;
};

}  // namespace scalex::figures
