#include "app/gui/LossSurfaceView.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QPointer>
#include <QVBoxLayout>
#include <QtCharts/QLegendMarker>
#include <QtConcurrent/QtConcurrent>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <cmath>

#include "app/gui/LogTicks.h"
#include "app/gui/PlotChart.h"
#include "app/gui/Session.h"
#include "app/gui/Theme.h"
#include "core/analysis/RunSelection.h"
#include "core/fit/ComputeOptimal.h"
#include "core/fit/PowerLaw.h"

namespace scalex::gui {

using accounting::Family;

namespace {

// Training compute per token as a function of N, from the runs themselves (C / D), so iso-FLOP
// lines follow the table's own FLOP convention; 6N where the runs carry no C.
fit::PowerLaw computePerToken(const data::RunTable& table, Family family) {
    std::vector<double> n, c;
    for (const auto& r : table.runs)
        if (r.family == family && data::known(r.flops) && data::known(r.tokens) && r.params > 0 && r.tokens > 0) {
            n.push_back(r.params);
            c.push_back(r.flops / r.tokens);
        }
    if (auto law = fit::fitPowerLaw(n, c)) return *law;
    fit::PowerLaw sixN;
    sixN.coefficient = 6;
    sixN.exponent = 1;
    return sixN;
}

}  // namespace

LossSurfaceView::LossSurfaceView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    chart_ = new PlotChart();
    view_ = new PlotView(chart_, this);
    family_ = new QComboBox(this);
    family_->setObjectName(QStringLiteral("family"));
    family_->addItem(tr("Transformer"), static_cast<int>(Family::Transformer));
    family_->addItem(tr("xLSTM"), static_cast<int>(Family::Xlstm));
    delta_ = new QComboBox(this);
    delta_->setObjectName(QStringLiteral("delta"));
    for (double d : {1e-4, 1e-3, 1e-2, 1e-1}) delta_->addItem(QString::number(d, 'g'), d);
    delta_->setCurrentIndex(1);
    gamma_ = new QComboBox(this);
    gamma_->setObjectName(QStringLiteral("gamma"));
    gamma_->addItem(tr("free"), true);
    gamma_->addItem(tr("fixed at 1"), false);
    grid_ = new QComboBox(this);
    grid_->setObjectName(QStringLiteral("grid"));
    grid_->addItem(tr("paper (8000 starts)"));
    grid_->addItem(tr("quick (216 starts)"));
    set_ = new QComboBox(this);
    set_->setObjectName(QStringLiteral("set"));
    set_->addItem(tr("Token/Param runs"), static_cast<int>(data::ExperimentSet::TokenParam));
    set_->addItem(tr("IsoFLOP runs"), static_cast<int>(data::ExperimentSet::IsoFlop));
    set_->addItem(tr("all runs"), -1);
    fitButton_ = new QPushButton(tr("Fit"), this);
    fitButton_->setDefault(true);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setEnabled(false);
    progress_ = new QProgressBar(this);
    progress_->setTextVisible(true);
    progress_->setValue(0);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout();
    form->addRow(tr("Family"), family_);
    form->addRow(tr("Runs"), set_);
    form->addRow(tr("Huber δ"), delta_);
    form->addRow(tr("γ"), gamma_);
    form->addRow(tr("Starts"), grid_);
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(fitButton_);
    buttons->addWidget(cancelButton_);
    auto* side = new QVBoxLayout();
    side->addLayout(form);
    side->addLayout(buttons);
    side->addWidget(progress_);
    side->addWidget(summary_);
    side->addStretch(1);
    auto* sideWidget = new QWidget(this);
    sideWidget->setLayout(side);
    sideWidget->setFixedWidth(280);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(sideWidget);
    layout->addWidget(view_, 1);

    watcher_ = new QFutureWatcher<fit::LossSurfaceFit>(this);
    connect(watcher_, &QFutureWatcher<fit::LossSurfaceFit>::finished, this, &LossSurfaceView::onFitDone);
    connect(fitButton_, &QPushButton::clicked, this, &LossSurfaceView::startFit);
    connect(cancelButton_, &QPushButton::clicked, this, &LossSurfaceView::cancelFit);
    for (QComboBox* box : {family_, set_})
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            fit_.reset();
            redraw();
        });
    connect(session_, &Session::runsChanged, this, [this] {
        fit_.reset();
        redraw();
    });
    connect(session_, &Session::settingsChanged, this, &LossSurfaceView::redraw);
    connect(session_, &Session::selectionChanged, this, &LossSurfaceView::redraw);
    connect(chart_, &QChart::plotAreaChanged, this, [this] {
        // Re-render the colour map at the new plot size (see redraw()).
        if (fit_) redraw();
    });
    redraw();
}

