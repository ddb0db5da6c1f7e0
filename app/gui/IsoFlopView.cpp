#include "app/gui/IsoFlopView.h"

#include "app/gui/ChoiceKeys.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <array>
#include <chrono>
#include <thread>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "app/gui/FlowLayout.h"
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
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Series.h"
#include "core/fit/Extrapolation.h"
#include "core/fit/PowerLaw.h"

namespace scalex::gui {

using accounting::Family;

namespace {

constexpr Family kFamilies[] = {Family::Transformer, Family::Xlstm};



std::vector<double> logGrid(double lo, double hi, int n) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
    return out;
}

}  // namespace

// --- IsoFLOP --------------------------------------------------------------------------------------

IsoFlopView::IsoFlopView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    profileChart_ = new PlotChart();
    lawChart_ = new PlotChart();
    profileView_ = new PlotView(profileChart_, this);
    lawView_ = new PlotView(lawChart_, this);
    family_ = new QComboBox(this);
    family_->setObjectName(QStringLiteral("family"));
    family_->setToolTip(tr("The series whose profiles are drawn; the law panel shows the pair"));
    axis_ = new QComboBox(this);
    axis_->setObjectName(QStringLiteral("axis"));
    axis_->addItem(tr("over parameters N"));
    axis_->addItem(tr("over tokens D"));
    setChoiceKeys(axis_, {"params", "tokens"});
    law_ = new QComboBox(this);
    law_->setObjectName(QStringLiteral("law"));
    law_->addItem(tr("N*(H)"));
    law_->addItem(tr("D*(H)"));
    setChoiceKeys(law_, {"n", "d"});
    range_ = new QComboBox(this);
    range_->setObjectName(QStringLiteral("range"));
    range_->addItem(tr("budgets 5e18 … 2e20 (Fig. 4)"), QPointF(5e18, 2e20));
    range_->addItem(tr("budgets 5e18 … 5e19 (per-context tables)"), QPointF(5e18, 5e19));
    range_->addItem(tr("every budget"), QPointF(0, 1e300));
    setChoiceKeys(range_, {"fig4", "context-tables", "all"});
    panels_ = new QComboBox(this);
    panels_->setObjectName(QStringLiteral("panels"));
    panels_->addItem(tr("Profiles and law"));
    panels_->addItem(tr("Every context length (Fig. 5)"));
    setChoiceKeys(panels_, {"profiles", "fig5"});
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    // Pick any budget: its profile (from the laws and the fitted curvatures) and optimum move with it.
    pick_ = new QCheckBox(tr("Pick a budget H"), this);
    pick_->setObjectName(QStringLiteral("pick"));
    budget_ = new QSlider(Qt::Horizontal, this);
    budget_->setObjectName(QStringLiteral("budget"));
    budget_->setRange(175, 230);  // 10·log10 H: 3.2e17 to 1e23
    budget_->setValue(200);
    {
        // Recipes and --set name the budget (budget=3.16e20), not the slider's position.
        QVariantList budgets;
        for (int pos = budget_->minimum(); pos <= budget_->maximum(); ++pos) budgets << std::pow(10.0, pos / 10.0);
        budget_->setProperty("scalexShownValues", budgets);
    }
    budget_->setToolTip(tr("The budget H, a tenth of a decade a step"));
    budget_->setEnabled(false);
    budgetValue_ = new QLabel(this);
    budgetValue_->setMinimumWidth(budgetValue_->fontMetrics().horizontalAdvance(QStringLiteral("H = 3.16e22")) + 6);
    auto* pickRow = new QHBoxLayout();
    pickRow->addWidget(pick_);
    pickRow->addWidget(budget_, 1);
    pickRow->addWidget(budgetValue_);
    // The controls wrap onto a second line on a narrow window.
    auto* controls = new FlowLayout();
    for (auto [label, box] : {std::pair{tr("Show"), panels_}, {tr("Profiles of"), family_}, {tr("Loss"), axis_}, {tr("Law"), law_},
                              {tr("Fit"), range_}})
        controls->addLabelled(label, box);
    chartRow_ = new QHBoxLayout();
    chartRow_->addWidget(profileView_, 1);
    chartRow_->addWidget(lawView_, 1);
    stackWhenNarrow(chartRow_, 420);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(chartRow_, 1);
    layout->addLayout(pickRow);
    layout->addWidget(summary_);
    connect(pick_, &QCheckBox::toggled, budget_, &QWidget::setEnabled);
    connect(pick_, &QCheckBox::toggled, this, &IsoFlopView::redraw);
    connect(budget_, &QSlider::valueChanged, this, &IsoFlopView::redraw);
    watcher_ = new QFutureWatcher<Outcome>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, &IsoFlopView::takeAnswer);
    bandsWatcher_ = new QFutureWatcher<std::vector<fit::BootstrapResult>>(this);
    connect(bandsWatcher_, &QFutureWatcherBase::finished, this, [this] {
        if (bandsWatcher_->property("generation").toInt() != generation_ || computing_) return;
        const auto r = bandsWatcher_->result();
        for (std::size_t k = 0; k < r.size() && k < bands_.size(); ++k) bands_[k] = r[k];
        redraw();
    });
    for (QComboBox* b : {axis_, law_, panels_}) connect(b, &QComboBox::currentIndexChanged, this, &IsoFlopView::redraw);
    for (QComboBox* b : {range_, family_}) connect(b, &QComboBox::currentIndexChanged, this, &IsoFlopView::recompute);
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged}) connect(session_, signal, this, &IsoFlopView::recompute);
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &IsoFlopView::redraw);
    recompute();
}

