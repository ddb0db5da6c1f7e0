#include "app/figures/views/ParetoFigure.h"

#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/RunMarks.h"
#include "app/figures/Theme.h"
#include "core/analysis/Study.h"
#include "core/analysis/SurfaceFits.h"
#include "core/data/Series.h"

namespace scalex::figures {

using accounting::Family;

namespace {

constexpr Family kFamilies[] = {Family::Transformer, Family::Xlstm};
const QString kPanels = QStringLiteral("panels");
const QString kContext = QStringLiteral("context");
const QString kCurves = QStringLiteral("curves");
const QString kNoContext = QStringLiteral("none");

// The context length a choice's key names (NaN: runs that give none).
double contextOf(const QString& key) {
    bool ok = false;
    const double t = key.toDouble(&ok);
    return ok ? t : std::numeric_limits<double>::quiet_NaN();
}

bool sameContext(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

using PointPair = std::pair<std::vector<fit::ComputeLossPoint>, std::vector<fit::ComputeLossPoint>>;

// The same compared points (compute and loss of each, in order).
bool samePoints(const PointPair& x, const PointPair& y) {
    auto same = [](const std::vector<fit::ComputeLossPoint>& a, const std::vector<fit::ComputeLossPoint>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& p, const auto& q) { return p.flops == q.flops && p.loss == q.loss; });
    };
    return same(x.first, y.first) && same(x.second, y.second);
}

// Whether a series is an architecture family, the series whose loss surfaces the figure draws.
bool hasSurface(const std::string& series) { return accounting::parseFamily(series).has_value(); }

}  // namespace

ParetoFigure::ParetoFigure() : chart_(makeChart()), fitChart_(makeChart()) {
    controls().add(choiceControl(kPanels, QObject::tr("Show"),
                                 {{QStringLiteral("one"), QObject::tr("One chart")},
                                  {QStringLiteral("fig1"), QObject::tr("Frontiers beside the L(N,D) fit (Fig. 1)")}},
                                 QStringLiteral("one")));
    controls().add(choiceControl(kContext, QObject::tr("Context"), {}, {},
                                 QObject::tr("Training context length of the runs shown: frontiers are compared at one context")));
    controls().add(switchControl(kCurves, QObject::tr("L(N,D) prediction at constant tokens/param (22, 220, 2200)"), true));
}

bool ParetoFigure::sideBySide() const { return controls().choice(kPanels) == QLatin1String("fig1"); }

std::vector<QChart*> ParetoFigure::charts() const {
    if (sideBySide()) return {chart_, fitChart_};
    return {chart_};
}

void ParetoFigure::refresh(const FigureInput& in) {
    // The context lengths of the runs in scope; one is shown at a time, 8192 (the paper's) first.
    std::set<double> contexts;
    bool none = false, anyFamily = false;
    for (const auto& g : analysis::seriesGroups(in.study->runs(), in.study->settings())) {
        if (std::isnan(g.context)) none = true;
        else contexts.insert(g.context);
        anyFamily = anyFamily || hasSurface(g.series);
    }
    std::vector<ControlChoice> choices;
    for (double c : contexts) choices.push_back({QString::number(c), QString::number(c)});
    if (none) choices.push_back({kNoContext, QObject::tr("not given")});
    controls().setChoices(kContext, std::move(choices), QStringLiteral("8192"));
    controls().at(kContext).enabled = controls().at(kContext).choices.size() > 1;
    // The surface's lines are drawn for the architecture families only: say so where there are none.
    Control& curves = controls().at(kCurves);
    curves.enabled = !sideBySide() && anyFamily;
    curves.toolTip = anyFamily ? QString()
                               : QObject::tr("Drawn for the Transformer and xLSTM series only (their loss surfaces); the surface "
                                             "of another series is fitted in the Loss surface view");
}

double ParetoFigure::contextShown() const {
    return controls().at(kContext).choices.empty() ? std::numeric_limits<double>::quiet_NaN() : contextOf(controls().choice(kContext));
}