LossSurfaceView::~LossSurfaceView() {
    cancelFit();
    waitForFit();
}

Family LossSurfaceView::family() const { return static_cast<Family>(family_->currentData().toInt()); }
QChart* LossSurfaceView::primaryChart() const { return chart_; }
bool LossSurfaceView::fitting() const { return watcher_->isRunning(); }

void LossSurfaceView::waitForFit() {
    if (watcher_->isRunning()) {
        watcher_->waitForFinished();
        QCoreApplication::processEvents();
    }
}

void LossSurfaceView::setGrid(int index) { grid_->setCurrentIndex(index); }

analysis::RunFilter LossSurfaceView::filter() const { return filter(family()); }

analysis::RunFilter LossSurfaceView::filter(Family family) const {
    analysis::RunFilter f = session_->filter(family);
    const int set = set_->currentData().toInt();
    if (set >= 0) f.experimentSet = static_cast<data::ExperimentSet>(set);
    // One context: the loss surface has no term for it. The study's 8192 where present.
    const auto contexts = analysis::contextLengths(session_->runs(), f);
    if (!contexts.empty())
        f.context = std::find(contexts.begin(), contexts.end(), 8192.0) != contexts.end() ? 8192.0 : contexts.back();
    return f;
}

std::vector<fit::LossPoint> LossSurfaceView::points() const {
    return analysis::lossSurfacePoints(session_->runs(), filter()).points;
}

void LossSurfaceView::startFit() {
    if (fitting()) return;
    const auto pts = points();
    fit::LossSurfaceSettings settings;
    settings.huberDelta = delta_->currentData().toDouble();
    settings.fitGamma = gamma_->currentData().toBool();
    if (grid_->currentIndex() == 1) {
        // Every other value of each axis of the paper's grid.
        fit::InitGrid quick;
        auto everyOther = [](const std::vector<double>& axis) {
            std::vector<double> out;
            for (std::size_t i = 0; i < axis.size(); i += 2) out.push_back(axis[i]);
            return out;
        };
        const fit::InitGrid& g = settings.grid;
        quick = {everyOther(g.logA), everyOther(g.logB), everyOther(g.logE), everyOther(g.alpha), everyOther(g.beta), everyOther(g.gamma)};
        settings.grid = quick;
    }
    if (pts.size() < (settings.fitGamma ? 6u : 5u)) {
        error_ = tr("The L(N,D) fit needs at least %1 runs of this family in the analyses; there are %2.")
                     .arg(settings.fitGamma ? 6 : 5)
                     .arg(pts.size());
        summary_->setText(error_);
        return;
    }
    error_.clear();
    cancel_ = std::make_unique<std::atomic<bool>>(false);
    fitFamily_ = family();
    fitSettings_ = settings;
    fitPoints_ = pts;
    fitButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    progress_->setRange(0, static_cast<int>(settings.grid.size(settings.fitGamma)));
    progress_->setValue(0);
    summary_->setText(tr("Fitting %1 runs from %2 starts…").arg(pts.size()).arg(settings.grid.size(settings.fitGamma)));
    std::atomic<bool>* cancel = cancel_.get();
    QPointer<QProgressBar> bar = progress_;
    watcher_->setFuture(QtConcurrent::run([pts, settings, cancel, bar] {
        fit::FitControl control;
        control.cancel = cancel;
        control.progress = [bar](std::size_t done, std::size_t) {
            if (done % 64 != 0) return;  // a few hundred updates are plenty
            QMetaObject::invokeMethod(bar, [bar, done] { if (bar) bar->setValue(static_cast<int>(done)); }, Qt::QueuedConnection);
        };
        return fit::fitLossSurface(pts, settings, control);
    }));
}

void LossSurfaceView::computeNow() {
    if (!fit_ && !fitting()) startFit();
    waitForFit();
}

