#pragma once
// The compute-optimal calculator: pick a budget H, a model size N or a target loss, and a context
// length; see N*, D*, tokens per parameter and the predicted loss of both families, the
// appendix-style table for a list of model sizes, and the over-training question (a smaller N
// than N*: how much more data and compute for the same loss).
#include "app/gui/ViewPanel.h"
#include <optional>

#include "core/accounting/Family.h"
#include "core/fit/ComputeOptimal.h"

class QComboBox;
class QLineEdit;
class QLabel;
class QTableWidget;
class QSlider;

namespace scalex::gui {

class Session;
class PlotChart;
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

    // Programmatic input (tests, recipes): mode, its value, the context length.
    void setQuery(Mode mode, double value, double context);
    // 0: loss surface with the FLOP count at T; 1: the paper's IsoFLOP power laws.
    void setMethod(int method);
    // The optimum of a family for the current query (after recompute).
    const fit::OptimalPoint& optimum(bool xlstm) const { return optimum_[xlstm ? 1 : 0]; }
    QTableWidget* sizeTable() const { return sizes_; }
    QTableWidget* resultTable() const { return result_; }
    // Why the view shows no numbers (no law at this context, an unreadable value); empty when it shows them.
    QString problem() const;
    // The over-trained model of the slider (below 100 % of N*), where the surface can reach the loss.
    const std::optional<fit::OverTraining>& overtrained(bool xlstm) const { return overtrained_[xlstm ? 1 : 0]; }
    // The appendix-style table (budget, tokens and tokens/param per model size) and the query's optima.
    std::vector<ViewTable> tables() override;

private:
    void recompute();
    void redrawChart(double context);
    // Empty when the method has no law for this family and context.
    std::optional<fit::OptimalPoint> solve(accounting::Family family, Mode mode, double value, double context) const;

    Session* session_;
    QComboBox* mode_;
    QComboBox* method_;
    QLineEdit* value_;
    QComboBox* context_;
    QSlider* overtrain_;
    QLabel* overtrainLabel_;
    QLabel* overtrainValue_;
    QLabel* error_;
    QTableWidget* result_;
    QTableWidget* sizes_;
    PlotChart* chart_;
    PlotView* chartView_;
    fit::OptimalPoint optimum_[2];
    std::optional<fit::OverTraining> overtrained_[2];  // the over-trained model of the slider, below 100 %
    double context_value_ = 0;                    // the context of the last recompute
    std::vector<double> sizeRows_;                // model sizes of the appendix-style table
    std::vector<std::optional<fit::OptimalPoint>> sizeOptima_[2];
    QString overtrainText_;
};

}  // namespace scalex::gui