IsoFlopView::~IsoFlopView() {
    if (cancel_) cancel_->store(true);
    if (bandsCancel_) bandsCancel_->store(true);
    watcher_->waitForFinished();
    bandsWatcher_->waitForFinished();
}

QChart* IsoFlopView::primaryChart() const { return profileChart_; }
std::vector<QChart*> IsoFlopView::charts() const {
    if (!contextsLayout()) return {profileChart_, lawChart_};
    const std::size_t shown = std::min(contextCharts_.size(), answer_.contexts.size() + 1);  // the panels drawContexts filled
    return {contextCharts_.begin(), contextCharts_.begin() + static_cast<std::ptrdiff_t>(shown)};
}

bool IsoFlopView::contextsLayout() const { return panels_->currentIndex() == 1; }

const fit::IsoFlopResult& IsoFlopView::result(bool second) const {
    static const fit::IsoFlopResult none;
    const std::size_t k = second ? 1 : 0;
    return k < answer_.fits.size() ? answer_.fits[k].analysis.result : none;
}

const std::string& IsoFlopView::seriesShown(bool second) const {
    static const std::string none;
    const std::size_t k = second ? 1 : 0;
    return k < answer_.fits.size() ? answer_.fits[k].series : none;
}

const std::optional<analysis::BudgetProfile>& IsoFlopView::picked(bool second) const {
    static const std::optional<analysis::BudgetProfile> none;
    const std::size_t k = second ? 1 : 0;
    return k < picked_.size() ? picked_[k] : none;
}

QString IsoFlopView::seriesLabel(std::size_t k) const {
    return k < answer_.fits.size() ? QString::fromStdString(data::seriesLabel(answer_.fits[k].series)) : QString();
}

QColor IsoFlopView::seriesColour(std::size_t k) const {
    const std::string name = k < answer_.fits.size() ? answer_.fits[k].series : std::string();
    return Theme::current().series(name, session_->seriesIndex(name));
}

void IsoFlopView::refillSeries() {
    const auto& a = answer_;
    QSignalBlocker block(family_);
    family_->clear();
    for (const auto& name : a.seriesWithRuns) family_->addItem(QString::fromStdString(data::seriesLabel(name)), QString::fromStdString(name));
    // "Both": the pair; named "both families" unless it is two series of other names (recipes of
    // the paper's figures ask for it whatever the table holds).
    const bool otherNames = a.seriesWithRuns.size() > 1 && !(a.pair[0] == "transformer" && a.pair[1] == "xlstm");
    family_->addItem(otherNames ? tr("%1 and %2").arg(QString::fromStdString(data::seriesLabel(a.pair[0])),
                                                      QString::fromStdString(data::seriesLabel(a.pair[1])))
                                : tr("both families"),
                     QString());
    const int index = a.query.both ? family_->count() - 1 : family_->findData(QString::fromStdString(seriesShown(false)));
    family_->setCurrentIndex(std::max(0, index));
}