std::vector<ViewTable> LossSurfaceView::tables() {
    computeNow();
    if (!fit_ || fit_->cancelled) return {};
    fit::BootstrapSettings boot;
    boot.resamples = 200;
    if (!intervals_) intervals_ = fit::bootstrapLossSurface(fitPoints_, *fit_, fitSettings_, {}, boot);
    data::ExportTable t;
    t.label = "tab:lnd_fit_params";
    t.columns = {{"model", "Model", data::CellStyle::Text},       {"parameter", "Parameter", data::CellStyle::Symbol},
                 {"runs", "Runs", data::CellStyle::Integer},       {"estimate", "Estimate", data::CellStyle::Fixed3},
                 {"lower", "95\\% low", data::CellStyle::Fixed3}, {"upper", "95\\% high", data::CellStyle::Fixed3}};
    const char* names[] = {"logA", "logB", "logE", "alpha", "beta", "gamma"};
    const char* shown[] = {"log A", "log B", "log E", "alpha", "beta", "gamma"};
    std::vector<std::string> counts;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        // The family on screen is the view's fit; the others are fitted here with the same
        // settings, each on its own runs.
        std::optional<fit::LossSurfaceFit> other;
        std::optional<fit::BootstrapResult> otherIntervals;
        if (f != fitFamily_) {
            const auto pts = analysis::lossSurfacePoints(session_->runs(), filter(f)).points;
            if (pts.size() < (fitSettings_.fitGamma ? 6u : 5u)) continue;
            other = fit::fitLossSurface(pts, fitSettings_, {});
            otherIntervals = fit::bootstrapLossSurface(pts, *other, fitSettings_, {}, boot);
        }
        const fit::LossSurfaceFit& fit = f == fitFamily_ ? *fit_ : *other;
        const fit::BootstrapResult& intervals = f == fitFamily_ ? *intervals_ : *otherIntervals;
        const std::string model(accounting::familyLabel(f));
        counts.push_back(std::to_string(fit.nPoints) + " " + model);
        const std::array<double, 6> best = fit.best.asArray();
        for (std::size_t i = 0; i < best.size(); ++i) {
            if (i == 5 && !fitSettings_.fitGamma) continue;
            data::ExportCell lo, hi;
            if (const auto* in = intervals.find(names[i]); in && in->nValid > 0) lo = in->lower, hi = in->upper;
            t.rows.push_back({model, std::string(shown[i]), static_cast<double>(fit.nPoints), best[i], lo, hi});
        }
    }
    std::string runs = counts.front();
    for (std::size_t i = 1; i < counts.size(); ++i) runs += " and " + counts[i];
    t.caption = "Fit of the loss surface $L(N,D) = E + (A N^{-\\alpha} + B D^{-\\beta})^{\\gamma}$ to " + runs +
                " runs (Huber $\\delta = " + data::formatScientific(fitSettings_.huberDelta) + "$" +
                (fitSettings_.fitGamma ? ", $\\gamma$ fitted" : ", $\\gamma = 1$") +
                "), with 95\\% bootstrap intervals (200 resamples of the runs).";
    return {{QStringLiteral("fit"), tr("Fit parameters with intervals, every family"), std::move(t)}};
}

void LossSurfaceView::cancelFit() {
    if (cancel_) cancel_->store(true);
}

void LossSurfaceView::onFitDone() {
    fitButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    fit_ = watcher_->result();
    intervals_.reset();
    progress_->setValue(progress_->maximum());
    if (fit_ && !fit_->cancelled) session_->setFittedSurface(fitFamily_, fit_->best);
    if (fitFamily_ != family()) fit_.reset();
    redraw();
    emit fitFinished();
}

