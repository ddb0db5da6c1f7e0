#pragma once
// The compute-optimal calculator: a budget H, a model size N or a target loss, and a context
// length give N*, D*, tokens per parameter and the predicted loss of both families by the chosen
// method, the other method beside it, the over-trained model of a smaller N and the lifetime
// optimum once inference tokens are counted (analysis::answerOptimalQuery). Three charts, one
// shown at a time: N*, D* over H; the optimal path in the N-D plane with tokens-per-parameter
// guides; the exact C against 6ND. Export tables: the appendix-style sizes, the query's optima and
// both methods side by side.
#include <QColor>
#include <QString>

#include "app/figures/ViewFigure.h"
#include "core/analysis/ComputeOptimal.h"

namespace scalex::figures {

class OptimalFigure : public ViewFigure {
public:
    OptimalFigure();
    QString viewId() const override { return QStringLiteral("optimal"); }
    // A new mode ("Given") resets the value to that mode's default (1e22, 7e9, 2.3).
    void refresh(const FigureInput& in) override;
    // The query of the controls answered; a query the controls do not make (an unreadable value,
    // context or inference tokens) answers at once with its problem (quickJob()).
    Job job(const FigureInput& in) const override;
    void take(std::any answer) override;
    void draw(const FigureInput& in) override;
    // The chart chosen under "Chart".
    std::vector<QChart*> charts() const override;
    QString problem() const override { return QString::fromStdString(answer_.problem); }
    // sizes, query, methods (analysis::optimalSizesTable and the others).
    TablesJob tablesJob(const FigureInput& in) const override;

    // True when the controls make no query: job() only names the problem (no work to wait for).
    bool quickJob() const;
    // The three charts (N*, D* over H; the N-D path; C against 6ND), shown or not.
    PlotChart* budgetChart() const { return budgetChart_; }
    PlotChart* pathChart() const { return pathChart_; }
    PlotChart* computeChart() const { return computeChart_; }
    // The index of the chart shown (0 budget, 1 path, 2 compute).
    int shownChart() const;

    // The answer taken last (no series on a problem), and what it says in words: the over-trained
    // models, why the two methods differ, the lifetime optima (empty on a problem).
    const analysis::OptimalAnswer& answer() const { return answer_; }
    const QString& overtrainNote() const { return overtrainNote_; }
    const QString& methodsNote() const { return methodsNote_; }
    const QString& lifetimeNote() const { return lifetimeNote_; }
    // The over-training percentage of the answered query (the slider's value when it was asked).
    int overtrainPercent() const { return overtrainPercent_; }
    // The colour of a series of the answer.
    QColor colorOf(const analysis::OptimalSeriesAnswer& a) const;

private:
    // What a job answers: the answer, the context the charts name (the last readable one, also on
    // a problem) and the over-training percentage asked.
    struct Answer {
        analysis::OptimalAnswer answer;
        double shownContext = 8192;
        int overtrainPercent = 100;
    };
    // Why the controls make no query; empty when they make one (its context in `context`).
    QString inputProblem(double* context = nullptr) const;
    void writeNotes();
    void drawBudgetChart();
    void drawPathChart();
    void drawComputeChart();

    PlotChart* budgetChart_;
    PlotChart* pathChart_;
    PlotChart* computeChart_;
    analysis::OptimalAnswer answer_;
    double shownContext_ = 8192;
    int overtrainPercent_ = 100;
    QString modeOfValue_;  // the mode the value was typed for
    QString overtrainNote_, methodsNote_, lifetimeNote_;
};

}  // namespace scalex::figures
