#include "app/gui/OptimalView.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "app/gui/FigureNames.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

using accounting::Family;

namespace {
QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
    auto* t = new QTableWidget(parent);
    t->setColumnCount(static_cast<int>(headers.size()));
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setAlternatingRowColors(true);
    return t;
}

void setCell(QTableWidget* t, int row, int column, const QString& text, const QColor& color = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(column == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    if (color.isValid()) item->setForeground(color);
    t->setItem(row, column, item);
}

// One model in the query's table: N, D, D/N, its training compute and the loss it reaches; a dash
// in each cell when there is none (in the loss's when no surface gives it).
void setModelRow(QTableWidget* t, int row, const QString& label, const QColor& color, double params, double tokens,
                 double compute, double loss, bool none = false) {
    setCell(t, row, 0, label, color);
    if (none) {
        for (int c = 1; c < 6; ++c) setCell(t, row, c, QStringLiteral("—"));
        return;
    }
    setCell(t, row, 1, formatCount(params));
    setCell(t, row, 2, formatCount(tokens));
    setCell(t, row, 3, QString::number(tokens / params, 'f', 1));
    setCell(t, row, 4, formatFlops(compute));
    setCell(t, row, 5, std::isfinite(loss) ? QString::number(loss, 'f', 4) : QStringLiteral("—"));  // no surface to read it off
}

// A table as tall as its rows (it sits among others in a scrolling column).
void fitHeight(QTableWidget* t) {
    t->setMaximumHeight(t->horizontalHeader()->height() + t->rowCount() * t->verticalHeader()->defaultSectionSize() +
                        t->horizontalScrollBar()->sizeHint().height() + 6);
}
}  // namespace

