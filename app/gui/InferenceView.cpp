#include "app/gui/InferenceView.h"
#include "app/gui/FlowLayout.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <set>

#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/gui/PlotView.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/accounting/ParamCount.h"
#include "core/inference/Deployment.h"

namespace scalex::gui {

using accounting::Family;
using inference::Stage;

namespace {

constexpr const char* kConfigs = ":/scalex/datasets/paper/model_configs.csv";


// Without measurements: the study's 7B models.
accounting::ModelConfig fallbackModel(Family f) {
    return f == Family::Xlstm ? accounting::makeStudyConfig(Family::Xlstm, 4096, 32, 8)
                              : accounting::makeStudyConfig(Family::Transformer, 4096, 32, 32);
}

// Charts beside each other are stacked below a width of this (at the normal font) each: a
// narrower chart cuts its title and legend short.
constexpr int kMinChartWidth = 350;


}  // namespace

InferenceView::InferenceView(QWidget* parent) : ViewPanel(parent) {
    for (auto*& c : charts_) c = new PlotChart();
    for (int i = 0; i < 3; ++i) {
        views_[i] = new PlotView(charts_[i], this);
        // A chart view's size hint is the size it last had: taken at its word, a chart the view
        // once stacked (and made tall) keeps the page taller than the window after unstacking.
        views_[i]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    }
    stage_ = new QComboBox(this);
    stage_->setObjectName(QStringLiteral("stage"));
    stage_->addItem(tr("Time to first token"), static_cast<int>(Stage::Prefill));
    stage_->addItem(tr("Step time"), static_cast<int>(Stage::Decode));
    stage_->addItem(tr("TTFT and step time (Fig. 6)"), -1);
    batch_ = new QComboBox(this);
    batch_->setObjectName(QStringLiteral("batch"));
    transformer_ = new QComboBox(this);
    transformer_->setObjectName(QStringLiteral("transformer"));
    xlstm_ = new QComboBox(this);
    xlstm_->setObjectName(QStringLiteral("xlstm"));
    accelerator_ = new QComboBox(this);
    accelerator_->setObjectName(QStringLiteral("accelerator"));
    for (const auto& a : inference::paperAccelerators()) accelerator_->addItem(QString::fromStdString(a.name));
    accelerator_->setCurrentText(QStringLiteral("H100"));
    load_ = new QPushButton(tr("Load measurements…"), this);
    budget_ = new QLineEdit(QStringLiteral("50"), this);
    budget_->setObjectName(QStringLiteral("budget"));
    prefill_ = new QLineEdit(QStringLiteral("8192"), this);
    prefill_->setObjectName(QStringLiteral("prefill"));
    factor_ = new QLineEdit(QStringLiteral("2"), this);
    factor_->setObjectName(QStringLiteral("factor"));
    answer_ = new QLabel(this);
    answer_->setWordWrap(true);
    answer_->setTextFormat(Qt::RichText);
    status_ = new QLabel(this);
    status_->setWordWrap(true);

    // The controls wrap onto more lines on a narrow window; every choice stays whole.
    auto* controls = new FlowLayout();
    for (auto [label, box] : {std::pair{tr("Show"), stage_}, {tr("Batch"), batch_}, {tr("Transformer"), transformer_},
                              {tr("xLSTM"), xlstm_}, {tr("Accelerator"), accelerator_}})
        controls->addLabelled(label, box);
    controls->addWidget(load_);

    auto* form = new QFormLayout();
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Budget (ms) for the shown stage"), budget_);
    form->addRow(tr("Prefill length"), prefill_);
    form->addRow(tr("xLSTM advantage factor"), factor_);
    auto* deployBox = new QWidget(this);
    auto* deploy = new QVBoxLayout(deployBox);
    deploy->setContentsMargins(0, 0, 0, 0);
    deploy->addWidget(new QLabel(tr("<b>Deployment questions</b>"), this));
    deploy->addLayout(form);
    deploy->addWidget(answer_);
    deploy->addStretch(1);

    // The two families side by side, equally wide, and below them the utilisation and the
    // deployment questions; on a narrow window (presentation mode at 1024 px) each row stacks.
    auto* models = new QHBoxLayout();
    models->addWidget(views_[0], 1);
    models->addWidget(views_[1], 1);
    auto* lower = new QHBoxLayout();
    lower->addWidget(views_[2], 1);
    lower->addWidget(deployBox, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(models, 1);
    layout->addLayout(lower, 1);
    layout->addWidget(status_);
    stackWhenNarrow(models, kMinChartWidth);
    stackWhenNarrow(lower, kMinChartWidth);
    for (PlotChart* chart : charts_)
        connect(chart, &QChart::plotAreaChanged, this, [chart] { chart->thinTickLabels(); }, Qt::QueuedConnection);

    connect(load_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load inference measurements"), QString(), tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !loadMeasurements(path, &error)) status_->setText(error);
    });
    for (QComboBox* b : {stage_, batch_, transformer_, xlstm_, accelerator_})
        connect(b, &QComboBox::currentIndexChanged, this, &InferenceView::redraw);
    for (QLineEdit* e : {budget_, prefill_, factor_}) connect(e, &QLineEdit::editingFinished, this, &InferenceView::answerDeployment);
    batch_->addItem(QStringLiteral("1"), 1.0);
    // Until measurements are loaded the charts show roofline estimates of the appendix's 7B models.
    transformer_->addItem(tr("7B (roofline estimate)"));
    xlstm_->addItem(tr("7B (roofline estimate)"));
    redraw();
}

QChart* InferenceView::primaryChart() const { return charts_[0]; }
std::vector<QChart*> InferenceView::charts() const {
    // The utilisation chart has nothing to show until measurements are fitted.
    if (!data_) return {charts_[0], charts_[1]};
    return {charts_[0], charts_[1], charts_[2]};
}

bool InferenceView::loadMeasurements(const QString& path, QString* error) {
    auto set = data::loadProjectInference(path, QFileInfo(path).completeBaseName().toStdString());
    if (!set) {
        if (error) *error = QString::fromStdString(set.error().toString());
        return false;
    }
    setMeasurements(set->data, QFileInfo(path).fileName());
    emit measurementsLoaded(*set);
    return true;
}

void InferenceView::showMeasurements(const data::ProjectInference* set) {
    if (set) {
        setMeasurements(set->data, QString::fromStdString(set->name));
        return;
    }
    if (!data_) return;
    data_.reset();
    fits_.clear();
    {
        QSignalBlocker a(batch_), b(transformer_), c(xlstm_);
        batch_->clear();
        batch_->addItem(QStringLiteral("1"), 1.0);
        transformer_->clear();
        xlstm_->clear();
        transformer_->addItem(tr("7B (roofline estimate)"));
        xlstm_->addItem(tr("7B (roofline estimate)"));
    }
    status_->clear();
    redraw();
}

void InferenceView::setMeasurements(data::InferenceData loaded, const QString& label) {
    // Models the df_dict files leave without an architecture take the appendix's nearest one.
    if (auto table = data::loadAppendixConfigs(QString::fromLatin1(kConfigs), nullptr))
        data::attachAppendixArchitectures(loaded, *table, 128);  // the measured xLSTMs run chunk 128
    data_ = std::move(loaded);
    {
        QSignalBlocker a(batch_), b(transformer_), c(xlstm_);
        std::set<double> batches;
        for (const auto& p : data_->points) batches.insert(p.batch);
        batch_->clear();
        batch_->addItem(tr("all"), 0.0);
        for (double b : batches) batch_->addItem(QString::number(b), b);
        transformer_->clear();
        xlstm_->clear();
        for (const auto& m : data_->models)
            if (m.config) (m.family == Family::Xlstm ? xlstm_ : transformer_)->addItem(QString::fromStdString(m.model));
        // The largest of each family first on screen, as the paper's Fig. 6.
        transformer_->setCurrentIndex(transformer_->count() - 1);
        xlstm_->setCurrentIndex(xlstm_->count() - 1);
        batch_->setCurrentIndex(0);
    }
    refit();
    status_->setText(tr("%1: %2 points of %3 models").arg(label).arg(data_->points.size()).arg(data_->models.size()));
    redraw();
}

const inference::StageFit* InferenceView::fitOf(const std::string& model, Stage stage) const {
    const auto it = fits_.find({model, static_cast<int>(stage)});
    return it == fits_.end() ? nullptr : &it->second;
}

void InferenceView::refit() {
    fits_.clear();
    if (!data_) return;
    const inference::WorkSettings settings;
    for (const auto& m : data_->models) {
        if (!m.config) continue;
        for (Stage stage : {Stage::Prefill, Stage::Decode}) {
            std::vector<inference::RuntimeSample> samples;
            for (const auto& p : data_->points) {
                if (p.model != m.model) continue;
                const double ms = stage == Stage::Prefill ? p.ttftMs : p.stepMs;
                if (ms > 0) samples.push_back({p.batch, p.prefill, ms / 1000.0});
            }
            fits_[{m.model, static_cast<int>(stage)}] =
                inference::fitStage(*m.config, stage, samples, settings, inference::defaultFitOptions(m.family, stage));
        }
    }
}

Stage InferenceView::stage() const {
    return sizesLayout() ? Stage::Prefill : static_cast<Stage>(stage_->currentData().toInt());
}

bool InferenceView::sizesLayout() const { return stage_->currentData().toInt() < 0; }

void InferenceView::drawModel(PlotChart* chart, const std::string& model, Family family) {
    const Theme& theme = Theme::current();
    const Stage stage = this->stage();
    const inference::WorkSettings settings;
    chart->clearSeries();
    chart->setAxes({tr("Prefill tokens"), true, 100, 20000}, {stage == Stage::Prefill ? tr("TTFT (s)") : tr("Step time (s)"), true, 1e-3, 10});
    const data::InferenceModel* m = data_ ? data_->find(model) : nullptr;
    const accounting::ModelConfig config = m && m->config ? *m->config : fallbackModel(family);
    const QString label = m ? QString::fromStdString(model) : tr("%1 7B (roofline)").arg(QString::fromUtf8(accounting::familyLabel(family).data()));
    chart->setTitle(label);
    std::vector<double> batches;
    if (batch_->currentData().toDouble() > 0)
        batches.push_back(batch_->currentData().toDouble());
    else
        for (int i = 1; i < batch_->count(); ++i) batches.push_back(batch_->itemData(i).toDouble());
    const auto* fit = m ? fitOf(model, stage) : nullptr;
    inference::StageModel stageModel;
    if (fit && fit->ok) {
        stageModel = fit->model;
    } else {
        const auto acc = inference::paperAccelerator(accelerator_->currentText().toStdString()).value_or(inference::paperAccelerators().back());
        const auto rates = inference::ratesFromAccelerator(acc, 0.4, 0.6);
        stageModel = stage == Stage::Prefill ? rates.prefill : rates.decode;
    }
    const int nb = static_cast<int>(batches.size());
    for (int i = 0; i < nb; ++i) {
        const double b = batches[static_cast<std::size_t>(i)];
        const QColor color = theme.sequential(i, nb);
        std::vector<QPointF> measured, curve;
        if (m)
            for (const auto& p : data_->points) {
                const double ms = stage == Stage::Prefill ? p.ttftMs : p.stepMs;
                if (p.model == model && p.batch == b && ms > 0 && p.prefill > 0) measured.push_back({p.prefill, ms / 1000.0});
            }
        for (double T = 128; T <= 16384 * 1.01; T *= std::pow(2.0, 0.25))
            curve.push_back({T, stageModel.time(inference::stageWork(stage, config, b, T, settings), b)});
        if (!measured.empty()) chart->addScatter(tr("B=%1").arg(b), color, measured, 6);
        auto* line = chart->addLine(measured.empty() ? tr("B=%1").arg(b) : QString(), color, curve, 1.5);
        if (!measured.empty()) PlotChart::hideFromLegend(chart, line);
    }
    chart->fitRangesToData(0.05);
}

void InferenceView::drawSizes(PlotChart* chart, Stage stage) {
    const Theme& theme = Theme::current();
    const inference::WorkSettings settings;
    const double b = std::max(1.0, batch_->currentData().toDouble());
    chart->clearSeries();
    chart->setTitle(stage == Stage::Prefill ? tr("Time to first token, B = %1").arg(b) : tr("Step time, B = %1").arg(b));
    chart->setAxes({tr("Prefill tokens"), true, 100, 20000}, {stage == Stage::Prefill ? tr("TTFT (s)") : tr("Step time (s)"), true, 1e-3, 10});
    struct Line {
        QString name;
        Family family;
        Qt::PenStyle style;
        accounting::ModelConfig config;
        std::string measured;  // the model's name in the measurements; empty: the roofline estimate
        double params;
    };
    std::vector<Line> lines;
    if (data_) {
        for (const auto& m : data_->models)
            if (m.config) {
                const Qt::PenStyle style = m.family == Family::Xlstm ? Qt::DashLine : (m.familyTag == "llama3" ? Qt::DotLine : Qt::SolidLine);
                lines.push_back({QString::fromStdString(m.model), m.family, style, *m.config, m.model,
                                 static_cast<double>(accounting::countParameters(*m.config).total())});
            }
    } else {
        // The appendix's Token/Param models of 400M, 1.4B, 2.7B and 7B parameters.
        QString error;
        if (const auto table = data::loadAppendixConfigs(QString::fromLatin1(kConfigs), &error))
            for (const auto& row : *table)
                if (row.experimentSet == "tokenparam" && row.paramsM >= 400 && (row.paramsM < 800 || row.paramsM > 1000)) {
                    const double n = static_cast<double>(accounting::countParameters(row.config).total());
                    lines.push_back({tr("%1 %2").arg(QString::fromUtf8(accounting::familyLabel(row.config.family).data()), formatCount(n)),
                                     row.config.family, row.config.family == Family::Xlstm ? Qt::DashLine : Qt::SolidLine, row.config,
                                     std::string(), n});
                }
    }
    // Colour by size: the k-th smallest of each family (and tag) takes the k-th shade.
    std::map<std::pair<int, int>, std::vector<double>> sizes;  // (family, pen style) -> sizes
    for (const Line& l : lines) sizes[{static_cast<int>(l.family), static_cast<int>(l.style)}].push_back(l.params);
    std::size_t shades = 1;
    for (auto& [key, v] : sizes) {
        std::sort(v.begin(), v.end());
        shades = std::max(shades, v.size());
    }
    std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
        return std::tie(a.family, a.style, a.params) < std::tie(b.family, b.style, b.params);
    });
    const auto acc = inference::paperAccelerator(accelerator_->currentText().toStdString()).value_or(inference::paperAccelerators().back());
    const auto rates = inference::ratesFromAccelerator(acc, 0.4, 0.6);
    for (const Line& l : lines) {
        const auto& v = sizes[{static_cast<int>(l.family), static_cast<int>(l.style)}];
        const auto rank = static_cast<int>(std::lower_bound(v.begin(), v.end(), l.params) - v.begin());
        const QColor color = theme.sequential(rank + static_cast<int>(shades - v.size()), static_cast<int>(shades));
        const auto* fit = l.measured.empty() ? nullptr : fitOf(l.measured, stage);
        const inference::StageModel model = fit && fit->ok ? fit->model : (stage == Stage::Prefill ? rates.prefill : rates.decode);
        std::vector<QPointF> measured, curve;
        if (!l.measured.empty())
            for (const auto& p : data_->points) {
                const double ms = stage == Stage::Prefill ? p.ttftMs : p.stepMs;
                if (p.model == l.measured && p.batch == b && ms > 0 && p.prefill > 0) measured.push_back({p.prefill, ms / 1000.0});
            }
        for (double T = 128; T <= 16384 * 1.01; T *= std::pow(2.0, 0.25))
            curve.push_back({T, model.time(inference::stageWork(stage, l.config, b, T, settings), b)});
        chart->addLine(l.name, color, curve, 1.5, l.style);
        if (!measured.empty()) PlotChart::hideFromLegend(chart, chart->addScatter(l.name, color, measured, 5));
    }
    chart->fitRangesToData(0.05);
}

