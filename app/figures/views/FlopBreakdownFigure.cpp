#include "app/figures/views/FlopBreakdownFigure.h"

#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QObject>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QCategoryAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QPercentBarSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>
#include <array>
#include <cmath>
#include <limits>

#include "app/figures/LogTicks.h"
#include "app/figures/Theme.h"
#include "core/accounting/CacheSize.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/Study.h"
#include "core/data/PaperTables.h"

namespace scalex::figures {

using namespace accounting;

namespace {

const QString kTransformerPreset = QStringLiteral("transformerPreset");
const QString kXlstmPreset = QStringLiteral("xlstmPreset");
const QString kQuantity = QStringLiteral("quantity");
const QString kShares = QStringLiteral("shares");
const QString kCompare = QStringLiteral("compare");
constexpr double kSideBySideContexts[] = {8192, 131072};

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

// A choice of the presets of `family` (each named by its text, as recipes keep it), the one of
// d_model 2048 and 24 layers shown first.
Control presetControl(const QString& name, const QString& label, Family family) {
    std::vector<ControlChoice> choices;
    const auto list = presets(family);
    int selected = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
        choices.push_back(textChoice(list[i].label));
        const ModelConfig& cfg = list[i].config;
        if (cfg.dModel == 2048 && cfg.nLayers == 24 && selected == 0) selected = static_cast<int>(i);
    }
    const QString value = choices.empty() ? QString() : choices[static_cast<std::size_t>(selected)].key;
    return choiceControl(name, label, std::move(choices), value);
}

QString contextLabel(double t) { return t >= 1024 ? QString::number(t / 1024) + 'k' : QString::number(t); }

using Metric = FlopBreakdownFigure::Metric;

// Values of one bar: linear, sequence mix, other, and the shared transformer blocks (Zamba2) apart.
using BarParts = std::array<double, 4>;
double barTotal(const BarParts& v) { return v[0] + v[1] + v[2] + v[3]; }

BarParts barValues(const ModelConfig& cfg, double T, Metric metric, const FlopConvention& convention) {
    const ByteWidths bytes;
    switch (metric) {
        case Metric::ForwardFlopsPerToken: {
            const FlopSplit f = forwardFlops(cfg, T, convention);
            return {f.linear / T, f.seqMix / T, f.other / T, 0};
        }
        case Metric::DecodeStepBytes: {
            const ByteSplit b = decodeStepBytes(cfg, 1, T, 1, bytes);
            return {b.linear, b.seqMix, b.other, 0};
        }
        case Metric::CacheBytes:
            return {0, cacheBytes(cfg, defaultSequenceMix(cfg), 1, T, bytes), 0, 0};
    }
    return {0, 0, 0, 0};
}

// The same for any model spec (SpecAccounting.h). The uses of shared transformer blocks are a part
// of their own, taken out of the others: their FLOPs (sharedBlockFlopsPerToken), or in a decode step
// the blocks' weights read once with each use's own (ParamGroups::shared) and the keys and values
// each use keeps. The cache is one part.
BarParts barValues(const ModelSpec& spec, double T, Metric metric, const FlopConvention& convention) {
    const ByteWidths bytes;
    switch (metric) {
        case Metric::ForwardFlopsPerToken: {
            const FlopSplit f = forwardFlopsPerToken(spec, T, convention), shared = sharedBlockFlopsPerToken(spec, T, convention);
            return {f.linear - shared.linear, f.seqMix - shared.seqMix, f.other - shared.other, shared.total()};
        }
        case Metric::DecodeStepBytes: {
            const ByteSplit b = decodeStepBytes(spec, 1, T, bytes);
            // As decodeStepBytes: the weights at bytes_W, the cache read and the new token written at bytes_qkv.
            const double weights = static_cast<double>(paramCounts(spec).all.shared) * bytes.weights;
            const double cache = (cacheElements(spec, T).sharedKv + cacheElements(spec, 1).sharedKv) * bytes.qkv;
            return {b.linear - weights, b.seqMix - cache, b.other, weights + cache};
        }
        case Metric::CacheBytes:
            return {0, cacheBytes(spec, T, 1, bytes), 0, 0};
    }
    return {0, 0, 0, 0};
}

// One bar of a chart: its category label and its parts.
struct Bar {
    QString category;
    BarParts values;
};

// A model's name as a category label: a long one (nemotron_3_nano_30b_a3b) broken into lines at its
// '_', '-' or '.' so that it fits its bar's slot, where the axis would otherwise leave it out.
QString wrappedName(const QString& name) {
    constexpr int kLine = 14;
    QString out, line;
    for (const QChar c : name) {
        line += c;
        if (line.size() >= kLine / 2 && (c == '_' || c == '-' || c == '.')) {
            out += (out.isEmpty() ? QString() : QStringLiteral("<br>")) + line;
            line.clear();
        }
    }
    if (!line.isEmpty()) out += (out.isEmpty() ? QString() : QStringLiteral("<br>")) + line;
    return name.size() > kLine ? out : name;
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

// Empties a chart for the next draw: its value labels (and what places them), series and axes.
void clearChart(QChart* chart, QMetaObject::Connection& placing) {
    QObject::disconnect(placing);
    for (QGraphicsItem* item : chart->childItems())
        if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item); text && text->data(0) == FlopBreakdownFigure::valueLabelTag())
            delete text;
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

}  // namespace