void LossSurfaceView::redraw() {
    if (deferWhileHidden([this] { redraw(); })) return;
    const Theme& theme = Theme::current();
    const Family f = family();
    const QColor familyColor = theme.family(f);
    chart_->clearSeries();
    chart_->setPlotAreaBackgroundVisible(false);
    std::vector<QPointF> pts, selected;
    double nLo = 1e8, nHi = 1e9, dLo = 1e9, dHi = 1e10;
    bool any = false;
    const analysis::RunFilter runFilter = filter();
    for (int i = 0; i < static_cast<int>(session_->runs().runs.size()); ++i) {
        const auto& r = session_->runs().runs[static_cast<std::size_t>(i)];
        if (!analysis::passes(r, runFilter) || !(r.params > 0) || !(r.tokens > 0)) continue;
        (session_->selection().contains(i) ? selected : pts).push_back({r.params, r.tokens});
        if (!any) nLo = nHi = r.params, dLo = dHi = r.tokens, any = true;
        nLo = std::min(nLo, r.params), nHi = std::max(nHi, r.params);
        dLo = std::min(dLo, r.tokens), dHi = std::max(dHi, r.tokens);
    }
    nLo /= 2, nHi *= 2, dLo /= 2, dHi *= 2;
    chart_->setAxes({tr("Parameters N"), true, nLo, nHi, true}, {tr("Training tokens D"), true, dLo, dHi, true});
    chart_->setTitle(tr("%1 loss surface L̂(N, D)").arg(QString::fromUtf8(accounting::familyLabel(f).data())));

    if (fit_) {
        const fit::LossSurfaceParams p = fit_->best;
        // Colour map behind the series, rendered at the plot area's pixel size.
        const QRectF area = chart_->plotArea();
        if (area.width() > 4 && area.height() > 4) {
            QImage image(static_cast<int>(area.width()), static_cast<int>(area.height()), QImage::Format_RGB32);
            double lMin = 1e9, lMax = -1e9;
            std::vector<double> values(static_cast<std::size_t>(image.width() * image.height()));
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const double n = std::pow(10.0, std::log10(nLo) + (std::log10(nHi) - std::log10(nLo)) * (x + 0.5) / image.width());
                    const double d = std::pow(10.0, std::log10(dHi) - (std::log10(dHi) - std::log10(dLo)) * (y + 0.5) / image.height());
                    const double l = p.loss(n, d);
                    values[static_cast<std::size_t>(y * image.width() + x)] = l;
                    lMin = std::min(lMin, l), lMax = std::max(lMax, l);
                }
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const double t = (values[static_cast<std::size_t>(y * image.width() + x)] - lMin) / std::max(1e-12, lMax - lMin);
                    QColor c = theme.sequential(static_cast<int>(std::round((1 - t) * 100)), 101);
                    c = QColor::fromRgbF(0.55 * c.redF() + 0.45 * theme.background.redF(), 0.55 * c.greenF() + 0.45 * theme.background.greenF(),
                                         0.55 * c.blueF() + 0.45 * theme.background.blueF());
                    image.setPixel(x, y, c.rgb());
                }
            QBrush brush(image);
            brush.setTransform(QTransform::fromTranslate(area.left(), area.top()));
            chart_->setPlotAreaBackgroundBrush(brush);
            chart_->setPlotAreaBackgroundVisible(true);
            // Iso-loss contours, analytic: D(N) = (((L - E)^(1/γ) - A N^-α) / B)^(-1/β).
            const auto ticks = logTicks(lMin, lMax, 7);
            for (const Tick& t : ticks) {
                if (!t.major) continue;
                std::vector<QPointF> line;
                for (int k = 0; k <= 200; ++k) {
                    const double n = nLo * std::pow(nHi / nLo, k / 200.0);
                    const double inner = std::pow(t.value - std::exp(p.logE), 1.0 / p.gamma) - std::exp(p.logA) * std::pow(n, -p.alpha);
                    if (!(inner > 0)) continue;
                    const double d = std::pow(inner / std::exp(p.logB), -1.0 / p.beta);
                    if (d >= dLo && d <= dHi) line.push_back({n, d});
                }
                if (line.size() > 1) {
                    auto* s = chart_->addLine(QString(), theme.foreground, line, 0.8, Qt::DotLine);
                    PlotChart::hideFromLegend(chart_, s);
                }
            }
            // Iso-FLOP lines and the compute-optimal path.
            const fit::PowerLaw c = computePerToken(session_->runs(), f);
            const double hLo = c(nLo) * dLo, hHi = c(nHi) * dHi;
            std::vector<QPointF> path;
            bool first = true;
            for (const Tick& t : logTicks(hLo, hHi, 8)) {
                if (!t.major) continue;
                std::vector<QPointF> line;
                for (int k = 0; k <= 60; ++k) {
                    const double n = nLo * std::pow(nHi / nLo, k / 60.0);
                    const double d = t.value / c(n);
                    if (d >= dLo && d <= dHi) line.push_back({n, d});
                }
                if (line.size() > 1) {
                    auto* s = chart_->addLine(first ? tr("iso-FLOP lines") : QString(), theme.muted, line, 1.0, Qt::DashLine);
                    if (!first) PlotChart::hideFromLegend(chart_, s);
                    first = false;
                }
            }
            for (int k = 0; k <= 80; ++k) {
                const double H = hLo * std::pow(hHi / hLo, k / 80.0);
                const fit::OptimalPoint o = fit::computeOptimal(p, [&c](double n) { return c(n); }, H, nLo, nHi);
                const double n = o.params, d = o.tokens;
                if (n > nLo * 1.01 && n < nHi / 1.01 && d >= dLo && d <= dHi) path.push_back({n, d});
            }
            chart_->addLine(tr("compute-optimal N*, D*"), theme.highlight, path, 2.5);
        }
    }
    chart_->addScatter(tr("runs"), familyColor, pts, 7);
    if (!selected.empty()) chart_->addScatter(tr("selected"), theme.highlight, selected, 11, true);
    chart_->setAxes(chart_->xSpec(), chart_->ySpec());  // keep the ranges computed above

    if (fit_) {
        const auto& b = fit_->best;
        summary_->setText(tr("<b>%1 runs, %2 of %3 starts converged</b> in %4 s<br>"
                             "ln A = %5, ln B = %6, ln E = %7<br>α = %8, β = %9, γ = %10<br>"
                             "objective %11<br>%12 starts within 10⁻⁴ of the best")
                              .arg(fit_->nPoints)
                              .arg(fit_->nConverged)
                              .arg(fit_->nStarts)
                              .arg(fit_->seconds, 0, 'f', 2)
                              .arg(b.logA, 0, 'f', 3)
                              .arg(b.logB, 0, 'f', 3)
                              .arg(b.logE, 0, 'f', 3)
                              .arg(b.alpha, 0, 'f', 3)
                              .arg(b.beta, 0, 'f', 3)
                              .arg(b.gamma, 0, 'f', 3)
                              .arg(fit_->objective, 0, 'e', 4)
                              .arg(fit_->nNearBest)
                          + (fit_->warnings.empty() ? QString() : QStringLiteral("<br><font color='%1'>%2</font>").arg(theme.highlight.name(), QString::fromStdString(fit_->warnings.front()))));
    } else if (error_.isEmpty()) {
        summary_->setText(tr("%1 runs of this family in the analyses. Press Fit.").arg(points().size()));
    }
    emit explainChanged();
}

