#pragma once
// Where the FLOPs, the memory traffic and the cache of a model go, over context length: the
// figure of app/figures/views/FlopBreakdownFigure (a Transformer and an xLSTM side by side,
// counted with the convention of the project's settings) and its controls.
#include <memory>

#include "app/figures/views/FlopBreakdownFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/ViewPanel.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelConfig.h"

class QChart;
class QChartView;

namespace scalex::gui {

class Session;

class FlopBreakdownView : public ViewPanel {
    Q_OBJECT
public:
    using Metric = figures::FlopBreakdownFigure::Metric;

    explicit FlopBreakdownView(Session* session, QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("breakdown"); }
    QString title() const override { return tr("FLOP breakdown"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

    // Counts with this (named) convention: the project's settings take it.
    void setConvention(const accounting::FlopConvention& convention);
    // Shows the presets of the appendix tables with these configurations (none changed when
    // either has none).
    void setConfigs(const accounting::ModelConfig& transformer, const accounting::ModelConfig& xlstm);
    void setMetric(Metric metric);
    void setPercent(bool percent);

    // Context lengths shown as bars: 512 ... 131072.
    static std::vector<double> contexts() { return figures::FlopBreakdownFigure::contexts(); }
    // The numbers drawn above the bars are text items of their chart with this as data(0).
    static QString valueLabelTag() { return figures::FlopBreakdownFigure::valueLabelTag(); }

private:
    void redraw();

    Session* session_;
    std::unique_ptr<figures::FlopBreakdownFigure> figure_;
    ControlBinding* controls_;
    QWidget* shares_;
    QChartView* transformerView_ = nullptr;
    QChartView* xlstmView_ = nullptr;
};

}  // namespace scalex::gui
