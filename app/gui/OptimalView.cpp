#include "app/gui/OptimalView.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <functional>

#include "app/gui/LogTicks.h"
#include "app/gui/PlotChart.h"
#include <QtCharts/QScatterSeries>
#include "app/gui/Session.h"
#include "app/gui/Theme.h"

namespace scalex::gui {

using accounting::Family;

namespace {
constexpr Family kFamilies[] = {Family::Transformer, Family::Xlstm};
QString labelOf(Family f) { return QString::fromUtf8(accounting::familyLabel(f).data()); }

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
}  // namespace

OptimalView::OptimalView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("mode"));
    mode_->addItem(tr("Training budget H (FLOPs)"));
    mode_->addItem(tr("Model size N (parameters)"));
    mode_->addItem(tr("Target loss"));
    method_ = new QComboBox(this);
    method_->setObjectName(QStringLiteral("method"));
    method_->addItem(tr("Loss surface L̂(N,D) and the FLOP count at T"));
    method_->addItem(tr("The paper's IsoFLOP power laws (T = 2048, 8192, 16384)"));
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
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: %1").arg(Theme::current().highlight.name()));

    // Long choices are cut short in the box (the list shows them whole), so the boxes fit the column.
    for (QComboBox* box : {method_, mode_}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(12);
        box->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }
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
    auto* left = new QVBoxLayout();
    left->addLayout(form);
    left->addWidget(error_);
    left->addWidget(overtrainLabel_);
    left->addStretch(1);
    auto* leftWidget = new QWidget(this);
    leftWidget->setLayout(left);
    leftWidget->setFixedWidth(300);

    result_ = makeTable(this, {tr(""), tr("N*"), tr("D*"), tr("D*/N*"), tr("H"), tr("loss L̂")});
    result_->setRowCount(2);
    result_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);  // "xLSTM at 50 %" whole
    sizes_ = makeTable(this, {tr("N"), tr("Transformer H"), tr("D"), tr("D/N"), tr("xLSTM H"), tr("D"), tr("D/N")});
    chart_ = new PlotChart();
    chartView_ = new PlotView(chart_, this);
    chartView_->setMinimumHeight(260);
    auto* right = new QVBoxLayout();
    right->addWidget(new QLabel(tr("<b>The optimum for the query</b>"), this));
    right->addWidget(result_);
    right->addWidget(chartView_, 3);
    auto* sizesTitle = new QLabel(tr("<b>Compute-optimal training of common model sizes</b> (as the paper's appendix tables)"), this);
    sizesTitle->setWordWrap(true);
    right->addWidget(sizesTitle);
    right->addWidget(sizes_, 2);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(leftWidget);
    layout->addLayout(right, 1);

    connect(mode_, &QComboBox::currentIndexChanged, this, [this](int m) {
        value_->setText(m == 0 ? QStringLiteral("1e22") : (m == 1 ? QStringLiteral("7e9") : QStringLiteral("2.3")));
        recompute();
    });
    connect(method_, &QComboBox::currentIndexChanged, this, &OptimalView::recompute);
    connect(value_, &QLineEdit::editingFinished, this, &OptimalView::recompute);
    connect(context_, &QComboBox::currentTextChanged, this, &OptimalView::recompute);
    connect(overtrain_, &QSlider::valueChanged, this, &OptimalView::recompute);
    // Hidden, the view recomputes when it is next shown.
    for (auto signal : {&Session::settingsChanged, &Session::surfaceChanged})
        connect(session_, signal, this, [this] {
            if (!deferWhileHidden([this] { recompute(); })) recompute();
        });
    recompute();
}

void OptimalView::setQuery(Mode mode, double value, double context) {
    QSignalBlocker a(mode_), b(value_), c(context_);
    mode_->setCurrentIndex(static_cast<int>(mode));
    value_->setText(QString::number(value, 'g', 10));
    context_->setCurrentText(QString::number(context));
    recompute();
}

