#include "app/figures/views/IsoFlopFigure.h"

#include <set>

#include <QObject>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/RunMarks.h"
#include "app/figures/Theme.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/Study.h"
#include "core/data/Export.h"
#include "core/data/Series.h"

namespace scalex::figures {

namespace {

const QString kPanels = QStringLiteral("panels");
const QString kFamily = QStringLiteral("family");
const QString kAxis = QStringLiteral("axis");
const QString kLaw = QStringLiteral("law");
const QString kRange = QStringLiteral("range");
const QString kPick = QStringLiteral("pick");
const QString kBudget = QStringLiteral("budget");
const QString kContext = QStringLiteral("context");
const QString kEachOwn = QStringLiteral("auto");

// The budgets each choice of "range" fits the power laws over.
struct BudgetRange {
    const char* key;
    double lo, hi;
};
constexpr BudgetRange kRanges[] = {{"fig4", 5e18, 2e20}, {"context-tables", 5e18, 5e19}, {"all", 0, 1e300}};

QString labelOf(const std::string& series) { return QString::fromStdString(data::seriesLabel(series)); }

}  // namespace

IsoFlopFigure::IsoFlopFigure() : profileChart_(makeChart()), lawChart_(makeChart()), bandBudgets_(logGrid(1e18, 1e24, 25)) {
    controls().add(choiceControl(kPanels, QObject::tr("Show"),
                                 {{QStringLiteral("profiles"), QObject::tr("Profiles and law")},
                                  {QStringLiteral("fig5"), QObject::tr("Every context length (Fig. 5)")}},
                                 QStringLiteral("profiles")));
    // The series' labels are the keys (recipes and lessons name them so: "Transformer", "both families").
    controls().add(choiceControl(kFamily, QObject::tr("Profiles of"), {}, QString(),
                                 QObject::tr("The series whose profiles are drawn; the law panel shows the pair")));
    controls().add(choiceControl(kContext, QObject::tr("Context"), {{kEachOwn, QObject::tr("per series")}}, kEachOwn,
                                 QObject::tr("The training context length of the profiles fitted: one for every series, or each "
                                             "series at the paper's 8192 where it has runs there, else at the context with most runs")));
    controls().add(choiceControl(kAxis, QObject::tr("Loss"),
                                 {{QStringLiteral("params"), QObject::tr("over parameters N")},
                                  {QStringLiteral("tokens"), QObject::tr("over tokens D")}},
                                 QStringLiteral("params")));
    controls().add(choiceControl(kLaw, QObject::tr("Law"),
                                 {{QStringLiteral("n"), QObject::tr("N*(H)")}, {QStringLiteral("d"), QObject::tr("D*(H)")}},
                                 QStringLiteral("n")));
    // Every budget the study has (as `fit isoflop` without --budget-range); the paper's ranges are presets.
    controls().add(choiceControl(kRange, QObject::tr("Fit"),
                                 {{QStringLiteral("fig4"), QObject::tr("budgets 5e18 … 2e20 (Fig. 4)")},
                                  {QStringLiteral("context-tables"), QObject::tr("budgets 5e18 … 5e19 (per-context tables)")},
                                  {QStringLiteral("all"), QObject::tr("every budget")}},
                                 QStringLiteral("all"), QObject::tr("The budgets the power laws are fitted over: every budget of the "
                                                                    "study, or one of the paper's ranges")));
    controls().add(checkpointsControl());
    // Pick any budget: its profile (from the laws and the fitted curvatures) and optimum move with it.
    controls().add(switchControl(kPick, QObject::tr("Pick a budget H"), false));
    // Slider positions are 10·log10 H: 3.2e17 to 1e23.
    std::vector<double> budgets;
    for (int pos = 175; pos <= 230; ++pos) budgets.push_back(std::pow(10.0, pos / 10.0));
    controls().add(valueControl(kBudget, QString(), std::move(budgets), std::pow(10.0, 200 / 10.0), 175,
                                QObject::tr("The budget H, a tenth of a decade a step")));
    enableControls();
}

bool IsoFlopFigure::contextsLayout() const { return controls().choice(kPanels) == QLatin1String("fig5"); }

void IsoFlopFigure::enableControls() {
    controls().at(kFamily).enabled = !contextsLayout();  // Fig. 5 shows the pair
    controls().at(kBudget).enabled = controls().on(kPick);
}

QString IsoFlopFigure::readout(const QString& name) const {
    if (name != kBudget) return {};
    return QObject::tr("H = %1").arg(QString::fromStdString(data::formatScientific(controls().number(kBudget))));
}

void IsoFlopFigure::refresh(const FigureInput& in) {
    const analysis::Study& study = *in.study;
    analysis::IsoFlopQuery query;
    query.scope = study.filter();
    query.series = study.seriesNames();
    const analysis::IsoFlopSeries offered = analysis::isoFlopSeries(study.runs(), query);
    std::vector<ControlChoice> choices;
    seriesOfKey_.clear();
    for (const auto& name : offered.withRuns) {
        const QString label = labelOf(name);
        choices.push_back({label, label});
        seriesOfKey_.emplace(label, name);
    }
    // "Both": the pair; named "both families" unless it is two series of other names (recipes of
    // the paper's figures ask for it whatever the table holds).
    const bool otherNames = offered.withRuns.size() > 1 && !(offered.pair[0] == "transformer" && offered.pair[1] == "xlstm");
    const QString both = otherNames ? QObject::tr("%1 and %2").arg(labelOf(offered.pair[0]), labelOf(offered.pair[1])) : QObject::tr("both families");
    choices.push_back({both, both});
    Control& family = controls().at(kFamily);
    // A list that held no series (before any runs) chose none: the first series, as the fits show it.
    if (family.choices.size() <= 1) family.value = QString();
    // The pair stays chosen when its name changes.
    const QString fallback = !bothKey_.isEmpty() && family.value.toString() == bothKey_ ? both : QString();
    bothKey_ = both;
    controls().setChoices(kFamily, std::move(choices), fallback);
    // The context lengths of the runs in scope.
    std::set<double> contexts;
    for (const auto& g : analysis::seriesGroups(study.runs(), study.settings()))
        if (!std::isnan(g.context)) contexts.insert(g.context);
    std::vector<ControlChoice> lengths{{kEachOwn, QObject::tr("per series")}};
    for (double c : contexts) lengths.push_back({QString::number(c), QString::number(c)});
    controls().setChoices(kContext, std::move(lengths), kEachOwn);
    controls().at(kContext).enabled = contexts.size() > 1;
    enableControls();
}

QJsonObject IsoFlopFigure::fitControls() const {
    return {{kFamily, controls().at(kFamily).value},
            {kRange, controls().at(kRange).value},
            {kContext, controls().at(kContext).value},
            {kCheckpointsControl, controls().at(kCheckpointsControl).value}};
}

namespace {

// The first fit (the series shown first; a fit of `series` where the study has no IsoFLOP runs)
// made again on its runs without a loss curve and the checkpoints predicted at `budgets`, as `fit
// isoflop --from-curves --budgets` fits them: its runs as isoFlopRuns gives them (outliers kept,
// as the verb keeps them), its settings with the checkpoints' budgets. The same series among
// `every` (the tables') takes the same fit.
void refitWithCheckpoints(IsoFlopFigure::Fits& fits, const CheckpointInputs& checkpoints, const std::vector<double>& budgets,
                        const analysis::IsoFlopQuery& query, const std::string& series, const fit::FitControl& control) {
    auto& all = fits.answer.fits;
    if (all.empty()) {
        analysis::IsoFlopSeriesFit none;
        none.series = !query.shown.empty() ? query.shown : series;
        none.analysis.settings.budgets.clear();
        none.analysis.settings.fitMin = query.fitMin;
        none.analysis.settings.fitMax = query.fitMax;
        all.push_back(std::move(none));
    }
    analysis::IsoFlopSeriesFit& first = all.front();
    std::vector<fit::IsoFlopRun> measured;
    std::vector<const data::Run*> runs;
    if (!first.analysis.runs.empty()) {
        const auto selected = analysis::isoFlopRuns(*fits.table, first.analysis.group.filter);
        for (std::size_t i = 0; i < selected.points.size(); ++i)
            if (!checkpoints.hasCurve(selected.runs[i]->runId)) measured.push_back(selected.points[i]), runs.push_back(selected.runs[i]);
    }
    fit::IsoFlopSettings settings = first.analysis.settings;
    settings.budgets = budgets;
    auto made = checkpoints.fitIsoFlop(std::move(measured), settings, control);
    if (!made.result) {
        fits.checkpoints.error = made.error;
        return;
    }
    first.analysis.result = made.result->fit;
    first.analysis.settings.budgets.assign(made.result->fit.profiles.size(), 0);
    for (std::size_t k = 0; k < made.result->fit.profiles.size(); ++k) first.analysis.settings.budgets[k] = made.result->fit.profiles[k].budget;
    first.analysis.runs = std::move(runs);
    first.analysis.outliers.clear();
    first.analysis.extrapolation = {};
    for (auto& f : fits.answer.every)
        if (f.series == first.series && f.context == first.context) f.analysis = first.analysis;
    fits.withCheckpoints = std::move(made.result);
}

}  // namespace

JobOf<IsoFlopFigure::Answer> IsoFlopFigure::job(const FigureInput& in) const {
    const analysis::Study& study = *in.study;
    analysis::IsoFlopQuery query;
    query.scope = study.filter();
    query.series = study.seriesNames();
    const Control& family = controls().at(kFamily);
    // The choice carries over; a list that held no series (before any runs) makes none.
    query.both = family.choices.size() > 1 && family.value.toString() == bothKey_;
    if (const auto it = seriesOfKey_.find(family.value.toString()); it != seriesOfKey_.end()) query.shown = it->second;
    for (const BudgetRange& r : kRanges)
        if (controls().choice(kRange) == QLatin1String(r.key)) {
            query.fitMin = r.lo;
            query.fitMax = r.hi;
        }
    // One context length for every fit, when one is chosen (else each series' preferred one).
    if (const QString chosen = controls().choice(kContext); chosen != kEachOwn) query.scope.context = chosen.toDouble();
    std::string firstSeries = study.seriesNames().empty() ? std::string() : study.seriesNames().front();
    return [table = runsForJob(in), settings = study.settings(), paper = study.paper(), query = std::move(query),
            checkpoints = checkpointInputs(in, controls()), fitted = checkpointsFitted(controls()),
            firstSeries = std::move(firstSeries)](const fit::FitControl& control) {
        Fits fits{table, analysis::answerIsoFlopQuery(*table, settings, paper, query, control), {}, {}};
        if (checkpoints && !control.cancelled()) {
            std::set<double> budgets;
            for (const auto& f : fits.answer.fits)
                for (const auto& p : f.analysis.result.profiles) budgets.insert(p.budget);
            fits.checkpoints = checkpoints->predict(analysis::CheckpointPlacement::Budgets, {budgets.begin(), budgets.end()}, control);
            if (fitted && fits.checkpoints.result && !control.cancelled()) refitWithCheckpoints(fits, *checkpoints, {budgets.begin(), budgets.end()}, query, firstSeries, control);
        }
        return fits;
    };
}

void IsoFlopFigure::take(Fits fits) {
    if (fits.answer.cancelled) return;
    runs_ = std::move(fits.table);
    answer_ = std::move(fits.answer);
    checkpoints_ = std::move(fits.checkpoints);
    withCheckpoints_ = std::move(fits.withCheckpoints);
    bands_.assign(answer_.fits.size(), std::nullopt);
    bandsKnown_ = false;
    picked_.clear();
    makeContextCharts();
}

void IsoFlopFigure::compute(const FigureInput& in, const fit::FitControl& control) {
    FigureWithAnswer::compute(in, control);
    if (JobOf<Bands> bands = bandsJob()) takeBands(bands(control));
}

JobOf<IsoFlopFigure::Bands> IsoFlopFigure::bandsJob() const {
    if (answer_.fits.empty()) return {};
    // Bootstrap bands for the power laws: copies of each fit's runs as it read them.
    std::vector<std::pair<std::vector<fit::IsoFlopRun>, fit::IsoFlopSettings>> inputs;
    // A fit with the checkpoints has their intervals of a, A', b, B' instead (each model's
    // checkpoints moved together), none bootstrapped here and no band.
    std::optional<fit::BootstrapResult> ofCheckpoints;
    if (const auto& c = withCheckpoints_; c && c->fit.nOptLaw && c->fit.dOptLaw) {
        ofCheckpoints.emplace();
        ofCheckpoints->nResamples = c->replicates;
        const auto add = [&](const char* name, double estimate, double lower, double upper) {
            ofCheckpoints->intervals.push_back({name, estimate, lower, upper, estimate, c->replicates});
        };
        add("a", c->fit.nOptLaw->exponent, c->nOptLower.exponent, c->nOptUpper.exponent);
        add("A", c->fit.nOptLaw->coefficient, c->nOptLower.coefficient, c->nOptUpper.coefficient);
        add("b", c->fit.dOptLaw->exponent, c->dOptLower.exponent, c->dOptUpper.exponent);
        add("B", c->fit.dOptLaw->coefficient, c->dOptLower.coefficient, c->dOptUpper.coefficient);
    }
    for (const auto& f : answer_.fits)
        inputs.emplace_back(withCheckpoints_ && &f == &answer_.fits.front() ? std::vector<fit::IsoFlopRun>{} : analysis::IsoFlopAnswer::inputsOf(f),
                            f.analysis.settings);
    return [inputs = std::move(inputs), budgets = bandBudgets_, ofCheckpoints = std::move(ofCheckpoints)](const fit::FitControl& control) {
        fit::BootstrapSettings boot;
        boot.resamples = 200;
        Bands out;
        for (const auto& [runs, settings] : inputs)
            out.push_back(out.empty() && ofCheckpoints ? *ofCheckpoints
                          : runs.empty() || control.cancelled() ? fit::BootstrapResult{}
                                                                : analysis::isoFlopIntervals(runs, settings, budgets, boot));
        return out;
    };
}

void IsoFlopFigure::takeBands(Bands bands) {
    for (std::size_t k = 0; k < bands.size() && k < bands_.size(); ++k) bands_[k] = std::move(bands[k]);
    bandsKnown_ = true;
}

void IsoFlopFigure::makeContextCharts() {
    while (contextCharts_.size() < answer_.contexts.size() + 1) contextCharts_.push_back(makeChart());
}

std::vector<QChart*> IsoFlopFigure::charts() const {
    if (!contextsLayout()) return {profileChart_, lawChart_};
    const std::size_t shown = std::min(contextCharts_.size(), answer_.contexts.size() + 1);  // the panels drawContexts filled
    return {contextCharts_.begin(), contextCharts_.begin() + static_cast<std::ptrdiff_t>(shown)};
}

const fit::IsoFlopResult& IsoFlopFigure::result(bool second) const {
    static const fit::IsoFlopResult none;
    const std::size_t k = second ? 1 : 0;
    return k < answer_.fits.size() ? answer_.fits[k].analysis.result : none;
}

const std::string& IsoFlopFigure::seriesShown(bool second) const {
    static const std::string none;
    const std::size_t k = second ? 1 : 0;
    return k < answer_.fits.size() ? answer_.fits[k].series : none;
}

const std::optional<analysis::BudgetProfile>& IsoFlopFigure::picked(bool second) const {
    static const std::optional<analysis::BudgetProfile> none;
    const std::size_t k = second ? 1 : 0;
    return k < picked_.size() ? picked_[k] : none;
}

QString IsoFlopFigure::seriesLabel(std::size_t k) const {
    return k < answer_.fits.size() ? labelOf(answer_.fits[k].series) : QString();
}

QColor IsoFlopFigure::seriesColour(const FigureInput& in, std::size_t k) const {
    const std::string name = k < answer_.fits.size() ? answer_.fits[k].series : std::string();
    return Theme::current().series(name, in.study->seriesIndex(name));
}

int IsoFlopFigure::runIndex(const data::Run* run) const { return static_cast<int>(run - runs_->runs.data()); }

ViewFigure::TablesJob IsoFlopFigure::tablesJob(const FigureInput&) const {
    const QStringList titles{QObject::tr("Power laws N*(H), D*(H) with intervals"), QObject::tr("Optimum of every IsoFLOP profile"),
                             QObject::tr("Power laws N*(H), D*(H) at every context length")};
    // Copies of the fits (which point into the copy of the runs the job keeps alive) and of the
    // intervals known; those not yet known are bootstrapped here.
    // The tables hold every series in scope (the chart draws the one picked, or the pair): the
    // intervals of the series not drawn are bootstrapped here as the drawn ones were.
    return [titles, runs = runs_, answer = answer_, known = bands_, bands = bandsKnown_ ? JobOf<Bands>() : bandsJob(),
            budgets = bandBudgets_](const fit::FitControl& control) -> std::vector<FigureTable> {
        auto intervals = known;
        if (bands) {
            const Bands b = bands(control);
            if (control.cancelled()) return {};
            for (std::size_t k = 0; k < b.size() && k < intervals.size(); ++k) intervals[k] = b[k];
        }
        std::vector<std::optional<fit::BootstrapResult>> everyIntervals;
        for (const auto& f : answer.every) {
            std::optional<fit::BootstrapResult> found;
            for (std::size_t k = 0; k < answer.fits.size() && k < intervals.size(); ++k)
                if (answer.fits[k].series == f.series) found = intervals[k];
            if (!found) {
                const auto inputs = analysis::IsoFlopAnswer::inputsOf(f);
                fit::BootstrapSettings boot;
                boot.resamples = 200;
                if (!inputs.empty()) found = analysis::isoFlopIntervals(inputs, f.analysis.settings, budgets, boot);
                if (control.cancelled()) return {};
            }
            everyIntervals.push_back(std::move(found));
        }
        const auto shown = analysis::isoFlopShownEvery(answer, everyIntervals);
        const auto perContext = analysis::isoFlopShownPerContext(answer);
        return {{QStringLiteral("laws"), titles[0], analysis::isoFlopLawTable(shown)},
                {QStringLiteral("optima"), titles[1], analysis::isoFlopOptimaTable(shown)},
                {QStringLiteral("contexts"), titles[2], analysis::isoFlopContextTable(perContext)}};
    };
}

void IsoFlopFigure::drawProfiles(PlotChart* chart, const FigureInput& in, const std::vector<const analysis::IsoFlopSeriesFit*>& fits,
                                 std::vector<double> budgets, bool minima, bool key, std::set<QString>* listed,
                                 const std::vector<RunPoint>& planned) {
    const Theme& theme = Theme::current();
    const bool overD = controls().choice(kAxis) == QLatin1String("tokens");
    const bool both = fits.size() > 1;
    std::sort(budgets.begin(), budgets.end());
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    auto colour = [&](double budget) {
        const auto at = std::lower_bound(budgets.begin(), budgets.end(), budget) - budgets.begin();
        return theme.sequential(static_cast<int>(at), static_cast<int>(budgets.size()));
    };
    // Both families: Transformer as discs and solid parabolas, xLSTM as squares and dashed ones.
    auto square = [both](std::size_t k) { return both && k == 1; };
    chart->setAxes({overD ? QObject::tr("Training tokens D") : QObject::tr("Parameters N"), true, 1e7, 1e10, true}, {QObject::tr("Validation loss"), false, 2.5, 3.5});
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
            QScatterSeries* s = addRunPoints(chart, in, label, colour(prof.budget), pts, both ? (k ? 4.5 : 5) : 6);
            if (!s) continue;
            if (square(k)) s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            if (square(k) || !listed->insert(label).second) PlotChart::hideFromLegend(chart, s);
            all.insert(all.end(), pts.begin(), pts.end());
        }
    addPlannedRuns(chart, in, theme.foreground, planned);
    all.insert(all.end(), planned.begin(), planned.end());
    // The checkpoints predicted from the study's loss curves, hollow, their intervals as bars.
    // Those at a budget drawn have its colour.
    if (chart == profileChart_)
        drawCheckpoints(
            chart, checkpoints_, [overD](const analysis::PredictedCheckpoint& c) { return QPointF(overD ? c.tokens : c.params, c.loss); }, true,
            [&](const analysis::PredictedCheckpoint& c) {
                return std::binary_search(budgets.begin(), budgets.end(), c.budget) ? colour(c.budget) : theme.foreground;
            });
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
            QScatterSeries* s = chart->addScatter(k == 0 ? QObject::tr("minimum") : QString(), theme.highlight, points, both ? 8 : 10);
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
            chart->addLine(QObject::tr("one fit to all minima, η = %1").arg(-shared->exponent, 0, 'f', 3), theme.muted, line, 1.2, Qt::DotLine);
        }
    if (key && both)
        for (std::size_t k = 0; k < fits.size(); ++k) {
            QScatterSeries* mark = chart->addScatter(QString::fromStdString(data::seriesLabel(fits[k]->series)), theme.muted, {}, 6);
            if (square(k)) mark->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        }
    chart->setAxes(chart->xSpec(), chart->ySpec());
    addSelectionRings(chart, in, all);
}