bool ParetoFigure::surfacesDrawn() const { return sideBySide() || controls().on(kCurves); }

bool ParetoFigure::surfacesMissing() const {
    return surfacesDrawn() && (!answer_.withSurfaces || !sameContext(answer_.surfaceContext, contextShown()));
}

const analysis::FamilySurface* ParetoFigure::surfaceOf(Family family) const {
    if (!answer_.withSurfaces || !sameContext(answer_.surfaceContext, contextShown())) return nullptr;
    for (const auto& [f, s] : answer_.surfaces)
        if (f == family) return &s;
    return nullptr;
}

void ParetoFigure::drawSurfaceCurves(PlotChart* chart, const FigureInput& in, double context) {
    // Fig. 1 right: the loss surface along lines of constant tokens per parameter M, for the series
    // that are architecture families: each the L(N,D) fit of its runs at this context (the paper's
    // on the paper's study where they give none).
    const Theme& theme = Theme::current();
    const double cLo = chart->xSpec().lo, cHi = chart->xSpec().hi;
    bool listed = false, anyDrawn = false;
    for (Family f : kFamilies) {
        const bool present = std::any_of(shown_.begin(), shown_.end(),
                                         [&](const auto& a) { return accounting::parseFamily(a.group.series) == f; });
        const analysis::FamilySurface* fitted = surfaceOf(f);
        if (!present || !fitted || !fitted->surface) continue;
        const fit::LossSurfaceParams surface = *fitted->surface;
        const fit::ComputePerToken c = in.study->computePerToken(f, std::isnan(context) ? 8192 : context);
        bool first = true;
        listed = listed || std::exchange(anyDrawn, true);
        for (double M : {22.0, 220.0, 2200.0}) {
            std::vector<QPointF> line;
            for (double n : logGrid(1e7, 1e12, 120)) {
                const double C = c(n) * M * n;
                if (C >= cLo && C <= cHi) line.push_back({C, surface.loss(n, M * n)});
            }
            // One legend entry for every family's lines (their colours tell the families apart).
            auto* s = chart->addLine(first && !listed ? QObject::tr("L̂(N,D) at D/N = 22, 220, 2200") : QString(), theme.family(f), line,
                                     1.0, Qt::DashLine);
            if (!first || listed) PlotChart::hideFromLegend(chart, s);
            first = false;
        }
    }
    chart->setAxes(chart->xSpec(), chart->ySpec());
}

QString ParetoFigure::problem() const {
    for (const auto& a : shown_)
        if (!a.points.empty()) return {};
    return QObject::tr("no runs with compute and loss in scope%1").arg(scope_);
}

JobOf<ParetoFigure::Answer> ParetoFigure::job(const FigureInput& in) const {
    const analysis::Study& study = *in.study;
    Answer shown;
    shown.withSurfaces = surfacesDrawn();
    shown.surfaceContext = contextShown();
    shown.settings = study.settings();
    // The paper's surfaces stand in on the paper's study alone.
    for (Family f : kFamilies) shown.paper.push_back(study.isPaperStudy() ? study.paperSurface(f) : std::nullopt);
    return [table = runsForJob(in), shown](const fit::FitControl&) {
        Answer out = shown;
        out.table = table;
        out.analyses = analysis::paretoAnalyses(*table, out.settings);  // the analyses the verbs run
        // The L(N,D) of each family at the context shown when it is drawn: fitted once for these
        // runs and settings (kept in analysis::ResultCache for every view), else still to come.
        if (out.withSurfaces)
            for (std::size_t i = 0; i < std::size(kFamilies); ++i) {
                auto s = analysis::keptFamilySurface(*table, out.settings, kFamilies[i], out.surfaceContext, out.paper[i]);
                out.surfacesPending = out.surfacesPending || !s;
                if (s) out.surfaces.push_back({kFamilies[i], std::move(*s)});
            }
        return out;
    };
}