void OptimalView::setMethod(int method) { method_->setCurrentIndex(method); }

QChart* OptimalView::primaryChart() const { return chart_; }

void OptimalView::redrawChart(double context) {
    const Theme& theme = Theme::current();
    chart_->clearSeries();
    chart_->setAxes({tr("Compute H (FLOPs)"), true, 1e18, 1e25}, {tr("N*, D*"), true, 1e7, 1e14, true});
    chart_->setTitle(tr("Compute-optimal N* and D* at T = %1").arg(context));
    for (Family f : kFamilies) {
        const QColor color = theme.family(f);
        std::vector<QPointF> nLine, dLine;
        for (int i = 0; i <= 28; ++i) {
            const double H = 1e18 * std::pow(10.0, i * 0.25);
            if (const auto o = solve(f, Mode::Budget, H, context)) {
                nLine.push_back({H, o->params});
                dLine.push_back({H, o->tokens});
            }
        }
        if (nLine.empty()) continue;
        chart_->addLine(tr("%1 N*").arg(labelOf(f)), color, nLine, 2.5);
        chart_->addLine(tr("%1 D*").arg(labelOf(f)), color, dLine, 1.8, Qt::DashLine);
        if (error_->text().isEmpty()) {
            const auto& o = optimum_[f == Family::Xlstm ? 1 : 0];
            if (o.budget >= 1e18 && o.budget <= 1e25)
                PlotChart::hideFromLegend(chart_, chart_->addScatter(QString(), color, {{o.budget, o.params}, {o.budget, o.tokens}}, 10));
            // The over-trained model of the slider: smaller N, more D, more compute for the same loss.
            if (const auto& t = overtrained_[f == Family::Xlstm ? 1 : 0]; t && t->compute >= 1e18 && t->compute <= 1e25)
                PlotChart::hideFromLegend(chart_, chart_->addScatter(QString(), color, {{t->compute, t->params}, {t->compute, t->tokens}}, 10, true));
        }
    }
    chart_->setAxes(chart_->xSpec(), chart_->ySpec());
}

std::optional<fit::OptimalPoint> OptimalView::solve(Family f, Mode mode, double value, double context) const {
    const fit::LossSurfaceParams surface = session_->surface(f);
    std::function<fit::OptimalPoint(double)> atBudget;
    if (method_->currentIndex() == 0) {
        const fit::ComputePerToken c = session_->computePerToken(f, context);
        atBudget = [surface, c](double H) { return fit::computeOptimal(surface, c, H); };
    } else {
        // N* = A' H^a, D* = B' H^b (Eq. nd_opt); the per-context laws where the paper has them.
        const data::IsoFlopPowerLawRow* law = nullptr;
        for (const auto& row : session_->paper().isoflopPowerLaws)
            if (row.family == f && static_cast<double>(row.context) == context && (!law || row.sourceTable.find("context") == std::string::npos))
                law = &row;
        if (!law) return std::nullopt;
        atBudget = [surface, law](double H) {
            fit::OptimalPoint o;
            o.budget = H;
            o.params = law->coefN * std::pow(H, law->exponentN);
            o.tokens = law->coefD * std::pow(H, law->exponentD);
            o.loss = surface.loss(o.params, o.tokens);
            return o;
        };
    }
    if (mode == Mode::Budget) return atBudget(value);
    // N*(H) and L̂(N*(H), D*(H)) are monotone in H: bisect in log H.
    auto solveFor = [&](auto quantity) {
        double lo = std::log(1e12), hi = std::log(1e30);
        for (int i = 0; i < 100; ++i) {
            const double mid = (lo + hi) / 2;
            (quantity(atBudget(std::exp(mid))) ? hi : lo) = mid;
        }
        return atBudget(std::exp((lo + hi) / 2));
    };
    if (mode == Mode::ModelSize) return solveFor([&](const fit::OptimalPoint& o) { return o.params >= value; });
    return solveFor([&](const fit::OptimalPoint& o) { return o.loss <= value; });
}