void InferenceView::redraw() {
    const Theme& theme = Theme::current();
    transformer_->setEnabled(!sizesLayout());
    xlstm_->setEnabled(!sizesLayout());
    if (sizesLayout()) {
        drawSizes(charts_[0], Stage::Prefill);
        drawSizes(charts_[1], Stage::Decode);
    } else {
        drawModel(charts_[0], transformer_->currentText().toStdString(), Family::Transformer);
        drawModel(charts_[1], xlstm_->currentText().toStdString(), Family::Xlstm);
        // The two families are compared across the panels: one range for both, so equal heights
        // are equal times and the ticks read alike.
        auto both = [](AxisSpec a, const AxisSpec& b) {
            a.lo = std::min(a.lo, b.lo);
            a.hi = std::max(a.hi, b.hi);
            return a;
        };
        const AxisSpec x = both(charts_[0]->xSpec(), charts_[1]->xSpec()), y = both(charts_[0]->ySpec(), charts_[1]->ySpec());
        for (PlotChart* c : {charts_[0], charts_[1]}) c->setAxes(x, y);
    }
    // Utilisation over model size.
    const Stage stage = this->stage();
    const auto acc = inference::paperAccelerator(accelerator_->currentText().toStdString()).value_or(inference::paperAccelerators().back());
    PlotChart* u = charts_[2];
    u->clearSeries();
    u->setAxes({tr("Parameters"), true, 1e8, 1e10, true}, {stage == Stage::Prefill ? tr("α_eff / α_acc") : tr("β_eff / β_acc"), true, 0.05, 1.5});
    // Short enough for the narrowest chart beside the deployment questions.
    u->setTitle(stage == Stage::Prefill ? tr("Attained share of %1 FLOP/s").arg(acc.name.c_str())
                                        : tr("Attained share of %1 bandwidth").arg(acc.name.c_str()));
    if (data_) {
        for (const std::string tag : {"llama2", "llama3", "xlstm"}) {
            std::vector<QPointF> pts;
            Family family = Family::Transformer;
            for (const auto& m : data_->models) {
                if (m.familyTag != tag || !m.config) continue;
                family = m.family;
                const auto* f = fitOf(m.model, stage);
                if (!f || !f->ok) continue;
                const double share = stage == Stage::Prefill ? f->model.rate / acc.flops : f->model.rate / acc.memoryBandwidth;
                pts.push_back({static_cast<double>(accounting::countParameters(*m.config).total()), share});
            }
            if (pts.empty()) continue;
            std::sort(pts.begin(), pts.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
            const QColor color = tag == std::string("llama3") ? theme.family(family).darker(140) : theme.family(family);
            u->addScatter(QString::fromStdString(tag), color, pts, 8);
            PlotChart::hideFromLegend(u, u->addLine(QString(), color, pts, 1.2));
        }
        u->fitRangesToData(0.15);
    } else {
        // Without measurements the curves assume 40 % of the FLOP/s and 60 % of the bandwidth: show that.
        const double assumed = stage == Stage::Prefill ? 0.4 : 0.6;
        u->addLine(tr("assumed without measurements (%1 %)").arg(assumed * 100), theme.muted, {{1e8, assumed}, {1e10, assumed}},
                   1.5, Qt::DashLine);
    }
    // The views rearrange a legend when the plot changes size; new entries in a legend of one row
    // (one batch size, then the eight models of Fig. 6) leave it as it was. Queued: the legend
    // shows its new entries once it has laid them out.
    for (PlotView* v : views_) QMetaObject::invokeMethod(v, [v] { v->arrangeLegend(); }, Qt::QueuedConnection);
    answerDeployment();
    emit explainChanged();
}

void InferenceView::answerDeployment() {
    const Stage stage = this->stage();
    const double budgetMs = budget_->text().toDouble(), prefill = prefill_->text().toDouble(), factor = factor_->text().toDouble();
    if (!(budgetMs > 0) || !(prefill >= 0) || !(factor > 1)) {
        answer_->setText(tr("Enter a positive budget, a prefill length and a factor above 1."));
        return;
    }
    const double batch = std::max(1.0, batch_->currentData().toDouble());
    const inference::WorkSettings settings;
    const auto acc = inference::paperAccelerator(accelerator_->currentText().toStdString()).value_or(inference::paperAccelerators().back());
    // Rates: interpolated over the measured models of a family when there are fits, else the
    // accelerator at 40 % of its FLOP/s and 60 % of its bandwidth.
    auto ratesFor = [this, &acc](Family family) -> inference::RatesFor {
        std::vector<inference::SizedStageModel> pre, dec;
        if (data_)
            for (const auto& m : data_->models) {
                if (m.family != family || !m.config || m.familyTag == "llama3") continue;
                const auto* p = fitOf(m.model, Stage::Prefill);
                const auto* d = fitOf(m.model, Stage::Decode);
                const double n = static_cast<double>(accounting::countParameters(*m.config).total());
                if (p && p->ok) pre.push_back({n, p->model});
                if (d && d->ok) dec.push_back({n, d->model});
            }
        if (pre.empty() || dec.empty()) {
            const auto rates = inference::ratesFromAccelerator(acc, 0.4, 0.6);
            return [rates](const accounting::ModelConfig&) { return rates; };
        }
        return [pre, dec](const accounting::ModelConfig& c) {
            const double n = static_cast<double>(accounting::countParameters(c).total());
            return inference::RuntimeRates{inference::interpolateRates(pre, n), inference::interpolateRates(dec, n)};
        };
    };
    QString text;
    QString error;
    const auto table = data::loadAppendixConfigs(QString::fromLatin1(kConfigs), &error);
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        std::vector<inference::Candidate> candidates;
        if (table)
            for (const auto& row : *table)
                if (row.config.family == f && row.experimentSet == "tokenparam")
                    candidates.push_back({QStringLiteral("%1M").arg(row.paramsM).toStdString(), row.config});
        const auto answer = inference::largestWithinBudget(candidates, stage, budgetMs / 1000.0, batch, prefill, ratesFor(f), settings);
        const QString name = QString::fromUtf8(accounting::familyLabel(f).data());
        if (answer.best) {
            const auto& e = answer.evaluated[*answer.best];
            text += tr("Largest %1 within %2 ms: <b>%3</b> (%4 ms).<br>")
                        .arg(name)
                        .arg(budgetMs)
                        .arg(formatCount(e.params))
                        .arg(e.seconds * 1000, 0, 'f', 1);
        } else {
            text += tr("No %1 of the appendix sizes meets %2 ms.<br>").arg(name).arg(budgetMs);
        }
    }
    const auto t = fallbackModel(Family::Transformer), x = fallbackModel(Family::Xlstm);
    const auto cross = inference::advantageCrossover(t, ratesFor(Family::Transformer)(t), x, ratesFor(Family::Xlstm)(x), stage, batch,
                                                     factor, settings, 1, 1 << 20);
    text += cross.context ? tr("The 7B xLSTM is %1× faster than the 7B Transformer from a context of <b>%2</b> tokens (batch %3).")
                                .arg(factor)
                                .arg(*cross.context, 0, 'f', 0)
                                .arg(batch)
                          : tr("The 7B xLSTM does not reach %1× the Transformer's speed below 1M tokens.").arg(factor);
    answer_->setText(text);
}

