#pragma once
// Where the FLOPs, the memory traffic and the cache of a model go, over context length:
// stacked bars of linear / sequence-mix / other for a Transformer and an xLSTM side by side.
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
