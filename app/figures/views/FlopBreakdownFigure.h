#pragma once
// Where the FLOPs, the memory traffic and the cache of a model go, over context length:
// stacked bars of linear / sequence-mix / other for a Transformer and an xLSTM side by side,
// counted with the study's FLOP convention. The sequence mix of the xLSTM is a percent or two of
// its total and its state a few MB against GB of KV cache, so each bar is labelled with its
// sequence-mix share (or its cache size), and the cache is drawn on a logarithmic axis. Side by
// side with the models of the project, a model with shared transformer blocks (Zamba2) shows their
// work as a fourth part, "Shared blocks", taken out of the other three.
#include <QMetaObject>

#include "app/figures/ViewFigure.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelConfig.h"

namespace scalex::figures {

class FlopBreakdownFigure : public ViewFigure {
public:
    enum class Metric { ForwardFlopsPerToken, DecodeStepBytes, CacheBytes };

    FlopBreakdownFigure();
    QString viewId() const override { return QStringLiteral("breakdown"); }
    void refresh(const FigureInput& in) override;
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;

    Metric metric() const;
    // The key of the quantity control for `metric`.
    static QString metricKey(Metric metric);
    // Picks the presets of the appendix tables with these configurations; false (nothing
    // changed) when either has none.
    bool selectConfigs(const accounting::ModelConfig& transformer, const accounting::ModelConfig& xlstm);
    // The models and the convention the last draw counted with.
    const accounting::ModelConfig& transformer() const { return transformer_; }
    const accounting::ModelConfig& xlstm() const { return xlstm_; }
    const accounting::FlopConvention& convention() const { return convention_; }

    // Context lengths shown as bars: 512 ... 131072.
    static std::vector<double> contexts();
    // The numbers drawn above the bars are text items of their chart with this as data(0).
    static QString valueLabelTag() { return QStringLiteral("scalexValueLabel"); }
    // Decimal units, as the cache axis: 50.5 MB, 25.8 GB.
    static QString formatBytes(double bytes);

private:
    // The configuration of the preset the control `name` shows (the study's default size when
    // the appendix tables are missing).
    accounting::ModelConfig presetConfig(const QString& name, accounting::Family family) const;

    QChart* transformerChart_;
    QChart* xlstmChart_;
    QMetaObject::Connection placing_[2];  // each chart's value labels follow its plot area
    accounting::FlopConvention convention_ = accounting::studyConvention();
    accounting::ModelConfig transformer_, xlstm_;
};

}  // namespace scalex::figures