OptimalView::OptimalView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::OptimalFigure>()) {
    controls_ = new ControlBinding(&figure_->controls(), [this] { recompute(); }, this);
    // Another chart of the same answer: no new job.
    chartControl_ = new ControlBinding(&figure_->controls(), [this] {
        redrawChart();
        emit explainChanged();
    }, this);
    const figures::Controls& c = figure_->controls();
    QWidget* method = controls_->make(QStringLiteral("method"), this);
    QWidget* mode = controls_->make(QStringLiteral("mode"), this);
    QWidget* value = controls_->make(QStringLiteral("value"), this);
    QWidget* reference = controls_->make(QStringLiteral("reference"), this);
    QWidget* context = controls_->make(QStringLiteral("context"), this);
    // The over-training percentage on a slider, its value written beside it.
    auto* overtrain = new QSlider(Qt::Horizontal, this);
    overtrain->setObjectName(QStringLiteral("overtrain"));
    showControl(overtrain, c.at(QStringLiteral("overtrain")));
    controls_->bind(overtrain);
    overtrainValue_ = new QLabel(this);
    overtrainValue_->setObjectName(QStringLiteral("overtrainValue"));
    overtrainValue_->setMinimumWidth(overtrainValue_->fontMetrics().horizontalAdvance(QStringLiteral("100 %")) + 4);
    overtrainValue_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    overtrainLabel_ = new QLabel(this);
    overtrainLabel_->setWordWrap(true);
    overtrainLabel_->setTextFormat(Qt::RichText);
    QWidget* inference = controls_->make(QStringLiteral("inference"), this);
    lifetimeNote_ = new QLabel(this);
    lifetimeNote_->setWordWrap(true);
    lifetimeNote_->setTextFormat(Qt::RichText);
    QWidget* chart = chartControl_->make(QStringLiteral("chart"), this);
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: %1").arg(Theme::current().highlight.name()));

    // Every choice whole: the column is as wide as its longest choice.
    for (QWidget* box : {method, mode, chart}) static_cast<QComboBox*>(box)->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* overtrainRow = new QHBoxLayout();
    overtrainRow->addWidget(overtrain, 1);
    overtrainRow->addWidget(overtrainValue_);
    auto* form = new QFormLayout();
    form->setRowWrapPolicy(QFormLayout::WrapAllRows);  // labels above their boxes: the boxes get the column's width
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(c.at(QStringLiteral("method")).label, method);
    form->addRow(c.at(QStringLiteral("mode")).label, mode);
    form->addRow(c.at(QStringLiteral("value")).label, value);
    form->addRow(reference);  // a check box carries its own text
    form->addRow(c.at(QStringLiteral("context")).label, context);
    form->addRow(c.at(QStringLiteral("overtrain")).label, overtrainRow);
    form->addRow(c.at(QStringLiteral("inference")).label, inference);
    form->addRow(c.at(QStringLiteral("chart")).label, chart);
    seriesNote_ = new QLabel(this);
    seriesNote_->setObjectName(QStringLiteral("seriesNote"));
    seriesNote_->setWordWrap(true);
    seriesNote_->setTextFormat(Qt::RichText);
    auto* left = new QVBoxLayout();
    left->addLayout(form);
    left->addWidget(error_);
    left->addWidget(seriesNote_);
    left->addWidget(overtrainLabel_);
    left->addWidget(lifetimeNote_);
    left->addStretch(1);
    auto* leftWidget = new QWidget(this);
    leftWidget->setLayout(left);
    leftWidget->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);
    // The controls' column is as wide as its widest choice; the tables take the rest (and scroll inside if narrower).

    result_ = makeTable(this, {tr(""), tr("N*"), tr("D*"), tr("D*/N*"), tr("H"), tr("loss L̂"), tr("N* 95 %")});
    result_->horizontalHeaderItem(6)->setToolTip(
        tr("The 95 % bootstrap interval of N* by the IsoFLOP laws fitted to the series' runs (resampled within each budget)"));
    result_->setRowCount(2);
    // Numbers whole: every column as wide as its contents, the table scrolls if the view is narrower.
    result_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    result_->horizontalHeader()->setStretchLastSection(true);
    sizes_ = makeTable(this, {tr("N")});  // three columns per series, named when an answer comes
    // Headers whole ("Transformer H" is wider than a stretched share of a narrow window).
    sizes_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    sizes_->horizontalHeader()->setStretchLastSection(true);
    methods_ = makeTable(this, {tr(""), tr("N*"), tr("D*/N*"), tr("a"), tr("same at H")});
    methods_->horizontalHeaderItem(3)->setToolTip(tr("The local exponent a of N* ∝ H^a at this budget"));
    methods_->horizontalHeaderItem(4)->setToolTip(tr("The budget at which both methods give the same N*"));
    methods_->setObjectName(QStringLiteral("methods"));
    methods_->setRowCount(4);
    methods_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    methods_->horizontalHeader()->setStretchLastSection(true);
    methods_->setMaximumHeight(methods_->horizontalHeader()->sizeHint().height() + 4 * methods_->verticalHeader()->defaultSectionSize() +
                               methods_->horizontalScrollBar()->sizeHint().height() + 6);
    methodsNote_ = new QLabel(this);
    methodsNote_->setWordWrap(true);
    methodsNote_->setTextFormat(Qt::RichText);
    chartView_ = new PlotView(figure_->budgetChart(), this);
    pathView_ = new PlotView(figure_->pathChart(), this);
    computeView_ = new PlotView(figure_->computeChart(), this);
    for (PlotView* v : {chartView_, pathView_, computeView_}) v->setMinimumHeight(260);
    auto* right = new QVBoxLayout();
    right->addWidget(new QLabel(tr("<b>The optimum for the query</b>"), this));
    right->addWidget(result_);
    auto* methodsTitle = new QLabel(tr("<b>Both methods at the query's budget</b>"), this);
    right->addWidget(methodsTitle);
    right->addWidget(methods_);
    right->addWidget(methodsNote_);
    for (PlotView* v : {chartView_, pathView_, computeView_}) right->addWidget(v, 3);
    auto* sizesTitle = new QLabel(tr("<b>Compute-optimal training of common model sizes</b> (as the paper's appendix tables)"), this);
    sizesTitle->setWordWrap(true);
    right->addWidget(sizesTitle);
    right->addWidget(sizes_, 2);
    auto* rightWidget = new QWidget(this);
    right->setContentsMargins(0, 0, 0, 0);
    rightWidget->setLayout(right);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(leftWidget, 0);
    layout->addWidget(rightWidget, 1);
    stackWhenNarrow(layout, 460);  // the query above the answers on a narrow window

    // The IsoFLOP laws' answer first; then the L(N,D) fits of the study's series it waits for.
    fits_ = new JobRunner<figures::OptimalFigure::Answer>([this](figures::OptimalFigure::Answer answer) {
        figure_->take(std::move(answer));
        show();
    }, this);
    jobs_ = new JobRunner<figures::OptimalFigure::Answer>([this](figures::OptimalFigure::Answer answer) {
        figure_->take(std::move(answer));
        show();
        if (figures::JobOf<figures::OptimalFigure::Answer> fits = figure_->surfaceJob()) fits_->start(std::move(fits));
    }, this);
    // The answer is the study's runs' and settings' alone (no other view's fit); hidden, the view
    // recomputes when it is next shown.
    for (auto signal : {&Session::settingsChanged, &Session::runsChanged})
        connect(session_, signal, this, [this] {
            if (!deferWhileHidden([this] { recompute(); })) recompute();
        });
    // A new style draws the answer again (a deferred recompute, which draws too, comes first).
    connect(session_, &Session::styleChanged, this, [this] {
        if (jobs_->running()) return;  // drawn when the answer comes
        if (!deferWhileHidden([this] { show(); }, -1)) show();
    });
    recompute();
}