QString LossSurfaceView::explainHtml() const {
    QString live;
    if (fit_) {
        const auto& b = fit_->best;
        live = tr("<p>Fitted now: E = %1, A = %2, B = %3, α = %4, β = %5, γ = %6 (Huber objective %7 over %8 runs).</p>")
                   .arg(std::exp(b.logE), 0, 'f', 3)
                   .arg(formatTickValue(std::exp(b.logA)))
                   .arg(formatTickValue(std::exp(b.logB)))
                   .arg(b.alpha, 0, 'f', 3)
                   .arg(b.beta, 0, 'f', 3)
                   .arg(b.gamma, 0, 'f', 3)
                   .arg(fit_->objective, 0, 'e', 3)
                   .arg(fit_->nPoints);
    } else {
        live = tr("<p>No fit yet: press <b>Fit</b>.</p>");
    }
    return tr("<h3>The parametric loss surface</h3>"
              "<p style='font-size:large'>L̂(N, D) = E + (A·N<sup>−α</sup> + B·D<sup>−β</sup>)<sup>γ</sup></p>"
              "<p><b>E</b> is the loss no model reaches (the entropy of text); the bracket is what finite size "
              "<b>N</b> and finite data <b>D</b> add. Larger α means parameters pay off faster, larger β the "
              "same for data.</p>"
              "<p>The fit minimises Σ Huber<sub>δ</sub>(ln L − ln L̂) from every point of a grid of starting "
              "values, because the surface has many near-equal optima.</p>"
              "<p>Axes: parameters and tokens, both logarithmic. Background and dotted contours: predicted loss. "
              "Dashed lines: equal training compute C. Red: for each compute budget, the (N, D) on its dashed "
              "line with the lowest predicted loss — the compute-optimal allocation.</p>")
        + live;
}

}  // namespace scalex::gui
