#include "app/figures/views/OptimalFigure.h"

#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/OptimalInputs.h"
#include "core/analysis/Study.h"
#include "core/data/Export.h"

namespace scalex::figures {

namespace {

const QString kMethod = QStringLiteral("method");
const QString kMode = QStringLiteral("mode");
const QString kValue = QStringLiteral("value");
const QString kReference = QStringLiteral("reference");
const QString kContext = QStringLiteral("context");
const QString kOvertrain = QStringLiteral("overtrain");
const QString kInference = QStringLiteral("inference");
const QString kChart = QStringLiteral("chart");

// The value a mode starts from: a budget, a model size, a loss.
QString defaultValue(const QString& mode) {
    if (mode == QLatin1String("size")) return QStringLiteral("7e9");
    if (mode == QLatin1String("loss")) return QStringLiteral("2.3");
    return QStringLiteral("1e22");
}

analysis::OptimalGiven givenOf(const QString& mode) {
    if (mode == QLatin1String("size")) return analysis::OptimalGiven::ModelSize;
    if (mode == QLatin1String("loss")) return analysis::OptimalGiven::TargetLoss;
    return analysis::OptimalGiven::Budget;
}

}  // namespace

OptimalFigure::OptimalFigure() : budgetChart_(makeChart()), pathChart_(makeChart()), computeChart_(makeChart()) {
    // In the order the window shows them (the mode before the value it resets).
    controls().add(choiceControl(kMethod, QObject::tr("Method"),
                                 {{QStringLiteral("surface"), QObject::tr("Loss surface L̂(N,D)")},
                                  {QStringLiteral("laws"), QObject::tr("IsoFLOP power laws N* = A′·H^a")}},
                                 QStringLiteral("surface"),
                                 QObject::tr("The loss surface: each series' L(N,D) fit to its runs, with the compute per token of "
                                             "its runs (the paper's models: the exact FLOP count at T). The IsoFLOP laws: fitted to "
                                             "the minima of each series' IsoFLOP profiles, with bootstrap intervals (the paper "
                                             "publishes its laws at T = 2048, 8192 and 16384 only)")));
    controls().add(choiceControl(kMode, QObject::tr("Given"),
                                 {{QStringLiteral("budget"), QObject::tr("Training budget H (FLOPs)")},
                                  {QStringLiteral("size"), QObject::tr("Model size N (parameters)")},
                                  {QStringLiteral("loss"), QObject::tr("Target loss")}},
                                 QStringLiteral("budget")));
    modeOfValue_ = QStringLiteral("budget");
    controls().add(textControl(kValue, QObject::tr("Value"), defaultValue(modeOfValue_),
                               QObject::tr("A number such as 1e22, 7e9 or 2.3")));
    // Before the context, which applies to these models alone.
    controls().add(switchControl(kReference, QObject::tr("The paper's models (Transformer, xLSTM)"), false,
                                 QObject::tr("The paper's fitted loss surfaces and IsoFLOP laws beside the study's series; on by "
                                             "default for the paper's study, where they answer for its Transformer and xLSTM")));
    std::vector<ControlChoice> contexts;
    for (double t : {2048.0, 4096.0, 8192.0, 16384.0, 32768.0, 65536.0, 131072.0}) contexts.push_back(textChoice(QString::number(t)));
    controls().add(choiceControl(kContext, QObject::tr("Context length T"), std::move(contexts), QStringLiteral("8192"),
                                 QObject::tr("The context length at which the paper's models count their training FLOPs; the "
                                             "study's series are answered at the context of their runs")))
        .editable = true;  // any length typed
    // A slider over whole percents in the window.
    controls().add(integerControl(kOvertrain, QObject::tr("Over-train: N as % of N*"), 5, 100, 100,
                                  QObject::tr("Train a model smaller than N* (percent of N*) to the same loss")));
    controls().add(textControl(kInference, QObject::tr("Inference tokens served"), QStringLiteral("0"),
                               QObject::tr("Tokens the model will process over its life (e.g. 1e13). Each costs one forward "
                                           "pass, a third of the training compute per token (about 2N FLOPs)")));
    controls().add(choiceControl(kChart, QObject::tr("Chart"),
                                 {{QStringLiteral("budget"), QObject::tr("N* and D* over the budget H")},
                                  {QStringLiteral("path"), QObject::tr("Optimal path: D over N, with tokens per parameter")},
                                  {QStringLiteral("compute"), QObject::tr("Training compute: exact count against 6ND")}},
                                 QStringLiteral("budget")));
}

void OptimalFigure::refresh(const FigureInput& in) {
    // A new study: the paper's models by default on the paper's study alone (a recipe's or the
    // user's choice, set after this, stays).
    if (in.study && in.study->runsRevision() != referenceFor_) {
        referenceFor_ = in.study->runsRevision();
        controls().at(kReference).value = in.study->isPaperStudy();
    }
    controls().at(kContext).enabled = controls().on(kReference);
    const QString mode = controls().choice(kMode);
    if (mode == modeOfValue_) return;
    modeOfValue_ = mode;
    controls().at(kValue).value = defaultValue(mode);
}

int OptimalFigure::shownChart() const {
    const QString chart = controls().choice(kChart);
    if (chart == QLatin1String("path")) return 1;
    if (chart == QLatin1String("compute")) return 2;
    return 0;
}

std::vector<QChart*> OptimalFigure::charts() const {
    switch (shownChart()) {
    case 1: return {pathChart_};
    case 2: return {computeChart_};
    default: return {budgetChart_};
    }
}

QString OptimalFigure::inputProblem(double* contextOut) const {
    bool okValue = false, okContext = false, okInference = false;
    const QString valueText = controls().text(kValue);
    const QString inferenceText = controls().text(kInference);
    const double value = valueText.trimmed().toDouble(&okValue);
    const double context = controls().choice(kContext).trimmed().toDouble(&okContext);
    const double inference = inferenceText.trimmed().toDouble(&okInference);
    if (contextOut) *contextOut = okContext && context >= 64 ? context : shownContext_;
    if (!okValue || !(value > 0)) return QObject::tr("“%1” is not a positive number.").arg(valueText);
    if (!okContext || context < 64) return QObject::tr("The context length must be a number of at least 64 tokens.");
    if (!okInference || !(inference >= 0) || !std::isfinite(inference))
        return QObject::tr("“%1” is not a number of inference tokens (0 or more, e.g. 1e13).").arg(inferenceText);
    return {};
}

bool OptimalFigure::quickJob() const { return !inputProblem().isEmpty(); }

JobOf<OptimalFigure::Answer> OptimalFigure::job(const FigureInput& in) const {
    Answer shown;
    shown.overtrainPercent = static_cast<int>(controls().number(kOvertrain));
    if (const QString why = inputProblem(&shown.shownContext); !why.isEmpty()) {
        // Nothing to compute: the problem is the answer (no series, no grids).
        shown.answer.problem = why.toStdString();
        return [shown](const fit::FitControl&) -> Answer { return shown; };
    }
    analysis::OptimalQuery query;
    query.given = givenOf(controls().choice(kMode));
    query.value = controls().text(kValue).trimmed().toDouble();
    query.context = shown.shownContext;
    query.useLaws = controls().choice(kMethod) == QLatin1String("laws");
    query.overtrainFraction = shown.overtrainPercent / 100.0;
    query.inferenceTokens = controls().text(kInference).trimmed().toDouble();
    query.paperModels = controls().on(kReference);
    query.paperStudy = in.study->isPaperStudy();
    query.fitSurfaces = false;  // the second job's (surfaceJob), unless kept from an earlier fit
    // What the job reads is copied here, on the calling thread (the study may change while it runs).
    return [table = runsForJob(in), settings = in.study->settings(), paper = in.study->paper(), query, shown](
               const fit::FitControl& control) -> Answer {
        Answer out = shown;
        out.inputs = analysis::optimalInputs(*table, settings, paper, query, control);
        out.answer = analysis::answerOptimalQuery(out.inputs, query, control);
        out.table = table;
        out.settings = settings;
        if (!out.answer.pending()) lawsWhereNoSurface(out, control);
        return out;
    };
}

void OptimalFigure::lawsWhereNoSurface(Answer& out, const fit::FitControl& control) {
    if (out.answer.query.useLaws || out.answer.problem.empty()) return;
    analysis::OptimalQuery byLaws = out.answer.query;
    byLaws.useLaws = true;
    analysis::OptimalAnswer laws = analysis::answerOptimalQuery(out.inputs, byLaws, control);
    if (!laws.problem.empty()) return;
    out.surfacesFailed = out.answer.problem;
    out.answer = std::move(laws);
}

JobOf<OptimalFigure::Answer> OptimalFigure::surfaceJob() const {
    if (!waiting_) return {};
    return [waiting = waiting_](const fit::FitControl& control) -> Answer {
        Answer out = *waiting;
        analysis::fitOptimalSurfaces(out.inputs, *out.table, out.settings, out.answer.query, control);
        out.answer = analysis::answerOptimalQuery(out.inputs, out.answer.query, control);
        lawsWhereNoSurface(out, control);
        return out;
    };
}

JobOf<ViewFigure::Taking> OptimalFigure::followUpJob() {
    return takingJobOf<Answer>(surfaceJob(), [this](Answer answer) { take(std::move(answer)); });
}

QJsonObject OptimalFigure::jobControls() const {
    QJsonObject values = controls().values();
    values.remove(kChart);  // another chart of the same answer
    return values;
}

bool OptimalFigure::answersAtOnce(const FigureInput&) const { return quickJob(); }

QString OptimalFigure::readout(const QString& name) const {
    if (name != kOvertrain) return {};
    return QObject::tr("%1 %").arg(static_cast<int>(controls().number(kOvertrain)));
}

QString OptimalFigure::summary() const {
    if (!answer_.problem.empty())
        return QStringLiteral("<span style=\"color: %1\">%2</span>")
            .arg(Theme::current().highlight.name(), QString::fromStdString(answer_.problem).toHtmlEscaped());
    QStringList parts;
    for (const QString& note : {seriesNote_, overtrainNote_, lifetimeNote_})
        if (!note.isEmpty()) parts << note;
    return parts.join(QStringLiteral("<br>"));
}

namespace {

// One model of the query's table: N, D, D/N, its training compute and the loss it reaches; a dash
// in each cell when there is none (in the loss's when no surface gives it).
ViewFigure::ShownRow modelRow(const QString& label, const QColor& color, double params, double tokens, double compute, double loss,
                              bool none = false) {
    ViewFigure::ShownRow row{{label}, color, {}};
    if (none) {
        for (int c = 1; c < 6; ++c) row.cells << QStringLiteral("—");
        return row;
    }
    row.cells << formatCount(params) << formatCount(tokens) << QString::number(tokens / params, 'f', 1) << formatFlops(compute)
              << (std::isfinite(loss) ? QString::number(loss, 'f', 4) : QStringLiteral("—"));  // no surface to read it off
    return row;
}

}  // namespace

std::vector<ViewFigure::ShownTable> OptimalFigure::shownTables() const {
    const auto& series = answer_.series;
    const bool problem = !answer_.problem.empty();
    const bool laws = answer_.query.useLaws;

    // The optima (a series without one says why across the row), then the over-trained models
    // (below 100 % of N*), then the lifetime optima.
    ShownTable query{QStringLiteral("query"), QObject::tr("The optimum for the query"),
                     {QString(), QObject::tr("N*"), QObject::tr("D*"), QObject::tr("D*/N*"), QObject::tr("H"), QObject::tr("loss L̂")}};
    query.numbers = true;
    query.visibleRows = 0;
    // The intervals' column where the optima shown are the IsoFLOP laws of runs.
    const bool intervals = laws && std::any_of(series.begin(), series.end(), [](const auto& a) { return a.intervals.has_value(); });
    if (intervals) {
        query.headers << QObject::tr("N* 95 %");
        query.headerTips = {{}, {}, {}, {}, {}, {},
                            QObject::tr("The 95 % bootstrap interval of N* by the IsoFLOP laws fitted to the series' runs (resampled within each budget)")};
    }
    std::vector<const analysis::OptimalSeriesAnswer*> answered;
    for (const auto& a : series) {
        const QString name = QString::fromStdString(a.name);
        if (!a.answered()) {
            query.rows.push_back({{name, shortReason(a)}, colorOf(a), QString::fromStdString(a.problem)});
            continue;
        }
        answered.push_back(&a);
        const auto& o = a.optimum;
        ShownRow row = modelRow(name, colorOf(a), o.params, o.tokens, o.budget, o.loss);
        if (intervals)
            row.cells << (a.intervals ? QObject::tr("%1 – %2").arg(formatCount(a.intervals->params.lower), formatCount(a.intervals->params.upper))
                                      : QString());
        query.rows.push_back(std::move(row));
    }
    const bool anyOvertrained = std::any_of(series.begin(), series.end(), [](const auto& a) { return a.overtrained.has_value(); });
    if (answer_.query.overtrainFraction < 1 && anyOvertrained)
        for (const auto* a : answered) {
            const fit::OverTraining t = a->overtrained.value_or(fit::OverTraining{});
            query.rows.push_back(modelRow(QObject::tr("%1 at %2 %").arg(QString::fromStdString(a->name)).arg(overtrainPercent_), colorOf(*a),
                                          t.params, t.tokens, t.compute, a->optimum.loss, !a->overtrained));
        }
    if (const double inferenceTokens = answer_.query.inferenceTokens; inferenceTokens > 0)
        for (const auto* a : answered) {
            const analysis::LifetimeOptimum l = a->lifetime.value_or(analysis::LifetimeOptimum{});
            query.rows.push_back(modelRow(QObject::tr("%1 serving %2").arg(QString::fromStdString(a->name), formatCount(inferenceTokens)),
                                          colorOf(*a), l.params, l.tokens, l.trainingCompute, a->optimum.loss, !a->lifetime));
        }

    // Both methods at the budget of the query's optimum (the note says why they differ); a method
    // that has no answer shows dashes, and why in their tooltip.
    ShownTable methods{QStringLiteral("methods"), QObject::tr("Both methods at the query's budget"),
                       {QString(), QObject::tr("N*"), QObject::tr("D*/N*"), QObject::tr("a"), QObject::tr("same at H")},
                       {{}, {}, {}, QObject::tr("The local exponent a of N* ∝ H^a at this budget"), QObject::tr("The budget at which both methods give the same N*")}};
    methods.numbers = true;
    methods.visibleRows = 0;
    methods.note = methodsNote_;
    for (const auto& a : series) {
        const QString name = QString::fromStdString(a.name);
        const std::optional<fit::OptimalPoint> points[2] = {a.surfaceAtBudget, a.lawsAtBudget};
        const QString why[2] = {QString::fromStdString(a.surfaceProblem), QString::fromStdString(a.lawsProblem)};
        const auto& c = a.comparison;
        const double exponents[2] = {c ? c->surfaceExponent : std::nan(""), c ? c->lawExponent : (a.laws ? a.laws->exponentN : std::nan(""))};
        const QString agreeAt = !c ? QObject::tr("—") : std::isfinite(c->agreeAtBudget) ? formatFlops(c->agreeAtBudget) : QObject::tr("nowhere");
        for (int m = 0; m < 2; ++m) {
            ShownRow row{{m == 0 ? QObject::tr("%1, loss surface").arg(name) : QObject::tr("%1, IsoFLOP laws").arg(name)}, colorOf(a), {}};
            if (!points[m]) {
                row.cells << QObject::tr("—") << QObject::tr("—") << QObject::tr("—") << QObject::tr("—");
                row.toolTip = why[m];
            } else {
                row.cells << formatCount(points[m]->params) << QString::number(points[m]->tokens / points[m]->params, 'f', 1)
                          << (std::isfinite(exponents[m]) ? QString::number(exponents[m], 'f', 3) : QObject::tr("—")) << agreeAt;
            }
            methods.rows.push_back(std::move(row));
        }
    }

    // Three columns per series: its budget, tokens and tokens per parameter at each size.
    ShownTable sizes{QStringLiteral("sizes"), QObject::tr("Compute-optimal training of common model sizes (as the paper's appendix tables)"),
                     {QObject::tr("N")}};
    sizes.numbers = true;
    sizes.visibleRows = 6;
    sizes.belowCharts = true;
    for (const auto& a : series) sizes.headers << QObject::tr("%1 H").arg(QString::fromStdString(a.name)) << QObject::tr("D") << QObject::tr("D/N");
    const auto& sizeList = answer_.query.sizes;
    for (std::size_t r = 0; r < sizeList.size() && !problem; ++r) {
        ShownRow row{{formatCount(sizeList[r])}, {}, {}};
        for (const auto& a : series) {
            const auto& o = r < a.sizes.size() ? a.sizes[r] : std::nullopt;
            if (!o) row.cells << QStringLiteral("—") << QStringLiteral("—") << QStringLiteral("—");
            else row.cells << formatFlops(o->budget) << formatCount(o->tokens) << QString::number(o->tokens / o->params, 'f', 1);
        }
        sizes.rows.push_back(std::move(row));
    }
    return {query, methods, sizes};
}

void OptimalFigure::compute(const FigureInput& in, const fit::FitControl& control) {
    FigureWithAnswer::compute(in, control);
    if (JobOf<Answer> fits = surfaceJob()) take(fits(control));
}

void OptimalFigure::take(Answer taken) {
    answer_ = taken.answer;
    shownContext_ = taken.shownContext;
    overtrainPercent_ = taken.overtrainPercent;
    surfacesFailed_ = taken.surfacesFailed;
    // No stale numbers: on a problem there are none, only why.
    if (!answer_.problem.empty()) answer_.series.clear();
    // The fits it waits for read what the answer was made from.
    waiting_ = answer_.pending() && taken.table ? std::make_shared<const Answer>(std::move(taken)) : nullptr;
    writeNotes();
}

QColor OptimalFigure::colorOf(const analysis::OptimalSeriesAnswer& a) const {
    const Theme& theme = Theme::current();
    if (a.family) return theme.family(*a.family);
    return theme.series(a.series, a.seriesIndex);
}

QString OptimalFigure::shortReason(const analysis::OptimalSeriesAnswer& a) const {
    if (a.answered()) return {};
    if (a.pending && !answer_.query.useLaws) return QObject::tr("L(N,D) being fitted…");
    const bool laws = answer_.query.useLaws;
    if (laws && !a.lawsProblem.empty()) return QObject::tr("no IsoFLOP law");
    if (!laws && !a.surfaceProblem.empty()) return QObject::tr("no loss surface");
    if (answer_.query.given == analysis::OptimalGiven::TargetLoss) {
        if (!a.surfaceProblem.empty()) return QObject::tr("no loss surface");
        return QObject::tr("cannot reach that loss");
    }
    return QObject::tr("no answer");
}

void OptimalFigure::writeNotes() {
    seriesNote_.clear();
    overtrainNote_.clear();
    methodsNote_.clear();
    lifetimeNote_.clear();
    if (!answer_.problem.empty()) return;
    const auto& series = answer_.series;
    if (!surfacesFailed_.empty())
        seriesNote_ += QObject::tr("No series has a loss surface that answers, so the IsoFLOP laws do (%1)<br>")
                           .arg(QString::fromStdString(surfacesFailed_).toHtmlEscaped());

    // The series with no optimum, and why.
    for (const auto& a : series)
        if (!a.answered())
            seriesNote_ += a.problem.rfind(a.name, 0) == 0  // the reason names the series, or is named by it
                               ? QObject::tr("%1<br>").arg(QString::fromStdString(a.problem).toHtmlEscaped())
                               : QObject::tr("<b>%1</b>: %2<br>").arg(QString::fromStdString(a.name).toHtmlEscaped(),
                                                                       QString::fromStdString(a.problem).toHtmlEscaped());

    // The over-trained models (below 100 % of N*).
    if (answer_.query.overtrainFraction < 1) {
        for (const auto& a : series) {
            if (!a.answered()) continue;
            const auto& o = a.overtrained;
            overtrainNote_ += o ? QObject::tr("<b>%1</b> with N = %2 (%3&nbsp;% of N*): D = %4 tokens (%5× D*, %6 tokens/param) and "
                                              "%7× the compute for the same loss.<br>")
                                      .arg(QString::fromStdString(a.name), formatCount(o->params))
                                      .arg(overtrainPercent_)
                                      .arg(formatCount(o->tokens))
                                      .arg(o->extraTokens, 0, 'f', 2)
                                      .arg(o->tokens / o->params, 0, 'f', 0)
                                      .arg(o->extraCompute, 0, 'f', 2)
                                : QObject::tr("<b>%1</b>: a model of %2&nbsp;% of N* cannot reach that loss at any amount of data%3.<br>")
                                      .arg(QString::fromStdString(a.name))
                                      .arg(overtrainPercent_)
                                      .arg(a.surfaceProblem.empty() ? QString() : QObject::tr(" by its loss surface, which it lacks"));
        }
    } else {
        overtrainNote_ = QObject::tr("Move the slider below 100&nbsp;% to train a smaller model than N* to the same loss.");
    }

    // Both methods at the budget of the query's optimum, and the reason they differ in numbers.
    QStringList exponents, agree, growth, single;
    bool allPaper = true, paperWithoutLaws = false;
    for (const auto& a : series) {
        allPaper = allPaper && a.paper;
        const QString name = QString::fromStdString(a.name);
        if (!a.comparison) {
            if (a.paper && !a.lawsProblem.empty()) paperWithoutLaws = true;
            else if (a.answered() && !a.pending)
                single << QString::fromStdString(a.lawsProblem.empty() ? a.surfaceProblem : a.lawsProblem).toHtmlEscaped();
            continue;
        }
        const auto& c = *a.comparison;
        exponents << QObject::tr("H<sup>%1</sup> by the surface and H<sup>%2</sup> by the laws for %3")
                         .arg(c.surfaceExponent, 0, 'f', 3)
                         .arg(c.lawExponent, 0, 'f', 3)
                         .arg(name);
        agree << (std::isfinite(c.agreeAtBudget) ? QObject::tr("at H = %1 (%2)").arg(formatFlops(c.agreeAtBudget), name)
                                                 : QObject::tr("nowhere between 1e15 and 1e27 FLOPs (%1)").arg(name));
        growth << QObject::tr("%1× (%2)").arg(std::pow(10.0, std::abs(c.lawExponent - c.surfaceExponent)), 0, 'f', 2).arg(name);
    }
    QStringList methods;
    if (!exponents.isEmpty())
        methods << QObject::tr("<b>Why they differ.</b> The loss surface is fitted to runs at many tokens per parameter (%1), most "
                               "of them far from the optimum; the IsoFLOP laws are fitted to the minima of measured IsoFLOP "
                               "profiles. Here N* grows as %2. The two give the same N* %3; every tenfold budget away from there "
                               "multiplies their gap by %4.")
                       .arg(allPaper ? QObject::tr("the paper's: its token/param runs, 22 to 2200") : QObject::tr("each series' runs"),
                            exponents.join(QStringLiteral("; ")), agree.join(QObject::tr(" and ")), growth.join(QObject::tr(" and ")));
    if (paperWithoutLaws)
        methods << QObject::tr("The paper has IsoFLOP power laws at T = 2048, 8192 and 16384 only: at T = %1 only the loss "
                               "surface answers.")
                       .arg(answer_.query.context);
    if (!single.isEmpty()) methods << QObject::tr("One method only: %1").arg(single.join(QStringLiteral(" ")));
    methodsNote_ = methods.join(QStringLiteral("<br>"));

    // Training plus inference: the size that reaches the query's loss for the least total compute.
    const double inferenceTokens = answer_.query.inferenceTokens;
    if (!(inferenceTokens > 0)) {
        lifetimeNote_ = QObject::tr("Type the number of tokens the model will serve (e.g. 1e13) to find the size that reaches the same "
                                    "loss for the least training plus inference compute.");
        return;
    }
    for (const auto& a : series) {
        const auto& l = a.lifetime;
        if (!l) continue;
        lifetimeNote_ += QObject::tr("<b>%1</b> serving %2 tokens: N = %3 (%4&nbsp;% of N*) on %5 tokens (%6 tokens/param) reaches "
                                     "the same loss for %7 + %8 = %9 FLOPs of training and inference, %10&nbsp;% less than the "
                                     "compute-optimal model's %11.<br>")
                             .arg(QString::fromStdString(a.name), formatCount(inferenceTokens), formatCount(l->params))
                             .arg(100 * l->params / a.optimum.params, 0, 'f', 0)
                             .arg(formatCount(l->tokens))
                             .arg(l->tokens / l->params, 0, 'f', 0)
                             .arg(formatFlops(l->trainingCompute), formatFlops(l->inferenceCompute), formatFlops(l->total()))
                             .arg(100 * l->saving(), 0, 'f', 1)
                             .arg(formatFlops(l->computeOptimalTotal));
    }
    lifetimeNote_ += QObject::tr("An inference token costs one forward pass at T, a third of the training compute per token (about 2N).");
}

void OptimalFigure::draw(const FigureInput& in) {
    noteScale(in);
    drawBudgetChart();
    drawPathChart();
    drawComputeChart();
}

void OptimalFigure::drawBudgetChart() {
    const Theme& theme = Theme::current();
    const double context = shownContext_;
    PlotChart* chart = budgetChart_;
    chart->clearSeries();
    chart->setAxes({QObject::tr("Compute H (FLOPs)"), true, 1e18, 1e25}, {QObject::tr("N*, D*"), true, 1e7, 1e14, true});
    chart->setTitle(anyPaperModel() ? QObject::tr("Optimal N*, D* at T = %1").arg(context) : QObject::tr("Optimal N*, D*"));
    // The key to the line styles: N* solid (named by series), D* dashed.
    chart->addLine(QObject::tr("D* dashed"), theme.muted, {}, 1.8, Qt::DashLine);
    const bool laws = answer_.query.useLaws;
    const auto& budgets = answer_.query.budgets;
    bool otherListed = false;
    for (const auto& a : answer_.series) {
        if (!a.answered()) continue;
        const QColor color = colorOf(a);
        std::vector<QPointF> nLine, dLine, other;
        for (std::size_t i = 0; i < a.path.size(); ++i) {
            nLine.push_back({budgets[i], a.path[i].params});
            dLine.push_back({budgets[i], a.path[i].tokens});
            if (i < a.otherPath.size()) other.push_back({budgets[i], a.otherPath[i].params});
        }
        const QString name = QString::fromStdString(a.name);
        chart->addLine(QObject::tr("%1 N*").arg(name), color, nLine, 2.5);
        PlotChart::hideFromLegend(chart, chart->addLine(QObject::tr("%1 D*").arg(name), color, dLine, 1.8, Qt::DashLine));
        // The other method's N*, thin and dotted: where the two agree and how far they part (one
        // legend entry for every series).
        if (!other.empty()) {
            auto* s = chart->addLine(otherListed ? QString() : (laws ? QObject::tr("N* by the surface") : QObject::tr("N* by the laws")),
                                     color.lighter(130), other, 1.2, Qt::DotLine);
            if (otherListed) PlotChart::hideFromLegend(chart, s);
            otherListed = true;
        }
        const auto& o = a.optimum;
        if (o.budget >= 1e18 && o.budget <= 1e25) {
            PlotChart::hideFromLegend(chart, chart->addScatter(QString(), color, {{o.budget, o.params}, {o.budget, o.tokens}}, 10));
            // The laws' 95 % intervals of N* and D* there, as bars through the optimum.
            if (const auto& i = a.intervals; i && laws)
                for (const fit::BootstrapInterval* b : {&i->params, &i->tokens})
                    if (std::isfinite(b->lower) && std::isfinite(b->upper))
                        PlotChart::hideFromLegend(chart, chart->addLine(QString(), color, {{o.budget, b->lower}, {o.budget, b->upper}}, 3.5));
        }
        // The over-trained model of the slider: smaller N, more D, more compute for the same loss.
        if (const auto& t = a.overtrained; t && t->compute >= 1e18 && t->compute <= 1e25)
            PlotChart::hideFromLegend(chart, chart->addScatter(QString(), color, {{t->compute, t->params}, {t->compute, t->tokens}}, 10, true));
    }
    listUnanswered(chart);
    chart->setAxes(chart->xSpec(), chart->ySpec());
}

bool OptimalFigure::anyPaperModel() const {
    // The context length names the paper's models' FLOP count; no answer (a problem) names it too.
    return answer_.series.empty() ||
           std::any_of(answer_.series.begin(), answer_.series.end(), [](const analysis::OptimalSeriesAnswer& a) { return a.paper; });
}

void OptimalFigure::listUnanswered(PlotChart* chart) {
    for (const auto& a : answer_.series)
        if (!a.answered())
            chart->addLine(QObject::tr("%1: %2").arg(QString::fromStdString(a.name), shortReason(a)), colorOf(a), {}, 2.5, Qt::DotLine);
}

void OptimalFigure::drawPathChart() {
    // The optimal path in the N-D plane: each point the (N*, D*) of one budget, with lines of
    // constant tokens per parameter behind it.
    const Theme& theme = Theme::current();
    PlotChart* chart = pathChart_;
    chart->clearSeries();
    chart->setAxes({QObject::tr("Model size N (parameters)"), true, 1e7, 1e13, true},
                   {QObject::tr("Training tokens D"), true, 1e8, 1e15, true});
    chart->setTitle(anyPaperModel() ? QObject::tr("The compute-optimal path, H from 1e18 to 1e25, T = %1").arg(shownContext_)
                                    : QObject::tr("The compute-optimal path, H from 1e18 to 1e25"));
    const double nLo = 3e7, nHi = 3e12;
    bool first = true;
    for (double r : {1.0, 10.0, 100.0, 1000.0}) {
        auto* s = chart->addLine(first ? QObject::tr("D/N = 1, 10, 100, 1000") : QString(), theme.muted, {{nLo, r * nLo}, {nHi, r * nHi}},
                                 1.0, Qt::DashLine);
        if (!first) PlotChart::hideFromLegend(chart, s);
        first = false;
    }
    chart->addLine(QObject::tr("D/N = 20 (Hoffmann et al.)"), theme.foreground, {{nLo, 20 * nLo}, {nHi, 20 * nHi}}, 1.2, Qt::DotLine);
    const bool laws = answer_.query.useLaws;
    for (const auto& a : answer_.series) {
        if (!a.answered()) continue;
        const QColor color = colorOf(a);
        std::vector<QPointF> path;
        for (const auto& o : a.path) path.push_back({o.params, o.tokens});
        chart->addLine(QObject::tr("%1 (%2)").arg(QString::fromStdString(a.name), laws ? QObject::tr("IsoFLOP laws") : QObject::tr("loss surface")),
                       color, path, 2.5);
        const auto& o = a.optimum;
        chart->includeInRange(o.params, o.tokens);
        PlotChart::hideFromLegend(chart, chart->addScatter(QString(), color, {{o.params, o.tokens}}, 10));
        if (const auto& t = a.overtrained) PlotChart::hideFromLegend(chart, chart->addScatter(QString(), color, {{t->params, t->tokens}}, 10, true));
        if (const auto& l = a.lifetime) PlotChart::hideFromLegend(chart, chart->addScatter(QString(), color, {{l->params, l->tokens}}, 13, true));
    }
    listUnanswered(chart);
    chart->setAxes(chart->xSpec(), chart->ySpec());
}

void OptimalFigure::drawComputeChart() {
    // The training compute per token over the 6N of C ≈ 6ND: for the paper's models the exact
    // count at T and, for reference, at the study's shortest context; for the study's series the
    // C/D of their runs, so the table's own FLOP convention.
    const Theme& theme = Theme::current();
    const double context = shownContext_;
    const double reference = answer_.query.referenceContext;
    PlotChart* chart = computeChart_;
    chart->clearSeries();
    chart->setAxes({QObject::tr("Model size N (parameters)"), true, 1e8, 2e11, true}, {QObject::tr("C / 6ND"), false, 0.8, 2.0});
    chart->setTitle(anyPaperModel() ? QObject::tr("Exact training compute over 6ND at T = %1").arg(context)
                             : QObject::tr("Training compute over 6ND, from the runs' C/D"));
    const auto& sizes = answer_.query.curveSizes;
    double top = 1.2;
    if (!sizes.empty()) chart->addLine(QObject::tr("C = 6ND"), theme.muted, {{sizes.front(), 1.0}, {sizes.back(), 1.0}}, 1.0, Qt::DashLine);
    for (const auto& a : answer_.series) {
        const QColor color = colorOf(a);
        const QString name = QString::fromStdString(a.name);
        for (const bool atContext : {true, false}) {
            if (!atContext && (context == reference || a.referenceComputeRatio.empty())) continue;
            const auto& ratio = atContext ? a.computeRatio : a.referenceComputeRatio;
            std::vector<QPointF> line;
            for (std::size_t i = 0; i < ratio.size(); ++i) line.push_back({sizes[i], ratio[i]}), top = std::max(top, ratio[i]);
            const QString label = !a.paper ? QObject::tr("%1 (its runs)").arg(name)
                                           : QObject::tr("%1, T = %2").arg(name).arg(atContext ? context : reference);
            chart->addLine(label, atContext ? color : color.lighter(140), line, atContext ? 2.5 : 1.2,
                           atContext ? Qt::SolidLine : Qt::DashLine);
        }
        const auto& o = a.optimum;
        if (a.answered() && o.params >= 1e8 && o.params <= 2e11)
            PlotChart::hideFromLegend(chart, chart->addScatter(QString(), color, {{o.params, a.optimumComputeRatio}}, 10));
    }
    chart->setAxes(chart->xSpec(), {QObject::tr("C / 6ND"), false, 0.8, std::ceil(top * 10 + 1) / 10});
}

ViewFigure::TablesJob OptimalFigure::tablesJob(const FigureInput&) const {
    const std::string value = data::latexEscape(controls().text(kValue).trimmed().toStdString());
    const QString mode = controls().choice(kMode);
    const std::string asked = mode == QLatin1String("budget") ? "a training budget $H$ = " + value + " FLOPs"
                              : mode == QLatin1String("size") ? "a model size $N$ = " + value + " parameters"
                                                              : "a target loss of " + value;
    const std::string problem = answer_.problem;
    return [answer = answer_, asked, problem, methods = problem.empty() ? methodsNote_.toStdString() : problem](const fit::FitControl&) {
        return std::vector<FigureTable>{
            {QStringLiteral("sizes"), QObject::tr("Optimal budget and tokens per model size"), analysis::optimalSizesTable(answer, problem)},
            {QStringLiteral("query"), QObject::tr("Optimum of the current query"), analysis::optimalQueryTable(answer, asked, problem)},
            {QStringLiteral("methods"), QObject::tr("Both methods side by side"), analysis::optimalMethodsTable(answer, methods)}};
    };
}

}  // namespace scalex::figures
