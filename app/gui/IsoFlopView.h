#pragma once
// The IsoFLOP view (Figs. 4 and 5): parabolas per budget, N*(H) and D*(H) power laws with
// bootstrap bands, per series and context length.
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