OptimalView::~OptimalView() = default;

void OptimalView::setQuery(Mode mode, double value, double context) {
    static const char* const modes[] = {"budget", "size", "loss"};
    figures::Controls& c = figure_->controls();
    c.set(QStringLiteral("mode"), QLatin1String(modes[static_cast<int>(mode)]));
    figure_->refresh(figureInput(session_));  // the mode's own value, replaced by the one asked
    c.set(QStringLiteral("value"), QString::number(value, 'g', 10));
    c.set(QStringLiteral("context"), QString::number(context));
    controls_->showAll();
    recompute();
    computeNow();
}

void OptimalView::setMethod(int method) {
    if (!figure_->controls().set(QStringLiteral("method"), method == 1 ? QStringLiteral("laws") : QStringLiteral("surface")))
        return;
    controls_->showAll();
    recompute();
}

QStringList OptimalView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    chartControl_->showAll();
    recompute();
    return notes;
}

QChart* OptimalView::primaryChart() const { return charts().front(); }

std::vector<QChart*> OptimalView::charts() const { return figure_->charts(); }

const analysis::OptimalSeriesAnswer* OptimalView::of(bool xlstm) const {
    return figure_->answer().find(xlstm ? Family::Xlstm : Family::Transformer);
}

namespace {
// A field of a series' answer, or its empty value when the answer has no such series.
template <class T>
const T& fieldOf(const analysis::OptimalSeriesAnswer* a, T analysis::OptimalSeriesAnswer::*field) {
    static const T none{};
    return a ? a->*field : none;
}
}  // namespace

const fit::OptimalPoint& OptimalView::optimum(bool xlstm) const { return fieldOf(of(xlstm), &analysis::OptimalSeriesAnswer::optimum); }
const std::optional<analysis::MethodComparison>& OptimalView::comparison(bool xlstm) const {
    return fieldOf(of(xlstm), &analysis::OptimalSeriesAnswer::comparison);
}
const std::optional<analysis::LifetimeOptimum>& OptimalView::lifetime(bool xlstm) const {
    return fieldOf(of(xlstm), &analysis::OptimalSeriesAnswer::lifetime);
}
const std::optional<fit::OverTraining>& OptimalView::overtrained(bool xlstm) const {
    return fieldOf(of(xlstm), &analysis::OptimalSeriesAnswer::overtrained);
}

