#pragma once
// The Pareto front view (Fig. 1): the figure of app/figures/views/ParetoFigure, its controls, and
// the bootstrap interval of the compute ratio computed in the background for its summary.
#include <QFutureWatcher>
#include <any>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/ParetoFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/FitTypes.h"

class QLabel;

namespace scalex::gui {

class Session;
class PlotView;

class ParetoView : public ViewPanel {
    Q_OBJECT
public:
    explicit ParetoView(Session* session, QWidget* parent = nullptr);
    ~ParetoView() override;
    QString viewId() const override { return QStringLiteral("pareto"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    // One chart, or (the paper's Fig. 1) the frontiers beside the fitted loss surface.
    std::vector<QChart*> charts() const override;
    const fit::FrontierComparison& comparison() const { return figure_->comparison(); }
    // The 95 % bootstrap interval of the geometric-mean compute ratio shown with it (1000 resamples),
    // computed off the UI thread after the comparison is drawn (none while it is computed).
    const std::optional<fit::BootstrapInterval>& computeRatioInterval() const { return intervalShown_; }
    // Waits for the analyses and the interval (headless renders and tests).
    void computeNow() override;
    // The runs on each family's frontier.
    std::vector<ViewTable> tables() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

private:
    // The analyses, in a job on the views' pool (frontiers of 20,000 runs); drawn when done.
    void recompute();
    void redraw();
    // A control changed: a redraw, or a job where the surfaces drawn are still to be fitted.
    void controlsChanged();
    // The comparison's interval, off the UI thread: the compared pair's points are copied, an older
    // request is superseded, and the same points reuse the interval already computed.
    void startInterval();
    void intervalDone();
    void showSummary();
    // The explanation's "Now:" line.
    QString nowText() const;
    Session* session_;
    std::unique_ptr<figures::ParetoFigure> figure_;
    ControlBinding* controls_;
    PlotView* view_;
    PlotView* fitView_;
    std::optional<fit::BootstrapInterval> intervalShown_;
    QLabel* summary_;
    JobRunner<figures::ParetoFigure::Answer>* jobs_;
    JobRunner<figures::ParetoFigure::Surfaces>* fits_;  // the L(N,D) fits of the answer taken last
    // The points the interval is (being) computed for, A then B; the interval once known.
    std::vector<fit::ComputeLossPoint> intervalKey_[2];
    std::optional<fit::BootstrapInterval> intervalOfKey_;
    bool intervalPending_ = false;
    std::shared_ptr<std::atomic<bool>> intervalCancel_;  // stops a superseded request's resampling
    QFutureWatcher<std::optional<fit::BootstrapInterval>>* intervalWatcher_;
    int intervalGeneration_ = 0;
};

}  // namespace scalex::gui