void IsoFlopView::drawProfiles(PlotChart* chart, const std::vector<const analysis::IsoFlopSeriesFit*>& fits, std::vector<double> budgets,
                               bool minima, bool key, std::set<QString>* listed) {
    const Theme& theme = Theme::current();
    const bool overD = axis_->currentIndex() == 1;
    const bool both = fits.size() > 1;
    std::sort(budgets.begin(), budgets.end());
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    auto colour = [&](double budget) {
        const auto at = std::lower_bound(budgets.begin(), budgets.end(), budget) - budgets.begin();
        return theme.sequential(static_cast<int>(at), static_cast<int>(budgets.size()));
    };
    // Both families: Transformer as discs and solid parabolas, xLSTM as squares and dashed ones.
    auto square = [both](std::size_t k) { return both && k == 1; };
    chart->setAxes({overD ? tr("Training tokens D") : tr("Parameters N"), true, 1e7, 1e10, true}, {tr("Validation loss"), false, 2.5, 3.5});
    std::vector<RunPoint> all;
    // Points first so the axis ranges follow the data, then the parabolas over them.
    for (std::size_t k = 0; k < fits.size(); ++k)
        for (const auto& prof : fits[k]->analysis.result.profiles) {
            std::vector<RunPoint> pts;
            for (std::size_t i : prof.runs) {
                // Run i of the fit input.
                if (i >= fits[k]->analysis.runs.size()) continue;
                const data::Run& r = *fits[k]->analysis.runs[i];
                pts.push_back({{overD ? r.tokens : r.params, r.loss()}, runIndex(&r)});
            }
            const QString label = formatTickValue(prof.budget);
            QScatterSeries* s = addRunPoints(chart, session_, label, colour(prof.budget), pts, both ? (k ? 4.5 : 5) : 6);
            if (!s) continue;
            if (square(k)) s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            if (square(k) || !listed->insert(label).second) PlotChart::hideFromLegend(chart, s);
            all.insert(all.end(), pts.begin(), pts.end());
        }
    chart->fitRangesToData(0.08);
    for (std::size_t k = 0; k < fits.size(); ++k)
        for (const auto& prof : fits[k]->analysis.result.profiles) {
            if (!prof.fitted) continue;
            const fit::Parabola& par = overD ? prof.inD : prof.inN;
            const double lo = overD ? prof.log10DMin : prof.log10NMin, hi = overD ? prof.log10DMax : prof.log10NMax;
            std::vector<QPointF> line;
            for (int i = 0; i <= 60; ++i) {
                const double x = lo - 0.1 + (hi - lo + 0.2) * i / 60.0;
                line.push_back({std::pow(10.0, x), par(x)});
            }
            PlotChart::hideFromLegend(chart, chart->addLine(QString(), colour(prof.budget), line, both ? 1.2 : 1.5,
                                                            square(k) ? Qt::DashLine : Qt::SolidLine));
        }
    double optLo = std::numeric_limits<double>::infinity(), optHi = 0;  // the minima drawn
    if (minima)
        for (std::size_t k = 0; k < fits.size(); ++k) {
            std::vector<QPointF> points;
            for (const auto& prof : fits[k]->analysis.result.profiles)
                if (prof.fitted) {
                    points.push_back({overD ? prof.dOpt : prof.nOpt, overD ? prof.lossAtDOpt : prof.lossAtNOpt});
                    optLo = std::min(optLo, points.back().x());
                    optHi = std::max(optHi, points.back().x());
                }
            if (points.empty()) continue;
            QScatterSeries* s = chart->addScatter(k == 0 ? tr("minimum") : QString(), theme.highlight, points, both ? 8 : 10);
            if (square(k)) s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            if (k != 0) PlotChart::hideFromLegend(chart, s);
        }
    // The paper's observation: the compute-optimal models of both families lie close to one
    // shared curve of loss over size, L* = λ N*^(−η).
    std::vector<const fit::IsoFlopResult*> shown;
    for (const auto* f : fits) shown.push_back(&f->analysis.result);
    if (minima && both)
        if (const auto shared = analysis::sharedMinimaLaw(shown, overD)) {
            std::vector<QPointF> line;
            for (double x : logGrid(optLo / 1.5, optHi * 1.5, 30)) line.push_back({x, (*shared)(x)});
            chart->addLine(tr("one fit to all minima, η = %1").arg(-shared->exponent, 0, 'f', 3), theme.muted, line, 1.2, Qt::DotLine);
        }
    if (key && both)
        for (std::size_t k = 0; k < fits.size(); ++k) {
            QScatterSeries* mark = chart->addScatter(QString::fromStdString(data::seriesLabel(fits[k]->series)), theme.muted, {}, 6);
            if (square(k)) mark->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        }
    chart->setAxes(chart->xSpec(), chart->ySpec());
    addSelectionRings(chart, session_, all);
}

