#include "app/gui/FlopBreakdownView.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include "app/gui/FigureNames.h"
#include "app/gui/FlowLayout.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"
#include "core/accounting/CacheSize.h"
#include "core/accounting/ParamCount.h"

namespace scalex::gui {

using namespace accounting;
using figures::FlopBreakdownFigure;

FlopBreakdownView::FlopBreakdownView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::FlopBreakdownFigure>()) {
    controls_ = new ControlBinding(&figure_->controls(), [this] { redraw(); }, this);
    const figures::Controls& c = figure_->controls();

    // Two groups of controls side by side, one above the other on a narrow window.
    auto* controls = new FlowLayout();
    auto* presetsBox = new QWidget(this);
    auto* form = new QFormLayout(presetsBox);
    form->setContentsMargins(0, 0, 0, 0);
    for (const QString name : {"transformerPreset", "xlstmPreset"}) form->addRow(c.at(name).label, controls_->make(name, presetsBox));
    controls->addWidget(presetsBox);
    auto* quantity = new QWidget(this);
    auto* form2 = new QFormLayout(quantity);
    form2->setContentsMargins(0, 0, 0, 0);
    form2->addRow(c.at(QStringLiteral("quantity")).label, controls_->make(QStringLiteral("quantity"), quantity));
    shares_ = controls_->make(QStringLiteral("shares"), quantity);
    form2->addRow(QString(), shares_);
    controls->addWidget(quantity);

    const std::vector<QChart*> charts = figure_->charts();
    transformerView_ = new QChartView(charts[0], this);
    xlstmView_ = new QChartView(charts[1], this);
    for (QChartView* v : {transformerView_, xlstmView_}) v->setRenderHint(QPainter::Antialiasing);
    auto* row = new QHBoxLayout();
    row->addWidget(transformerView_);
    row->addWidget(xlstmView_);
    stackWhenNarrow(row);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(row, 1);
    // The FLOP convention of the project's settings (study, appendix, chinchilla or 6ND) and its specs.
    for (auto signal : {&Session::settingsChanged, &Session::specsChanged, &Session::styleChanged})
        connect(session_, signal, this, &FlopBreakdownView::redraw);
    redraw();
}

QChart* FlopBreakdownView::primaryChart() const { return figure_->charts().front(); }
std::vector<QChart*> FlopBreakdownView::charts() const { return figure_->charts(); }

QStringList FlopBreakdownView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    redraw();
    return notes;
}

void FlopBreakdownView::setConvention(const FlopConvention& convention) {
    AnalysisSettings settings = session_->settings();
    if (settings.convention == convention.name) return;
    settings.convention = convention.name;
    session_->setSettings(settings);
}

void FlopBreakdownView::setConfigs(const ModelConfig& transformer, const ModelConfig& xlstm) {
    if (!figure_->selectConfigs(transformer, xlstm)) return;
    controls_->showAll();
    redraw();
}

void FlopBreakdownView::setMetric(Metric metric) {
    applyControls({{QStringLiteral("quantity"), figures::FlopBreakdownFigure::metricKey(metric)}});
}

void FlopBreakdownView::setPercent(bool percent) { applyControls({{QStringLiteral("shares"), percent}}); }

void FlopBreakdownView::redraw() {
    figure_->draw(figureInput(session_));
    controls_->showAll();  // the shares' tooltip with it
    emit explainChanged();
}

QString FlopBreakdownView::explainHtml() const {
    const double T1 = 2048, T2 = 32768;
    auto share = [&](const ModelConfig& c, double T) {
        const FlopSplit f = forwardFlops(c, T, figure_->convention());
        return 100.0 * f.seqMix / f.total();
    };
    auto cache = [](const ModelConfig& c, double T) { return cacheBytes(c, defaultSequenceMix(c), 1, T, ByteWidths{}); };
    return tr("<h3>Where the compute goes</h3>"
              "<p>Each bar splits the cost of one token into the <b>linear layers</b> (projections, feed-forward, "
              "LM head: 2 FLOPs per parameter), the <b>sequence mix</b> (attention core or mLSTM cell) and the rest (<i>Other</i>: norms, activations, embedding).</p>"
              "<p>Attention compares every token with every earlier one: its prefill cost is "
              "<i>2·F<sub>causal</sub>·T²·n<sub>head</sub>·(d<sub>qk</sub>+d<sub>hv</sub>+F<sub>softmax</sub>/2)</i>, "
              "so <b>per token it grows linearly in T</b>. The mLSTM carries a fixed-size memory: its chunkwise cost "
              "per token depends on the chunk size L, not on T.</p>"
              "<p>Convention <b>%1</b>. Sequence-mix share of the forward FLOPs:<br>"
              "Transformer %2: %3&nbsp;% at T = 2k, %4&nbsp;% at T = 32k<br>"
              "xLSTM %5: %6&nbsp;% at T = 2k, %7&nbsp;% at T = 32k</p>"
              "<p>During generation the Transformer must read its whole KV cache every step "
              "(2·n<sub>kv</sub>·d<sub>hv</sub>·T elements per layer), while the mLSTM reads a state of "
              "n<sub>head</sub>·(d<sub>qk</sub>·d<sub>hv</sub>+d<sub>qk</sub>+1) elements whatever T is: "
              "%8 against a KV cache of %9 at T = 2k and %10 at T = 128k (batch 1). The cache is drawn on a "
              "logarithmic axis, so both show; its share would be 100 % for every bar, so <i>Shares</i> is off there.</p>"
              "<p>The number above a bar is the share of the sequence mix in it (the cache size, for the cache), "
              "in the colour of that part: the mLSTM cell is a sliver of its bar, but its share reads.</p>")
        .arg(QString::fromStdString(figure_->convention().name))
        .arg(formatCount(static_cast<double>(countParameters(figure_->transformer()).total())))
        .arg(share(figure_->transformer(), T1), 0, 'f', 1)
        .arg(share(figure_->transformer(), T2), 0, 'f', 1)
        .arg(formatCount(static_cast<double>(countParameters(figure_->xlstm()).total())))
        .arg(share(figure_->xlstm(), T1), 0, 'f', 1)
        .arg(share(figure_->xlstm(), T2), 0, 'f', 1)
        .arg(FlopBreakdownFigure::formatBytes(cache(figure_->xlstm(), T1)), FlopBreakdownFigure::formatBytes(cache(figure_->transformer(), T1)),
             FlopBreakdownFigure::formatBytes(cache(figure_->transformer(), 131072)));
}

}  // namespace scalex::gui
