#include "app/gui/ChoiceKeys.h"
#include "app/gui/OptimalView.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <functional>

#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include "app/gui/Session.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/analysis/ExportTables.h"
#include "core/data/Export.h"

namespace scalex::gui {

using accounting::Family;

namespace {
constexpr Family kFamilies[] = {Family::Transformer, Family::Xlstm};

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
// in each cell when there is none.
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
    setCell(t, row, 5, QString::number(loss, 'f', 4));
}

// A table as tall as its rows (it sits among others in a scrolling column).
void fitHeight(QTableWidget* t) {
    t->setMaximumHeight(t->horizontalHeader()->height() + t->rowCount() * t->verticalHeader()->defaultSectionSize() +
                        t->horizontalScrollBar()->sizeHint().height() + 6);
}
}  // namespace

OptimalView::OptimalView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("mode"));
    mode_->addItem(tr("Training budget H (FLOPs)"));
    mode_->addItem(tr("Model size N (parameters)"));
    mode_->addItem(tr("Target loss"));
    setChoiceKeys(mode_, {"budget", "size", "loss"});
    method_ = new QComboBox(this);
    method_->setObjectName(QStringLiteral("method"));
    method_->addItem(tr("Loss surface L̂(N,D) and the FLOP count at T"));
    method_->addItem(tr("The paper's IsoFLOP power laws (T = 2048, 8192, 16384)"));
    setChoiceKeys(method_, {"surface", "laws"});
    method_->setToolTip(tr("The paper publishes IsoFLOP power laws at T = 2048, 8192 and 16384 only; the loss surface "
                           "with the FLOP count works at any T"));
    value_ = new QLineEdit(QStringLiteral("1e22"), this);
    value_->setObjectName(QStringLiteral("value"));
    value_->setToolTip(tr("A number such as 1e22, 7e9 or 2.3"));
    context_ = new QComboBox(this);
    context_->setObjectName(QStringLiteral("context"));
    for (double t : {2048.0, 4096.0, 8192.0, 16384.0, 32768.0, 65536.0, 131072.0}) context_->addItem(QString::number(t), t);
    context_->setCurrentIndex(2);
    context_->setEditable(true);
    overtrain_ = new QSlider(Qt::Horizontal, this);
    overtrain_->setObjectName(QStringLiteral("overtrain"));
    overtrain_->setRange(5, 100);
    overtrain_->setValue(100);
    overtrain_->setToolTip(tr("Train a model smaller than N* (percent of N*) to the same loss"));
    overtrainValue_ = new QLabel(this);
    overtrainValue_->setObjectName(QStringLiteral("overtrainValue"));
    overtrainValue_->setMinimumWidth(overtrainValue_->fontMetrics().horizontalAdvance(QStringLiteral("100 %")) + 4);
    overtrainValue_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    overtrainLabel_ = new QLabel(this);
    overtrainLabel_->setWordWrap(true);
    overtrainLabel_->setTextFormat(Qt::RichText);
    inference_ = new QLineEdit(QStringLiteral("0"), this);
    inference_->setObjectName(QStringLiteral("inference"));
    inference_->setToolTip(tr("Tokens the model will process over its life (e.g. 1e13). Each costs one forward pass, "
                              "a third of the training compute per token (about 2N FLOPs)"));
    lifetimeNote_ = new QLabel(this);
    lifetimeNote_->setWordWrap(true);
    lifetimeNote_->setTextFormat(Qt::RichText);
    chartChoice_ = new QComboBox(this);
    chartChoice_->setObjectName(QStringLiteral("chart"));
    chartChoice_->addItem(tr("N* and D* over the budget H"));
    chartChoice_->addItem(tr("Optimal path: D over N, with tokens per parameter"));
    chartChoice_->addItem(tr("Training compute: exact count against 6ND"));
    setChoiceKeys(chartChoice_, {"budget", "path", "compute"});
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: %1").arg(Theme::current().highlight.name()));

    // Every choice whole: the column is as wide as its longest choice.
    for (QComboBox* box : {method_, mode_, chartChoice_}) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* overtrainRow = new QHBoxLayout();
    overtrainRow->addWidget(overtrain_, 1);
    overtrainRow->addWidget(overtrainValue_);
    auto* form = new QFormLayout();
    form->setRowWrapPolicy(QFormLayout::WrapAllRows);  // labels above their boxes: the boxes get the column's width
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Method"), method_);
    form->addRow(tr("Given"), mode_);
    form->addRow(tr("Value"), value_);
    form->addRow(tr("Context length T"), context_);
    form->addRow(tr("Over-train: N as % of N*"), overtrainRow);
    form->addRow(tr("Inference tokens served"), inference_);
    form->addRow(tr("Chart"), chartChoice_);
    auto* left = new QVBoxLayout();
    left->addLayout(form);
    left->addWidget(error_);
    left->addWidget(overtrainLabel_);
    left->addWidget(lifetimeNote_);
    left->addStretch(1);
    auto* leftWidget = new QWidget(this);
    leftWidget->setLayout(left);
    leftWidget->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);
    // The controls' column is as wide as its widest choice; the tables take the rest (and scroll inside if narrower).

    result_ = makeTable(this, {tr(""), tr("N*"), tr("D*"), tr("D*/N*"), tr("H"), tr("loss L̂")});
    result_->setRowCount(2);
    // Numbers whole: every column as wide as its contents, the table scrolls if the view is narrower.
    result_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    result_->horizontalHeader()->setStretchLastSection(true);
    sizes_ = makeTable(this, {tr("N"), tr("Transformer H"), tr("D"), tr("D/N"), tr("xLSTM H"), tr("D"), tr("D/N")});
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
    chart_ = new PlotChart();
    chartView_ = new PlotView(chart_, this);
    pathChart_ = new PlotChart();
    pathView_ = new PlotView(pathChart_, this);
    computeChart_ = new PlotChart();
    computeView_ = new PlotView(computeChart_, this);
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

    connect(mode_, &QComboBox::currentIndexChanged, this, [this](int m) {
        value_->setText(m == 0 ? QStringLiteral("1e22") : (m == 1 ? QStringLiteral("7e9") : QStringLiteral("2.3")));
        recompute();
    });
    connect(method_, &QComboBox::currentIndexChanged, this, &OptimalView::recompute);
    connect(value_, &QLineEdit::editingFinished, this, &OptimalView::recompute);
    connect(context_, &QComboBox::currentTextChanged, this, &OptimalView::recompute);
    connect(overtrain_, &QSlider::valueChanged, this, &OptimalView::recompute);
    connect(inference_, &QLineEdit::editingFinished, this, &OptimalView::recompute);
    // Another chart of the same answer: no new job.
    connect(chartChoice_, &QComboBox::currentIndexChanged, this, [this] {
        redrawChart();
        emit explainChanged();
    });
    watcher_ = new QFutureWatcher<analysis::OptimalAnswer>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, &OptimalView::takeAnswer);
    // Hidden, the view recomputes when it is next shown.
    for (auto signal : {&Session::settingsChanged, &Session::surfaceChanged})
        connect(session_, signal, this, [this] {
            if (!deferWhileHidden([this] { recompute(); })) recompute();
        });
    // A new style draws the answer again (a deferred recompute, which draws too, comes first).
    connect(session_, &Session::styleChanged, this, [this] {
        if (running_ == generation_) return;  // drawn when the answer comes
        if (!deferWhileHidden([this] { show(QString::fromStdString(answer_.problem)); }, -1)) show(QString::fromStdString(answer_.problem));
    });
    recompute();
}