void OptimalView::recompute() {
    const figures::FigureInput in = figureInput(session_);
    figure_->refresh(in);  // a new mode brings its own value
    controls_->showAll();
    overtrainValue_->setText(tr("%1 %").arg(static_cast<int>(figure_->controls().number(QStringLiteral("overtrain")))));
    // A newer query replaces the running one: its answer is dropped, its work stopped.
    jobs_->cancel();
    fits_->cancel();
    if (figure_->quickJob()) {
        // An unreadable control: shown at once.
        figure_->compute(in);
        show();
        return;
    }
    error_->clear();  // a problem shown before is gone; the numbers follow when the job ends
    jobs_->start(figure_->job(in));
}

void OptimalView::computeNow() {
    jobs_->finish();  // which starts the fits it waits for
    fits_->finish();
}

void OptimalView::show() {
    const QString problem = figure_->problem();
    error_->setText(problem);
    seriesNote_->setText(figure_->seriesNote());
    if (!problem.isEmpty()) {
        // No stale numbers: on a problem every table is emptied and says why.
        result_->setRowCount(2);
        result_->clearContents();
        methods_->clearContents();
        sizes_->setRowCount(0);
    } else {
        fillResults();
        fillMethods();
        fillLifetime();
        fillSizes();
    }
    overtrainLabel_->setText(figure_->overtrainNote());
    methodsNote_->setText(figure_->methodsNote());
    lifetimeNote_->setText(figure_->lifetimeNote());
    fitHeight(result_);
    redrawChart();
    emit explainChanged();
}

void OptimalView::fillResults() {
    // The optima (a series without one says why across the row), then the over-trained models
    // (below 100 % of N*); the lifetime optima follow.
    const analysis::OptimalAnswer& answer = figure_->answer();
    const auto& series = answer.series;
    const int n = static_cast<int>(series.size());
    result_->clearSpans();
    result_->clearContents();
    result_->setRowCount(n);
    // The intervals' column where the optima shown are the IsoFLOP laws of runs.
    result_->setColumnHidden(6, !answer.query.useLaws ||
                                    std::none_of(series.begin(), series.end(), [](const auto& a) { return a.intervals.has_value(); }));
    for (int k = 0; k < n; ++k) {
        const auto& a = series[static_cast<std::size_t>(k)];
        const QString name = QString::fromStdString(a.name);
        if (!a.answered()) {
            setCell(result_, k, 0, name, figure_->colorOf(a));
            setCell(result_, k, 1, figure_->shortReason(a));
            result_->item(k, 1)->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            result_->item(k, 1)->setToolTip(QString::fromStdString(a.problem));
            result_->setSpan(k, 1, 1, result_->columnCount() - 1);
            continue;
        }
        const auto& o = a.optimum;
        setModelRow(result_, k, name, figure_->colorOf(a), o.params, o.tokens, o.budget, o.loss);
        if (answer.query.useLaws && a.intervals)
            setCell(result_, k, 6, tr("%1 – %2").arg(formatCount(a.intervals->params.lower), formatCount(a.intervals->params.upper)));
        else
            setCell(result_, k, 6, QString());
    }
    const bool any = std::any_of(series.begin(), series.end(), [](const auto& a) { return a.overtrained.has_value(); });
    if (answer.query.overtrainFraction >= 1 || !any) return;
    // The over-trained models as rows of the query table, under the optima.
    std::vector<const analysis::OptimalSeriesAnswer*> answered;
    for (const auto& a : series)
        if (a.answered()) answered.push_back(&a);
    const int first = result_->rowCount();
    result_->setRowCount(first + static_cast<int>(answered.size()));
    for (std::size_t k = 0; k < answered.size(); ++k) {
        const auto& a = *answered[k];
        const fit::OverTraining t = a.overtrained.value_or(fit::OverTraining{});
        setModelRow(result_, first + static_cast<int>(k), tr("%1 at %2 %").arg(QString::fromStdString(a.name)).arg(figure_->overtrainPercent()),
                    figure_->colorOf(a), t.params, t.tokens, t.compute, a.optimum.loss, !a.overtrained);
    }
}