void IsoFlopView::drawContexts() {
    const bool lawD = law_->currentIndex() == 1;
    const auto& contextFits = answer_.contexts;
    const std::size_t n = contextFits.size();
    while (contextCharts_.size() < n + 1) {
        auto* chart = new PlotChart();
        auto* view = new PlotView(chart, this);
        chartRow_->addWidget(view, 1);
        contextCharts_.push_back(chart);
        contextViews_.push_back(view);
    }
    for (std::size_t i = 0; i < contextViews_.size(); ++i) contextViews_[i]->setVisible(i < n + 1);
    // One colour per budget across every panel.
    std::vector<double> budgets;
    for (const auto& cf : contextFits)
        for (const auto& f : cf.fits)
            for (const auto& prof : f.analysis.result.profiles) budgets.push_back(prof.budget);
    std::set<QString> listed;  // budgets already in a legend
    double yLo = std::numeric_limits<double>::infinity(), yHi = -yLo;
    for (std::size_t c = 0; c < n; ++c) {
        const auto& cf = contextFits[c];
        PlotChart* chart = contextCharts_[c];
        chart->clearSeries();
        chart->setTitle(tr("T = %1").arg(cf.context));
        // The key to the families' marks goes after every budget's colour.
        std::vector<const analysis::IsoFlopSeriesFit*> fits;
        for (const auto& f : cf.fits) fits.push_back(&f);
        drawProfiles(chart, fits, budgets, false, c + 1 == n, &listed);
        yLo = std::min(yLo, chart->ySpec().lo);
        yHi = std::max(yHi, chart->ySpec().hi);
    }
    for (std::size_t c = 0; c < n; ++c) {  // one loss scale for every context
        AxisSpec y = contextCharts_[c]->ySpec();
        y.lo = yLo;
        y.hi = yHi;
        contextCharts_[c]->setAxes(contextCharts_[c]->xSpec(), y);
    }

    // The laws: colour by family, line style by context length.
    PlotChart* laws = contextCharts_[n];
    laws->clearSeries();
    laws->setAxes({tr("Budget H (FLOPs)"), true, 1e18, 1e22}, {lawD ? tr("D* (tokens)") : tr("N* (params)"), true, 1e7, 1e11, true});
    laws->setTitle(lawD ? tr("D*(H) per context length") : tr("N*(H) per context length"));
    for (const auto& cf : contextFits)
        for (std::size_t k = 0; k < cf.fits.size(); ++k) {
            std::vector<QPointF> used, unused;
            for (const auto& prof : cf.fits[k].analysis.result.profiles)
                if (prof.fitted) (prof.inPowerLaw ? used : unused).push_back({prof.flopsMean, lawD ? prof.dOpt : prof.nOpt});
            const QColor color = seriesColour(k);
            for (auto [points, hollow] : {std::pair{&used, false}, {&unused, true}}) {
                if (points->empty()) continue;
                QScatterSeries* s = laws->addScatter(QString(), color, *points, k ? 5.5 : 6, hollow);
                if (k) s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
                PlotChart::hideFromLegend(laws, s);
            }
        }
    laws->fitRangesToData(0.2);
    const Qt::PenStyle contextLine[] = {Qt::DotLine, Qt::SolidLine, Qt::DashLine, Qt::DashDotLine, Qt::DashDotDotLine};
    QString text;
    for (std::size_t c = 0; c < n; ++c)
        for (std::size_t k = 0; k < contextFits[c].fits.size(); ++k) {
            const auto& fitted = contextFits[c].fits[k];
            const auto& law = lawD ? fitted.analysis.result.dOptLaw : fitted.analysis.result.nOptLaw;
            if (!law) continue;
            std::vector<QPointF> line;
            for (double h : logGrid(laws->xSpec().lo, laws->xSpec().hi, 30)) line.push_back({h, (*law)(h)});
            const auto& paper = fitted.paperLaw;
            laws->addLine(tr("%1, T = %2 (%3 = %4%5)")
                              .arg(seriesLabel(k))
                              .arg(contextFits[c].context)
                              .arg(lawD ? QStringLiteral("b") : QStringLiteral("a"))
                              .arg(law->exponent, 0, 'f', 3)
                              .arg(paper ? tr(", paper %1").arg(lawD ? paper->exponentD : paper->exponentN, 0, 'f', 3) : QString()),
                          seriesColour(k), line, 1.4, contextLine[std::min<std::size_t>(c, std::size(contextLine) - 1)]);
            text += tr("%1 at T = %2: %3 = %4·H<sup>%5</sup>. ")
                        .arg(seriesLabel(k))
                        .arg(contextFits[c].context)
                        .arg(lawD ? tr("D*") : tr("N*"))
                        .arg(law->coefficient, 0, 'g', 3)
                        .arg(law->exponent, 0, 'f', 3);
        }
    laws->setAxes(laws->xSpec(), laws->ySpec());
    summary_->setText(n == 0 ? tr("No IsoFLOP runs in the table (experiment set `isoflop`).") : text);
}

