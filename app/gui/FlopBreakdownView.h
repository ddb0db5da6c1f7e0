#pragma once
// Where the FLOPs, the memory traffic and the cache of a model go, over context length:
// stacked bars of linear / sequence-mix / other for a Transformer and an xLSTM side by side.
// The sequence mix of the xLSTM is a percent or two of its total and its state a few MB against
// GB of KV cache, so each bar is labelled with its sequence-mix share (or its cache size), and
// the cache is drawn on a logarithmic axis.
#include "app/gui/ViewPanel.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelConfig.h"

class QComboBox;
class QChart;
class QChartView;
class QCheckBox;

namespace scalex::gui {

class FlopBreakdownView : public ViewPanel {
    Q_OBJECT
public:
    enum class Metric { ForwardFlopsPerToken, DecodeStepBytes, CacheBytes };

    explicit FlopBreakdownView(QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("breakdown"); }
    QString title() const override { return tr("FLOP breakdown"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;

    void setConvention(const accounting::FlopConvention& convention);
    void setConfigs(const accounting::ModelConfig& transformer, const accounting::ModelConfig& xlstm);
    void setMetric(Metric metric);
    void setPercent(bool percent);

    // Context lengths shown as bars: 512 ... 131072.
    static std::vector<double> contexts();
    // The numbers drawn above the bars are text items of their chart with this as data(0).
    static QString valueLabelTag() { return QStringLiteral("scalexValueLabel"); }

private:
    void rebuild();
    void fillPresets(QComboBox* box, accounting::Family family);

    accounting::FlopConvention convention_ = accounting::studyConvention();
    accounting::ModelConfig transformer_, xlstm_;
    Metric metric_ = Metric::ForwardFlopsPerToken;
    bool percent_ = false;
    QComboBox* transformerPreset_ = nullptr;
    QComboBox* xlstmPreset_ = nullptr;
    QComboBox* metricBox_ = nullptr;
    QCheckBox* percentBox_ = nullptr;
    QChartView* transformerView_ = nullptr;
    QChartView* xlstmView_ = nullptr;
};

}  // namespace scalex::gui