OptimalView::~OptimalView() {
    if (cancel_) cancel_->store(true);
    watcher_->waitForFinished();
}

void OptimalView::setQuery(Mode mode, double value, double context) {
    QSignalBlocker a(mode_), b(value_), c(context_);
    mode_->setCurrentIndex(static_cast<int>(mode));
    value_->setText(QString::number(value, 'g', 10));
    context_->setCurrentText(QString::number(context));
    recompute();
    computeNow();
}

void OptimalView::setMethod(int method) { method_->setCurrentIndex(method); }

QChart* OptimalView::primaryChart() const { return charts().front(); }

std::vector<QChart*> OptimalView::charts() const {
    switch (chartChoice_->currentIndex()) {
    case 1: return {pathChart_};
    case 2: return {computeChart_};
    default: return {chart_};
    }
}

const analysis::OptimalSeriesAnswer* OptimalView::of(bool xlstm) const {
    return answer_.find(xlstm ? Family::Xlstm : Family::Transformer);
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

QColor OptimalView::colorOf(const analysis::OptimalSeriesAnswer& a) const {
    const Theme& theme = Theme::current();
    if (a.family) return theme.family(*a.family);
    return theme.series(a.name, static_cast<int>(&a - answer_.series.data()));
}

void OptimalView::recompute() {
    const Mode mode = static_cast<Mode>(mode_->currentIndex());
    bool okValue = false, okContext = false, okInference = false;
    const double value = value_->text().trimmed().toDouble(&okValue);
    const double context = context_->currentText().trimmed().toDouble(&okContext);
    const double inference = inference_->text().trimmed().toDouble(&okInference);
    overtrainValue_->setText(tr("%1 %").arg(overtrain_->value()));
    // A newer query replaces the running one: its answer is dropped, its work stopped.
    ++generation_;
    if (cancel_) cancel_->store(true);
    if (okContext && context >= 64) shownContext_ = context;
    auto fail = [&](const QString& why) {
        answer_ = {};
        show(why);
    };
    if (!okValue || !(value > 0)) return fail(tr("“%1” is not a positive number.").arg(value_->text()));
    if (!okContext || context < 64) return fail(tr("The context length must be a number of at least 64 tokens."));
    if (!okInference || !(inference >= 0) || !std::isfinite(inference))
        return fail(tr("“%1” is not a number of inference tokens (0 or more, e.g. 1e13).").arg(inference_->text()));
    analysis::OptimalQuery query;
    query.given = static_cast<analysis::OptimalGiven>(mode);
    query.value = value;
    query.context = context;
    query.useLaws = method_->currentIndex() == 1;
    query.overtrainFraction = overtrain_->value() / 100.0;
    query.inferenceTokens = inference;
    // The inputs are read here, on the UI thread (the session may change while the job runs).
    std::vector<analysis::OptimalSeriesInput> inputs;
    for (Family f : kFamilies) {
        analysis::OptimalSeriesInput in;
        in.name = accounting::familyLabel(f);
        in.family = f;
        in.surface = session_->surface(f);
        in.computePerToken = session_->computePerToken(f, context);
        in.referencePerToken = session_->computePerToken(f, query.referenceContext);
        in.laws = analysis::paperOptimalLaws(session_->paper(), f, context);
        inputs.push_back(std::move(in));
    }
    error_->clear();  // a problem shown before is gone; the numbers follow when the job ends
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    running_ = generation_;
    watcher_->setFuture(QtConcurrent::run(jobPool(), [inputs = std::move(inputs), query, cancel = cancel_] {
        fit::FitControl control;
        control.cancel = cancel.get();
        return analysis::answerOptimalQuery(inputs, query, control);
    }));
    overtrainPercent_ = overtrain_->value();
}

void OptimalView::takeAnswer() {
    if (running_ != generation_ || !watcher_->isFinished() || watcher_->isCanceled()) return;
    running_ = -1;
    answer_ = watcher_->result();
    show(QString::fromStdString(answer_.problem));
}

void OptimalView::computeNow() {
    if (running_ != generation_) return;
    watcher_->waitForFinished();
    takeAnswer();
}

void OptimalView::show(const QString& problem) {
    error_->setText(problem);
    if (!problem.isEmpty()) {
        // No stale numbers: on a problem every table is emptied and says why.
        answer_.series.clear();
        result_->setRowCount(2);
        result_->clearContents();
        methods_->clearContents();
        methodsNote_->clear();
        methodsText_.clear();
        sizes_->setRowCount(0);
        overtrainLabel_->clear();
        overtrainText_.clear();
        lifetimeNote_->clear();
        lifetimeText_.clear();
    } else {
        fillResults();
        fillMethods();
        fillLifetime();
        fillSizes();
    }
    fitHeight(result_);
    redrawChart();
    emit explainChanged();
}

void OptimalView::fillResults() {
    // The optima, then the over-trained models (below 100 % of N*), then the lifetime optima.
    const auto& series = answer_.series;
    const int n = static_cast<int>(series.size());
    const bool overtraining = answer_.query.overtrainFraction < 1;
    result_->setRowCount(n);
    for (int k = 0; k < n; ++k) {
        const auto& a = series[static_cast<std::size_t>(k)];
        const auto& o = a.optimum;
        setModelRow(result_, k, QString::fromStdString(a.name), colorOf(a), o.params, o.tokens, o.budget, o.loss);
    }
    overtrainText_.clear();
    if (overtraining) {
        bool any = false;
        for (const auto& a : series) {
            const auto& o = a.overtrained;
            any = any || o.has_value();
            overtrainText_ += o ? tr("<b>%1</b> with N = %2 (%3&nbsp;% of N*): D = %4 tokens (%5× D*, %6 tokens/param) and "
                                     "%7× the compute for the same loss.<br>")
                                      .arg(QString::fromStdString(a.name), formatCount(o->params))
                                      .arg(overtrainPercent_)
                                      .arg(formatCount(o->tokens))
                                      .arg(o->extraTokens, 0, 'f', 2)
                                      .arg(o->tokens / o->params, 0, 'f', 0)
                                      .arg(o->extraCompute, 0, 'f', 2)
                                : tr("<b>%1</b>: a model of %2&nbsp;% of N* cannot reach that loss at any amount of data.<br>")
                                      .arg(QString::fromStdString(a.name))
                                      .arg(overtrainPercent_);
        }
        // The over-trained models as rows of the query table, under the optima.
        if (any) {
            result_->setRowCount(2 * n);
            for (int k = 0; k < n; ++k) {
                const auto& a = series[static_cast<std::size_t>(k)];
                const fit::OverTraining t = a.overtrained.value_or(fit::OverTraining{});
                setModelRow(result_, n + k, tr("%1 at %2 %").arg(QString::fromStdString(a.name)).arg(overtrainPercent_), colorOf(a),
                            t.params, t.tokens, t.compute, a.optimum.loss, !a.overtrained);
            }
        }
    } else {
        overtrainText_ = tr("Move the slider below 100&nbsp;% to train a smaller model than N* to the same loss.");
    }
    overtrainLabel_->setText(overtrainText_);
}

void OptimalView::fillSizes() {
    const auto& sizes = answer_.query.sizes;
    sizes_->setRowCount(static_cast<int>(sizes.size()));
    for (int r = 0; r < static_cast<int>(sizes.size()); ++r) {
        setCell(sizes_, r, 0, formatCount(sizes[static_cast<std::size_t>(r)]));
        for (const auto& a : answer_.series) {
            if (!a.family) continue;
            const int col = *a.family == Family::Xlstm ? 4 : 1;
            const auto& o = a.sizes[static_cast<std::size_t>(r)];
            if (!o) continue;
            setCell(sizes_, r, col, formatFlops(o->budget), colorOf(a));
            setCell(sizes_, r, col + 1, formatCount(o->tokens));
            setCell(sizes_, r, col + 2, QString::number(o->tokens / o->params, 'f', 1));
        }
    }
}

void OptimalView::redrawChart() {
    const int shown = chartChoice_->currentIndex();
    chartView_->setVisible(shown == 0);
    pathView_->setVisible(shown == 1);
    computeView_->setVisible(shown == 2);
    drawBudgetChart();
    drawPathChart();
    drawComputeChart();
}

void OptimalView::drawBudgetChart() {
    const Theme& theme = Theme::current();
    const double context = shownContext_;
    chart_->clearSeries();
    chart_->setAxes({tr("Compute H (FLOPs)"), true, 1e18, 1e25}, {tr("N*, D*"), true, 1e7, 1e14, true});
    chart_->setTitle(tr("Optimal N*, D* at T = %1").arg(context));
    // The key to the line styles: N* solid (named by series), D* dashed.
    chart_->addLine(tr("D* dashed"), theme.muted, {}, 1.8, Qt::DashLine);
    const bool laws = answer_.query.useLaws;
    const auto& budgets = answer_.query.budgets;
    bool otherListed = false;
    for (const auto& a : answer_.series) {
        const QColor color = colorOf(a);
        std::vector<QPointF> nLine, dLine, other;
        for (std::size_t i = 0; i < a.path.size(); ++i) {
            nLine.push_back({budgets[i], a.path[i].params});
            dLine.push_back({budgets[i], a.path[i].tokens});
            if (i < a.otherPath.size()) other.push_back({budgets[i], a.otherPath[i].params});
        }
        const QString name = QString::fromStdString(a.name);
        chart_->addLine(tr("%1 N*").arg(name), color, nLine, 2.5);
        PlotChart::hideFromLegend(chart_, chart_->addLine(tr("%1 D*").arg(name), color, dLine, 1.8, Qt::DashLine));
        // The other method's N*, thin and dotted: where the two agree and how far they part (one
        // legend entry for every series).
        if (!other.empty()) {
            auto* s = chart_->addLine(otherListed ? QString() : (laws ? tr("N* by the surface") : tr("N* by the laws")),
                                      color.lighter(130), other, 1.2, Qt::DotLine);
            if (otherListed) PlotChart::hideFromLegend(chart_, s);
            otherListed = true;
        }
        const auto& o = a.optimum;
        if (o.budget >= 1e18 && o.budget <= 1e25)
            PlotChart::hideFromLegend(chart_, chart_->addScatter(QString(), color, {{o.budget, o.params}, {o.budget, o.tokens}}, 10));
        // The over-trained model of the slider: smaller N, more D, more compute for the same loss.
        if (const auto& t = a.overtrained; t && t->compute >= 1e18 && t->compute <= 1e25)
            PlotChart::hideFromLegend(chart_, chart_->addScatter(QString(), color, {{t->compute, t->params}, {t->compute, t->tokens}}, 10, true));
    }
    chart_->setAxes(chart_->xSpec(), chart_->ySpec());
}

void OptimalView::drawPathChart() {
    // The optimal path in the N-D plane: each point the (N*, D*) of one budget, with lines of
    // constant tokens per parameter behind it.
    const Theme& theme = Theme::current();
    pathChart_->clearSeries();
    pathChart_->setAxes({tr("Model size N (parameters)"), true, 1e7, 1e13, true}, {tr("Training tokens D"), true, 1e8, 1e15, true});
    pathChart_->setTitle(tr("The compute-optimal path, H from 1e18 to 1e25, T = %1").arg(shownContext_));
    const double nLo = 3e7, nHi = 3e12;
    bool first = true;
    for (double r : {1.0, 10.0, 100.0, 1000.0}) {
        auto* s = pathChart_->addLine(first ? tr("D/N = 1, 10, 100, 1000") : QString(), theme.muted, {{nLo, r * nLo}, {nHi, r * nHi}}, 1.0, Qt::DashLine);
        if (!first) PlotChart::hideFromLegend(pathChart_, s);
        first = false;
    }
    pathChart_->addLine(tr("D/N = 20 (Hoffmann et al.)"), theme.foreground, {{nLo, 20 * nLo}, {nHi, 20 * nHi}}, 1.2, Qt::DotLine);
    const bool laws = answer_.query.useLaws;
    for (const auto& a : answer_.series) {
        const QColor color = colorOf(a);
        std::vector<QPointF> path;
        for (const auto& o : a.path) path.push_back({o.params, o.tokens});
        pathChart_->addLine(tr("%1 (%2)").arg(QString::fromStdString(a.name), laws ? tr("IsoFLOP laws") : tr("loss surface")), color, path, 2.5);
        const auto& o = a.optimum;
        pathChart_->includeInRange(o.params, o.tokens);
        PlotChart::hideFromLegend(pathChart_, pathChart_->addScatter(QString(), color, {{o.params, o.tokens}}, 10));
        if (const auto& t = a.overtrained) PlotChart::hideFromLegend(pathChart_, pathChart_->addScatter(QString(), color, {{t->params, t->tokens}}, 10, true));
        if (const auto& l = a.lifetime) PlotChart::hideFromLegend(pathChart_, pathChart_->addScatter(QString(), color, {{l->params, l->tokens}}, 13, true));
    }
    pathChart_->setAxes(pathChart_->xSpec(), pathChart_->ySpec());
}

void OptimalView::drawComputeChart() {
    // The exact training compute per token over the 6N of C ≈ 6ND, for every series at T and,
    // for reference, at the study's shortest context.
    const Theme& theme = Theme::current();
    const double context = shownContext_;
    const double reference = answer_.query.referenceContext;
    computeChart_->clearSeries();
    computeChart_->setAxes({tr("Model size N (parameters)"), true, 1e8, 2e11, true}, {tr("C / 6ND"), false, 0.8, 2.0});
    computeChart_->setTitle(tr("Exact training compute over 6ND at T = %1").arg(context));
    const auto& sizes = answer_.query.curveSizes;
    double top = 1.2;
    if (!sizes.empty())
        computeChart_->addLine(tr("C = 6ND"), theme.muted, {{sizes.front(), 1.0}, {sizes.back(), 1.0}}, 1.0, Qt::DashLine);
    for (const auto& a : answer_.series) {
        const QColor color = colorOf(a);
        const QString name = QString::fromStdString(a.name);
        for (const bool atContext : {true, false}) {
            if (!atContext && context == reference) continue;
            const auto& ratio = atContext ? a.computeRatio : a.referenceComputeRatio;
            std::vector<QPointF> line;
            for (std::size_t i = 0; i < ratio.size(); ++i) line.push_back({sizes[i], ratio[i]}), top = std::max(top, ratio[i]);
            computeChart_->addLine(tr("%1, T = %2").arg(name).arg(atContext ? context : reference), atContext ? color : color.lighter(140),
                                   line, atContext ? 2.5 : 1.2, atContext ? Qt::SolidLine : Qt::DashLine);
        }
        const auto& o = a.optimum;
        if (o.params >= 1e8 && o.params <= 2e11)
            PlotChart::hideFromLegend(computeChart_, computeChart_->addScatter(QString(), color, {{o.params, a.optimumComputeRatio}}, 10));
    }
    computeChart_->setAxes(computeChart_->xSpec(), {tr("C / 6ND"), false, 0.8, std::ceil(top * 10 + 1) / 10});
}

void OptimalView::fillMethods() {
    // Both methods at the budget of the query's optimum, and the reason they differ in numbers.
    const double context = answer_.query.context;
    const auto& series = answer_.series;
    methods_->clearContents();
    methods_->setRowCount(static_cast<int>(2 * series.size()));
    QStringList exponents, agree, growth;
    bool haveLaws = true;
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto& a = series[k];
        const int row = static_cast<int>(2 * k);
        const QString name = QString::fromStdString(a.name);
        setCell(methods_, row, 0, tr("%1, loss surface").arg(name), colorOf(a));
        setCell(methods_, row + 1, 0, tr("%1, IsoFLOP laws").arg(name), colorOf(a));
        if (!a.comparison) {
            haveLaws = false;
            const auto& o = a.surfaceAtBudget;
            setCell(methods_, row, 1, formatCount(o.params));
            setCell(methods_, row, 2, QString::number(o.tokens / o.params, 'f', 1));
            for (int c : {3, 4}) setCell(methods_, row, c, tr("—"));
            for (int c : {1, 2, 3, 4}) setCell(methods_, row + 1, c, tr("—"));
            continue;
        }
        const auto& c = *a.comparison;
        const QString agreeAt = std::isfinite(c.agreeAtBudget) ? formatFlops(c.agreeAtBudget) : tr("nowhere");
        const fit::OptimalPoint* points[2] = {&c.surface, &c.laws};
        const double exps[2] = {c.surfaceExponent, c.lawExponent};
        for (int m = 0; m < 2; ++m) {
            setCell(methods_, row + m, 1, formatCount(points[m]->params));
            setCell(methods_, row + m, 2, QString::number(points[m]->tokens / points[m]->params, 'f', 1));
            setCell(methods_, row + m, 3, QString::number(exps[m], 'f', 3));
            setCell(methods_, row + m, 4, agreeAt);
        }
        exponents << tr("H<sup>%1</sup> by the surface and H<sup>%2</sup> by the laws for %3")
                         .arg(c.surfaceExponent, 0, 'f', 3)
                         .arg(c.lawExponent, 0, 'f', 3)
                         .arg(name);
        agree << (std::isfinite(c.agreeAtBudget) ? tr("at H = %1 (%2)").arg(formatFlops(c.agreeAtBudget), name)
                                                 : tr("nowhere between 1e15 and 1e27 FLOPs (%1)").arg(name));
        growth << tr("%1× (%2)").arg(std::pow(10.0, std::abs(c.lawExponent - c.surfaceExponent)), 0, 'f', 2).arg(name);
    }
    if (!haveLaws)
        methodsText_ = tr("The paper has IsoFLOP power laws at T = 2048, 8192 and 16384 only: at T = %1 only the loss surface "
                          "answers.").arg(context);
    else
        methodsText_ = tr("<b>Why they differ.</b> The loss surface is fitted to runs at many tokens per parameter (the "
                          "paper's: its token/param runs, 22 to 2200), most of them far from the optimum; the IsoFLOP laws "
                          "are fitted to the minima of measured IsoFLOP profiles. Here N* grows as %1. The two give the "
                          "same N* %2; every tenfold budget away from there multiplies their gap by %3.")
                           .arg(exponents.join(QStringLiteral("; ")), agree.join(tr(" and ")), growth.join(tr(" and ")));
    methodsNote_->setText(methodsText_);
}