void OptimalView::recompute() {
    const Theme& theme = Theme::current();
    const Mode mode = static_cast<Mode>(mode_->currentIndex());
    bool okValue = false, okContext = false;
    const double value = value_->text().trimmed().toDouble(&okValue);
    const double context = context_->currentText().trimmed().toDouble(&okContext);
    error_->clear();
    overtrained_[0] = overtrained_[1] = std::nullopt;
    overtrainValue_->setText(tr("%1 %").arg(overtrain_->value()));
    result_->setRowCount(2);
    if (!okValue || !(value > 0)) {
        error_->setText(tr("“%1” is not a positive number.").arg(value_->text()));
        return;
    }
    if (!okContext || context < 64) {
        error_->setText(tr("The context length must be a number of at least 64 tokens."));
        return;
    }
    for (Family f : kFamilies) {
        const int k = f == Family::Xlstm;
        if (mode == Mode::TargetLoss) {
            const fit::LossSurfaceParams s = session_->surface(f);
            if (value <= std::exp(s.logE)) {
                error_->setText(tr("%1 cannot reach a loss of %2: its irreducible loss E is %3.")
                                    .arg(labelOf(f))
                                    .arg(value)
                                    .arg(std::exp(s.logE), 0, 'f', 3));
                redrawChart(context);
                return;
            }
        }
        const auto solved = solve(f, mode, value, context);
        if (!solved) {
            error_->setText(tr("The paper has IsoFLOP power laws at T = 2048, 8192 and 16384 only, none at T = %1: "
                               "choose one of those, or the loss-surface method (any T).")
                                .arg(context));
            // No stale numbers: the tables say why they are empty.
            result_->clearContents();
            sizes_->setRowCount(0);
            sizeRows_.clear();
            context_value_ = context;
            overtrainLabel_->clear();
            overtrainText_.clear();
            redrawChart(context);
            emit explainChanged();
            return;
        }
        optimum_[k] = *solved;
        const auto& o = optimum_[k];
        setCell(result_, k, 0, labelOf(f), theme.family(f));
        setCell(result_, k, 1, formatCount(o.params));
        setCell(result_, k, 2, formatCount(o.tokens));
        setCell(result_, k, 3, QString::number(o.tokens / o.params, 'f', 1));
        setCell(result_, k, 4, formatFlops(o.budget));
        setCell(result_, k, 5, QString::number(o.loss, 'f', 4));
    }
    // Over-training: N below N*, the same loss.
    const double fraction = overtrain_->value() / 100.0;
    overtrainText_.clear();
    if (fraction < 1.0) {
        for (Family f : kFamilies) {
            const int k = f == Family::Xlstm;
            const auto o = fit::overTrain(session_->surface(f), session_->computePerToken(f, context), optimum_[k],
                                          optimum_[k].params * fraction);
            overtrained_[k] = o;
            overtrainText_ += o ? tr("<b>%1</b> with N = %2 (%3&nbsp;% of N*): D = %4 tokens (%5× D*, %6 tokens/param) and "
                                     "%7× the compute for the same loss.<br>")
                                      .arg(labelOf(f), formatCount(o->params))
                                      .arg(overtrain_->value())
                                      .arg(formatCount(o->tokens))
                                      .arg(o->extraTokens, 0, 'f', 2)
                                      .arg(o->tokens / o->params, 0, 'f', 0)
                                      .arg(o->extraCompute, 0, 'f', 2)
                                : tr("<b>%1</b>: a model of %2&nbsp;% of N* cannot reach that loss at any amount of data.<br>")
                                      .arg(labelOf(f))
                                      .arg(overtrain_->value());
        }
    } else {
        overtrainText_ = tr("Move the slider below 100&nbsp;% to train a smaller model than N* to the same loss.");
    }
    overtrainLabel_->setText(overtrainText_);
    // The over-trained models as rows of the query table, under the optima.
    if (overtrained_[0] || overtrained_[1]) {
        result_->setRowCount(4);
        for (Family f : kFamilies) {
            const int k = f == Family::Xlstm;
            const int row = 2 + k;
            const auto& t = overtrained_[k];
            setCell(result_, row, 0, tr("%1 at %2 %").arg(labelOf(f)).arg(overtrain_->value()), theme.family(f));
            if (!t) {
                for (int c = 1; c < 6; ++c) setCell(result_, row, c, tr("—"));
                continue;
            }
            setCell(result_, row, 1, formatCount(t->params));
            setCell(result_, row, 2, formatCount(t->tokens));
            setCell(result_, row, 3, QString::number(t->tokens / t->params, 'f', 1));
            setCell(result_, row, 4, formatFlops(t->compute));
            setCell(result_, row, 5, QString::number(optimum_[k].loss, 'f', 4));
        }
    }
    result_->setMaximumHeight(result_->horizontalHeader()->height() + result_->rowCount() * result_->verticalHeader()->defaultSectionSize() + 6);
    // The appendix-style table.
    const std::vector<double> sizes{1e8, 4e8, 1e9, 3e9, 7e9, 1.5e10, 3e10, 7e10, 1.4e11};
    sizes_->setRowCount(static_cast<int>(sizes.size()));
    context_value_ = context;
    sizeRows_ = sizes;
    for (auto& o : sizeOptima_) o.assign(sizes.size(), std::nullopt);
    for (int r = 0; r < static_cast<int>(sizes.size()); ++r) {
        const double n = sizes[static_cast<std::size_t>(r)];
        setCell(sizes_, r, 0, formatCount(n));
        for (Family f : kFamilies) {
            const int col = f == Family::Xlstm ? 4 : 1;
            const auto o = solve(f, Mode::ModelSize, n, context);
            sizeOptima_[f == Family::Xlstm ? 1 : 0][static_cast<std::size_t>(r)] = o;
            if (!o) continue;
            setCell(sizes_, r, col, formatFlops(o->budget), theme.family(f));
            setCell(sizes_, r, col + 1, formatCount(o->tokens));
            setCell(sizes_, r, col + 2, QString::number(o->tokens / o->params, 'f', 1));
        }
    }
    redrawChart(context);
    emit explainChanged();
}

