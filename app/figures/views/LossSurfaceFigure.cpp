#include "app/figures/views/LossSurfaceFigure.h"

#include <QBrush>
#include <QFont>
#include <QObject>
#include <QTransform>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/RunMarks.h"
#include "app/figures/Theme.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/Study.h"
#include "core/analysis/SurfaceFits.h"
#include "core/data/Series.h"

namespace scalex::figures {

namespace {

const QString kSeries = QStringLiteral("series");
const QString kContext = QStringLiteral("context");
const QString kSet = QStringLiteral("set");
const QString kDelta = QStringLiteral("huber_delta");
const QString kGamma = QStringLiteral("gamma");
const QString kGrid = QStringLiteral("grid");
const QString kAllRuns = QStringLiteral("all");
const QString kNoContext = QStringLiteral("none");

// The key of a context length among the choices (runs that give none: "none").
QString contextKey(double context) { return data::known(context) ? QString::number(context, 'g', 10) : kNoContext; }

// The context this figure fits a series at: 8192 (the paper's) where present, else the largest.
std::optional<analysis::SeriesGroup> defaultGroup(const std::vector<analysis::SeriesGroup>& groups, const std::string& series) {
    std::optional<analysis::SeriesGroup> best;
    for (const auto& g : groups) {
        if (g.series != series) continue;
        if (g.context == 8192.0) return g;
        if (!best || (data::known(g.context) && (!data::known(best->context) || g.context > best->context))) best = g;
    }
    return best;
}

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

// The line on a fit that took the predicted checkpoints: how many points of each kind, and the
// exponents' intervals (each model's checkpoints moved together in the replicates).
QString checkpointsFitText(const std::shared_ptr<const analysis::CheckpointSurfaceResult>& c) {
    if (!c) return {};
    return QObject::tr("<br>Fitted on %1 measured runs and %2 predicted checkpoints (as fit lnd --from-curves): α in [%3, %4], "
                       "β in [%5, %6] (%7 %, %8 replicates)")
        .arg(c->measured.size())
        .arg(c->predicted.size())
        .arg(c->lower.alpha, 0, 'f', 3)
        .arg(c->upper.alpha, 0, 'f', 3)
        .arg(c->lower.beta, 0, 'f', 3)
        .arg(c->upper.beta, 0, 'f', 3)
        .arg(100 * c->level, 0, 'g', 3)
        .arg(c->replicates);
}

}  // namespace

LossSurfaceFigure::LossSurfaceFigure() : chart_(makeChart()) {
    // Listed with the run set first: the series offered depend on it, and the contexts on both.
    controls().add(choiceControl(kSet, QObject::tr("Runs"),
                                 {{QStringLiteral("tokenparam"), QObject::tr("Token/Param runs")},
                                  {QStringLiteral("isoflop"), QObject::tr("IsoFLOP runs")},
                                  {kAllRuns, QObject::tr("all runs")}},
                                 QStringLiteral("tokenparam")));
    controls().add(choiceControl(kSeries, QObject::tr("Series"), {}, {}, QObject::tr("The series whose runs are fitted")));
    controls().add(choiceControl(
        kContext, QObject::tr("Context"), {}, {},
        QObject::tr("Training context length of the runs fitted: the surface has no term for it, so one at a time")));
    std::vector<ControlChoice> deltas;
    for (double d : {1e-4, 1e-3, 1e-2, 1e-1}) deltas.push_back(textChoice(QString::number(d, 'g')));
    controls().add(choiceControl(kDelta, QObject::tr("Huber δ"), std::move(deltas), QString::number(1e-3, 'g')));
    controls().add(choiceControl(kGamma, QObject::tr("γ"),
                                 {{QStringLiteral("free"), QObject::tr("free")}, {QStringLiteral("fixed"), QObject::tr("fixed at 1")}},
                                 QStringLiteral("free")));
    controls().add(choiceControl(kGrid, QObject::tr("Starts"),
                                 {{QStringLiteral("paper"), QObject::tr("paper (8000 starts)")},
                                  {QStringLiteral("quick"), QObject::tr("quick (216 starts)")}},
                                 QStringLiteral("paper")));
    controls().add(checkpointsControl());
    // A new plot size (a resize, a figure's layout) repaints the colour map alone: the points,
    // contours and axes are in data coordinates and stay.
    plotAreaChanged_ = QObject::connect(chart_, &QChart::plotAreaChanged, chart_, [this] { drawColourMap(); });
}

LossSurfaceFigure::~LossSurfaceFigure() { QObject::disconnect(plotAreaChanged_); }

std::vector<QChart*> LossSurfaceFigure::charts() const { return {chart_}; }

std::vector<analysis::SeriesGroup> LossSurfaceFigure::groups(const FigureInput& in) const {
    const QString set = controls().choice(kSet);
    auto settings = in.study->settings();
    if (set == QLatin1String("tokenparam")) settings.scope.experimentSet = data::ExperimentSet::TokenParam;
    else if (set == QLatin1String("isoflop")) settings.scope.experimentSet = data::ExperimentSet::IsoFlop;
    return analysis::seriesGroups(in.study->runs(), settings);
}

void LossSurfaceFigure::refresh(const FigureInput& in) {
    // Another study: its token/param runs where it has them (every run where it has none, below);
    // a toggled run keeps the user's choice.
    if (const std::string source = in.study->loaded().title; source != source_) {
        if (source_) controls().at(kSet).value = QStringLiteral("tokenparam");
        source_ = source;
    }
    auto all = groups(in);
    if (all.empty() && controls().choice(kSet) != kAllRuns && !in.study->runs().runs.empty()) {
        // A study without the chosen run set (most studies name no sets): every run in scope.
        controls().at(kSet).value = kAllRuns;
        all = groups(in);
    }
    std::vector<ControlChoice> series;
    for (const auto& name : in.study->seriesNames())
        if (std::any_of(all.begin(), all.end(), [&](const auto& g) { return g.series == name; }))
            series.push_back({QString::fromStdString(name), QString::fromStdString(data::seriesLabel(name))});
    controls().setChoices(kSeries, std::move(series));
    const std::string name = controls().choice(kSeries).toStdString();
    // Another series or run set: its own default context.
    const std::pair<QString, QString> chosen{controls().choice(kSeries), controls().choice(kSet)};
    if (chosen != contextsFor_) {
        controls().at(kContext).value = QString();
        contextsFor_ = chosen;
    }
    std::vector<ControlChoice> contexts;
    for (const auto& g : all) {
        if (g.series != name) continue;
        contexts.push_back({contextKey(g.context), data::known(g.context) ? QStringLiteral("T = %1").arg(g.context) : QObject::tr("not given")});
    }
    const auto fallback = defaultGroup(all, name);
    controls().setChoices(kContext, std::move(contexts), fallback ? contextKey(fallback->context) : QString());
    controls().at(kContext).enabled = controls().at(kContext).choices.size() > 1;
}

std::optional<analysis::SeriesGroup> LossSurfaceFigure::group(const FigureInput& in) const {
    const std::string series = controls().choice(kSeries).toStdString();
    const QString context = controls().choice(kContext);
    if (series.empty() || context.isEmpty()) return std::nullopt;
    for (const auto& g : groups(in))
        if (g.series == series && contextKey(g.context) == context) return g;
    return std::nullopt;
}

fit::LossSurfaceSettings LossSurfaceFigure::settingsChosen(const FigureInput& in) const {
    auto common = in.study->settings();
    common.huberDelta = controls().choice(kDelta).toDouble();
    common.fitGamma = controls().choice(kGamma) == QLatin1String("free");
    fit::LossSurfaceSettings settings = analysis::lossSurfaceSettings(common);
    if (controls().choice(kGrid) == QLatin1String("quick")) {
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

QString LossSurfaceFigure::fitProblem(const FigureInput& in) const {
    const auto g = group(in);
    if (!g) return QObject::tr("No runs in scope to fit.");
    if (checkpointsFitted(controls()) && !in.study->curveSets().empty()) return {};  // the checkpoints count too: the fit says
    const std::size_t needed = settingsChosen(in).fitGamma ? 6 : 5;
    const std::size_t available = analysis::lossSurfacePoints(in.study->runs(), g->filter).points.size();
    if (available < needed)
        return QObject::tr("%1: %2 runs with N, D and loss in the analyses; the L(N,D) fit needs at least %3.")
            .arg(QString::fromStdString(g->label()))
            .arg(available)
            .arg(needed);
    return {};
}

std::size_t LossSurfaceFigure::starts(const FigureInput& in) const {
    const fit::LossSurfaceSettings settings = settingsChosen(in);
    return settings.grid.size(settings.fitGamma);
}

QString LossSurfaceFigure::fittingText(const FigureInput& in) const {
    const auto g = group(in);
    const std::size_t available = g ? analysis::lossSurfacePoints(in.study->runs(), g->filter).points.size() : 0;
    return QObject::tr("Fitting %1 runs from %2 starts…").arg(available).arg(starts(in));
}

JobOf<LossSurfaceFigure::Answer> LossSurfaceFigure::job(const FigureInput& in) const {
    if (const QString why = fitProblem(in); !why.isEmpty())
        return [why](const fit::FitControl&) -> Fitted {
            Fitted f;
            f.error = why;
            return f;
        };
    if (checkpointsFitted(controls()))
        if (auto inputs = checkpointInputs(in, controls()))
            return [table = runsForJob(in), common = in.study->settings(), group = *group(in), settings = settingsChosen(in),
                    inputs = std::move(*inputs)](const fit::FitControl& control) -> Fitted {
                Fitted f{table, {}, common, settings, {}, std::make_shared<TablesCache>(), {}};
                f.analysis.group = group;
                // The group's runs without a loss curve (as `fit lnd --data` gives them beside --from-curves).
                const auto selected = analysis::lossSurfacePoints(*table, group.filter);
                std::vector<fit::LossPoint> measured;
                for (std::size_t i = 0; i < selected.points.size(); ++i)
                    if (!inputs.hasCurve(selected.runs[i]->runId)) {
                        measured.push_back(selected.points[i]);
                        f.analysis.runs.push_back(selected.runs[i]);
                    }
                f.analysis.points = measured;
                auto fitted = inputs.fitSurface(std::move(measured), settings, control);
                if (!fitted.result) {
                    f.error = fitted.error.isEmpty() ? QObject::tr("cancelled") : fitted.error;
                    return f;
                }
                f.analysis.fit = fitted.result->fit;
                f.withCheckpoints = std::move(fitted.result);
                return f;
            };
    return [table = runsForJob(in), common = in.study->settings(), group = *group(in), settings = settingsChosen(in)](
               const fit::FitControl& control) -> Fitted {
        Fitted f{table, analysis::lossSurfaceAnalysis(*table, common, group, settings, control), common, settings, {},
                 std::make_shared<TablesCache>(), {}};
        // Kept for the views that draw this series' surface with the same runs and settings.
        analysis::keepGroupSurface(*table, common, group, settings, f.analysis);
        // How well it extrapolates: the same fit without the largest model size, predicting it.
        fit::FitControl check = control;
        check.progress = nullptr;
        if (check.phase) check.phase("extrapolation check", 0, 1);
        analysis::checkExtrapolation(f.analysis, settings, check);
        return f;
    };
}

// A fit under way, for export tables that wait for its answer: none when it was dropped.
struct LossSurfaceFigure::FitUnderWay {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    std::optional<Fitted> fitted;
    void finish(std::optional<Fitted> f) {
        {
            std::lock_guard lock(mutex);
            if (finished) return;
            fitted = std::move(f);
            finished = true;
        }
        done.notify_all();
    }
    std::optional<Fitted> wait(const fit::FitControl& control) {
        std::unique_lock lock(mutex);
        while (!done.wait_for(lock, std::chrono::milliseconds(20), [this] { return finished; }))
            if (control.cancelled()) return std::nullopt;
        return fitted;
    }
};

QJsonObject LossSurfaceFigure::jobControls() const {
    QJsonObject choice;
    for (const QString& name : {kSet, kSeries, kContext, kCheckpointsControl}) choice[name] = controls().choice(name);
    return choice;
}

JobOf<ViewFigure::Taking> LossSurfaceFigure::takingJob(const FigureInput& in) {
    auto job = checkpointsJob(in, controls());
    if (!job) checkpoints_ = {};
    return takingJobOf<StudyCheckpoints>(std::move(job), [this](StudyCheckpoints c) { checkpoints_ = std::move(c); });
}

void LossSurfaceFigure::compute(const FigureInput& in, const fit::FitControl& control) {
    FigureWithAnswer::compute(in, control);
    if (auto job = takingJob(in)) job(control)();
}

QStringList LossSurfaceFigure::shownHeaders() const {
    if (!checkpoints_.result || checkpoints_.result->checkpoints.empty()) return {};
    return {QObject::tr("Predicted"), QObject::tr("N"), QObject::tr("D"), QObject::tr("Loss"),
            QObject::tr("%1 % interval").arg(100 * checkpoints_.result->level, 0, 'g', 3), QObject::tr("Schedule")};
}

std::vector<QStringList> LossSurfaceFigure::shownRows() const {
    std::vector<QStringList> rows;
    if (!checkpoints_.result) return rows;
    for (const auto& c : checkpoints_.result->checkpoints)
        rows.push_back({QString::fromStdString(c.model), QString::number(c.params, 'g', 4), QString::number(c.tokens, 'g', 4),
                        QString::number(c.loss, 'f', 4), QStringLiteral("[%1, %2]").arg(c.lower, 0, 'f', 4).arg(c.upper, 0, 'f', 4),
                        QString::fromStdString(analysis::scheduleLabel(c.schedule))});
    return rows;
}

std::vector<ViewFigure::Action> LossSurfaceFigure::actions() const {
    Action fit;
    fit.name = QStringLiteral("fit");
    fit.text = QObject::tr("Fit");
    fit.progress = QObject::tr("screening starts: %p%");
    fit.ofTheControls = true;
    return {fit};
}

JobOf<ViewFigure::Taking> LossSurfaceFigure::studyActionJob(const QString& name, const FigureInput& in) {
    if (name != QLatin1String("fit")) return {};
    refresh(in);
    if (underWay_) underWay_->finish(std::nullopt);  // dropped by the view when it starts another
    underWay_ = std::make_shared<FitUnderWay>();
    fitControls_ = controls().values();
    fitChoice_ = jobControls();
    summary_ = fitProblem(in).isEmpty() ? fittingText(in) : summary_;
    const int generation = ++fitGeneration_;
    JobOf<Fitted> fit = [fit = job(in), underWay = underWay_](const fit::FitControl& control) {
        Fitted f = fit(control);
        underWay->finish(f);
        return f;
    };
    return takingJobOf<Fitted>(std::move(fit), [this, generation](Fitted f) {
        if (generation == fitGeneration_) take(std::move(f));  // not a fit dropped since
    });
}

QString LossSurfaceFigure::demandedAction() const {
    return fitted_ && controls().values() == fitControls_ ? QString() : QStringLiteral("fit");
}

void LossSurfaceFigure::forget() {
    ++fitGeneration_;
    if (underWay_) underWay_->finish(std::nullopt);
    underWay_.reset();
    fitted_.reset();
    fit_.reset();
    analysis_.reset();
    extrapolation_.reset();
    withCheckpoints_.reset();
    mapKey_.clear();
    mapImages_.clear();
    error_.clear();
}

void LossSurfaceFigure::take(Fitted answer) {
    underWay_.reset();
    fitted_ = std::move(answer);
    extrapolation_ = fitted_->analysis.extrapolation;
    withCheckpoints_ = fitted_->withCheckpoints;
    error_ = fitted_->error;
    if (error_.isEmpty() && fitted_->analysis.error) error_ = QString::fromStdString(*fitted_->analysis.error);
    if (!error_.isEmpty()) {
        analysis_.reset();
        fit_.reset();
    } else {
        analysis_ = fitted_->analysis;
        fit_ = analysis_->fit;
    }
}

ViewFigure::TablesJob LossSurfaceFigure::tablesJob(const FigureInput& in) const {
    if (fitted_) return tablesJobOf(in, [f = *fitted_](const fit::FitControl&) -> std::optional<Fitted> { return f; });
    if (underWay_)  // the window's fit: its answer, waited for by the job
        return tablesJobOf(in, [underWay = underWay_](const fit::FitControl& control) { return underWay->wait(control); });
    return tablesJobOf(in, [fit = job(in)](const fit::FitControl& control) -> std::optional<Fitted> { return fit(control); });
}

ViewFigure::TablesJob LossSurfaceFigure::tablesJobOf(const FigureInput& in, JobOf<std::optional<Fitted>> answer) const {
    // Every series in scope at the context this figure would fit it at (the one shown is its fit).
    std::vector<analysis::SeriesGroup> defaults;
    const auto all = groups(in);
    for (const auto& name : in.study->seriesNames())
        if (const auto g = defaultGroup(all, name)) defaults.push_back(*g);
    const QString title = QObject::tr("Fit parameters with intervals, every series");
    return [answer, defaults, title](const fit::FitControl& control) -> std::vector<FigureTable> {
        const std::optional<Fitted> given = answer ? answer(control) : std::nullopt;
        const Fitted* f = given ? &*given : nullptr;
        if (!f) return {};
        if (f->tables) {
            std::lock_guard lock(f->tables->mutex);
            if (f->tables->tables) return *f->tables->tables;
        }
        const analysis::LossSurfaceAnalysis& shown = f->analysis;
        if (!f->error.isEmpty() || shown.error || shown.fit.cancelled || !f->table || !f->settings) return {};
        fit::BootstrapSettings boot;
        boot.resamples = 200;
        std::optional<data::ExportTable> table;
        if (const auto& c = f->withCheckpoints) {
            // Fitted with the checkpoints: their own intervals (each model's points moved together), the one series.
            analysis::SurfaceWithIntervals one{&shown, {}};
            one.intervals.nResamples = c->replicates;
            const char* names[] = {"logA", "logB", "logE", "alpha", "beta", "gamma"};
            const auto v = c->fit.best.asArray(), lo = c->lower.asArray(), hi = c->upper.asArray();
            for (std::size_t k = 0; k < 6; ++k) one.intervals.intervals.push_back({names[k], v[k], lo[k], hi[k], v[k], c->replicates});
            boot.resamples = c->replicates;
            boot.level = c->level;
            table = analysis::lossSurfaceParameterTable({one}, *f->settings, boot);
        } else {
            // The same runs as the fit's: the table is copied when the fit starts.
            table = analysis::lossSurfaceParameterTable(*f->table, f->common, defaults, shown, *f->settings, boot, control);
        }
        if (!table) return {};
        std::vector<FigureTable> tables{{QStringLiteral("fit"), title, *table}};
        if (f->tables) {
            std::lock_guard lock(f->tables->mutex);
            f->tables->tables = tables;
        }
        return tables;
    };
}

std::pair<double, double> LossSurfaceFigure::drawColourMap() {
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
        // The key's ends are the surface at the box's corners, not at the pixels' centres, so that the
        // legend and the contours are the same at every size (the window's and a figure's). The
        // surface falls with N and with D, so every pixel lies between them.
        const double atCornerLo = p.loss(nHi, dHi), atCornerHi = p.loss(nLo, dLo);
        if (std::isfinite(atCornerLo) && std::isfinite(atCornerHi) && atCornerLo <= grid.lo && atCornerHi >= grid.hi) made.lo = atCornerLo, made.hi = atCornerHi;
        else made.lo = grid.lo, made.hi = grid.hi;
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

void LossSurfaceFigure::draw(const FigureInput& in) {
    noteScale(in);
    const analysis::Study& study = *in.study;
    const Theme& theme = Theme::current();
    refresh(in);
    if ((fitted_ || underWay_) && !fitChoice_.isEmpty() && jobControls() != fitChoice_) forget();  // a fit of runs no longer shown
    const auto shown = group(in);
    const std::string seriesName = shown ? shown->series : std::string();
    const QColor seriesColor = theme.series(seriesName, study.seriesIndex(seriesName));
    chart_->clearSeries();
    chart_->setPlotAreaBackgroundVisible(false);
    // The runs of the group: fitted, left out as outliers (hollow), ringed when selected.
    std::vector<int> flagged;
    if (analysis_ && fitted_ && fitted_->table)
        for (const auto& o : analysis_->outliers) flagged.push_back(static_cast<int>(o.run - fitted_->table->runs.data()));
    const auto& runs = study.runs();
    const analysis::SurfaceRunPoints drawn = shown ? analysis::surfaceRunPoints(runs, shown->filter, flagged) : analysis::SurfaceRunPoints{};
    std::vector<RunPoint> pts, leftOut, planned;
    for (const auto& [indices, out] : {std::pair{&drawn.fitted, &pts}, std::pair{&drawn.leftOut, &leftOut}, std::pair{&drawn.planned, &planned}})
        for (const int i : *indices) out->push_back({{runs.runs[static_cast<std::size_t>(i)].params, runs.runs[static_cast<std::size_t>(i)].tokens}, i});
    double nLo = drawn.nLo, nHi = drawn.nHi, dLo = drawn.dLo, dHi = drawn.dHi;
    // The predicted checkpoints inside the box too (a study of loss curves alone has only them).
    if (checkpoints_.result && !checkpoints_.result->checkpoints.empty()) {
        const bool none = pts.empty() && leftOut.empty() && planned.empty();
        for (const auto& c : checkpoints_.result->checkpoints) {
            if (none) nLo = nHi = c.params, dLo = dHi = c.tokens;
            nLo = std::min(nLo, c.params / 1.25), nHi = std::max(nHi, c.params * 1.25);
            dLo = std::min(dLo, c.tokens / 1.25), dHi = std::max(dHi, c.tokens * 1.25);
        }
    }
    chart_->setAxes({QObject::tr("Parameters N"), true, nLo, nHi, true}, {QObject::tr("Training tokens D"), true, dLo, dHi, true});
    chart_->setTitle(shown ? QObject::tr("Loss surface L̂(N, D), %1").arg(QString::fromStdString(shown->label())) : QObject::tr("Loss surface L̂(N, D)"));

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
                chart_->addScatter(QObject::tr("L̂ = %1").arg(value, 0, 'f', 2), QColor(c), {}, 9);
            }
            // Iso-FLOP lines and the compute-optimal path.
            const fit::PowerLaw c = analysis::computePerTokenOfRuns(study.runs(), shown ? shown->filter : analysis::RunFilter{});
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
                auto* s = chart_->addLine(first ? QObject::tr("iso-FLOP lines") : QString(), theme.muted, toPoints(line.points), 1.0, Qt::DashLine);
                if (!first) PlotChart::hideFromLegend(chart_, s);
                first = false;
            }
            const std::vector<QPointF> path = toPoints(guides.optimalPath);
            chart_->addLine(QObject::tr("compute-optimal N*, D*"), theme.highlight, path, 2.5);
        }
    }
    // Fitted with the checkpoints: the runs whose curves predict them are not in the fit themselves
    // (their checkpoints stand for them), drawn hollow in the series' colour.
    std::vector<RunPoint> ofCurves;
    if (withCheckpoints_ && fit_)
        std::erase_if(pts, [&](const RunPoint& r) {
            const bool curve = runHasCurve(study.curveSets(), runs.runs[static_cast<std::size_t>(r.run)].runId);
            if (curve) ofCurves.push_back(r);
            return curve;
        });
    addRunPoints(chart_, in, QObject::tr("runs"), seriesColor, pts, 7);
    if (QScatterSeries* s = addRunPoints(chart_, in, QObject::tr("runs of the curves (their checkpoints fitted)"), seriesColor, ofCurves, 7)) {
        s->setColor(Qt::transparent);
        s->setBorderColor(seriesColor);
    }
    if (QScatterSeries* s = addRunPoints(chart_, in, QObject::tr("left out as outliers"), theme.highlight, leftOut, 9)) {
        s->setColor(Qt::transparent);
        s->setBorderColor(theme.highlight);
    }
    // Planned runs (no loss yet): hollow squares in the series' colour.
    addPlannedRuns(chart_, in, seriesColor, planned);
    std::vector<RunPoint> everyRun = pts;
    everyRun.insert(everyRun.end(), leftOut.begin(), leftOut.end());
    everyRun.insert(everyRun.end(), ofCurves.begin(), ofCurves.end());
    everyRun.insert(everyRun.end(), planned.begin(), planned.end());
    addSelectionRings(chart_, in, everyRun);
    // Predicted checkpoints at their (N, D), hollow; their intervals are in the table under the chart.
    drawCheckpoints(chart_, checkpoints_, [](const analysis::PredictedCheckpoint& c) { return QPointF(c.params, c.tokens); }, false);
    chart_->setAxes(chart_->xSpec(), chart_->ySpec());  // keep the ranges computed above