JobOf<ParetoFigure::Surfaces> ParetoFigure::surfaceJob() const {
    if (!answer_.surfacesPending || !answer_.table) return {};
    return [table = answer_.table, settings = answer_.settings, context = answer_.surfaceContext,
            paper = answer_.paper](const fit::FitControl& control) {
        Surfaces out{table, context, {}};
        for (std::size_t i = 0; i < std::size(kFamilies); ++i)
            out.surfaces.push_back({kFamilies[i], analysis::familySurface(*table, settings, kFamilies[i], context, paper[i], control)});
        return out;
    };
}

void ParetoFigure::compute(const FigureInput& in, const fit::FitControl& control) {
    FigureWithAnswer::compute(in, control);
    if (JobOf<Surfaces> fits = surfaceJob()) takeSurfaces(fits(control));
}

void ParetoFigure::take(Answer answer) { answer_ = std::move(answer); }

void ParetoFigure::takeSurfaces(Surfaces s) {
    // The fits of the answer's runs at its context (not of an answer that replaced it).
    if (s.table != answer_.table || !sameContext(s.context, answer_.surfaceContext)) return;
    answer_.surfaces = std::move(s.surfaces);
    answer_.surfacesPending = false;
}

void ParetoFigure::draw(const FigureInput& in) {
    noteScale(in, true);
    const analysis::Study& study = *in.study;
    const Theme& theme = Theme::current();
    refresh(in);
    const double context = contextShown();
    chart_->clearSeries();
    chart_->setAxes({QObject::tr("Training compute C (FLOPs)"), true, 1e18, 1e22}, {QObject::tr("Validation loss"), true, 2, 4});
    scope_ = std::isnan(context) ? QString() : QObject::tr(", T = %1").arg(context);
    chart_->setTitle(QObject::tr("Loss over training compute%1").arg(scope_));
    // The analyses at the chosen context length; their runs are a copy of the study's, in order.
    shown_.clear();
    for (const auto& a : answer_.analyses)
        if (sameContext(a.group.context, context)) shown_.push_back(a);
    auto indexOf = [this](const data::Run* r) { return static_cast<int>(r - answer_.table->runs.data()); };
    std::vector<RunPoint> all;
    std::vector<std::vector<RunPoint>> seriesPoints;
    frontierTable_ = {};
    frontierTable_.caption = "Runs on the Pareto frontier of validation loss over training compute" +
                             std::string(std::isnan(context) ? "" : " at context length " + QString::number(context).toStdString()) + ".";
    frontierTable_.columns = {{"model", "Series", data::CellStyle::Text},
                              {"run_id", "Run", data::CellStyle::Text},
                              {"num_params", "\\#Params", data::CellStyle::Count},
                              {"num_tokens", "\\#Tokens", data::CellStyle::Count},
                              {"flops", "\\#FLOPs", data::CellStyle::Scientific},
                              {"loss", "Val. loss", data::CellStyle::Fixed3}};
    for (const auto& a : shown_) {
        const int index = study.seriesIndex(a.group.series);
        const QColor colour = theme.series(a.group.series, index);
        const QString label = QString::fromStdString(data::seriesLabel(a.group.series));
        std::vector<RunPoint> pts;
        for (std::size_t i = 0; i < a.points.size(); ++i) pts.push_back({{a.points[i].flops, a.points[i].loss}, indexOf(a.runs[i])});
        if (QScatterSeries* s = addRunPoints(chart_, in, QObject::tr("%1 runs").arg(label), colour.lighter(125), pts, 6))
            if ((index / 12) % 2 == 1) s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);  // past twelve series
        all.insert(all.end(), pts.begin(), pts.end());
        seriesPoints.push_back(std::move(pts));
        for (const auto& p : a.frontier) {
            const data::Run& run = *a.runs[p.index];
            frontierTable_.rows.push_back({data::seriesLabel(a.group.series), run.runId.empty() ? run.name : run.runId, run.params,
                                           run.tokens, p.flops, p.loss});
        }
        std::vector<QPointF> line;
        for (const auto& p : a.frontier) line.push_back({p.flops, p.loss});
        if (line.size() > 1) chart_->addLine(QObject::tr("%1 frontier").arg(label), colour, line, 2.5);
    }
    chart_->fitRangesToData(0.06);
    fitChart_->clearSeries();
    if (sideBySide()) {
        // The same runs on the same axes, with the fitted surface through them.
        // The surfaces are the architecture families' (the Loss surface view fits any series).
        const bool anyFitted = std::any_of(shown_.begin(), shown_.end(), [this](const auto& a) {
            const auto family = accounting::parseFamily(a.group.series);
            const analysis::FamilySurface* s = family ? surfaceOf(*family) : nullptr;
            return s && s->surface;
        });
        fitChart_->setTitle(anyFitted ? QObject::tr("Parametric fit of L(N,D)%1").arg(scope_)
                                      : QObject::tr("L(N,D)%1: no surface for these series").arg(scope_));
        fitChart_->setAxes(chart_->xSpec(), chart_->ySpec());
        for (std::size_t k = 0; k < shown_.size(); ++k) {
            const auto& series = shown_[k].group.series;
            addRunPoints(fitChart_, in, QObject::tr("%1 runs").arg(QString::fromStdString(data::seriesLabel(series))),
                         theme.series(series, study.seriesIndex(series)).lighter(125), seriesPoints[k], 6);
        }
        if (!all.empty()) drawSurfaceCurves(fitChart_, in, context);
        addSelectionRings(fitChart_, in, all);
    } else if (controls().on(kCurves) && !all.empty()) {
        drawSurfaceCurves(chart_, in, context);
    }
    addSelectionRings(chart_, in, all);

    // The comparison of the pair (its bootstrap interval is the window's, in the background:
    // afterDrawJob()); the interval known for these points is stated with it.
    comparison_ = {};
    compared_ = {};
    if (const auto compared = analysis::compareSeries(shown_, fit::BootstrapSettings{0})) {
        const auto& A = shown_[compared->a];
        const auto& B = shown_[compared->b];
        comparison_ = compared->comparison;
        compared_ = {QString::fromStdString(data::seriesLabel(A.group.series)), QString::fromStdString(data::seriesLabel(B.group.series))};
    }
    intervalShown_ = comparison_.overlap && samePoints(comparedPoints(), intervalKey_) ? intervalOfKey_ : std::nullopt;
}

