#pragma once
// The compute-optimal calculator: pick a budget H, a model size N or a target loss, and a context
// length; see N*, D*, tokens per parameter and the predicted loss of both families, both methods
// side by side with why they differ, the appendix-style table for a list of model sizes, the
// over-training question (a smaller N than N*: how much more data and compute for the same loss)
// and the lifetime optimum once inference tokens are counted. Three charts: N*, D* over H; the
// optimal path in the N-D plane with tokens-per-parameter guides; the exact C against 6ND.
// The numbers come from analysis::ComputeOptimal.
#include "app/gui/ViewPanel.h"
#include <optional>

#include "core/accounting/Family.h"
#include "core/analysis/ComputeOptimal.h"

class QComboBox;
class QLineEdit;
class QLabel;
class QTableWidget;
class QSlider;

namespace scalex::gui {

class Session;
class PlotView;

class OptimalView : public ViewPanel {
    Q_OBJECT
public:
    enum class Mode { Budget, ModelSize, TargetLoss };
    explicit OptimalView(Session* session, QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("optimal"); }
    QString title() const override { return tr("Compute-optimal"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    // The chart chosen under "Chart" (N*, D* over H; the N-D path; C against 6ND).
    std::vector<QChart*> charts() const override;

    // Programmatic input (tests, recipes): mode, its value, the context length.
    void setQuery(Mode mode, double value, double context);
    // 0: loss surface with the FLOP count at T; 1: the paper's IsoFLOP power laws.
    void setMethod(int method);
    // The optimum of a family for the current query (after recompute).
    const fit::OptimalPoint& optimum(bool xlstm) const { return optimum_[xlstm ? 1 : 0]; }
    QTableWidget* sizeTable() const { return sizes_; }
    QTableWidget* resultTable() const { return result_; }
    QTableWidget* methodsTable() const { return methods_; }
    // Both methods at the budget of the query's optimum; empty where the paper has no IsoFLOP laws at T.
    const std::optional<analysis::MethodComparison>& comparison(bool xlstm) const { return comparison_[xlstm ? 1 : 0]; }
    // The lifetime optimum for the inference tokens asked (empty when none are asked).
    const std::optional<analysis::LifetimeOptimum>& lifetime(bool xlstm) const { return lifetime_[xlstm ? 1 : 0]; }
    // Why the view shows no numbers (no law at this context, an unreadable value); empty when it shows them.
    QString problem() const override;
    // The over-trained model of the slider (below 100 % of N*), where the surface can reach the loss.
    const std::optional<fit::OverTraining>& overtrained(bool xlstm) const { return overtrained_[xlstm ? 1 : 0]; }
    // The appendix-style table (budget, tokens and tokens/param per model size) and the query's optima.
    std::vector<ViewTable> tables() override;

private:
    void recompute();
    void redrawChart(double context);
    void drawBudgetChart(double context);
    void drawPathChart(double context);
    void drawComputeChart(double context);
    void fillMethods();
    void fillLifetime();
    // The method chosen (laws: the paper's IsoFLOP power laws), or the other one; empty when it has
    // no law for this family and context.
    std::optional<analysis::OptimalMethod> method(accounting::Family family, double context, bool laws) const;
    bool lawsChosen() const;
    // Empty when the method has no law for this family and context.
    std::optional<fit::OptimalPoint> solve(accounting::Family family, Mode mode, double value, double context) const;

    Session* session_;
    QComboBox* mode_;
    QComboBox* method_;
    QLineEdit* value_;
    QComboBox* context_;
    QLineEdit* inference_;
    QComboBox* chartChoice_;
    QTableWidget* methods_;
    QLabel* methodsNote_;
    QLabel* lifetimeNote_;
    QSlider* overtrain_;
    QLabel* overtrainLabel_;
    QLabel* overtrainValue_;
    QLabel* error_;
    QTableWidget* result_;
    QTableWidget* sizes_;
    PlotChart* chart_;       // N*, D* over H
    PlotChart* pathChart_;   // the optimal path in the N-D plane
    PlotChart* computeChart_;  // C against 6ND over N
    PlotView* chartView_;
    PlotView* pathView_;
    PlotView* computeView_;
    fit::OptimalPoint optimum_[2];
    std::optional<fit::OverTraining> overtrained_[2];  // the over-trained model of the slider, below 100 %
    std::optional<analysis::MethodComparison> comparison_[2];
    std::optional<analysis::LifetimeOptimum> lifetime_[2];
    double inferenceTokens_ = 0;
    double context_value_ = 0;                    // the context of the last recompute
    std::vector<double> sizeRows_;                // model sizes of the appendix-style table
    std::vector<std::optional<fit::OptimalPoint>> sizeOptima_[2];
    QString overtrainText_;
    QString methodsText_, lifetimeText_;
};

}  // namespace scalex::gui