void IsoFlopFigure::drawContexts(const FigureInput& in) {
    const bool lawD = controls().choice(kLaw) == QLatin1String("d");
    const auto& contextFits = answer_.contexts;
    const std::size_t n = contextFits.size();
    makeContextCharts();
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
        chart->setTitle(QObject::tr("T = %1").arg(cf.context));
        // The key to the families' marks goes after every budget's colour.
        std::vector<const analysis::IsoFlopSeriesFit*> fits;
        for (const auto& f : cf.fits) fits.push_back(&f);
        drawProfiles(chart, in, fits, budgets, false, c + 1 == n, &listed);
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
    laws->setAxes({QObject::tr("Budget H (FLOPs)"), true, 1e18, 1e22}, {lawD ? QObject::tr("D* (tokens)") : QObject::tr("N* (params)"), true, 1e7, 1e11, true});
    laws->setTitle(lawD ? QObject::tr("D*(H) per context length") : QObject::tr("N*(H) per context length"));
    for (const auto& cf : contextFits)
        for (std::size_t k = 0; k < cf.fits.size(); ++k) {
            std::vector<QPointF> used, unused;
            for (const auto& prof : cf.fits[k].analysis.result.profiles)
                if (prof.fitted) (prof.inPowerLaw ? used : unused).push_back({prof.flopsMean, lawD ? prof.dOpt : prof.nOpt});
            const QColor color = seriesColour(in, k);
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
            laws->addLine(QObject::tr("%1, T = %2 (%3 = %4%5)")
                              .arg(seriesLabel(k))
                              .arg(contextFits[c].context)
                              .arg(lawD ? QStringLiteral("b") : QStringLiteral("a"))
                              .arg(law->exponent, 0, 'f', 3)
                              .arg(paper ? QObject::tr(", paper %1").arg(lawD ? paper->exponentD : paper->exponentN, 0, 'f', 3) : QString()),
                          seriesColour(in, k), line, 1.4, contextLine[std::min<std::size_t>(c, std::size(contextLine) - 1)]);
            text += QObject::tr("%1 at T = %2: %3 = %4·H<sup>%5</sup>. ")
                        .arg(seriesLabel(k))
                        .arg(contextFits[c].context)
                        .arg(lawD ? QObject::tr("D*") : QObject::tr("N*"))
                        .arg(law->coefficient, 0, 'g', 3)
                        .arg(law->exponent, 0, 'f', 3);
        }
    laws->setAxes(laws->xSpec(), laws->ySpec());
    summary_ = n == 0 ? QObject::tr("No IsoFLOP runs in the table (experiment set `isoflop`).") : text;
}

