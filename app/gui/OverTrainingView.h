#pragma once
// The over-training view (Fig. 3): the figure of app/figures/views/OverTrainingFigure (power laws
// of loss over compute per tokens/param and series), its controls, its table of exponents, and
// the slope analyses run off the UI thread.
#include <QFutureWatcher>
#include <any>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/OverTrainingFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/SeriesAnalyses.h"

class QLabel;
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
    const std::optional<analysis::SlopeAnalysis>& shown(int k) const { return figure_->shown(k); }
    // Waits for the analyses under way (headless renders and tests).
    void computeNow() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

private:
    // The figure's analyses (their outlier checks take seconds on 20,000 runs) off the UI thread,
    // on a copy of the runs; the view keeps what it drew until they are done.
    void recompute();
    void redraw();
    JobRunner<figures::OverTrainingFigure::Answer>* jobs_;
    Session* session_;
    std::unique_ptr<figures::OverTrainingFigure> figure_;
    ControlBinding* controls_;
    PlotView* views_[2];
    QTableWidget* table_;
    QLabel* note_;
};

}  // namespace scalex::gui