QJsonObject ParetoFigure::jobControls() const {
    // A redraw draws any context's frontiers; L̂(N,D) at another context needs its fits.
    if (!surfacesDrawn()) return {};
    return {{QStringLiteral("surfaces"), controls().choice(kContext)}};
}

JobOf<ViewFigure::Taking> ParetoFigure::followUpJob() {
    return takingJobOf<Surfaces>(surfaceJob(), [this](Surfaces s) { takeSurfaces(std::move(s)); });
}

JobOf<ViewFigure::Taking> ParetoFigure::afterDrawJob() {
    auto points = comparedPoints();
    if (!comparison_.overlap || (samePoints(points, intervalKey_) && (intervalOfKey_ || intervalPending_)))
        return {};  // nothing to compare, or the interval of these points known or under way (a selection or style changed)
    IntervalJob job = intervalJob();
    if (!job) return {};
    intervalKey_ = std::move(points);
    intervalOfKey_.reset();
    intervalPending_ = true;
    const int generation = ++intervalGeneration_;
    return takingJobOf<std::optional<fit::BootstrapInterval>>(std::move(job), [this, generation](std::optional<fit::BootstrapInterval> interval) {
        if (generation != intervalGeneration_) return;  // superseded by a newer request
        intervalPending_ = false;
        intervalOfKey_ = interval;
        intervalShown_ = comparison_.overlap ? intervalOfKey_ : std::nullopt;
    });
}

