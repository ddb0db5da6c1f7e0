#include "app/gui/ChoiceKeys.h"
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
#include <QSignalBlocker>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "app/gui/JobPool.h"
#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/RunSelection.h"
#include "core/data/Series.h"
#include "core/fit/ComputeOptimal.h"
#include "core/fit/PowerLaw.h"

namespace scalex::gui {

LossSurfaceView::LossSurfaceView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    chart_ = new PlotChart();
    view_ = new PlotView(chart_, this);
    series_ = new QComboBox(this);
    series_->setObjectName(QStringLiteral("series"));
    series_->setToolTip(tr("The series whose runs are fitted"));
    context_ = new QComboBox(this);
    context_->setObjectName(QStringLiteral("context"));
    context_->setToolTip(tr("Training context length of the runs fitted: the surface has no term for it, so one at a time"));
    delta_ = new QComboBox(this);
    delta_->setObjectName(QStringLiteral("delta"));
    for (double d : {1e-4, 1e-3, 1e-2, 1e-1}) delta_->addItem(QString::number(d, 'g'), d);
    delta_->setCurrentIndex(1);
    gamma_ = new QComboBox(this);
    gamma_->setObjectName(QStringLiteral("gamma"));
    gamma_->addItem(tr("free"), true);
    gamma_->addItem(tr("fixed at 1"), false);
    setChoiceKeys(gamma_, {"free", "fixed"});
    grid_ = new QComboBox(this);
    grid_->setObjectName(QStringLiteral("grid"));
    grid_->addItem(tr("paper (8000 starts)"));
    grid_->addItem(tr("quick (216 starts)"));
    setChoiceKeys(grid_, {"paper", "quick"});
    set_ = new QComboBox(this);
    set_->setObjectName(QStringLiteral("set"));
    set_->addItem(tr("Token/Param runs"), static_cast<int>(data::ExperimentSet::TokenParam));
    set_->addItem(tr("IsoFLOP runs"), static_cast<int>(data::ExperimentSet::IsoFlop));
    set_->addItem(tr("all runs"), -1);
    setChoiceKeys(set_, {"tokenparam", "isoflop", "all"});
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
    form->addRow(tr("Series"), series_);
    form->addRow(tr("Context"), context_);
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
    sideWidget->setMinimumWidth(280);
    sideWidget->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(sideWidget, 0);
    layout->addWidget(view_, 1);
    stackWhenNarrow(layout, 440);  // the settings above the chart on a narrow window

    watcher_ = new QFutureWatcher<Outcome>(this);
    connect(watcher_, &QFutureWatcher<Outcome>::finished, this, &LossSurfaceView::onFitDone);
    connect(fitButton_, &QPushButton::clicked, this, &LossSurfaceView::startFit);
    connect(cancelButton_, &QPushButton::clicked, this, &LossSurfaceView::cancelFit);
    for (QComboBox* box : {series_, context_, set_})
        connect(box, &QComboBox::currentIndexChanged, this, [this, box] {
            if (box != context_) {
                // Another series or run set: its own default context.
                QSignalBlocker block(context_);
                context_->clear();
            }
            forgetFit();
            redraw();
        });
    connect(session_, &Session::runsChanged, this, [this] {
        forgetFit();
        if (session_->sourceLabel() != source_) {
            // Another study: its token/param runs where it has them (refillChoices falls back to
            // every run where it has none); a toggled run keeps the user's choice.
            source_ = session_->sourceLabel();
            QSignalBlocker block(set_);
            set_->setCurrentIndex(0);
        }
        redraw();
    });
    connect(session_, &Session::settingsChanged, this, [this] {
        forgetFit();  // the scope, outlier handling or fit options may have changed
        redraw();
    });
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &LossSurfaceView::redraw);
    connect(chart_, &QChart::plotAreaChanged, this, [this] {
        // Re-render the colour map at the new plot size (a figure export, a resize): the points,
        // contours and axes are in data coordinates and stay.
        drawColourMap();
    });
    redraw();
}

LossSurfaceView::~LossSurfaceView() {
    cancelFit();
    watcher_->waitForFinished();
}

QChart* LossSurfaceView::primaryChart() const { return chart_; }
bool LossSurfaceView::fitting() const { return watcher_->isRunning(); }

void LossSurfaceView::waitForFit() {
    if (watcher_->isRunning()) {
        watcher_->waitForFinished();
        QCoreApplication::processEvents();
    }
}