void IsoFlopView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;  // the fits too, when the view is next shown
    const int generation = ++generation_;
    if (cancel_) cancel_->store(true);
    if (bandsCancel_) bandsCancel_->store(true);
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    computing_ = true;
    summary_->setText(tr("Fitting the IsoFLOP profiles…"));
    analysis::IsoFlopQuery query;
    query.scope = session_->filter();
    query.series = session_->seriesNames();
    // The choice carries over; a list that held no series (before any runs) made none.
    query.both = family_->count() > 1 && family_->currentData().toString().isEmpty();
    query.shown = family_->currentData().toString().toStdString();
    const QPointF range = range_->currentData().toPointF();
    query.fitMin = range.x();
    query.fitMax = range.y();
    watcher_->setFuture(QtConcurrent::run(jobPool(), [table = session_->runsSnapshot(), settings = session_->settings(),
                                                      paper = session_->paper(), query = std::move(query), generation, cancel = cancel_] {
        fit::FitControl control;
        control.cancel = cancel.get();
        if (cancel->load()) return Outcome{};  // superseded before it began
        return Outcome{table, analysis::answerIsoFlopQuery(*table, settings, paper, query, control), generation};
    }));
}

void IsoFlopView::takeAnswer() {
    if (!computing_ || !watcher_->isFinished()) return;
    Outcome outcome = watcher_->result();
    if (outcome.generation != generation_ || outcome.answer.cancelled) return;  // a newer one is under way
    computing_ = false;
    runs_ = std::move(outcome.table);
    answer_ = std::move(outcome.answer);
    bands_.assign(answer_.fits.size(), std::nullopt);
    refillSeries();
    redraw();
    startBootstrap();
}

void IsoFlopView::startBootstrap() {
    // Bootstrap bands for the power laws, off the UI thread.
    bandBudgets_ = logGrid(1e18, 1e24, 25);
    bandsWatcher_->setProperty("generation", generation_);
    if (bandsCancel_) bandsCancel_->store(true);
    bandsCancel_ = std::make_shared<std::atomic<bool>>(false);
    std::vector<std::pair<std::vector<fit::IsoFlopRun>, fit::IsoFlopSettings>> inputs;
    for (const auto& f : answer_.fits) inputs.emplace_back(analysis::IsoFlopAnswer::inputsOf(f), f.analysis.settings);
    bandsWatcher_->setFuture(QtConcurrent::run(jobPool(), [inputs = std::move(inputs), budgets = bandBudgets_, cancel = bandsCancel_] {
        fit::BootstrapSettings boot;
        boot.resamples = 200;
        std::vector<fit::BootstrapResult> out;
        for (const auto& [runs, settings] : inputs)
            out.push_back(runs.empty() || cancel->load() ? fit::BootstrapResult{} : analysis::isoFlopIntervals(runs, settings, budgets, boot));
        return out;
    }));
}

void IsoFlopView::waitForFits() {
    if (!computing_) return;
    watcher_->waitForFinished();
    takeAnswer();
}

void IsoFlopView::computeNow() {
    waitForFits();
    bandsWatcher_->waitForFinished();
    QCoreApplication::processEvents();
}

std::vector<ViewTable> IsoFlopView::tables() {
    computeNow();  // the fits and the bootstrap intervals
    return tablesJob()(fit::FitControl{});
}