QString IsoFlopFigure::problem() const {
    if (!answer_.fits.empty()) return {};
    return QObject::tr("no IsoFLOP runs in scope (runs of a series with compute, or a budget, and loss)");
}

void IsoFlopFigure::draw(const FigureInput& in) {
    noteScale(in);
    enableControls();
    if (contextsLayout()) {
        drawContexts(in);
        return;
    }
    const Theme& theme = Theme::current();
    // One series (the first fit) or the pair (both fits).
    const auto& fits = answer_.fits;
    const bool pair = answer_.query.both && fits.size() > 1;
    const bool lawD = controls().choice(kLaw) == QLatin1String("d");
    std::vector<const analysis::IsoFlopSeriesFit*> drawn;
    for (std::size_t k = 0; k < std::min<std::size_t>(fits.size(), pair ? 2 : 1); ++k) drawn.push_back(&fits[k]);
    auto contextOf = [&](std::size_t k) { return k < fits.size() && fits[k].context > 0 ? QObject::tr(", T = %1").arg(fits[k].context) : QString(); };

    profileChart_->clearSeries();
    // The title says the context length of the runs shown.
    // Short enough for a single-column figure.
    profileChart_->setTitle(pair ? (fits[0].context == fits[1].context && fits[0].context > 0 ? QObject::tr("IsoFLOP%1").arg(contextOf(0)) : QObject::tr("IsoFLOP profiles"))
                                 : QObject::tr("%1%2").arg(seriesLabel(0), contextOf(0)));
    std::vector<double> budgets;
    for (const auto* f : drawn)
        for (const auto& prof : f->analysis.result.profiles) budgets.push_back(prof.budget);
    // Planned runs of the series shown (no loss yet): on the profile at their budget, at the loss
    // it predicts there; on the law's panel at their budget and N (or D).
    const bool overTokens = controls().choice(kAxis) == QLatin1String("tokens");
    std::vector<RunPoint> plannedProfile, plannedLaw;
    std::size_t unplaced = 0;
    for (const auto* f : drawn)
        for (const auto& p : analysis::plannedOnProfiles(in.study->runs(), f->series, f->analysis.result, overTokens)) {
            plannedLaw.push_back({{p.budget, lawD ? p.d : p.n}, p.run});
            if (std::isfinite(p.loss)) plannedProfile.push_back({{overTokens ? p.d : p.n, p.loss}, p.run});
            else ++unplaced;
        }
    std::set<QString> listed;
    drawProfiles(profileChart_, in, drawn, budgets, true, true, &listed, plannedProfile);
    // The runs left out as outliers, hollow in the highlight colour, still selectable.
    std::vector<RunPoint> leftOut;
    for (const auto* f : drawn)
        for (const auto& o : f->analysis.outliers)
            leftOut.push_back({{controls().choice(kAxis) == QLatin1String("tokens") ? o.run->tokens : o.run->params, o.run->loss()}, runIndex(o.run)});
    if (QScatterSeries* s = addRunPoints(profileChart_, in, QObject::tr("left out as outliers"), theme.highlight, leftOut, 9)) {
        s->setColor(Qt::transparent);
        s->setBorderColor(theme.highlight);
    }
    // The picked budget: the profile there and its minimum, for each series shown.
    const double pickedH = controls().number(kBudget);
    picked_.assign(fits.size(), std::nullopt);
    QString pickedText;
    if (controls().on(kPick)) {
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
            auto* line = profileChart_->addLine(listedPick ? QString() : QObject::tr("picked H = %1").arg(QString::fromStdString(data::formatScientific(pickedH))),
                                                theme.foreground, curve, 2.5, Qt::DashLine);
            if (listedPick) PlotChart::hideFromLegend(profileChart_, line);
            listedPick = true;
            if (vertex >= xLo && vertex <= xHi)
                PlotChart::hideFromLegend(profileChart_, profileChart_->addScatter(QString(), theme.foreground, {{std::pow(10.0, vertex), p->lossAtOpt}}, 12));
            pickedText += QObject::tr("%1 at H = %2: N* = %3, D* = %4 (%5 tokens/param), loss %6. ")
                              .arg(seriesLabel(k), QString::fromStdString(data::formatScientific(pickedH)), formatCount(p->nOpt), formatCount(p->dOpt))
                              .arg(p->dOpt / p->nOpt, 0, 'f', 1)
                              .arg(p->lossAtOpt, 0, 'f', 3);
        }
        if (pickedText.isEmpty()) pickedText = QObject::tr("No profile at the picked budget: it needs the power laws and two fitted profiles. ");
        profileChart_->setAxes(profileChart_->xSpec(), profileChart_->ySpec());
    }

    // Right: N*(H) or D*(H) for both families.
    lawChart_->clearSeries();
    lawChart_->setAxes({QObject::tr("Budget H (FLOPs)"), true, 1e18, 1e22}, {lawD ? QObject::tr("D* (tokens)") : QObject::tr("N* (params)"), true, 1e7, 1e11, true});
    // Without a law (too few budgets with a fitted profile) the panel says so (the summary says why).
    const bool anyLaw = std::any_of(fits.begin(), fits.end(), [&](const auto& f) {
        return lawD ? f.analysis.result.dOptLaw.has_value() : f.analysis.result.nOptLaw.has_value();
    });
    const QString law = lawD ? QStringLiteral("D*(H)") : QStringLiteral("N*(H)");
    lawChart_->setTitle(anyLaw ? QObject::tr("Compute-optimal %1").arg(law) : QObject::tr("%1: no law from these runs").arg(law));
    QString text;
    // Every series' law (the study's, each at the context it prefers); the profiles drawn are the
    // picked series' (or the pair's), whose bands and numbers the summary gives.
    const auto& every = answer_.every.empty() ? answer_.fits : answer_.every;
    auto shownIndex = [&](const analysis::IsoFlopSeriesFit& f) -> std::optional<std::size_t> {
        for (std::size_t j = 0; j < fits.size(); ++j)
            if (fits[j].series == f.series) return j;
        return std::nullopt;
    };
    auto colourOf = [&](const analysis::IsoFlopSeriesFit& f) { return Theme::current().series(f.series, in.study->seriesIndex(f.series)); };
    for (const auto& f : every) {
        const QColor color = colourOf(f);
        std::vector<QPointF> used, unused;
        for (const auto& prof : f.analysis.result.profiles)
            if (prof.fitted) (prof.inPowerLaw ? used : unused).push_back({prof.flopsMean, lawD ? prof.dOpt : prof.nOpt});
        // The optima left out of a law are drawn for the series whose profiles are shown (the others'
        // can lie decades away and would set the axes).
        const bool shown = shownIndex(f).has_value();
        if (!used.empty()) PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QString(), color, used, shown ? 9 : 6));
        if (!unused.empty() && shown) PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QString(), color, unused, 9, true));
    }
    addPlannedRuns(lawChart_, in, theme.foreground, plannedLaw);
    lawChart_->fitRangesToData(0.3);
    const double hLo = lawChart_->xSpec().lo, hHi = lawChart_->xSpec().hi;
    for (const auto& f : every) {
        if (shownIndex(f)) continue;
        const auto& law = lawD ? f.analysis.result.dOptLaw : f.analysis.result.nOptLaw;
        if (!law) continue;
        std::vector<QPointF> line;
        for (double h : logGrid(hLo, hHi, 40)) line.push_back({h, (*law)(h)});
        lawChart_->addLine(QObject::tr("%1 %2").arg(labelOf(f.series)).arg(law->exponent, 0, 'f', 3), colourOf(f), line, 1.2);
    }
    for (std::size_t j = 0; j < fits.size(); ++j) {
        const QColor color = seriesColour(in, j);
        const fit::IsoFlopResult& result = fits[j].analysis.result;
        const auto& paperLaw = fits[j].paperLaw;
        const auto& law = lawD ? result.dOptLaw : result.nOptLaw;
        if (!law) continue;
        std::vector<QPointF> line;
        for (double h : logGrid(hLo, hHi, 40)) line.push_back({h, (*law)(h)});
        // The paper's exponent beside the data's, where the paper has a law for this family and context.
        const QString paper = paperLaw ? QObject::tr(" (paper %1)").arg(lawD ? paperLaw->exponentD : paperLaw->exponentN, 0, 'f', 3) : QString();
        lawChart_->addLine(QObject::tr("%1 %2%3").arg(seriesLabel(j)).arg(law->exponent, 0, 'f', 3).arg(paper), color, line, 2.0);
        if (bands_[j] && bands_[j]->intervals.size() == 4 + 2 * bandBudgets_.size()) {
            std::vector<QPointF> lo, hi;
            const std::size_t offset = 4 + (lawD ? bandBudgets_.size() : 0);
            for (std::size_t q = 0; q < bandBudgets_.size(); ++q) {
                const auto& interval = bands_[j]->intervals[offset + q];
                if (bandBudgets_[q] < hLo || bandBudgets_[q] > hHi || interval.nValid == 0) continue;
                lo.push_back({bandBudgets_[q], interval.lower});
                hi.push_back({bandBudgets_[q], interval.upper});
            }
            if (lo.size() > 1) PlotChart::hideFromLegend(lawChart_, lawChart_->addBand(QString(), color, lo, hi));
        }
        text += QObject::tr("%1: a = %2, A' = %3, b = %4, B' = %5 (%6 budgets). ")
                    .arg(seriesLabel(j))
                    .arg(result.nOptLaw ? result.nOptLaw->exponent : 0, 0, 'f', 3)
                    .arg(result.nOptLaw ? result.nOptLaw->coefficient : 0, 0, 'g', 4)
                    .arg(result.dOptLaw ? result.dOptLaw->exponent : 0, 0, 'f', 3)
                    .arg(result.dOptLaw ? result.dOptLaw->coefficient : 0, 0, 'g', 4)
                    .arg(result.nBudgetsInLaw);
        if (paperLaw)
            text += QObject::tr("The paper: a = %1, b = %2 at T = %3. ").arg(paperLaw->exponentN, 0, 'f', 3).arg(paperLaw->exponentD, 0, 'f', 3).arg(fits[j].context);
        // How well the law extrapolates: fitted without the largest budget, predicting its optimum.
        const auto& ex = fits[j].analysis.extrapolation;
        if (!ex.heldOut.empty()) {
            const auto& h = ex.heldOut.back();
            text += QObject::tr("Without the %1 budget the law predicts its N* within %2 % and D* within %3 %. ")
                        .arg(QString::fromStdString(data::formatScientific(h.budget)))
                        .arg(std::abs(100 * h.nOptError), 0, 'f', 1)
                        .arg(std::abs(100 * h.dOptError), 0, 'f', 1);
        }
        if (const std::size_t outliers = fits[j].analysis.outliers.size(); outliers > 0)
            text += QObject::tr("%n run(s) far from their profile left out as outliers (tick a run in to take it back). ", "", static_cast<int>(outliers));
    }
    for (std::size_t k = 0; k < drawn.size(); ++k)
        if (const auto& p = picked_[k]; p && pickedH >= hLo && pickedH <= hHi)
            PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QString(), theme.foreground, {{pickedH, lawD ? p->dOpt : p->nOpt}}, 12));
    if (!plannedLaw.empty()) {
        text += QObject::tr("%n planned run(s) (no loss yet) drawn as hollow squares: on the profile at their budget, at the loss it "
                            "predicts, and at their budget on the law's panel. ", "", static_cast<int>(plannedLaw.size()));
        if (unplaced > 0)
            text += QObject::tr("%n of them not on the profiles: no profile at their budget (it needs the power laws and two fitted "
                                "profiles). ", "", static_cast<int>(unplaced));
    }
    text = pickedText + text;
    lawChart_->setAxes(lawChart_->xSpec(), lawChart_->ySpec());
    for (std::size_t k = 0; k < drawn.size(); ++k)
        for (const auto& w : drawn[k]->analysis.result.warnings)
            text += QStringLiteral("<br><font color='%1'>%2%3</font>")
                        .arg(theme.highlight.name(), drawn.size() > 1 ? seriesLabel(k) + ": " : QString(),
                             QString::fromStdString(w));
    if (withCheckpoints_ && !drawn.empty())
        text += QObject::tr("<br>%1 fitted on %2 measured runs and %3 predicted checkpoints (as fit isoflop --from-curves): "
                            "a in [%4, %5], b in [%6, %7] (%8 %, %9 replicates moving each model's checkpoints together). ")
                    .arg(seriesLabel(0))
                    .arg(withCheckpoints_->measured.size())
                    .arg(withCheckpoints_->predicted.size())
                    .arg(withCheckpoints_->nOptLower.exponent, 0, 'f', 3)
                    .arg(withCheckpoints_->nOptUpper.exponent, 0, 'f', 3)
                    .arg(withCheckpoints_->dOptLower.exponent, 0, 'f', 3)
                    .arg(withCheckpoints_->dOptUpper.exponent, 0, 'f', 3)
                    .arg(100 * withCheckpoints_->level, 0, 'g', 3)
                    .arg(withCheckpoints_->replicates);
    const QString predicted = checkpointsSummary(checkpoints_);
    summary_ = text.isEmpty() && predicted.isEmpty() ? QObject::tr("No IsoFLOP runs in scope: runs of a series with compute (or a budget) and loss.")
                                                     : text + (text.isEmpty() || predicted.isEmpty() ? QString() : QStringLiteral("<br>")) + predicted.toHtmlEscaped();
}

}  // namespace scalex::figures