void LossSurfaceView::setGrid(int index) { grid_->setCurrentIndex(index); }

void LossSurfaceView::forgetFit() {
    ++generation_;
    cancelFit();
    fit_.reset();
    mapKey_.clear();
    mapImages_.clear();
    analysis_.reset();
    table_.reset();
    tablesCache_.reset();
    extrapolation_.reset();
    error_.clear();
}

std::vector<analysis::SeriesGroup> LossSurfaceView::groups() const {
    const int set = set_->currentData().toInt();
    std::optional<data::ExperimentSet> chosen;
    if (set >= 0) chosen = static_cast<data::ExperimentSet>(set);
    auto settings = session_->settings();
    if (chosen) settings.scope.experimentSet = chosen;
    return analysis::seriesGroups(session_->runs(), settings);
}

std::optional<analysis::SeriesGroup> LossSurfaceView::defaultGroup(const std::vector<analysis::SeriesGroup>& groups,
                                                                   const std::string& series) {
    std::optional<analysis::SeriesGroup> best;
    for (const auto& g : groups) {
        if (g.series != series) continue;
        if (g.context == 8192.0) return g;
        if (!best || (data::known(g.context) && (!data::known(best->context) || g.context > best->context))) best = g;
    }
    return best;
}

void LossSurfaceView::refillChoices() {
    auto all = groups();
    if (all.empty() && set_->currentData().toInt() >= 0 && !session_->runs().runs.empty()) {
        // A study without the chosen run set (most studies name no sets): every run in scope.
        QSignalBlocker block(set_);
        set_->setCurrentIndex(set_->findData(-1));
        all = groups();
    }
    const QString currentSeries = series_->currentData().toString();
    {
        QSignalBlocker block(series_);
        series_->clear();
        for (const auto& name : session_->seriesNames())
            if (std::any_of(all.begin(), all.end(), [&](const auto& g) { return g.series == name; }))
                series_->addItem(QString::fromStdString(data::seriesLabel(name)), QString::fromStdString(name));
        const int index = series_->findData(currentSeries);
        series_->setCurrentIndex(std::max(0, index));
    }
    const std::string series = series_->currentData().toString().toStdString();
    const QVariant currentContext = context_->currentData();
    QSignalBlocker block(context_);
    context_->clear();
    for (const auto& g : all) {
        if (g.series != series) continue;
        if (data::known(g.context)) context_->addItem(QStringLiteral("T = %1").arg(g.context), g.context);
        else context_->addItem(tr("not given"), std::numeric_limits<double>::quiet_NaN());
    }
    int index = currentContext.isValid() ? context_->findData(currentContext) : -1;
    if (index < 0)
        if (const auto g = defaultGroup(all, series)) index = context_->findData(data::known(g->context) ? QVariant(g->context) : QVariant(std::numeric_limits<double>::quiet_NaN()));
    context_->setCurrentIndex(std::max(0, index));
    context_->setEnabled(context_->count() > 1);
}

std::optional<analysis::SeriesGroup> LossSurfaceView::group() const {
    if (series_->count() == 0 || context_->count() == 0) return std::nullopt;
    const std::string series = series_->currentData().toString().toStdString();
    const double context = context_->currentData().toDouble();
    for (const auto& g : groups())
        if (g.series == series && ((std::isnan(context) && !data::known(g.context)) || g.context == context)) return g;
    return std::nullopt;
}

fit::LossSurfaceSettings LossSurfaceView::settingsChosen() const {
    auto common = session_->settings();
    common.huberDelta = delta_->currentData().toDouble();
    common.fitGamma = gamma_->currentData().toBool();
    fit::LossSurfaceSettings settings = analysis::lossSurfaceSettings(common);
    if (grid_->currentIndex() == 1) {
        // Every other value of each axis of the paper's grid.
        auto everyOther = [](const std::vector<double>& axis) {
            std::vector<double> out;
            for (std::size_t i = 0; i < axis.size(); i += 2) out.push_back(axis[i]);
            return out;
        };
        const fit::InitGrid& g = settings.grid;
        settings.grid = {everyOther(g.logA), everyOther(g.logB), everyOther(g.logE), everyOther(g.alpha), everyOther(g.beta), everyOther(g.gamma)};
    }
    return settings;
}

