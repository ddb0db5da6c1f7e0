#pragma once
// The loss surface view: the figure of app/figures/views/LossSurfaceFigure, its controls with a Fit
// button, progress and cancel. The fit (the figure's job) runs off the UI thread; a finished fit
// of a family the accounting knows becomes the session's fitted surface, which the optimum views use.
#include <QFutureWatcher>
#include <any>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/LossSurfaceFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/FitTypes.h"
#include "core/analysis/SeriesAnalyses.h"

class QPushButton;
class QProgressBar;
class QLabel;

namespace scalex::gui {

class Session;
class PlotView;

class LossSurfaceView : public ViewPanel {
    Q_OBJECT
public:
    explicit LossSurfaceView(Session* session, QWidget* parent = nullptr);
    ~LossSurfaceView() override;

    QString viewId() const override { return QStringLiteral("surface"); }
    QString explainHtml() const override;
    QString problem() const override { return figure_->problem(); }
    QChart* primaryChart() const override;
    void computeNow() override;
    // The fitted parameters of every series in scope with 95 % bootstrap intervals (the figure's
    // tables): the series on screen is the view's fit, the others are fitted with the same
    // settings on their own runs, each at the context this view would choose for it.
    std::vector<ViewTable> tables() override;
    // The same off the UI thread: waits for the view's fit (starting it when there is none), then
    // bootstraps it and fits the other series; kept for the fit, so a second export reuses it.
    TablesJob tablesJob() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

    // Starts a fit of the current series with the current settings (no-op while one runs).
    void startFit();
    void cancelFit();
    bool fitting() const;
    const std::optional<fit::LossSurfaceFit>& result() const { return figure_->result(); }
    // The analysis behind result(): its group, the runs fitted and those left out as outliers.
    const std::optional<analysis::LossSurfaceAnalysis>& analysis() const { return figure_->analysis(); }
    // The series and context shown ("Transformer, T = 8192").
    std::optional<analysis::SeriesGroup> group() const;
    // Waits for a running fit to finish (tests and headless rendering).
    void waitForFit();
    // 0: the paper's 8000 starts; 1: the quick grid (every other value of each axis, 216 starts).
    void setGrid(int index);

signals:
    void fitFinished();

private:
    void redraw();
    void onFitDone(figures::LossSurfaceFigure::Answer answer);
    // The buttons and the bar when a fit ends, is cancelled or dropped.
    void fitDone();
    void forgetFit();
    void controlsChanged();
    // The choice of runs fitted (run set, series, context): another one drops the fit.
    QJsonObject fittedChoice() const;

    Session* session_;
    std::unique_ptr<figures::LossSurfaceFigure> figure_;
    ControlBinding* controls_;
    PlotView* view_;
    QPushButton* fitButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* summary_;
    QJsonObject choiceShown_;  // fittedChoice() when last drawn
    QJsonObject fitControls_;  // the controls of the fit shown or under way
    JobRunner<figures::LossSurfaceFigure::Answer>* fit_;  // the fit; another choice of runs drops the one under way
    QString source_;  // the study the run-set choice was made for
};

}  // namespace scalex::gui