ViewPanel::TablesJob IsoFlopView::tablesJob() {
    waitForFits();  // the tables are those of the fits asked for last
    // Copies of the fits; the intervals as known, or the bootstrap under way (waited for by the job).
    const bool waitForBands = std::none_of(bands_.begin(), bands_.end(), [](const auto& b) { return b.has_value(); }) &&
                              bandsWatcher_->property("generation").toInt() == generation_;
    const QStringList titles{tr("Power laws N*(H), D*(H) with intervals"), tr("Optimum of every IsoFLOP profile"),
                             tr("Power laws N*(H), D*(H) at every context length")};
    // The answer points into the copy of the runs it was fitted on, which the job keeps alive.
    return [bandsKnown = bands_, waitForBands, titles, future = bandsWatcher_->future(), runs = runs_,
            answer = answer_](const fit::FitControl& control) -> std::vector<ViewTable> {
        auto bands = bandsKnown;
        if (waitForBands) {
            while (!future.isFinished()) {
                if (control.cancelled()) return {};
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            if (future.resultCount() > 0) {
                const auto r = future.result();
                for (std::size_t k = 0; k < r.size() && k < bands.size(); ++k) bands[k] = r[k];
            }
        }
        const auto shown = analysis::isoFlopShown(answer, bands);
        const auto perContext = analysis::isoFlopShownPerContext(answer);
        return {{QStringLiteral("laws"), titles[0], analysis::isoFlopLawTable(shown)},
                {QStringLiteral("optima"), titles[1], analysis::isoFlopOptimaTable(shown)},
                {QStringLiteral("contexts"), titles[2], analysis::isoFlopContextTable(perContext)}};
    };
}

void IsoFlopView::redraw() {
    if (computing_ || deferWhileHidden([this] { redraw(); })) return;  // drawn when the fits are done
    const bool contexts = contextsLayout();
    profileView_->setVisible(!contexts);
    lawView_->setVisible(!contexts);
    for (PlotView* v : contextViews_) v->setVisible(false);
    family_->setEnabled(!contexts);
    if (contexts) {
        drawContexts();
        emit explainChanged();
        return;
    }
    const Theme& theme = Theme::current();
    // One series (the first fit) or the pair (both fits).
    const auto& fits = answer_.fits;
    const bool pair = answer_.query.both && fits.size() > 1;
    const bool lawD = law_->currentIndex() == 1;
    std::vector<const analysis::IsoFlopSeriesFit*> drawn;
    for (std::size_t k = 0; k < std::min<std::size_t>(fits.size(), pair ? 2 : 1); ++k) drawn.push_back(&fits[k]);
    auto contextOf = [&](std::size_t k) { return k < fits.size() && fits[k].context > 0 ? tr(", T = %1").arg(fits[k].context) : QString(); };

    profileChart_->clearSeries();
    // The title says the context length of the runs shown.
    // Short enough for a single-column figure.
    profileChart_->setTitle(pair ? (fits[0].context == fits[1].context && fits[0].context > 0 ? tr("IsoFLOP%1").arg(contextOf(0)) : tr("IsoFLOP profiles"))
                                 : tr("%1%2").arg(seriesLabel(0), contextOf(0)));
    std::vector<double> budgets;
    for (const auto* f : drawn)
        for (const auto& prof : f->analysis.result.profiles) budgets.push_back(prof.budget);
    std::set<QString> listed;
    drawProfiles(profileChart_, drawn, budgets, true, true, &listed);
    // The runs left out as outliers, hollow in the highlight colour, still selectable.
    std::vector<RunPoint> leftOut;
    for (const auto* f : drawn)
        for (const auto& o : f->analysis.outliers)
            leftOut.push_back({{axis_->currentIndex() == 1 ? o.run->tokens : o.run->params, o.run->loss()}, runIndex(o.run)});
    if (QScatterSeries* s = addRunPoints(profileChart_, session_, tr("left out as outliers"), theme.highlight, leftOut, 9)) {
        s->setColor(Qt::transparent);
        s->setBorderColor(theme.highlight);
    }
    // The picked budget: the profile there and its minimum, for each series shown.
    const bool overTokens = axis_->currentIndex() == 1;
    const double pickedH = std::pow(10.0, budget_->value() / 10.0);
    budgetValue_->setText(tr("H = %1").arg(QString::fromStdString(data::formatScientific(pickedH))));
    picked_.assign(fits.size(), std::nullopt);
    QString pickedText;
    if (pick_->isChecked()) {
        const double xLo = std::log10(profileChart_->xSpec().lo), xHi = std::log10(profileChart_->xSpec().hi);
        bool listedPick = false;
        for (std::size_t k = 0; k < drawn.size(); ++k) {
            picked_[k] = analysis::profileAtBudget(drawn[k]->analysis.result, pickedH, overTokens);
            const auto& p = picked_[k];
            if (!p) continue;
            const double vertex = std::log10(overTokens ? p->dOpt : p->nOpt);
            std::vector<QPointF> curve;
            for (int i = 0; i <= 60; ++i) {
                const double x = vertex - 0.8 + i * 1.6 / 60;
                if (x >= xLo && x <= xHi) curve.push_back({std::pow(10.0, x), p->parabola(x)});
            }
            auto* line = profileChart_->addLine(listedPick ? QString() : tr("picked H = %1").arg(QString::fromStdString(data::formatScientific(pickedH))),
                                                theme.foreground, curve, 2.5, Qt::DashLine);
            if (listedPick) PlotChart::hideFromLegend(profileChart_, line);
            listedPick = true;
            if (vertex >= xLo && vertex <= xHi)
                PlotChart::hideFromLegend(profileChart_, profileChart_->addScatter(QString(), theme.foreground, {{std::pow(10.0, vertex), p->lossAtOpt}}, 12));
            pickedText += tr("%1 at H = %2: N* = %3, D* = %4 (%5 tokens/param), loss %6. ")
                              .arg(seriesLabel(k), QString::fromStdString(data::formatScientific(pickedH)), formatCount(p->nOpt), formatCount(p->dOpt))
                              .arg(p->dOpt / p->nOpt, 0, 'f', 1)
                              .arg(p->lossAtOpt, 0, 'f', 3);
        }
        if (pickedText.isEmpty()) pickedText = tr("No profile at the picked budget: it needs the power laws and two fitted profiles. ");
        profileChart_->setAxes(profileChart_->xSpec(), profileChart_->ySpec());
    }

    // Right: N*(H) or D*(H) for both families.
    lawChart_->clearSeries();
    lawChart_->setAxes({tr("Budget H (FLOPs)"), true, 1e18, 1e22}, {lawD ? tr("D* (tokens)") : tr("N* (params)"), true, 1e7, 1e11, true});
    lawChart_->setTitle(lawD ? tr("Compute-optimal D*(H)") : tr("Compute-optimal N*(H)"));
    QString text;
    for (std::size_t j = 0; j < fits.size(); ++j) {
        const QColor color = seriesColour(j);
        std::vector<QPointF> used, unused;
        for (const auto& prof : fits[j].analysis.result.profiles)
            if (prof.fitted) (prof.inPowerLaw ? used : unused).push_back({prof.flopsMean, lawD ? prof.dOpt : prof.nOpt});
        if (!used.empty()) PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QString(), color, used, 9));
        if (!unused.empty()) PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QString(), color, unused, 9, true));
    }
    lawChart_->fitRangesToData(0.3);
    const double hLo = lawChart_->xSpec().lo, hHi = lawChart_->xSpec().hi;
    for (std::size_t j = 0; j < fits.size(); ++j) {
        const QColor color = seriesColour(j);
        const fit::IsoFlopResult& result = fits[j].analysis.result;
        const auto& paperLaw = fits[j].paperLaw;
        const auto& law = lawD ? result.dOptLaw : result.nOptLaw;
        if (!law) continue;
        std::vector<QPointF> line;
        for (double h : logGrid(hLo, hHi, 40)) line.push_back({h, (*law)(h)});
        // The paper's exponent beside the data's, where the paper has a law for this family and context.
        const QString paper = paperLaw ? tr(" (paper %1)").arg(lawD ? paperLaw->exponentD : paperLaw->exponentN, 0, 'f', 3) : QString();
        lawChart_->addLine(tr("%1 %2%3").arg(seriesLabel(j)).arg(law->exponent, 0, 'f', 3).arg(paper), color, line, 2.0);
        if (bands_[j] && bands_[j]->intervals.size() == 4 + 2 * bandBudgets_.size()) {
            std::vector<QPointF> lo, hi;
            const std::size_t offset = 4 + (lawD ? bandBudgets_.size() : 0);
            for (std::size_t q = 0; q < bandBudgets_.size(); ++q) {
                const auto& in = bands_[j]->intervals[offset + q];
                if (bandBudgets_[q] < hLo || bandBudgets_[q] > hHi || in.nValid == 0) continue;
                lo.push_back({bandBudgets_[q], in.lower});
                hi.push_back({bandBudgets_[q], in.upper});
            }
            if (lo.size() > 1) PlotChart::hideFromLegend(lawChart_, lawChart_->addBand(QString(), color, lo, hi));
        }
        text += tr("%1: a = %2, A' = %3, b = %4, B' = %5 (%6 budgets). ")
                    .arg(seriesLabel(j))
                    .arg(result.nOptLaw ? result.nOptLaw->exponent : 0, 0, 'f', 3)
                    .arg(result.nOptLaw ? result.nOptLaw->coefficient : 0, 0, 'g', 4)
                    .arg(result.dOptLaw ? result.dOptLaw->exponent : 0, 0, 'f', 3)
                    .arg(result.dOptLaw ? result.dOptLaw->coefficient : 0, 0, 'g', 4)
                    .arg(result.nBudgetsInLaw);
        if (paperLaw)
            text += tr("The paper: a = %1, b = %2 at T = %3. ").arg(paperLaw->exponentN, 0, 'f', 3).arg(paperLaw->exponentD, 0, 'f', 3).arg(fits[j].context);
        // How well the law extrapolates: fitted without the largest budget, predicting its optimum.
        const auto& ex = fits[j].analysis.extrapolation;
        if (!ex.heldOut.empty()) {
            const auto& h = ex.heldOut.back();
            text += tr("Without the %1 budget the law predicts its N* within %2 % and D* within %3 %. ")
                        .arg(QString::fromStdString(data::formatScientific(h.budget)))
                        .arg(std::abs(100 * h.nOptError), 0, 'f', 1)
                        .arg(std::abs(100 * h.dOptError), 0, 'f', 1);
        }
        if (const std::size_t outliers = fits[j].analysis.outliers.size(); outliers > 0)
            text += tr("%n run(s) far from their profile left out as outliers (tick a run in to take it back). ", "", static_cast<int>(outliers));
    }
    for (std::size_t k = 0; k < drawn.size(); ++k)
        if (const auto& p = picked_[k]; p && pickedH >= hLo && pickedH <= hHi)
            PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QString(), theme.foreground, {{pickedH, lawD ? p->dOpt : p->nOpt}}, 12));
    text = pickedText + text;
    lawChart_->setAxes(lawChart_->xSpec(), lawChart_->ySpec());
    for (std::size_t k = 0; k < drawn.size(); ++k)
        for (const auto& w : drawn[k]->analysis.result.warnings)
            text += QStringLiteral("<br><font color='%1'>%2%3</font>")
                        .arg(theme.highlight.name(), drawn.size() > 1 ? seriesLabel(k) + ": " : QString(),
                             QString::fromStdString(w));
    summary_->setText(text.isEmpty() ? tr("No IsoFLOP runs in scope: runs of a series with compute (or a budget) and loss.") : text);
    emit explainChanged();
}

