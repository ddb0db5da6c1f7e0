#include "app/figures/views/InferenceFigure.h"

#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/accounting/ParamCount.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/analysis/Study.h"

namespace scalex::figures {

using accounting::Family;
using inference::Stage;

namespace {

constexpr const char* kConfigs = ":/scalex/datasets/paper/model_configs.csv";

const QString kStage = QStringLiteral("stage");
const QString kBatch = QStringLiteral("batch");
const QString kTransformer = QStringLiteral("transformer");
const QString kXlstm = QStringLiteral("xlstm");
const QString kAccelerator = QStringLiteral("accelerator");
const QString kBudget = QStringLiteral("budget");
const QString kPrefill = QStringLiteral("prefill");
const QString kFactor = QStringLiteral("factor");
const QString kLoss = QStringLiteral("loss");
const QString kAllBatches = QStringLiteral("all");
// The keys of the choices are their untranslated texts, as recipes kept them before there were keys.
const QString kTimeToFirstToken = QStringLiteral("Time to first token");
const QString kStepTime = QStringLiteral("Step time");
const QString kSizes = QStringLiteral("TTFT and step time (Fig. 6)");
const QString kRooflineEstimate = QStringLiteral("7B (roofline estimate)");

// Without measurements: the study's 7B models.
accounting::ModelConfig fallbackModel(Family f) {
    return f == Family::Xlstm ? accounting::makeStudyConfig(Family::Xlstm, 4096, 32, 8)
                              : accounting::makeStudyConfig(Family::Transformer, 4096, 32, 32);
}

// The study's first set of measurements, the models its df_dict files leave without an
// architecture given the appendix's nearest one (the measured xLSTMs run chunk 128).
std::optional<data::InferenceData> shownData(const analysis::Study& study) {
    if (study.inferenceSets().empty()) return std::nullopt;
    data::InferenceData data = study.inferenceSets().front().data;
    if (auto table = data::loadAppendixConfigs(QString::fromLatin1(kConfigs), nullptr)) data::attachAppendixArchitectures(data, *table, 128);
    return data;
}

}  // namespace

InferenceFigure::InferenceFigure() {
    for (auto*& c : charts_) c = makeChart();
    // Until there are measurements the charts show roofline estimates of the appendix's 7B models.
    batches_ = {textChoice(QStringLiteral("1"))};
    transformers_ = {{kRooflineEstimate, QObject::tr("7B (roofline estimate)")}};
    xlstms_ = transformers_;
    controls().add(choiceControl(kStage, QObject::tr("Show"),
                                 {{kTimeToFirstToken, QObject::tr("Time to first token")},
                                  {kStepTime, QObject::tr("Step time")},
                                  {kSizes, QObject::tr("TTFT and step time (Fig. 6)")}},
                                 kTimeToFirstToken));
    controls().add(choiceControl(kBatch, QObject::tr("Batch"), batches_, batches_.front().key));
    controls().add(choiceControl(kTransformer, QObject::tr("Transformer"), transformers_, transformers_.front().key));
    controls().add(choiceControl(kXlstm, QObject::tr("xLSTM"), xlstms_, xlstms_.front().key));
    std::vector<ControlChoice> accelerators;
    for (const auto& a : analysis::paperAccelerators()) accelerators.push_back(textChoice(QString::fromStdString(a.name)));
    controls().add(choiceControl(kAccelerator, QObject::tr("Accelerator"), accelerators, QStringLiteral("H100")));
    controls().add(textControl(kBudget, QObject::tr("Budget (ms) for the shown stage"), QStringLiteral("50")));
    controls().add(textControl(kPrefill, QObject::tr("Prefill length"), QStringLiteral("8192")));
    controls().add(textControl(kFactor, QObject::tr("xLSTM advantage factor"), QStringLiteral("2")));
    // The fit's residuals, as `scalex fit runtime --loss`.
    controls().add(choiceControl(kLoss, QObject::tr("Fit residuals"),
                                 {{QStringLiteral("l1"), QObject::tr("absolute relative (l1)")},
                                  {QStringLiteral("l2"), QObject::tr("squared relative (l2)")}},
                                 analysis::RuntimeFitOptions{}.robust ? QStringLiteral("l1") : QStringLiteral("l2")));
}

analysis::RuntimeFitOptions InferenceFigure::options() const {
    analysis::RuntimeFitOptions options;
    options.robust = controls().choice(kLoss) == QLatin1String("l1");
    return options;
}

std::vector<QChart*> InferenceFigure::charts() const {
    // The utilisation chart has nothing to show until measurements are fitted.
    if (!data_) return {charts_[0], charts_[1]};
    return {charts_[0], charts_[1], charts_[2]};
}

QChart* InferenceFigure::utilisationChart() const { return charts_[2]; }

std::vector<QChart*> InferenceFigure::windowCharts() const { return {charts_[0], charts_[1], charts_[2]}; }

QJsonObject InferenceFigure::jobControls() const { return {{kLoss, controls().choice(kLoss)}}; }

void InferenceFigure::enableControls() {
    controls().at(kTransformer).enabled = !sizesLayout();
    controls().at(kXlstm).enabled = !sizesLayout();
}

std::vector<ViewFigure::Action> InferenceFigure::actions() const {
    Action load{QStringLiteral("loadMeasurements"), QObject::tr("Load measurements…"), QObject::tr("Load inference measurements"),
                QObject::tr("CSV (*.csv)"), QString(), QString()};
    load.projectData = data::DataFileKind::InferenceMeasurements;
    return {load};
}

void InferenceFigure::refresh(const FigureInput& in) {
    std::optional<DataKey> key;
    if (!in.study->inferenceSets().empty()) {
        const auto& set = in.study->inferenceSets().front();
        key = DataKey{set.name, set.source, set.csv, set.data.points.size()};
    }
    if (key != shownKey_) {
        shownKey_ = key;
        batches_.clear();
        transformers_.clear();
        xlstms_.clear();
        if (const auto data = shownData(*in.study)) {
            std::set<double> batches;
            for (const auto& p : data->points) batches.insert(p.batch);
            batches_.push_back({kAllBatches, QObject::tr("all")});
            for (double b : batches) batches_.push_back(textChoice(QString::number(b)));
            for (const auto& m : data->models)
                if (m.config) (m.family == Family::Xlstm ? xlstms_ : transformers_).push_back(textChoice(QString::fromStdString(m.model)));
        } else {
            batches_.push_back(textChoice(QStringLiteral("1")));
            transformers_.push_back({kRooflineEstimate, QObject::tr("7B (roofline estimate)")});
            xlstms_.push_back({kRooflineEstimate, QObject::tr("7B (roofline estimate)")});
        }
        // New measurements: every batch size, and the largest of each family first, as the paper's Fig. 6.
        controls().at(kBatch).value = batches_.front().key;
        controls().at(kTransformer).value = transformers_.empty() ? QString() : transformers_.back().key;
        controls().at(kXlstm).value = xlstms_.empty() ? QString() : xlstms_.back().key;
    }
    controls().setChoices(kBatch, batches_);
    controls().setChoices(kTransformer, transformers_);
    controls().setChoices(kXlstm, xlstms_);
    enableControls();
}

JobOf<InferenceFigure::Answer> InferenceFigure::job(const FigureInput& in) const {
    return [data = shownData(*in.study), options = options()](const fit::FitControl&) -> Answer {
        Answer answer;
        answer.data = data;
        if (data) answer.fits = analysis::runtimeFitAnalysis(*data, options);
        return answer;
    };
}

ViewFigure::TablesJob InferenceFigure::tablesJob(const FigureInput&) const {
    return [fits = fits_](const fit::FitControl&) {
        return std::vector<FigureTable>{{QStringLiteral("fits"), QObject::tr("Runtime model of every measured model and stage"),
                                         analysis::runtimeFitTable(fits)}};
    };
}

void InferenceFigure::take(Answer answer) {
    Answer a = std::move(answer);
    data_ = std::move(a.data);
    fits_ = std::move(a.fits);
}

const inference::StageFit* InferenceFigure::fitOf(const std::string& model, Stage stage) const {
    const auto* s = fits_.find(model, stage);
    return s ? &s->fit : nullptr;
}

Stage InferenceFigure::stage() const {
    if (sizesLayout()) return Stage::Prefill;
    return controls().choice(kStage) == kStepTime ? Stage::Decode : Stage::Prefill;
}

bool InferenceFigure::sizesLayout() const { return controls().choice(kStage) == kSizes; }

double InferenceFigure::batch() const {
    const QString key = controls().choice(kBatch);
    return key == kAllBatches ? 0.0 : key.toDouble();
}

void InferenceFigure::drawModel(PlotChart* chart, const std::string& model, Family family) {
    const Theme& theme = Theme::current();
    const Stage stage = this->stage();
    chart->clearSeries();
    chart->setAxes({QObject::tr("Prefill tokens"), true, 100, 20000},
                   {stage == Stage::Prefill ? QObject::tr("TTFT (s)") : QObject::tr("Step time (s)"), true, 1e-3, 10});
    const data::InferenceModel* m = data_ ? data_->find(model) : nullptr;
    const accounting::ModelConfig config = m && m->config ? *m->config : fallbackModel(family);
    const QString label = m ? QString::fromStdString(model)
                            : QObject::tr("%1 7B (roofline)").arg(QString::fromUtf8(accounting::familyLabel(family).data()));
    chart->setTitle(label);
    std::vector<double> batches;
    if (batch() > 0)
        batches.push_back(batch());
    else
        for (const ControlChoice& c : controls().at(kBatch).choices)
            if (c.key != kAllBatches) batches.push_back(c.key.toDouble());
    const auto* fit = m ? fitOf(model, stage) : nullptr;
    inference::StageModel stageModel;
    if (fit && fit->ok) {
        stageModel = fit->model;
    } else {
        const auto rates = analysis::acceleratorRates(analysis::paperAcceleratorOr(controls().choice(kAccelerator).toStdString()), options());
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
            curve.push_back({T, analysis::stageSeconds(stage, stageModel, config, b, T, options())});
        if (!measured.empty()) chart->addScatter(QObject::tr("B=%1").arg(b), color, measured, 6);
        auto* line = chart->addLine(measured.empty() ? QObject::tr("B=%1").arg(b) : QString(), color, curve, 1.5);
        if (!measured.empty()) PlotChart::hideFromLegend(chart, line);
    }
    chart->fitRangesToData(0.05);
}

void InferenceFigure::drawSizes(PlotChart* chart, Stage stage) {
    const Theme& theme = Theme::current();
    const double b = std::max(1.0, batch());
    chart->clearSeries();
    chart->setTitle(stage == Stage::Prefill ? QObject::tr("Time to first token, B = %1").arg(b) : QObject::tr("Step time, B = %1").arg(b));
    chart->setAxes({QObject::tr("Prefill tokens"), true, 100, 20000},
                   {stage == Stage::Prefill ? QObject::tr("TTFT (s)") : QObject::tr("Step time (s)"), true, 1e-3, 10});
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
                    lines.push_back({QObject::tr("%1 %2").arg(QString::fromUtf8(accounting::familyLabel(row.config.family).data()), formatCount(n)),
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
    const auto rates = analysis::acceleratorRates(analysis::paperAcceleratorOr(controls().choice(kAccelerator).toStdString()), options());
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
            curve.push_back({T, analysis::stageSeconds(stage, model, l.config, b, T, options())});
        chart->addLine(l.name, color, curve, 1.5, l.style);
        if (!measured.empty()) PlotChart::hideFromLegend(chart, chart->addScatter(l.name, color, measured, 5));
    }
    chart->fitRangesToData(0.05);
}

void InferenceFigure::draw(const FigureInput& in) {
    refresh(in);
    summary_ = data_ && !in.study->inferenceSets().empty() ? QObject::tr("%1: %2 points of %3 models")
                                                                  .arg(QString::fromStdString(in.study->inferenceSets().front().name))
                                                                  .arg(data_->points.size())
                                                                  .arg(data_->models.size())
                                                            : QString();
    const Theme& theme = Theme::current();
    if (sizesLayout()) {
        drawSizes(charts_[0], Stage::Prefill);
        drawSizes(charts_[1], Stage::Decode);
    } else {
        drawModel(charts_[0], controls().choice(kTransformer).toStdString(), Family::Transformer);
        drawModel(charts_[1], controls().choice(kXlstm).toStdString(), Family::Xlstm);
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
    const auto acc = analysis::paperAcceleratorOr(controls().choice(kAccelerator).toStdString());
    PlotChart* u = charts_[2];
    u->clearSeries();
    u->setAxes({QObject::tr("Parameters"), true, 1e8, 1e10, true},
               {stage == Stage::Prefill ? QObject::tr("α_eff / α_acc") : QObject::tr("β_eff / β_acc"), true, 0.05, 1.5});
    // Short enough for the narrowest chart beside the deployment questions.
    u->setTitle(stage == Stage::Prefill ? QObject::tr("Attained share of %1 FLOP/s").arg(acc.name.c_str())
                                        : QObject::tr("Attained share of %1 bandwidth").arg(acc.name.c_str()));
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
        // Without measurements the curves assume the runtime options' share of the roofs (the
        // roofline bound itself by default, as `scalex predict`): show that.
        const double assumed = stage == Stage::Prefill ? options().alphaFraction : options().betaFraction;
        u->addLine(QObject::tr("assumed without measurements (%1 %)").arg(assumed * 100), theme.muted, {{1e8, assumed}, {1e10, assumed}},
                   1.5, Qt::DashLine);
    }
    answerDeployment();
}

void InferenceFigure::answerDeployment() {
    const Stage stage = this->stage();
    const double budgetMs = controls().text(kBudget).toDouble(), prefill = controls().text(kPrefill).toDouble(),
                 factor = controls().text(kFactor).toDouble();
    if (!(budgetMs > 0) || !(prefill >= 0) || !(factor > 1)) {
        deploymentAnswer_ = QObject::tr("Enter a positive budget, a prefill length and a factor above 1.");
        return;
    }
    const double batch = std::max(1.0, this->batch());
    const auto acc = analysis::paperAcceleratorOr(controls().choice(kAccelerator).toStdString());
    // Rates: interpolated over the measured models of a family when there are fits, else the
    // accelerator's roofs at the runtime options' share.
    auto ratesFor = [this, &acc](Family family) { return analysis::fittedOrRooflineRates(fits_, family, acc, options()); };
    QString text;
    QString error;
    const auto table = data::loadAppendixConfigs(QString::fromLatin1(kConfigs), &error);
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const auto candidates = table ? analysis::appendixCandidates(*table, f, false) : std::vector<inference::Candidate>{};
        const auto answer =
            analysis::largestModelWithinBudget(candidates, stage, budgetMs / 1000.0, batch, prefill, ratesFor(f), options());
        const QString name = QString::fromUtf8(accounting::familyLabel(f).data());
        if (answer.best) {
            const auto& e = answer.evaluated[*answer.best];
            text += QObject::tr("Largest %1 within %2 ms: <b>%3</b> (%4 ms).<br>")
                        .arg(name)
                        .arg(budgetMs)
                        .arg(formatCount(e.params))
                        .arg(e.seconds * 1000, 0, 'f', 1);
        } else {
            text += QObject::tr("No %1 of the appendix sizes meets %2 ms.<br>").arg(name).arg(budgetMs);
        }
    }
    const auto t = fallbackModel(Family::Transformer), x = fallbackModel(Family::Xlstm);
    const auto cross = analysis::xlstmCrossover(t, ratesFor(Family::Transformer)(t), x, ratesFor(Family::Xlstm)(x), stage, batch,
                                                factor, options(), 1, 1 << 20);
    text += cross.context ? QObject::tr("The 7B xLSTM is %1× faster than the 7B Transformer from a context of <b>%2</b> tokens (batch %3).")
                                .arg(factor)
                                .arg(*cross.context, 0, 'f', 0)
                                .arg(batch)
                          : QObject::tr("The 7B xLSTM does not reach %1× the Transformer's speed below 1M tokens.").arg(factor);
    deploymentAnswer_ = text;
}

}  // namespace scalex::figures
