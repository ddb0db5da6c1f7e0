#pragma once
// The chart views over the run table: Pareto front (Fig. 1), over-training slopes (Fig. 3) and
// IsoFLOP profiles with the N*(H), D*(H) power laws (Fig. 4). Their analyses take milliseconds and
// are recomputed whenever the runs, the settings or the selection change.
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>
#include <set>

#include "app/figures/views/ParetoFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/IsoFlopQuery.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/OvertrainingSlopes.h"
#include "core/fit/Pareto.h"

class QComboBox;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QSlider;
class QTableWidget;

namespace scalex::gui {

class Session;
class PlotView;

class ParetoView : public ViewPanel {
    Q_OBJECT
public:
    explicit ParetoView(Session* session, QWidget* parent = nullptr);
    ~ParetoView() override;
    QString viewId() const override { return QStringLiteral("pareto"); }
    QString title() const override { return tr("Pareto front"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    // One chart, or (the paper's Fig. 1) the frontiers beside the fitted loss surface.
    std::vector<QChart*> charts() const override;
    const fit::FrontierComparison& comparison() const { return figure_->comparison(); }
    // The 95 % bootstrap interval of the geometric-mean compute ratio shown with it (1000 resamples),
    // computed off the UI thread after the comparison is drawn (none while it is computed).
    const std::optional<fit::BootstrapInterval>& computeRatioInterval() const { return intervalShown_; }
    // Waits for the interval (headless renders and tests).
    void computeNow() override;
    // The runs on each family's frontier.
    std::vector<ViewTable> tables() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

private:
    void redraw();
    // The comparison's interval, off the UI thread: the compared pair's points are copied, an older
    // request is superseded, and the same points reuse the interval already computed.
    void startInterval(const std::vector<analysis::ParetoAnalysis>& shown);
    void intervalDone();
    void showSummary();
    Session* session_;
    std::unique_ptr<figures::ParetoFigure> figure_;
    ControlBinding* controls_;
    PlotView* view_;
    PlotView* fitView_;
    std::optional<fit::BootstrapInterval> intervalShown_;
    QLabel* summary_;
    // The points the interval is (being) computed for, A then B; the interval once known.
    std::vector<fit::ComputeLossPoint> intervalKey_[2];
    std::optional<fit::BootstrapInterval> intervalOfKey_;
    bool intervalPending_ = false;
    std::shared_ptr<std::atomic<bool>> intervalCancel_;  // stops a superseded request's resampling
    QFutureWatcher<std::optional<fit::BootstrapInterval>>* intervalWatcher_;
    int intervalGeneration_ = 0;
};

class OverTrainingView : public ViewPanel {
    Q_OBJECT
public:
    explicit OverTrainingView(Session* session, QWidget* parent = nullptr);
    ~OverTrainingView() override;
    QString viewId() const override { return QStringLiteral("overtraining"); }
    QString title() const override { return tr("Over-training"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    // η and λ per tokens/param M and series, with 95 % bootstrap intervals of η.
    std::vector<ViewTable> tables() override;
    TablesJob tablesJob() override;
    // The analysis drawn in panel k (0 or 1; none when the panel has no series).
    const std::optional<analysis::SlopeAnalysis>& shown(int k) const { return shown_[k]; }
    // Waits for the analyses under way (headless renders and tests).
    void computeNow() override;

private:
    // The slope analyses (their outlier checks take seconds on 20,000 runs) off the UI thread, on
    // a copy of the runs; the view keeps what it drew until they are done.
    struct Outcome {
        std::shared_ptr<const data::RunTable> table;
        std::vector<analysis::SlopeAnalysis> analyses;  // pointing into `table`
        int generation = 0;
    };
    void recompute();
    void takeOutcome();
    void redraw();
    void refillSeries();
    QFutureWatcher<Outcome>* watcher_;
    std::shared_ptr<std::atomic<int>> latest_ = std::make_shared<std::atomic<int>>(0);  // skips superseded jobs
    int generation_ = 0;
    bool computing_ = false;
    std::shared_ptr<const data::RunTable> runs_;
    std::vector<analysis::SlopeAnalysis> analyses_;
    Session* session_;
    QComboBox* series_[2];
    PlotChart* charts_[2];
    PlotView* views_[2];
    QTableWidget* table_;
    QLabel* note_;
    std::optional<analysis::SlopeAnalysis> shown_[2];
};

class IsoFlopView : public ViewPanel {
    Q_OBJECT
public:
    explicit IsoFlopView(Session* session, QWidget* parent = nullptr);
    ~IsoFlopView() override;
    QString viewId() const override { return QStringLiteral("isoflop"); }
    QString title() const override { return tr("IsoFLOP"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    void computeNow() override;
    // The power laws N*(H), D*(H) with 95 % bootstrap intervals, the optimum of every profile, and
    // the laws fitted at every context length of the runs.
    std::vector<ViewTable> tables() override;
    // The same off the UI thread, waiting for the bootstrap under way.
    TablesJob tablesJob() override;
    // The fit of the first (false) or second (true) series shown: by default the study's
    // Transformer and xLSTM where present, else the first two series with IsoFLOP runs.
    const fit::IsoFlopResult& result(bool second) const;
    const std::string& seriesShown(bool second) const;
    // The profile at the picked budget of the first or second series shown (none when no budget is picked).
    const std::optional<analysis::BudgetProfile>& picked(bool second) const;

private:
    // Starts the fits in a job (the answer is drawn when it comes).
    void recompute();
    void takeAnswer();
    // Waits for the fits under way, if any, and takes their answer (not the bootstrap's bands).
    void waitForFits();
    // The series with IsoFLOP runs into the "family" choice (each series, and the pair).
    void refillSeries();
    QString seriesLabel(std::size_t k) const;
    QColor seriesColour(std::size_t k) const;
    int runIndex(const data::Run* run) const { return static_cast<int>(run - runs_->runs.data()); }
    void redraw();
    void startBootstrap();
    // The paper's Fig. 5: the profiles of both families at every context length of the runs, and
    // the power law of each family and context.
    bool contextsLayout() const;
    void drawContexts();
    // The profiles of `fits` (two: discs and squares) over N or D, points coloured by budget among
    // `budgets`, with their parabolas; the minima and the key to the series' marks when asked. A
    // budget whose label is in `listed` stays out of the legend.
    void drawProfiles(PlotChart* chart, const std::vector<const analysis::IsoFlopSeriesFit*>& fits, std::vector<double> budgets,
                      bool minima, bool key, std::set<QString>* listed);
    Session* session_;
    PlotChart* profileChart_;
    PlotChart* lawChart_;
    PlotView* profileView_;
    PlotView* lawView_;
    QHBoxLayout* chartRow_;
    std::vector<PlotChart*> contextCharts_;  // one per context length, then the laws
    std::vector<PlotView*> contextViews_;
    QComboBox* panels_;
    QComboBox* family_;
    QCheckBox* pick_;       // pick a budget H on the parabolas
    QSlider* budget_;       // 10·log10 H
    QLabel* budgetValue_;
    QComboBox* axis_;
    QComboBox* law_;
    QComboBox* range_;
    QLabel* summary_;
    // The fits drawn, and the copy of the runs they point into (its indices are the session's).
    struct Outcome {
        std::shared_ptr<const data::RunTable> table;
        analysis::IsoFlopAnswer answer;
        int generation = 0;
    };
    std::shared_ptr<const data::RunTable> runs_;
    analysis::IsoFlopAnswer answer_;
    QFutureWatcher<Outcome>* watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;  // set when a newer query supersedes the job
    bool computing_ = false;
    std::vector<std::optional<analysis::BudgetProfile>> picked_;  // per fit
    std::vector<std::optional<fit::BootstrapResult>> bands_;      // per fit, once the bootstrap is done
    std::vector<double> bandBudgets_;
    QFutureWatcher<std::vector<fit::BootstrapResult>>* bandsWatcher_;
    std::shared_ptr<std::atomic<bool>> bandsCancel_;  // a superseded bootstrap skips what it has not begun
    int generation_ = 0;
};

}  // namespace scalex::gui
