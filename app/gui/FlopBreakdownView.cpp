#include "app/gui/ChoiceKeys.h"
#include "app/gui/FlopBreakdownView.h"

#include "app/gui/FlowLayout.h"
#include <QCheckBox>
#include <QComboBox>
#include <QFontMetricsF>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <array>
#include <QGraphicsSimpleTextItem>
#include <cmath>
#include <limits>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QLegend>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QPercentBarSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/accounting/CacheSize.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ParamCount.h"
#include "core/data/PaperTables.h"

namespace scalex::gui {

using namespace accounting;

namespace {

struct Preset {
    QString label;
    ModelConfig config;
};

// The appendix model tables (datasets/paper/model_configs.csv through PaperTables).
std::vector<Preset> presets(Family family) {
    std::vector<Preset> out;
    static const auto tables = data::loadPaperTables();
    if (!tables) return out;
    for (const auto& m : tables->modelConfigs) {
        if (m.family != family) continue;
        const ModelConfig cfg = m.config();
        const QString label = QStringLiteral("%1 (%2, d %3, L %4)")
                                  .arg(formatCount(static_cast<double>(countParameters(cfg).total())),
                                       m.experimentSet == data::ExperimentSet::TokenParam ? QStringLiteral("tokenparam") : QStringLiteral("isoflop"))
                                  .arg(m.dModel)
                                  .arg(m.nLayers);
        out.push_back({label, cfg});
    }
    return out;
}

QString contextLabel(double t) { return t >= 1024 ? QString::number(t / 1024) + 'k' : QString::number(t); }

}  // namespace

std::vector<double> FlopBreakdownView::contexts() {
    std::vector<double> out;
    for (double t = 512; t <= 131072; t *= 2) out.push_back(t);
    return out;
}

FlopBreakdownView::FlopBreakdownView(QWidget* parent) : ViewPanel(parent) {
    transformer_ = makeStudyConfig(Family::Transformer, 2048, 24, 16);
    xlstm_ = makeStudyConfig(Family::Xlstm, 2048, 24, 8);

    transformerPreset_ = new QComboBox(this);
    transformerPreset_->setObjectName(QStringLiteral("transformerPreset"));
    xlstmPreset_ = new QComboBox(this);
    xlstmPreset_->setObjectName(QStringLiteral("xlstmPreset"));
    fillPresets(transformerPreset_, Family::Transformer);
    fillPresets(xlstmPreset_, Family::Xlstm);
    metricBox_ = new QComboBox(this);
    metricBox_->setObjectName(QStringLiteral("quantity"));
    metricBox_->addItem(tr("Forward FLOPs per token"));
    metricBox_->addItem(tr("Decode-step memory traffic (bytes, batch 1)"));
    metricBox_->addItem(tr("KV cache / mLSTM state (bytes, batch 1)"));
    setChoiceKeys(metricBox_, {"flops", "decode-traffic", "state"});
    percentBox_ = new QCheckBox(tr("Shares (%)"), this);
    percentBox_->setObjectName(QStringLiteral("shares"));

    // Two groups of controls side by side, one above the other on a narrow window.
    auto* controls = new FlowLayout();
    auto* presetsBox = new QWidget(this);
    auto* form = new QFormLayout(presetsBox);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Transformer"), transformerPreset_);
    form->addRow(tr("xLSTM"), xlstmPreset_);
    controls->addWidget(presetsBox);
    auto* quantity = new QWidget(this);
    auto* form2 = new QFormLayout(quantity);
    form2->setContentsMargins(0, 0, 0, 0);
    form2->addRow(tr("Quantity"), metricBox_);
    form2->addRow(QString(), percentBox_);
    controls->addWidget(quantity);

    transformerView_ = new QChartView(new QChart(), this);
    xlstmView_ = new QChartView(new QChart(), this);
    for (QChartView* v : {transformerView_, xlstmView_}) v->setRenderHint(QPainter::Antialiasing);
    auto* charts = new QHBoxLayout();
    charts->addWidget(transformerView_);
    charts->addWidget(xlstmView_);
    stackWhenNarrow(charts);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(charts, 1);

    auto pick = [this](QComboBox* box, Family family) {
        const auto list = presets(family);
        const int i = box->currentIndex();
        if (i < 0 || i >= static_cast<int>(list.size())) return;
        if (family == Family::Transformer)
            transformer_ = list[static_cast<std::size_t>(i)].config;
        else
            xlstm_ = list[static_cast<std::size_t>(i)].config;
        rebuild();
    };
    connect(transformerPreset_, &QComboBox::currentIndexChanged, this, [this, pick] { pick(transformerPreset_, Family::Transformer); });
    connect(xlstmPreset_, &QComboBox::currentIndexChanged, this, [this, pick] { pick(xlstmPreset_, Family::Xlstm); });
    connect(metricBox_, &QComboBox::currentIndexChanged, this, [this](int i) { setMetric(static_cast<Metric>(i)); });
    connect(percentBox_, &QCheckBox::toggled, this, &FlopBreakdownView::setPercent);
    rebuild();
}

void FlopBreakdownView::fillPresets(QComboBox* box, Family family) {
    const auto list = presets(family);
    int selected = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        box->addItem(list[i].label);
        const ModelConfig& c = list[i].config;
        if (c.dModel == 2048 && c.nLayers == 24 && selected == 0) selected = static_cast<int>(i);
    }
    box->setCurrentIndex(selected);
}