QString InferenceView::deploymentAnswer() const { return answer_->text(); }

QString InferenceView::explainHtml() const {
    return tr("<h3>Inference runtimes</h3>"
              "<p><b>Prefill</b> reads the prompt and builds the cache; it multiplies large matrices and is "
              "compute-bound: TTFT = FLOPs / α<sub>eff</sub> + ε.</p>"
              "<p><b>Generation</b> produces one token per step; each step streams the weights (and, for a "
              "Transformer, its whole KV cache) from memory: step = bytes / β<sub>eff</sub> + ε.</p>"
              "<p>The Transformer's step time grows with the prefill length because its KV cache grows; the "
              "xLSTM's state has a fixed size, so its step time stays flat.</p>"
              "<p>α<sub>eff</sub>/α<sub>acc</sub> is the share of the accelerator's peak that a model attains; "
              "larger models use the hardware better.</p>"
              "<p><i>TTFT and step time (Fig. 6)</i> draws both stages for several model sizes at once, "
              "colour by size, Transformers solid (Llama 3 dotted) and xLSTMs dashed, as the paper's Fig. 6.</p><p>%1</p>")
        .arg(data_ ? tr("Fitted to %1 measured points.").arg(data_->points.size())
                   : tr("No measurements loaded: curves use 40&nbsp;% of the accelerator's FLOP/s and 60&nbsp;% of its bandwidth. "
                        "Load the study's inference_results CSV to see measured points and fits."));
}

}  // namespace scalex::gui
