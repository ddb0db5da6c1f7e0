#pragma once
// The compute-optimal calculator: a budget H, a model size N or a target loss give N*, D*, tokens
// per parameter and the predicted loss of each series of the study by the chosen method (its own
// IsoFLOP laws with their bootstrap intervals, or its own L(N,D) fit), the other method beside it,
// the over-trained model of a smaller N and the lifetime optimum once inference tokens are
// counted; the paper's Transformer and xLSTM at a chosen context length answer too on the paper's
// study, or beside another study's series when the "paper's models" switch is on
// (analysis::optimalInputs, analysis::answerOptimalQuery). A series that cannot answer says why.
// Three charts, one shown at a time: N*, D* over H; the optimal path in the N-D plane with
// tokens-per-parameter guides; C against 6ND. Export tables: the appendix-style sizes, the query's
// optima and both methods side by side.
#include <QColor>
#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/figures/ViewFigure.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/ComputeOptimal.h"

namespace scalex::figures {

class OptimalFigure : public FigureWithAnswer<OptimalFigure> {
public:
    // What a job answers: the answer, the context the charts name (the last readable one, also on
    // a problem) and the over-training percentage asked; and what the L(N,D) fits the answer
    // waits for read (the runs, the settings, the series and the query).
    struct Answer {
        analysis::OptimalAnswer answer;
        double shownContext = 8192;
        int overtrainPercent = 100;
        std::shared_ptr<const data::RunTable> table;
        analysis::AnalysisSettings settings;
        std::vector<analysis::OptimalSeriesInput> inputs;
        // Where no series has a loss surface that answers and IsoFLOP laws do, the laws answer
        // (the surfaces' reasons kept here, for the notes).
        std::string surfacesFailed;
    };

    OptimalFigure();
    QString viewId() const override { return QStringLiteral("optimal"); }
    // A new mode ("Given") resets the value to that mode's default (1e22, 7e9, 2.3); a new study
    // sets the paper's models on for the paper's study (analysis::Study::isPaperStudy), off for
    // any other; the context length applies to the paper's models only.
    void refresh(const FigureInput& in) override;
    // The query of the controls answered with the IsoFLOP laws of the study's series and the
    // paper's models; the L(N,D) fits of the study's series are the second job (surfaceJob()),
    // unless they were made before for the same runs and settings (by this view or another:
    // analysis::groupSurface keeps them). A query the
    // controls do not make (an unreadable value, context or inference tokens) answers at once with
    // its problem (quickJob()).
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    // The answer, then the L(N,D) fits it waits for.
    void compute(const FigureInput& in, const fit::FitControl& control = {}) override;
    // The L(N,D) fits of the study's series that the answer taken last waits for, and the answer
    // with them, as a second job (take() takes its answer); empty when it waits for none.
    JobOf<Answer> surfaceJob() const;
    void draw(const FigureInput& in) override;
    // The chart chosen under "Chart".
    std::vector<QChart*> charts() const override;
    QString problem() const override { return QString::fromStdString(answer_.problem); }
    // sizes, query, methods (analysis::optimalSizesTable and the others).
    TablesJob tablesJob(const FigureInput& in) const override;

    // The L(N,D) fits of surfaceJob() as the window's second job.
    JobOf<Taking> followUpJob() override;
    // Every control but the chart shown asks a new query.
    QJsonObject jobControls() const override;
    // A query the controls do not make is answered at once (its problem).
    bool answersAtOnce(const FigureInput& in) const override;
    // The over-training percentage beside its slider ("50 %").
    QString readout(const QString& name) const override;
    // Why there are no numbers (in the highlight colour), else the notes on the series without an
    // optimum, the over-trained models and the lifetime optima (rich text).
    QString summary() const override;
    // The query's optima (then the over-trained and lifetime rows), both methods at its budget with
    // why they differ, and the appendix-style table of model sizes (under the charts); no rows on a problem.
    std::vector<ShownTable> shownTables() const override;

    // True when the controls make no query: job() only names the problem (no work to wait for).
    bool quickJob() const;
    // The three charts (N*, D* over H; the N-D path; C against 6ND), shown or not.
    PlotChart* budgetChart() const { return budgetChart_; }
    PlotChart* pathChart() const { return pathChart_; }
    PlotChart* computeChart() const { return computeChart_; }
    // The index of the chart shown (0 budget, 1 path, 2 compute).
    int shownChart() const;

    // The answer taken last (no series on a problem), and what it says in words: the series with
    // no answer and why, the over-trained models, why the two methods differ, the lifetime optima
    // (empty on a problem).
    const analysis::OptimalAnswer& answer() const { return answer_; }
    const QString& seriesNote() const { return seriesNote_; }
    const QString& overtrainNote() const { return overtrainNote_; }
    const QString& methodsNote() const { return methodsNote_; }
    const QString& lifetimeNote() const { return lifetimeNote_; }
    // The over-training percentage of the answered query (the slider's value when it was asked).
    int overtrainPercent() const { return overtrainPercent_; }
    // The colour of a series of the answer.
    QColor colorOf(const analysis::OptimalSeriesAnswer& a) const;
    // Why a series has no optimum, in a few words for a legend or a cell ("no IsoFLOP law").
    QString shortReason(const analysis::OptimalSeriesAnswer& a) const;

private:
    // The answer by the laws where the surfaces give none (see Answer::surfacesFailed).
    static void lawsWhereNoSurface(Answer& out, const fit::FitControl& control);
    // Why the controls make no query; empty when they make one (its context in `context`).
    QString inputProblem(double* context = nullptr) const;
    void writeNotes();
    void drawBudgetChart();
    void drawPathChart();
    void drawComputeChart();
    // The answer has the paper's models, whose FLOP count the context length names.
    bool anyPaperModel() const;
    // A legend entry for each series with no optimum, saying why.
    void listUnanswered(PlotChart* chart);

    PlotChart* budgetChart_;
    PlotChart* pathChart_;
    PlotChart* computeChart_;
    analysis::OptimalAnswer answer_;
    std::shared_ptr<const Answer> waiting_;  // the answer taken last while it waits for L(N,D) fits
    double shownContext_ = 8192;
    int overtrainPercent_ = 100;
    QString modeOfValue_;  // the mode the value was typed for
    std::uint64_t referenceFor_ = 0;  // the study (runs revision) the paper's-models default was set for
    QString seriesNote_, overtrainNote_, methodsNote_, lifetimeNote_;
    std::string surfacesFailed_;  // Answer::surfacesFailed of the answer shown
};

}  // namespace scalex::figures