QString IsoFlopView::explainHtml() const {
    const auto& t = result(false);
    const auto& x = result(true);
    auto law = [](const std::optional<fit::PowerLaw>& l) {
        return l ? QStringLiteral("%1·H<sup>%2</sup>").arg(l->coefficient, 0, 'g', 3).arg(l->exponent, 0, 'f', 3) : QStringLiteral("—");
    };
    return tr("<h3>IsoFLOP profiles</h3>"
              "<p>Train many models with the <b>same compute budget H</b> but different sizes: small models see "
              "many tokens, large ones few. The loss over log N is a valley; a parabola through it gives the "
              "best size N* for that budget (red points). The same over log D gives D*.</p>"
              "<p>Repeating this for several budgets and fitting straight lines on log-log axes gives the "
              "compute-optimal scaling laws</p>"
              "<p style='font-size:large'>N*(H) = A'·H<sup>a</sup>, &nbsp; D*(H) = B'·H<sup>b</sup></p>"
              "<p>Now: %1. Shaded: 95&nbsp;% bootstrap bands over runs.</p>")
        .arg([&] {
            QStringList now;  // only the series the view has a law for
            if (t.nOptLaw) now << tr("%1 N* = %2").arg(seriesLabel(0), law(t.nOptLaw));
            if (x.nOptLaw) now << tr("%1 N* = %2").arg(seriesLabel(1), law(x.nOptLaw));
            return now.isEmpty() ? tr("no power law yet (it needs profiles at two budgets or more)") : now.join(QStringLiteral("; "));
        }());
}

}  // namespace scalex::gui