// Decimal units, as the axis: 50.5 MB, 25.8 GB.
QString FlopBreakdownFigure::formatBytes(double bytes) {
    static const std::pair<double, const char*> units[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
    for (const auto& [scale, name] : units)
        if (bytes >= scale * (1 - 1e-9)) return QStringLiteral("%1 %2").arg(QString::number(bytes / scale, 'g', 3), QLatin1String(name));
    return QStringLiteral("%1 B").arg(QString::number(bytes, 'g', 3));
}

std::vector<double> FlopBreakdownFigure::contexts() {
    std::vector<double> out;
    for (double t = 512; t <= 131072; t *= 2) out.push_back(t);
    return out;
}

FlopBreakdownFigure::FlopBreakdownFigure() : transformerChart_(makePlainChart()), xlstmChart_(makePlainChart()) {
    transformer_ = makeStudyConfig(Family::Transformer, 2048, 24, 16);
    xlstm_ = makeStudyConfig(Family::Xlstm, 2048, 24, 8);
    controls().add(presetControl(kTransformerPreset, QObject::tr("Transformer"), Family::Transformer));
    controls().add(presetControl(kXlstmPreset, QObject::tr("xLSTM"), Family::Xlstm));
    controls().add(choiceControl(kQuantity, QObject::tr("Quantity"),
                                 {{QStringLiteral("flops"), QObject::tr("Forward FLOPs per token")},
                                  {QStringLiteral("decode-traffic"), QObject::tr("Decode-step memory traffic (bytes, batch 1)")},
                                  {QStringLiteral("state"), QObject::tr("KV cache / mLSTM state (bytes, batch 1)")}},
                                 QStringLiteral("flops")));
    controls().add(switchControl(kShares, QObject::tr("Shares (%)"), false));
    controls().add(choiceControl(kCompare, QObject::tr("Compare"),
                                 {{QStringLiteral("contexts"), QObject::tr("Each model over the context length")},
                                  {QStringLiteral("models"), QObject::tr("The models side by side at 8k and 128k (with File > Add model)")}},
                                 QStringLiteral("contexts")));
    refresh({});
}

std::vector<QChart*> FlopBreakdownFigure::charts() const { return {transformerChart_, xlstmChart_}; }

QString FlopBreakdownFigure::metricKey(Metric metric) {
    switch (metric) {
        case Metric::ForwardFlopsPerToken: return QStringLiteral("flops");
        case Metric::DecodeStepBytes: return QStringLiteral("decode-traffic");
        case Metric::CacheBytes: return QStringLiteral("state");
    }
    return {};
}

FlopBreakdownFigure::Metric FlopBreakdownFigure::metric() const {
    const QString key = controls().choice(kQuantity);
    if (key == metricKey(Metric::DecodeStepBytes)) return Metric::DecodeStepBytes;
    if (key == metricKey(Metric::CacheBytes)) return Metric::CacheBytes;
    return Metric::ForwardFlopsPerToken;
}

void FlopBreakdownFigure::refresh(const FigureInput& in) {
    (void)in;
    // The cache has one part per model: its share would be 100 % for every bar.
    const bool cache = metric() == Metric::CacheBytes;
    Control& shares = controls().at(kShares);
    shares.enabled = !cache;
    shares.toolTip = cache ? QObject::tr("A cache has a single part (the KV cache, or the mLSTM state), so its share is always 100 %. "
                                         "The axis is logarithmic instead: the KV cache grows with T, the mLSTM state does not.")
                           : QObject::tr("Each bar as shares of its total. The numbers above the bars are the sequence-mix share.");
}

ModelConfig FlopBreakdownFigure::presetConfig(const QString& name, Family family) const {
    const QString key = controls().choice(name);
    for (const Preset& p : presets(family))
        if (p.label == key) return p.config;
    return family == Family::Xlstm ? makeStudyConfig(Family::Xlstm, 2048, 24, 8) : makeStudyConfig(Family::Transformer, 2048, 24, 16);
}

bool FlopBreakdownFigure::selectConfigs(const ModelConfig& transformer, const ModelConfig& xlstm) {
    auto keyOf = [](const ModelConfig& config) {
        for (const Preset& p : presets(config.family))
            if (p.config == config) return p.label;
        return QString();
    };
    const QString t = keyOf(transformer), x = keyOf(xlstm);
    if (t.isEmpty() || x.isEmpty()) return false;
    return controls().set(kTransformerPreset, t) && controls().set(kXlstmPreset, x);
}

void FlopBreakdownFigure::draw(const FigureInput& in) {
    refresh(in);
    convention_ = in.study->convention();
    transformer_ = presetConfig(kTransformerPreset, Family::Transformer);
    xlstm_ = presetConfig(kXlstmPreset, Family::Xlstm);
    const Metric metric = this->metric();
    const Theme& theme = Theme::current();
    const bool cache = metric == Metric::CacheBytes;
    // The cache has one part per model: its share would be 100 % for every bar.
    const bool percent = controls().on(kShares) && !cache;
    // The bars of each chart: each preset over the contexts, or every model side by side at a context.
    const bool sideBySide = controls().choice(kCompare) == QLatin1String("models");
    struct ChartBars {
        QString title;
        QColor color;
        QString seqMixName;
        std::vector<Bar> bars;
    };
    std::array<ChartBars, 2> charts;
    const auto partName = [&](bool recurrent) {
        if (cache) return recurrent ? QObject::tr("mLSTM state (C, n, m per head)") : QObject::tr("KV cache");
        if (metric == Metric::DecodeStepBytes) return recurrent ? QObject::tr("mLSTM cell (state read)") : QObject::tr("Attention (KV cache read)");
        return recurrent ? QObject::tr("mLSTM cell") : QObject::tr("Attention core");
    };
    if (sideBySide) {
        for (std::size_t k = 0; k < charts.size(); ++k) {
            const double T = kSideBySideContexts[k];
            ChartBars& c = charts[k];
            c.title = QObject::tr("The models at T = %1").arg(contextLabel(T));
            c.color = theme.accent;
            c.seqMixName = cache ? QObject::tr("Cache or state") : metric == Metric::DecodeStepBytes ? QObject::tr("Sequence mix (cache read)")
                                                                                                       : QObject::tr("Sequence mix");
            for (const ModelConfig* cfg : {&transformer_, &xlstm_})
                c.bars.push_back({QString::fromUtf8(familyLabel(cfg->family).data()), barValues(*cfg, T, metric, convention_)});
            for (const auto& spec : in.study->specs())
                c.bars.push_back({wrappedName(QString::fromStdString(spec.name)), barValues(spec.spec, T, metric, convention_)});
        }
    } else {
        for (const ModelConfig* cfg : {&transformer_, &xlstm_}) {
            ChartBars& c = charts[cfg == &xlstm_ ? 1 : 0];
            c.title = QStringLiteral("%1 %2").arg(QString::fromUtf8(familyLabel(cfg->family).data()),
                                                 formatCount(static_cast<double>(countParameters(*cfg).total())));
            c.color = theme.family(cfg->family);
            c.seqMixName = partName(cfg->family == Family::Xlstm);
            for (double T : contexts()) c.bars.push_back({contextLabel(T), barValues(*cfg, T, metric, convention_)});
        }
    }
    // One scale for both charts, so the bars compare across families.
    double maxTotal = 0, minTotal = std::numeric_limits<double>::infinity();
    bool anyShared = false;  // a model with shared transformer blocks: their part gets a legend entry
    for (const ChartBars& c : charts)
        for (const Bar& b : c.bars) {
            const double total = barTotal(b.values);
            maxTotal = std::max(maxTotal, total);
            if (total > 0) minTotal = std::min(minTotal, total);
            anyShared = anyShared || b.values[3] > 0;
        }
    anyShared = anyShared && !cache;
    if (!std::isfinite(minTotal)) minTotal = 1;
    const bool flops = metric == Metric::ForwardFlopsPerToken;
    const double unit = maxTotal >= 1e9 ? 1e9 : (maxTotal >= 1e6 ? 1e6 : 1e3);
    const QString unitName = flops ? (unit == 1e9 ? QObject::tr("GFLOP per token") : QObject::tr("MFLOP per token"))
                                   : (unit == 1e9 ? QObject::tr("GB") : (unit == 1e6 ? QObject::tr("MB") : QObject::tr("kB")));
    // The cache spans decades (MB of mLSTM state, tens of GB of KV cache at 128k): a log axis over
    // whole decades, with room above the largest bar for its label and at least half a decade
    // below the smallest, so that it stands tall.
    const double logLo = std::floor(std::log10(minTotal) - 0.5);
    const double logHi = std::ceil(std::log10(maxTotal) + 0.3);
    for (std::size_t k = 0; k < charts.size(); ++k) {
        const ChartBars& bars = charts[k];
        QChart* chart = k == 1 ? xlstmChart_ : transformerChart_;
        QMetaObject::Connection& placing = placing_[k];
        clearChart(chart, placing);
        theme.applyTo(chart);
        chart->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);  // filled swatches: bars are areas
        auto* linear = new QBarSet(QObject::tr("Linear layers"));
        // The cache metric has one part: the KV cache of attention, the fixed-size state of the mLSTM.
        auto* seqMix = new QBarSet(bars.seqMixName);
        // "Other": norms, activations, embedding (the Explain pane lists them); short, so the legend fits.
        auto* other = new QBarSet(QObject::tr("Other"));
        // Shared transformer blocks (Zamba2): each block's weights counted once, its work at every use.
        auto* shared = new QBarSet(QObject::tr("Shared blocks"));
        linear->setColor(theme.muted);
        seqMix->setColor(bars.color);
        other->setColor(theme.grid.darker(115));
        shared->setColor(theme.highlight);
        QStringList categories;
        std::vector<double> tops;  // where each label goes, in axis units
        QStringList texts;
        for (const Bar& bar : bars.bars) {
            categories << bar.category;
            const auto& v = bar.values;
            const double total = barTotal(v);
            *shared << v[3] / unit;
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
        if (anyShared) series->append(shared); else delete shared;
        series->setBarWidth(0.7);
        chart->addSeries(series);
        auto* x = new QBarCategoryAxis();
        x->append(categories);
        x->setTitleText(sideBySide ? QObject::tr("Model") : QObject::tr("Context length T"));
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
            logAxis->setTitleText(QObject::tr("Bytes (log scale)"));
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
            y->setTitleText(percent ? QObject::tr("Share of the total") : unitName);
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
        chart->setTitle(bars.title);
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
        const QColor color = bars.color;
        placing = QObject::connect(chart, &QChart::plotAreaChanged, chart,
                                   [chart, series, labels, tops, color] { placeValueLabels(chart, series, labels, tops, color); });
        placeValueLabels(chart, series, labels, tops, color);
    }
}

}  // namespace scalex::figures