QString ParetoFigure::summary() const {
    if (comparison_.overlap) {
        QString interval;
        if (const auto& g = intervalShown_; g && g->nValid > 0)
            interval = QObject::tr(", 95 % interval %1× to %2× over %3 resamples of the runs").arg(g->lower, 0, 'f', 2).arg(g->upper, 0, 'f', 2).arg(g->nValid);
        else if (intervalPending_)
            interval = QObject::tr("; interval: computing…");
        // "higher by 0.026 to 0.156", or "between 0.003 lower and 0.079 higher" when the frontiers cross.
        auto gap = [](double lo, double hi) {
            if (lo >= 0) return QObject::tr("higher by %1 to %2").arg(lo, 0, 'f', 3).arg(hi, 0, 'f', 3);
            if (hi <= 0) return QObject::tr("lower by %1 to %2").arg(-hi, 0, 'f', 3).arg(-lo, 0, 'f', 3);
            return QObject::tr("between %1 lower and %2 higher (the frontiers cross)").arg(-lo, 0, 'f', 3).arg(hi, 0, 'f', 3);
        };
        return QObject::tr("Where both frontiers overlap%5, %6 needs <b>%1×</b> the compute of %7 for the same loss "
                           "(geometric mean%8; %2× to %3× along the front), and at equal compute its loss is %4.%9")
            .arg(comparison_.geomeanComputeRatio, 0, 'f', 2)
            .arg(comparison_.minComputeRatio, 0, 'f', 2)
            .arg(comparison_.maxComputeRatio, 0, 'f', 2)
            .arg(gap(comparison_.minLossGap, comparison_.maxLossGap))
            .arg(scope_)
            .arg(compared_.second, compared_.first)
            .arg(interval)
            .arg(comparison_.aDominates ? QObject::tr(" %1 is Pareto-dominant over the whole overlap.").arg(compared_.first) : QString());
    }
    if (shown_.size() < 2)
        return shown_.empty() ? QObject::tr("No runs with compute and loss in scope.") : QObject::tr("One series%1: nothing to compare.").arg(scope_);
    return QObject::tr("The frontiers%1 do not overlap in compute and loss: nothing to compare.").arg(scope_);
}

std::pair<std::vector<fit::ComputeLossPoint>, std::vector<fit::ComputeLossPoint>> ParetoFigure::comparedPoints() const {
    const auto pair = analysis::comparedPair(shown_);
    if (!pair || !comparison_.overlap) return {};
    return {shown_[pair->first].points, shown_[pair->second].points};
}

ParetoFigure::IntervalJob ParetoFigure::intervalJob() const {
    const auto pair = analysis::comparedPair(shown_);
    if (!pair || !comparison_.overlap) return {};
    // A copy of the compared pair without its run pointers: the job reads the points only.
    std::vector<analysis::ParetoAnalysis> pairOnly;
    for (std::size_t i : {pair->first, pair->second}) {
        analysis::ParetoAnalysis copy;
        copy.group = shown_[i].group;
        copy.points = shown_[i].points;
        copy.frontier = shown_[i].frontier;
        pairOnly.push_back(std::move(copy));
    }
    return [pairOnly = std::move(pairOnly)](const fit::FitControl& control) -> std::optional<fit::BootstrapInterval> {
        fit::BootstrapSettings boot;
        boot.resamples = 1000;
        const auto compared = analysis::compareSeries(pairOnly, boot, 50, control);
        if (!compared || control.cancelled()) return std::nullopt;
        if (const auto* g = compared->intervals.find("geomean_compute_ratio")) return *g;
        return std::nullopt;
    };
}

ViewFigure::TablesJob ParetoFigure::tablesJob(const FigureInput&) const {
    return [table = frontierTable_](const fit::FitControl&) {
        return std::vector<FigureTable>{{QStringLiteral("frontier"), QObject::tr("Pareto-frontier runs"), table}};
    };
}

}  // namespace scalex::figures