    if (fit_) {
        const auto& b = fit_->best;
        // The runs left out, with the reason a person can check (the first few).
        QString outliersText;
        if (analysis_ && !analysis_->outliers.empty()) {
            outliersText = QStringLiteral("<br><font color='%1'>").arg(theme.highlight.name()) +
                           QObject::tr("%n run(s) far from the surface left out (hollow; tick a run in to take it back):", "",
                                       static_cast<int>(analysis_->outliers.size()));
            for (std::size_t k = 0; k < std::min<std::size_t>(3, analysis_->outliers.size()); ++k)
                outliersText += QStringLiteral("<br>• %1: %2").arg(QString::fromStdString(data::runLabel(*analysis_->outliers[k].run)).toHtmlEscaped(),
                                                                   QString::fromStdString(analysis_->outliers[k].outlier.reason).toHtmlEscaped());
            if (analysis_->outliers.size() > 3) outliersText += QStringLiteral("<br>…");
            outliersText += QStringLiteral("</font>");
        }
        QString extrapolationText;
        if (extrapolation_ && !extrapolation_->heldOut.empty())
            extrapolationText = QObject::tr("<br>Extrapolation: fitted without the largest model (%1 runs), it predicts their loss within "
                                            "%2 % on average (at most %3 %)")
                                    .arg(extrapolation_->heldOut.size())
                                    .arg(100 * extrapolation_->meanAbsError, 0, 'f', 2)
                                    .arg(100 * extrapolation_->maxAbsError, 0, 'f', 2);
        else if (extrapolation_ && !extrapolation_->note.empty())
            extrapolationText = QObject::tr("<br>Extrapolation: %1").arg(QString::fromStdString(extrapolation_->note).toHtmlEscaped());
        // The paper's fit beside this one, where the runs are of one family the paper fitted.
        QString paperText;
        if (const auto family = analysis_ ? analysis::sharedFamily(analysis_->runs) : std::nullopt)
            if (const data::LossSurfaceParams* q = study.paper().lossSurface(*family, study.settings().huberDelta))
                paperText = QObject::tr("<br>The paper (δ = %1): ln A = %2, ln B = %3, ln E = %4, α = %5, β = %6, γ = %7")
                                .arg(study.settings().huberDelta, 0, 'g', 3)
                                .arg(q->logA, 0, 'f', 3)
                                .arg(q->logB, 0, 'f', 3)
                                .arg(q->logE, 0, 'f', 3)
                                .arg(q->alpha, 0, 'f', 3)
                                .arg(q->beta, 0, 'f', 3)
                                .arg(q->gamma, 0, 'f', 3);
        summary_ = QObject::tr("<b>%1 runs, %2 of %3 starts converged</b> in %4 s<br>"
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
                   + checkpointsFitText(withCheckpoints_) + paperText + extrapolationText + outliersText
                   + (fit_->warnings.empty() ? QString()
                                             : QStringLiteral("<br><font color='%1'>%2</font>").arg(theme.highlight.name(), QString::fromStdString(fit_->warnings.front())));
    } else if (!error_.isEmpty()) {
        summary_ = error_;
    } else {
        const std::size_t n = shown ? analysis::lossSurfacePoints(study.runs(), shown->filter).points.size() : 0;
        summary_ = shown ? QObject::tr("%1: %2 runs with N, D and loss in the analyses. Press Fit.").arg(QString::fromStdString(shown->label())).arg(n)
                         : QObject::tr("No runs in scope.");
    }
    if (const QString predicted = checkpointsSummary(checkpoints_); !predicted.isEmpty()) summary_ += QStringLiteral("<br>") + predicted.toHtmlEscaped();
}

}  // namespace scalex::figures