QChart* FlopBreakdownView::primaryChart() const { return transformerView_->chart(); }
std::vector<QChart*> FlopBreakdownView::charts() const { return {transformerView_->chart(), xlstmView_->chart()}; }

void FlopBreakdownView::setConvention(const FlopConvention& convention) {
    convention_ = convention;
    rebuild();
}

void FlopBreakdownView::setConfigs(const ModelConfig& transformer, const ModelConfig& xlstm) {
    transformer_ = transformer;
    xlstm_ = xlstm;
    rebuild();
}

void FlopBreakdownView::setMetric(Metric metric) {
    metric_ = metric;
    if (metricBox_->currentIndex() != static_cast<int>(metric)) metricBox_->setCurrentIndex(static_cast<int>(metric));
    rebuild();
}

void FlopBreakdownView::setPercent(bool percent) {
    percent_ = percent;
    if (percentBox_->isChecked() != percent) percentBox_->setChecked(percent);
    rebuild();
}

namespace {
// Values of one bar: linear, sequence mix, other.
std::array<double, 3> barValues(const ModelConfig& cfg, double T, FlopBreakdownView::Metric metric,
                                const FlopConvention& convention) {
    const ByteWidths bytes;
    switch (metric) {
        case FlopBreakdownView::Metric::ForwardFlopsPerToken: {
            const FlopSplit f = forwardFlops(cfg, T, convention);
            return {f.linear / T, f.seqMix / T, f.other / T};
        }
        case FlopBreakdownView::Metric::DecodeStepBytes: {
            const ByteSplit b = decodeStepBytes(cfg, 1, T, 1, bytes);
            return {b.linear, b.seqMix, b.other};
        }
        case FlopBreakdownView::Metric::CacheBytes:
            return {0, cacheBytes(cfg, defaultSequenceMix(cfg), 1, T, bytes), 0};
    }
    return {0, 0, 0};
}

// Decimal units, as the axis: 50.5 MB, 25.8 GB.
QString formatBytes(double bytes) {
    static const std::pair<double, const char*> units[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
    for (const auto& [scale, name] : units)
        if (bytes >= scale * (1 - 1e-9)) return QStringLiteral("%1 %2").arg(QString::number(bytes / scale, 'g', 3), QLatin1String(name));
    return QStringLiteral("%1 B").arg(QString::number(bytes, 'g', 3));
}

// One decimal below 10 %, where a share of 1.3 % would otherwise read as 1 %.
QString formatShare(double percent) {
    return QStringLiteral("%1 %").arg(percent, 0, 'f', percent < 10 ? 1 : 0);
}

// Puts each label above the top of its bar (`tops` in axis units), centred on the bar, in
// `color`; turned upright when the widest label is wider than a bar's slot ("25.8 GB" over
// narrow bars). A label with no room above its bar (a short paper figure) goes inside its top,
// in white on the bar's colour.
void placeValueLabels(QChart* chart, QAbstractBarSeries* series, const std::vector<QGraphicsSimpleTextItem*>& labels,
                      const std::vector<double>& tops, const QColor& color) {
    const QRectF plot = chart->plotArea();
    if (labels.empty() || plot.isEmpty()) return;
    // The figure export restyles the axes (paper fonts): the labels follow the category labels.
    const auto xAxes = chart->axes(Qt::Horizontal);
    const QFont font = xAxes.isEmpty() ? chart->font() : xAxes.front()->labelsFont();
    const QFontMetricsF metrics(font);
    double widest = 0;
    for (const auto* label : labels) widest = std::max(widest, metrics.horizontalAdvance(label->text()));
    const bool upright = widest > 0.92 * plot.width() / static_cast<double>(labels.size());
    const double gap = 0.25 * metrics.height();
    for (std::size_t i = 0; i < labels.size(); ++i) {
        QGraphicsSimpleTextItem* label = labels[i];
        label->setFont(font);
        const QRectF box = label->boundingRect();
        const QPointF top = chart->mapToPosition(QPointF(static_cast<double>(i), tops[i]), series);
        const double extent = upright ? box.width() : box.height();  // vertical size once placed
        const bool above = top.y() - gap - extent >= plot.top();
        label->setBrush(above ? color : QColor(Qt::white));
        // The label's bottom edge: above the bar, or inside it below its top.
        const double bottom = above ? top.y() - gap : top.y() + gap + extent;
        if (upright) {
            label->setRotation(-90);  // reads upward; the text's height now runs along x
            label->setPos(top.x() - box.height() / 2, bottom);
        } else {
            label->setRotation(0);
            label->setPos(top.x() - box.width() / 2, bottom - box.height());
        }
    }
}

}  // namespace

void FlopBreakdownView::rebuild() {
    const Theme& theme = Theme::current();
    const bool cache = metric_ == Metric::CacheBytes;
    // The cache has one part per model: its share would be 100 % for every bar.
    const bool percent = percent_ && !cache;
    percentBox_->setEnabled(!cache);
    percentBox_->setToolTip(cache ? tr("A cache has a single part (the KV cache, or the mLSTM state), so its share is always 100 %. "
                                       "The axis is logarithmic instead: the KV cache grows with T, the mLSTM state does not.")
                                  : tr("Each bar as shares of its total. The numbers above the bars are the sequence-mix share."));
    // One scale for both charts, so the bars compare across families.
    double maxTotal = 0, minTotal = std::numeric_limits<double>::infinity();
    for (const ModelConfig* cfg : {&transformer_, &xlstm_})
        for (double T : contexts()) {
            const auto v = barValues(*cfg, T, metric_, convention_);
            maxTotal = std::max(maxTotal, v[0] + v[1] + v[2]);
            if (v[0] + v[1] + v[2] > 0) minTotal = std::min(minTotal, v[0] + v[1] + v[2]);
        }
    if (!std::isfinite(minTotal)) minTotal = 1;
    const bool flops = metric_ == Metric::ForwardFlopsPerToken;
    const double unit = maxTotal >= 1e9 ? 1e9 : (maxTotal >= 1e6 ? 1e6 : 1e3);
    const QString unitName = flops ? (unit == 1e9 ? tr("GFLOP per token") : tr("MFLOP per token"))
                                   : (unit == 1e9 ? tr("GB") : (unit == 1e6 ? tr("MB") : tr("kB")));
    // The cache spans decades (MB of mLSTM state, tens of GB of KV cache at 128k): a log axis over
    // whole decades, with room above the largest bar for its label and at least half a decade
    // below the smallest, so that it stands tall.
    const double logLo = std::floor(std::log10(minTotal) - 0.5);
    const double logHi = std::ceil(std::log10(maxTotal) + 0.3);
    for (const ModelConfig* cfg : {&transformer_, &xlstm_}) {
        QChartView* view = cfg == &transformer_ ? transformerView_ : xlstmView_;
        auto* chart = new QChart();
        theme.applyTo(chart);
        chart->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);  // filled swatches: bars are areas
        const bool isX = cfg->family == Family::Xlstm;
        auto* linear = new QBarSet(tr("Linear layers"));
        // The cache metric has one part: the KV cache of attention, the fixed-size state of the mLSTM.
        auto* seqMix = new QBarSet(cache ? (isX ? tr("mLSTM state (C, n, m per head)") : tr("KV cache"))
                                   : metric_ == Metric::DecodeStepBytes ? (isX ? tr("mLSTM cell (state read)") : tr("Attention (KV cache read)"))
                                                                   : (isX ? tr("mLSTM cell") : tr("Attention core")));
        // "Other": norms, activations, embedding (the Explain pane lists them); short, so the legend fits.
        auto* other = new QBarSet(tr("Other"));
        linear->setColor(theme.muted);
        seqMix->setColor(theme.family(cfg->family));
        other->setColor(theme.grid.darker(115));
        QStringList categories;
        std::vector<double> tops;  // where each label goes, in axis units
        QStringList texts;
        for (double T : contexts()) {
            categories << contextLabel(T);
            const auto v = barValues(*cfg, T, metric_, convention_);
            const double total = v[0] + v[1] + v[2];
            if (cache) {
                *seqMix << std::log10(std::max(v[1], 1.0));
                tops.push_back(std::log10(std::max(v[1], 1.0)));
                texts << formatBytes(v[1]);
            } else {
                *linear << v[0] / unit;
                *seqMix << v[1] / unit;
                *other << v[2] / unit;
                tops.push_back(percent ? 100.0 : total / unit);
                texts << formatShare(total > 0 ? 100.0 * v[1] / total : 0.0);
            }
        }
        QAbstractBarSeries* series = percent ? static_cast<QAbstractBarSeries*>(new QPercentBarSeries())
                                             : static_cast<QAbstractBarSeries*>(new QStackedBarSeries());
        if (!cache) series->append(linear); else delete linear;
        series->append(seqMix);
        if (!cache) series->append(other); else delete other;
        series->setBarWidth(0.7);
        chart->addSeries(series);
        auto* x = new QBarCategoryAxis();
        x->append(categories);
        x->setTitleText(tr("Context length T"));
        x->setTruncateLabels(false);  // "128k" whole in a narrow window
        x->setLabelsFont(QFont(theme.fontFamily, theme.basePointSize - 2));
        QValueAxis* y = nullptr;
        if (cache) {
            // Readable byte labels at the decades on a linear axis over log10 (see LogTicks.h).
            auto* logAxis = new QCategoryAxis();
            logAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
            logAxis->setRange(logLo, logHi);
            for (const Tick& t : logTicks(std::pow(10.0, logLo), std::pow(10.0, logHi), 8))
                if (t.major) logAxis->append(formatBytes(t.value), std::log10(t.value));
            logAxis->setTitleText(tr("Bytes (log scale)"));
            y = logAxis;
        } else {
            y = new QValueAxis();
            if (percent) {
                // Room above 100 % for the labels, without a tick there.
                y->setRange(0, 115);
                y->setTickType(QValueAxis::TicksDynamic);
                y->setTickAnchor(0);
                y->setTickInterval(20);
            } else {
                y->setRange(0, maxTotal / unit * 1.05);
                y->applyNiceNumbers();
            }
            y->setLabelFormat(percent ? QStringLiteral("%.0f %%") : QStringLiteral("%.3g"));
            y->setTitleText(percent ? tr("Share of the total") : unitName);
        }
        for (QAbstractAxis* a : {static_cast<QAbstractAxis*>(x), static_cast<QAbstractAxis*>(y)}) {
            a->setLabelsBrush(theme.foreground);
            a->setTitleBrush(theme.foreground);
            a->setGridLineColor(theme.grid);
        }
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        chart->setTitle(QStringLiteral("%1 %2").arg(QString::fromUtf8(familyLabel(cfg->family).data()),
                                                   formatCount(static_cast<double>(countParameters(*cfg).total()))));
        chart->legend()->setAlignment(Qt::AlignBottom);

        // The sequence-mix share (or the cache size) above each bar, in the colour of its part:
        // the xLSTM's cell is a sliver of its bar, but its share still reads.
        std::vector<QGraphicsSimpleTextItem*> labels;
        for (const QString& text : texts) {
            auto* label = new QGraphicsSimpleTextItem(text, chart);
            label->setData(0, valueLabelTag());
            label->setZValue(100);  // above the bars and grid
            labels.push_back(label);
        }
        const QColor color = theme.family(cfg->family);
        connect(chart, &QChart::plotAreaChanged, chart,
                [chart, series, labels, tops, color] { placeValueLabels(chart, series, labels, tops, color); });
        QChart* old = view->chart();
        view->setChart(chart);
        delete old;
        placeValueLabels(chart, series, labels, tops, color);
    }
    emit explainChanged();
}

QString FlopBreakdownView::explainHtml() const {
    const double T1 = 2048, T2 = 32768;
    auto share = [&](const ModelConfig& c, double T) {
        const FlopSplit f = forwardFlops(c, T, convention_);
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
        .arg(QString::fromStdString(convention_.name))
        .arg(formatCount(static_cast<double>(countParameters(transformer_).total())))
        .arg(share(transformer_, T1), 0, 'f', 1)
        .arg(share(transformer_, T2), 0, 'f', 1)
        .arg(formatCount(static_cast<double>(countParameters(xlstm_).total())))
        .arg(share(xlstm_, T1), 0, 'f', 1)
        .arg(share(xlstm_, T2), 0, 'f', 1)
        .arg(formatBytes(cache(xlstm_, T1)), formatBytes(cache(transformer_, T1)), formatBytes(cache(transformer_, 131072)));
}

}  // namespace scalex::gui