std::vector<ViewTable> OptimalView::tables() {
    const std::string method = method_->currentIndex() == 0 ? "the loss surface with the FLOP count at $T$" : "the IsoFLOP power laws";
    const std::string context = std::to_string(static_cast<long long>(context_value_));
    data::ExportTable sizes;
    sizes.caption = "Estimated compute-optimal training FLOPs, tokens and token/param ratio for varying model sizes "
                    "(context length " + context + ", from " + method + ").";
    sizes.label = "tab:estimated_optimal_flops_tokens";
    sizes.columns = {{"params", "\\#Params", data::CellStyle::Count}};
    for (Family f : kFamilies) {
        const std::string key = f == Family::Xlstm ? "xlstm" : "transformer";
        const std::string label(accounting::familyLabel(f));
        sizes.columns.push_back({key + "_flops", label + " \\#FLOPs", data::CellStyle::Scientific});
        sizes.columns.push_back({key + "_tokens", "\\#Tokens", data::CellStyle::Count});
        sizes.columns.push_back({key + "_tokens_per_param", "Token/Param", data::CellStyle::Fixed1});
    }
    for (std::size_t r = 0; r < sizeRows_.size(); ++r) {
        std::vector<data::ExportCell> row{sizeRows_[r]};
        for (int k = 0; k < 2; ++k) {
            const auto& o = sizeOptima_[k].size() > r ? sizeOptima_[k][r] : std::nullopt;
            if (o) row.insert(row.end(), {o->budget, o->tokens, o->tokens / o->params});
            else row.insert(row.end(), {data::ExportCell{}, data::ExportCell{}, data::ExportCell{}});
        }
        sizes.rows.push_back(std::move(row));
    }
    if (!error_->text().isEmpty()) sizes.caption += " No values: " + data::latexEscape(error_->text().toStdString());
    data::ExportTable query;
    const std::string value = data::latexEscape(value_->text().trimmed().toStdString());
    const std::string asked = mode_->currentIndex() == 0   ? "a training budget $H$ = " + value + " FLOPs"
                              : mode_->currentIndex() == 1 ? "a model size $N$ = " + value + " parameters"
                                                           : "a target loss of " + value;
    query.caption = "Compute-optimal configuration for " + asked + " at context length " + context + ", from " + method + ".";
    query.columns = {{"model", "Model", data::CellStyle::Text},          {"n_opt", "$N^*$", data::CellStyle::Count},
                     {"d_opt", "$D^*$", data::CellStyle::Count},         {"tokens_per_param", "$D^*/N^*$", data::CellStyle::Fixed1},
                     {"budget", "$H$ (FLOPs)", data::CellStyle::Scientific}, {"loss", "$\\hat L$", data::CellStyle::Fixed3}};
    if (error_->text().isEmpty()) {
        for (Family f : kFamilies) {
            const auto& o = optimum_[f == Family::Xlstm ? 1 : 0];
            query.rows.push_back({std::string(accounting::familyLabel(f)), o.params, o.tokens, o.tokens / o.params, o.budget, o.loss});
        }
        for (Family f : kFamilies)
            if (const auto& t = overtrained_[f == Family::Xlstm ? 1 : 0])
                query.rows.push_back({std::string(accounting::familyLabel(f)) + " at " + std::to_string(overtrain_->value()) + " % of N*",
                                      t->params, t->tokens, t->tokens / t->params, t->compute, optimum_[f == Family::Xlstm ? 1 : 0].loss});
    } else {
        query.caption += " No values: " + data::latexEscape(error_->text().toStdString());
    }
    return {{QStringLiteral("sizes"), tr("Optimal budget and tokens per model size"), std::move(sizes)},
            {QStringLiteral("query"), tr("Optimum of the current query"), std::move(query)}};
}