void OptimalView::fillSizes() {
    // Three columns per series (its budget, tokens and tokens per parameter at each size).
    const analysis::OptimalAnswer& answer = figure_->answer();
    const auto& sizes = answer.query.sizes;
    QStringList headers{tr("N")};
    for (const auto& a : answer.series) headers << tr("%1 H").arg(QString::fromStdString(a.name)) << tr("D") << tr("D/N");
    sizes_->setColumnCount(static_cast<int>(headers.size()));
    sizes_->setHorizontalHeaderLabels(headers);
    sizes_->setRowCount(static_cast<int>(sizes.size()));
    sizes_->clearContents();
    for (int r = 0; r < static_cast<int>(sizes.size()); ++r) {
        setCell(sizes_, r, 0, formatCount(sizes[static_cast<std::size_t>(r)]));
        for (std::size_t k = 0; k < answer.series.size(); ++k) {
            const auto& a = answer.series[k];
            const int col = 1 + 3 * static_cast<int>(k);
            const auto& o = static_cast<std::size_t>(r) < a.sizes.size() ? a.sizes[static_cast<std::size_t>(r)] : std::nullopt;
            if (!o) {
                for (int c = col; c < col + 3; ++c) setCell(sizes_, r, c, QStringLiteral("—"));
                if (!a.answered()) sizes_->item(r, col)->setToolTip(QString::fromStdString(a.problem));
                continue;
            }
            setCell(sizes_, r, col, formatFlops(o->budget), figure_->colorOf(a));
            setCell(sizes_, r, col + 1, formatCount(o->tokens));
            setCell(sizes_, r, col + 2, QString::number(o->tokens / o->params, 'f', 1));
        }
    }
}

void OptimalView::redrawChart() {
    const int shown = figure_->shownChart();
    chartView_->setVisible(shown == 0);
    pathView_->setVisible(shown == 1);
    computeView_->setVisible(shown == 2);
    figure_->draw(figureInput(session_));
}

void OptimalView::fillMethods() {
    // Both methods at the budget of the query's optimum (the figure's note says why they differ);
    // a method that has no answer shows dashes, and why in their tooltip.
    const auto& series = figure_->answer().series;
    methods_->clearContents();
    methods_->setRowCount(static_cast<int>(2 * series.size()));
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto& a = series[k];
        const int row = static_cast<int>(2 * k);
        const QString name = QString::fromStdString(a.name);
        setCell(methods_, row, 0, tr("%1, loss surface").arg(name), figure_->colorOf(a));
        setCell(methods_, row + 1, 0, tr("%1, IsoFLOP laws").arg(name), figure_->colorOf(a));
        const std::optional<fit::OptimalPoint> points[2] = {a.surfaceAtBudget, a.lawsAtBudget};
        const QString why[2] = {QString::fromStdString(a.surfaceProblem), QString::fromStdString(a.lawsProblem)};
        const auto& c = a.comparison;
        const double exps[2] = {c ? c->surfaceExponent : std::nan(""), c ? c->lawExponent : (a.laws ? a.laws->exponentN : std::nan(""))};
        const QString agreeAt = !c ? tr("—") : std::isfinite(c->agreeAtBudget) ? formatFlops(c->agreeAtBudget) : tr("nowhere");
        for (int m = 0; m < 2; ++m) {
            if (!points[m]) {
                for (int col : {1, 2, 3, 4}) setCell(methods_, row + m, col, tr("—"));
                methods_->item(row + m, 0)->setToolTip(why[m]);
                for (int col : {1, 2, 3, 4}) methods_->item(row + m, col)->setToolTip(why[m]);
                continue;
            }
            setCell(methods_, row + m, 1, formatCount(points[m]->params));
            setCell(methods_, row + m, 2, QString::number(points[m]->tokens / points[m]->params, 'f', 1));
            setCell(methods_, row + m, 3, std::isfinite(exps[m]) ? QString::number(exps[m], 'f', 3) : tr("—"));
            setCell(methods_, row + m, 4, agreeAt);
        }
    }
}