void OptimalView::fillLifetime() {
    // Training plus inference: the size that reaches the query's loss for the least total compute.
    const double inferenceTokens = answer_.query.inferenceTokens;
    lifetimeText_.clear();
    if (!(inferenceTokens > 0)) {
        lifetimeText_ = tr("Type the number of tokens the model will serve (e.g. 1e13) to find the size that reaches the same "
                           "loss for the least training plus inference compute.");
        lifetimeNote_->setText(lifetimeText_);
        return;
    }
    const int first = result_->rowCount();
    const auto& series = answer_.series;
    result_->setRowCount(first + static_cast<int>(series.size()));
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto& a = series[k];
        const int row = first + static_cast<int>(k);
        const QString name = QString::fromStdString(a.name);
        const auto& l = a.lifetime;
        const analysis::LifetimeOptimum shown = l.value_or(analysis::LifetimeOptimum{});
        setModelRow(result_, row, tr("%1 serving %2").arg(name, formatCount(inferenceTokens)), colorOf(a), shown.params, shown.tokens,
                    shown.trainingCompute, a.optimum.loss, !l);
        if (!l) continue;
        lifetimeText_ += tr("<b>%1</b> serving %2 tokens: N = %3 (%4&nbsp;% of N*) on %5 tokens (%6 tokens/param) reaches the "
                            "same loss for %7 + %8 = %9 FLOPs of training and inference, %10&nbsp;% less than the "
                            "compute-optimal model's %11.<br>")
                             .arg(name, formatCount(inferenceTokens), formatCount(l->params))
                             .arg(100 * l->params / a.optimum.params, 0, 'f', 0)
                             .arg(formatCount(l->tokens))
                             .arg(l->tokens / l->params, 0, 'f', 0)
                             .arg(formatFlops(l->trainingCompute), formatFlops(l->inferenceCompute), formatFlops(l->total()))
                             .arg(100 * l->saving(), 0, 'f', 1)
                             .arg(formatFlops(l->computeOptimalTotal));
    }
    lifetimeText_ += tr("An inference token costs one forward pass at T, a third of the training compute per token (about 2N).");
    lifetimeNote_->setText(lifetimeText_);
}

