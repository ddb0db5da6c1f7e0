#pragma once
// The compute-optimal calculator: pick a budget H, a model size N or a target loss; see N*, D*,
// tokens per parameter and the predicted loss of each series of the study (and of the paper's
// models at a chosen context length, on the paper's study or when asked for), both methods
// side by side with why they differ, the appendix-style table for a list of model sizes, the
// over-training question (a smaller N than N*: how much more data and compute for the same loss)
// and the lifetime optimum once inference tokens are counted. Three charts: N*, D* over H; the
// optimal path in the N-D plane with tokens-per-parameter guides; the exact C against 6ND.
// The figure (app/figures/views/OptimalFigure) answers the query and draws the charts; the view
// shows its answer in tables and notes.
#include <QFutureWatcher>
#include <any>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/OptimalFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/ComputeOptimal.h"

class QLabel;
class QTableWidget;

namespace scalex::gui {

class Session;
class PlotView;

class OptimalView : public ViewPanel {
    Q_OBJECT
public:
    enum class Mode { Budget, ModelSize, TargetLoss };
    explicit OptimalView(Session* session, QWidget* parent = nullptr);
    ~OptimalView() override;

    QString viewId() const override { return QStringLiteral("optimal"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    // The chart chosen under "Chart" (N*, D* over H; the N-D path; C against 6ND).
    std::vector<QChart*> charts() const override;

    // Programmatic input (tests, recipes): mode, its value, the context length; waits for the answer.
    void setQuery(Mode mode, double value, double context);
    // 0: the loss surface; 1: the IsoFLOP power laws.
    void setMethod(int method);
    // The optimum of the paper's model of a family for the current query (once its job has run;
    // computeNow waits for it); the study's own series are in answer().
    const fit::OptimalPoint& optimum(bool xlstm) const;
    QTableWidget* sizeTable() const { return sizes_; }
    QTableWidget* resultTable() const { return result_; }
    QTableWidget* methodsTable() const { return methods_; }
    // Both methods at the budget of the query's optimum; empty where the paper has no IsoFLOP laws at T.
    const std::optional<analysis::MethodComparison>& comparison(bool xlstm) const;
    // The lifetime optimum for the inference tokens asked (empty when none are asked).
    const std::optional<analysis::LifetimeOptimum>& lifetime(bool xlstm) const;
    // Why the view shows no numbers (no law at this context, an unreadable value); empty when it
    // shows them (and while a query's job runs).
    QString problem() const override;
    // The over-trained model of the slider (below 100 % of N*), where the surface can reach the loss.
    const std::optional<fit::OverTraining>& overtrained(bool xlstm) const;
    // The whole answer of the last query (analysis::answerOptimalQuery).
    const analysis::OptimalAnswer& answer() const { return figure_->answer(); }
    // Waits for the query's job and shows its answer.
    void computeNow() override;
    // The appendix-style table (budget, tokens and tokens/param per model size) and the query's optima.
    std::vector<ViewTable> tables() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

private:
    // Starts the job of the controls' query (the figure's, on the job pool); a query the controls
    // do not make is shown at once, without a job.
    void recompute();
    // Shows the answer of the job that just ended, unless a later query replaced it.
    // Fills the tables and notes from the figure's answer and draws its charts.
    void show();
    void redrawChart();
    void fillResults();
    void fillMethods();
    void fillLifetime();
    void fillSizes();
    const analysis::OptimalSeriesAnswer* of(bool xlstm) const;

    Session* session_;
    std::unique_ptr<figures::OptimalFigure> figure_;
    ControlBinding* controls_;  // the query's controls: a new job
    ControlBinding* chartControl_;  // the chart shown: the same answer drawn
    QTableWidget* methods_;
    QLabel* methodsNote_;
    QLabel* lifetimeNote_;
    QLabel* overtrainLabel_;
    QLabel* overtrainValue_;
    QLabel* error_;
    QTableWidget* result_;
    QTableWidget* sizes_;
    PlotView* chartView_;
    PlotView* pathView_;
    PlotView* computeView_;
    QLabel* seriesNote_;  // the series without an optimum, and why
    JobRunner<figures::OptimalFigure::Answer>* jobs_;  // the query's answer; a newer query replaces the one under way
    JobRunner<figures::OptimalFigure::Answer>* fits_;  // the L(N,D) fits of the study's series that answer waits for, and the answer with them
};

}  // namespace scalex::gui