void OptimalView::fillLifetime() {
    // Training plus inference: rows of the query table under the others.
    const analysis::OptimalAnswer& answer = figure_->answer();
    const double inferenceTokens = answer.query.inferenceTokens;
    if (!(inferenceTokens > 0)) return;
    const auto& series = answer.series;
    for (const auto& a : series) {
        if (!a.answered()) continue;
        const int row = result_->rowCount();
        result_->setRowCount(row + 1);
        const QString name = QString::fromStdString(a.name);
        const auto& l = a.lifetime;
        const analysis::LifetimeOptimum shown = l.value_or(analysis::LifetimeOptimum{});
        setModelRow(result_, row, tr("%1 serving %2").arg(name, formatCount(inferenceTokens)), figure_->colorOf(a), shown.params,
                    shown.tokens, shown.trainingCompute, a.optimum.loss, !l);
    }
}

std::vector<ViewTable> OptimalView::tables() {
    computeNow();
    return figure_->tablesJob(figureInput(session_))(fit::FitControl{});
}

QString OptimalView::problem() const { return error_->text(); }

QString OptimalView::explainHtml() const {
    if (!error_->text().isEmpty())
        return tr("<h3>Compute-optimal training</h3><p>No numbers for this query: %1</p>").arg(error_->text().toHtmlEscaped());
    QStringList now;
    for (const auto& a : figure_->answer().series) {
        if (!a.answered()) continue;
        QString line = tr("%1 N* = %2 with %3 tokens/param")
                           .arg(QString::fromStdString(a.name), formatCount(a.optimum.params))
                           .arg(a.optimum.tokens / std::max(1.0, a.optimum.params), 0, 'f', 1);
        if (figure_->answer().query.useLaws && a.intervals)
            line += tr(" (95&nbsp;%: %1 to %2; a = %3, %4 to %5)")
                        .arg(formatCount(a.intervals->params.lower), formatCount(a.intervals->params.upper))
                        .arg(a.intervals->exponentN.estimate, 0, 'f', 3)
                        .arg(a.intervals->exponentN.lower, 0, 'f', 3)
                        .arg(a.intervals->exponentN.upper, 0, 'f', 3);
        now << line;
    }
    return tr("<h3>Compute-optimal training</h3>"
              "<p>With a fixed compute budget H you can train a large model on few tokens or a small model on "
              "many. The loss surface L̂(N, D) says which split is best: the N* and D* with the lowest predicted "
              "loss on the line c(N)·D = H.</p>"
              "<p>Given a model size instead, the calculator finds the budget for which that size is optimal; "
              "given a target loss, the cheapest budget that reaches it.</p>"
              "<p>Now: %1.</p><p>%2</p>"
              "<p>Two methods, for each series of the study from its own runs: the loss surface (its L(N,D) fit, with "
              "the compute per token of its runs), or the IsoFLOP power laws N* = A'·H<sup>a</sup>, "
              "D* = B'·H<sup>b</sup> fitted to the minima of its IsoFLOP profiles, with 95&nbsp;% bootstrap intervals "
              "over its runs. The paper's models (its fitted surfaces with the exact FLOP count at T, its IsoFLOP laws at "
              "T = 2048, 8192 and 16384) answer on the paper's study, and beside any other when switched on. With "
              "a &gt; b the IsoFLOP laws make tokens per parameter fall as models grow; the surface, fitted on "
              "over-trained runs, need not agree.</p><p>%3</p>")
        .arg(now.isEmpty() ? tr("being computed") : now.join(QStringLiteral("; ")))
        .arg(figure_->seriesNote())
        .arg(figure_->overtrainNote() + QStringLiteral("</p><p>") + figure_->methodsNote() + QStringLiteral("</p><p>") + figure_->lifetimeNote());
}

}  // namespace scalex::gui