std::vector<ViewTable> OptimalView::tables() {
    computeNow();
    const std::string value = data::latexEscape(value_->text().trimmed().toStdString());
    const std::string asked = mode_->currentIndex() == 0   ? "a training budget $H$ = " + value + " FLOPs"
                              : mode_->currentIndex() == 1 ? "a model size $N$ = " + value + " parameters"
                                                           : "a target loss of " + value;
    const std::string problem = error_->text().toStdString();
    return {{QStringLiteral("sizes"), tr("Optimal budget and tokens per model size"), analysis::optimalSizesTable(answer_, problem)},
            {QStringLiteral("query"), tr("Optimum of the current query"), analysis::optimalQueryTable(answer_, asked, problem)},
            {QStringLiteral("methods"), tr("Both methods side by side"),
             analysis::optimalMethodsTable(answer_, problem.empty() ? methodsText_.toStdString() : problem)}};
}

QString OptimalView::problem() const { return error_->text(); }

QString OptimalView::explainHtml() const {
    if (!error_->text().isEmpty())
        return tr("<h3>Compute-optimal training</h3><p>No numbers for this query: %1</p>").arg(error_->text().toHtmlEscaped());
    QStringList now;
    for (const auto& a : answer_.series)
        now << tr("%1 N* = %2 with %3 tokens/param")
                   .arg(QString::fromStdString(a.name), formatCount(a.optimum.params))
                   .arg(a.optimum.tokens / std::max(1.0, a.optimum.params), 0, 'f', 1);
    return tr("<h3>Compute-optimal training</h3>"
              "<p>With a fixed compute budget H you can train a large model on few tokens or a small model on "
              "many. The loss surface L̂(N, D) says which split is best: the N* and D* with the lowest predicted "
              "loss on the line c<sub>T</sub>(N)·D = H.</p>"
              "<p>Given a model size instead, the calculator finds the budget for which that size is optimal; "
              "given a target loss, the cheapest budget that reaches it.</p>"
              "<p>Now: %1.</p>"
              "<p>Two methods: the loss surface (fitted here, or the paper's) with the exact FLOP count at any T; "
              "or the paper's IsoFLOP power laws N* = A'·H<sup>a</sup>, D* = B'·H<sup>b</sup>. With a &gt; b the "
              "IsoFLOP laws make tokens per parameter fall as models grow, and they put the xLSTM optimum at "
              "larger models; the surface, fitted on over-trained runs, need not agree.</p><p>%2</p>")
        .arg(now.isEmpty() ? tr("being computed") : now.join(QStringLiteral("; ")))
        .arg(overtrainText_ + QStringLiteral("</p><p>") + methodsText_ + QStringLiteral("</p><p>") + lifetimeText_);
}

}  // namespace scalex::gui