void LossSurfaceView::startFit() {
    if (fitting()) return;
    refillChoices();
    const auto g = group();
    if (!g) {
        error_ = tr("No runs in scope to fit.");
        summary_->setText(error_);
        return;
    }
    const fit::LossSurfaceSettings settings = settingsChosen();
    const std::size_t needed = settings.fitGamma ? 6 : 5;
    const std::size_t available = analysis::lossSurfacePoints(session_->runs(), g->filter).points.size();
    if (available < needed) {
        error_ = tr("%1: %2 runs with N, D and loss in the analyses; the L(N,D) fit needs at least %3.")
                     .arg(QString::fromStdString(g->label()))
                     .arg(available)
                     .arg(needed);
        summary_->setText(error_);
        return;
    }
    error_.clear();
    cancel_ = std::make_unique<std::atomic<bool>>(false);
    fitSettings_ = settings;
    tablesCache_ = std::make_shared<TablesCache>();
    fitButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    progress_->setRange(0, static_cast<int>(settings.grid.size(settings.fitGamma)));
    progress_->setValue(0);
    progress_->setFormat(tr("screening starts: %p%"));
    summary_->setText(tr("Fitting %1 runs from %2 starts…").arg(available).arg(settings.grid.size(settings.fitGamma)));
    std::atomic<bool>* cancel = cancel_.get();
    QPointer<QProgressBar> bar = progress_;
    auto table = session_->runsSnapshot();
    const auto common = session_->settings();
    const int generation = generation_;
    watcher_->setFuture(QtConcurrent::run(jobPool(), [table, common, group = *g, settings, cancel, bar, generation] {
        fit::FitControl control;
        control.cancel = cancel;
        control.progress = [bar](std::size_t done, std::size_t) {
            if (done % 64 != 0) return;  // a few hundred updates are plenty
            QMetaObject::invokeMethod(bar, [bar, done] { if (bar) bar->setValue(static_cast<int>(done)); }, Qt::QueuedConnection);
        };
        // The phases after the screening: the bar restarts with the phase's name.
        control.phase = [bar](const char* phase, std::size_t done, std::size_t total) {
            const QString name = QString::fromUtf8(phase);
            QMetaObject::invokeMethod(bar, [bar, name, done, total] {
                if (!bar) return;
                bar->setRange(0, static_cast<int>(total));
                bar->setValue(static_cast<int>(done));
                bar->setFormat(name + QStringLiteral(": %v / %m"));
            }, Qt::QueuedConnection);
        };
        Outcome o{table, analysis::lossSurfaceAnalysis(*table, common, group, settings, control), generation};
        // How well it extrapolates: the same fit without the largest model size, predicting it.
        control.progress = nullptr;
        if (control.phase) control.phase("extrapolation check", 0, 1);
        analysis::checkExtrapolation(o.analysis, settings, control);
        return o;
    }));
}

void LossSurfaceView::computeNow() {
    if (!fit_ && !fitting()) startFit();
    waitForFit();
}

std::vector<ViewTable> LossSurfaceView::tables() {
    computeNow();
    return tablesJob()(fit::FitControl{});
}

