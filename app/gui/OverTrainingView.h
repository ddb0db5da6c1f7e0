#pragma once
// The over-training view (Fig. 3): power laws of loss over compute per tokens/param and series.
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

}  // namespace scalex::gui