QString OptimalView::problem() const { return error_->text(); }

QString OptimalView::explainHtml() const {
    if (!error_->text().isEmpty())
        return tr("<h3>Compute-optimal training</h3><p>No numbers for this query: %1</p>").arg(error_->text().toHtmlEscaped());
    return tr("<h3>Compute-optimal training</h3>"
              "<p>With a fixed compute budget H you can train a large model on few tokens or a small model on "
              "many. The loss surface L̂(N, D) says which split is best: the N* and D* with the lowest predicted "
              "loss on the line c<sub>T</sub>(N)·D = H.</p>"
              "<p>Given a model size instead, the calculator finds the budget for which that size is optimal; "
              "given a target loss, the cheapest budget that reaches it.</p>"
              "<p>Now: Transformer N* = %1 with %2 tokens/param; xLSTM N* = %3 with %4 tokens/param.</p>"
              "<p>Two methods: the loss surface (fitted here, or the paper's) with the exact FLOP count at any T; "
              "or the paper's IsoFLOP power laws N* = A'·H<sup>a</sup>, D* = B'·H<sup>b</sup>. With a &gt; b the "
              "IsoFLOP laws make tokens per parameter fall as models grow, and they put the xLSTM optimum at "
              "larger models; the surface, fitted on over-trained runs, need not agree.</p><p>%5</p>")
        .arg(formatCount(optimum_[0].params))
        .arg(optimum_[0].tokens / std::max(1.0, optimum_[0].params), 0, 'f', 1)
        .arg(formatCount(optimum_[1].params))
        .arg(optimum_[1].tokens / std::max(1.0, optimum_[1].params), 0, 'f', 1)
        .arg(overtrainText_);
}

}  // namespace scalex::gui