ViewPanel::TablesJob LossSurfaceView::tablesJob() {
    if (!fit_ && !fitting()) startFit();
    if (!fit_ && !fitting()) return [](const fit::FitControl&) { return std::vector<ViewTable>{}; };
    // The fit's outcome: the one shown, or the one under way (its future, waited for by the job).
    std::optional<Outcome> done;
    if (fit_ && analysis_ && table_ && !fitting()) done = Outcome{table_, *analysis_, generation_};
    QFuture<Outcome> running = watcher_->future();
    // Every series in scope at the context this view would fit it at (the one on screen is its fit).
    std::vector<analysis::SeriesGroup> defaults;
    const auto all = groups();
    for (const auto& name : session_->seriesNames())
        if (const auto g = defaultGroup(all, name)) defaults.push_back(*g);
    const QString title = tr("Fit parameters with intervals, every series");
    return [done, running, defaults, title, common = session_->settings(), settings = fitSettings_,
            cache = tablesCache_](const fit::FitControl& control) -> std::vector<ViewTable> {
        if (cache) {
            std::lock_guard lock(cache->mutex);
            if (cache->tables) return *cache->tables;
        }
        Outcome outcome;
        if (done) {
            outcome = *done;
        } else {
            while (!running.isFinished()) {
                if (control.cancelled()) return {};
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            outcome = running.result();
        }
        const analysis::LossSurfaceAnalysis& shown = outcome.analysis;
        if (shown.error || shown.fit.cancelled || !outcome.table) return {};
        fit::BootstrapSettings boot;
        boot.resamples = 200;
        // The same runs as the session's: the table is copied when the fit starts and dropped
        // when the runs change.
        const auto table = analysis::lossSurfaceParameterTable(*outcome.table, common, defaults, shown, settings, boot, control);
        if (!table) return {};
        std::vector<ViewTable> tables{{QStringLiteral("fit"), title, *table}};
        if (cache) {
            std::lock_guard lock(cache->mutex);
            cache->tables = tables;
        }
        return tables;
    };
}

void LossSurfaceView::cancelFit() {
    if (cancel_) cancel_->store(true);
}

void LossSurfaceView::onFitDone() {
    fitButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    progress_->setFormat(QStringLiteral("%p%"));
    progress_->setValue(progress_->maximum());
    Outcome outcome = watcher_->result();
    if (outcome.generation != generation_) {  // the runs or the choice changed while it ran
        redraw();
        return;
    }
    table_ = std::move(outcome.table);
    extrapolation_ = outcome.analysis.extrapolation;
    analysis_ = std::move(outcome.analysis);
    if (analysis_->error) {
        error_ = QString::fromStdString(*analysis_->error);
        summary_->setText(error_);
        analysis_.reset();
        fit_.reset();
    } else {
        fit_ = analysis_->fit;
        // The optimum views use the surface of a family the accounting knows.
        if (!fit_->cancelled && !analysis_->runs.empty() && analysis_->runs.front()->family)
            session_->setFittedSurface(*analysis_->runs.front()->family, fit_->best);
    }
    redraw();
    emit fitFinished();
}

namespace {

// The 101 colours of the map, blended with the background once, not per pixel.
std::array<QRgb, 101> mapPalette(const Theme& theme) {
    std::array<QRgb, 101> palette{};
    for (int i = 0; i < 101; ++i) {
        const QColor c = theme.sequential(i, 101);
        palette[static_cast<std::size_t>(i)] =
            QColor::fromRgbF(0.55 * c.redF() + 0.45 * theme.background.redF(), 0.55 * c.greenF() + 0.45 * theme.background.greenF(),
                             0.55 * c.blueF() + 0.45 * theme.background.blueF())
                .rgb();
    }
    return palette;
}

}  // namespace

std::pair<double, double> LossSurfaceView::drawColourMap() {
    if (!fit_ || mapKey_.size() < 4) return {0.0, 0.0};
    const Theme& theme = Theme::current();
    const fit::LossSurfaceParams& p = fit_->best;
    const double nLo = mapKey_[0], nHi = mapKey_[1], dLo = mapKey_[2], dHi = mapKey_[3];
    const QRectF area = chart_->plotArea();
    const QSize size(std::max(8, static_cast<int>(area.width())), std::max(8, static_cast<int>(area.height())));
    // A figure export lays the chart out at the figure's size and back: the map of the size it
    // returns to is kept.
    auto cached = std::find_if(mapImages_.begin(), mapImages_.end(), [&](const MapImage& m) { return m.image.size() == size; });
    if (cached == mapImages_.end()) {
        MapImage made;
        made.image = QImage(size, QImage::Format_RGB32);
        const analysis::LossGrid grid = analysis::lossGrid(p, nLo, nHi, dLo, dHi, size.width(), size.height());
        made.lo = grid.lo, made.hi = grid.hi;
        const std::array<QRgb, 101> palette = mapPalette(theme);
        for (int y = 0; y < size.height(); ++y) {
            auto* line = reinterpret_cast<QRgb*>(made.image.scanLine(y));
            for (int x = 0; x < size.width(); ++x) {
                const double t = (grid.values[static_cast<std::size_t>(y * size.width() + x)] - made.lo) / std::max(1e-12, made.hi - made.lo);
                line[x] = palette[std::isfinite(t) ? static_cast<std::size_t>(std::clamp(static_cast<int>(std::round((1 - t) * 100)), 0, 100)) : 0];
            }
        }
        if (mapImages_.size() >= 2) mapImages_.erase(mapImages_.begin());
        mapImages_.push_back(std::move(made));
        cached = std::prev(mapImages_.end());
    }
    const QImage& image = cached->image;
    const double lMin = cached->lo, lMax = cached->hi;
    QBrush brush(image);
    brush.setTransform(QTransform::fromTranslate(area.left(), area.top()));
    chart_->setPlotAreaBackgroundBrush(brush);
    chart_->setPlotAreaBackgroundVisible(area.width() > 4 && area.height() > 4);
    return {lMin, lMax};
}

void LossSurfaceView::redraw() {
    if (deferWhileHidden([this] { redraw(); })) return;
    const Theme& theme = Theme::current();
    refillChoices();
    const auto shown = group();
    const std::string seriesName = shown ? shown->series : std::string();
    const QColor seriesColor = theme.series(seriesName, session_->seriesIndex(seriesName));
    chart_->clearSeries();
    chart_->setPlotAreaBackgroundVisible(false);
    // The runs of the group: fitted, left out as outliers (hollow), ringed when selected.
    std::vector<int> flagged;
    if (analysis_ && table_)
        for (const auto& o : analysis_->outliers) flagged.push_back(static_cast<int>(o.run - table_->runs.data()));
    const auto& runs = session_->runs();
    const analysis::SurfaceRunPoints drawn = shown ? analysis::surfaceRunPoints(runs, shown->filter, flagged) : analysis::SurfaceRunPoints{};
    std::vector<RunPoint> pts, leftOut;
    for (const auto& [indices, out] : {std::pair{&drawn.fitted, &pts}, std::pair{&drawn.leftOut, &leftOut}})
        for (const int i : *indices) out->push_back({{runs.runs[static_cast<std::size_t>(i)].params, runs.runs[static_cast<std::size_t>(i)].tokens}, i});
    const double nLo = drawn.nLo, nHi = drawn.nHi, dLo = drawn.dLo, dHi = drawn.dHi;
    chart_->setAxes({tr("Parameters N"), true, nLo, nHi, true}, {tr("Training tokens D"), true, dLo, dHi, true});
    chart_->setTitle(shown ? tr("Loss surface L̂(N, D), %1").arg(QString::fromStdString(shown->label())) : tr("Loss surface L̂(N, D)"));

    if (fit_) {
        const fit::LossSurfaceParams p = fit_->best;
        // Colour map behind the series, rendered at the plot area's pixel size.
        // The maps made so far stay while they show the same surface over the same box in the same
        // colours (a redraw in the screen style after a paper-style export).
        const std::vector<double> key = {nLo, nHi, dLo, dHi, p.logA, p.logB, p.logE, p.alpha, p.beta, p.gamma,
                                         static_cast<double>(theme.background.rgba()),
                                         static_cast<double>(theme.sequential(0, 101).rgba()),
                                         static_cast<double>(theme.sequential(100, 101).rgba())};
        if (key != mapKey_) mapImages_.clear();
        mapKey_ = key;
        const auto [lMin, lMax] = drawColourMap();
        {
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
                    // The contour's loss, written at its middle: a one-point series whose label is the value.
                    auto* label = chart_->addScatter(QString(), Qt::transparent, {line[line.size() / 2]}, 1.0);
                    label->setBorderColor(Qt::transparent);
                    label->setPointLabelsFormat(QString::number(t.value, 'g', 3));
                    label->setPointLabelsColor(theme.foreground);
                    QFont font = label->pointLabelsFont();
                    font.setPointSizeF(std::max(6.0, Theme::current().basePointSize - 2.0));
                    label->setPointLabelsFont(font);
                    label->setPointLabelsVisible(true);
                    PlotChart::hideFromLegend(chart_, label);
                }
            }
            // The colour key: the map's two ends in the legend.
            const std::array<QRgb, 101> palette = mapPalette(theme);
            for (const auto& [value, index] : {std::pair{lMin, std::size_t{100}}, {lMax, std::size_t{0}}}) {
                const QRgb c = palette[index];
                chart_->addScatter(tr("L̂ = %1").arg(value, 0, 'f', 2), QColor(c), {}, 9);
            }
            // Iso-FLOP lines and the compute-optimal path.
            const fit::PowerLaw c = analysis::computePerTokenOfRuns(session_->runs(), shown ? shown->filter : analysis::RunFilter{});
            const double hLo = c(nLo) * dLo, hHi = c(nHi) * dHi;
            std::vector<double> budgets;
            for (const Tick& t : logTicks(hLo, hHi, 8))
                if (t.major) budgets.push_back(t.value);
            const analysis::SurfaceGuides guides = analysis::surfaceGuides(p, c, budgets, nLo, nHi, dLo, dHi);
            const auto toPoints = [](const std::vector<std::pair<double, double>>& nd) {
                std::vector<QPointF> out;
                for (const auto& [n, d] : nd) out.push_back({n, d});
                return out;
            };
            bool first = true;
            for (const auto& line : guides.isoFlopLines) {
                auto* s = chart_->addLine(first ? tr("iso-FLOP lines") : QString(), theme.muted, toPoints(line.points), 1.0, Qt::DashLine);
                if (!first) PlotChart::hideFromLegend(chart_, s);
                first = false;
            }
            const std::vector<QPointF> path = toPoints(guides.optimalPath);
            chart_->addLine(tr("compute-optimal N*, D*"), theme.highlight, path, 2.5);
        }
    }
    addRunPoints(chart_, session_, tr("runs"), seriesColor, pts, 7);
    if (QScatterSeries* s = addRunPoints(chart_, session_, tr("left out as outliers"), theme.highlight, leftOut, 9)) {
        s->setColor(Qt::transparent);
        s->setBorderColor(theme.highlight);
    }
    std::vector<RunPoint> everyRun = pts;
    everyRun.insert(everyRun.end(), leftOut.begin(), leftOut.end());
    addSelectionRings(chart_, session_, everyRun);
    chart_->setAxes(chart_->xSpec(), chart_->ySpec());  // keep the ranges computed above

    if (fit_) {
        const auto& b = fit_->best;
        // The runs left out, with the reason a person can check (the first few).
        QString outliersText;
        if (analysis_ && !analysis_->outliers.empty()) {
            outliersText = QStringLiteral("<br><font color='%1'>").arg(theme.highlight.name()) +
                           tr("%n run(s) far from the surface left out (hollow; tick a run in to take it back):", "",
                              static_cast<int>(analysis_->outliers.size()));
            for (std::size_t k = 0; k < std::min<std::size_t>(3, analysis_->outliers.size()); ++k)
                outliersText += QStringLiteral("<br>• %1: %2").arg(QString::fromStdString(data::runLabel(*analysis_->outliers[k].run)).toHtmlEscaped(),
                                                                   QString::fromStdString(analysis_->outliers[k].outlier.reason).toHtmlEscaped());
            if (analysis_->outliers.size() > 3) outliersText += QStringLiteral("<br>…");
            outliersText += QStringLiteral("</font>");
        }
        QString extrapolationText;
        if (extrapolation_ && !extrapolation_->heldOut.empty())
            extrapolationText = tr("<br>Extrapolation: fitted without the largest model (%1 runs), it predicts their loss within "
                                   "%2 % on average (at most %3 %)")
                                    .arg(extrapolation_->heldOut.size())
                                    .arg(100 * extrapolation_->meanAbsError, 0, 'f', 2)
                                    .arg(100 * extrapolation_->maxAbsError, 0, 'f', 2);
        else if (extrapolation_ && !extrapolation_->note.empty())
            extrapolationText = tr("<br>Extrapolation: %1").arg(QString::fromStdString(extrapolation_->note).toHtmlEscaped());
        // The paper's fit beside this one, where the runs are of one family the paper fitted.
        QString paperText;
        if (const auto family = analysis_ ? analysis::sharedFamily(analysis_->runs) : std::nullopt)
            if (const data::LossSurfaceParams* q = session_->paper().lossSurface(*family, session_->settings().huberDelta))
                paperText = tr("<br>The paper (δ = %1): ln A = %2, ln B = %3, ln E = %4, α = %5, β = %6, γ = %7")
                                .arg(session_->settings().huberDelta, 0, 'g', 3)
                                .arg(q->logA, 0, 'f', 3)
                                .arg(q->logB, 0, 'f', 3)
                                .arg(q->logE, 0, 'f', 3)
                                .arg(q->alpha, 0, 'f', 3)
                                .arg(q->beta, 0, 'f', 3)
                                .arg(q->gamma, 0, 'f', 3);
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
                          + paperText + extrapolationText + outliersText
                          + (fit_->warnings.empty() ? QString() : QStringLiteral("<br><font color='%1'>%2</font>").arg(theme.highlight.name(), QString::fromStdString(fit_->warnings.front()))));
    } else if (error_.isEmpty()) {
        const std::size_t n = shown ? analysis::lossSurfacePoints(session_->runs(), shown->filter).points.size() : 0;
        summary_->setText(shown ? tr("%1: %2 runs with N, D and loss in the analyses. Press Fit.").arg(QString::fromStdString(shown->label())).arg(n)
                                : tr("No runs in scope."));
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
