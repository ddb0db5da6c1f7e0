#include "app/figures/views/ContextFigure.h"

#include <QLocale>
#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/analysis/Study.h"
#include "core/data/Export.h"
#include "core/analysis/ContextStudy.h"
#include "core/analysis/SurfaceFits.h"

namespace scalex::figures {

using accounting::Family;

namespace {

// A family's colour, or for a ladder its own colour by its place among the ladders.
QColor seriesColor(const analysis::ContextSeriesAnswer& a, const analysis::ContextAnswer& answer) {
    if (!a.ladder) return Theme::current().family(a.family);
    int index = 0;
    for (const auto& s : answer.series) {
        if (&s == &a) break;
        index += s.ladder ? 1 : 0;
    }
    return Theme::current().series(a.name, index);
}

constexpr int kStepsPerOctave = ContextFigure::kStepsPerOctave;
constexpr double kMinContext = ContextFigure::kMinContext;
constexpr double kBudgets[] = {1e20, 1e21, 1e22, 1e23, 1e24};
const QString kContext = QStringLiteral("context");
const QString kBudget = QStringLiteral("budget");

QString labelOf(Family f) {
    const std::string_view label = accounting::familyLabel(f);
    return QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
}

}  // namespace

int ContextFigure::positions() { return static_cast<int>(analysis::contextTrendGrid().size()); }

double ContextFigure::contextAt(int pos) { return analysis::contextTrendGrid()[static_cast<std::size_t>(pos)]; }

int ContextFigure::positionOf(double t) {
    return static_cast<int>(std::lround(std::log2(t / kMinContext) * kStepsPerOctave));
}

QString ContextFigure::readout(const QString& name) const {
    return name == kContext ? QObject::tr("T = %1").arg(QLocale().toString(static_cast<qlonglong>(context()))) : QString();
}

std::vector<ViewFigure::ScaleMark> ContextFigure::scale(const QString& name) const {
    if (name != kContext) return {};
    std::vector<ScaleMark> marks;
    for (int o = 0; o <= kOctaves; ++o) {
        const double t = kMinContext * std::pow(2.0, o);
        marks.push_back({t >= 1024 ? QString::number(t / 1024) + 'k' : QString::number(t), t == 2048 || t == 8192 || t == 16384});
    }
    return marks;
}

ContextFigure::ContextFigure() : lawChart_(makeChart()), trendChart_(makeChart()) {
    // Recipes, lessons and `--set context=16384` name the context length shown, not the position.
    std::vector<double> contexts;
    for (int pos = 0; pos < positions(); ++pos) contexts.push_back(contextAt(pos));
    controls().add(valueControl(kContext, QObject::tr("Context length T"), std::move(contexts), contextAt(positionOf(8192)), 0,
                                QObject::tr("Context length T: 512 … 131072 tokens (the study trained at 2048, 8192 and 16384)")));
    // The budgets are keyed by their number (`--set budget=1e21`, as `scalex fit context --budget`);
    // recipes that kept the text ("10²¹ FLOPs") still set them by it.
    std::vector<ControlChoice> budgets;
    for (double h : kBudgets) budgets.push_back({QString::fromStdString(data::formatScientific(h)), formatTickValue(h) + QObject::tr(" FLOPs")});
    const QString budget = budgets[2].key;
    controls().add(choiceControl(kBudget, QObject::tr("Budget"), std::move(budgets), budget));
}

std::vector<QChart*> ContextFigure::charts() const { return {lawChart_, trendChart_}; }

double ContextFigure::context() const { return controls().number(kContext); }

double ContextFigure::budget() const {
    const int index = controls().at(kBudget).choiceIndex();
    return kBudgets[index >= 0 ? index : 2];
}

double ContextFigure::optimalParams(bool xlstm) const {
    const auto* a = answer_.find(xlstm ? Family::Xlstm : Family::Transformer);
    return a ? a->sweep.here.params : 0;
}

std::optional<fit::PowerLaw> ContextFigure::recostedLaw(bool xlstm) const {
    const auto* a = answer_.find(xlstm ? Family::Xlstm : Family::Transformer);
    return a ? a->recount.law : std::nullopt;
}

JobOf<ContextFigure::Answer> ContextFigure::job(const FigureInput& in) const {
    const analysis::Study& study = *in.study;
    analysis::ContextOptions options;
    options.context = context();
    options.budget = budget();
    // What the job reads is copied here: the study may change meanwhile. The surfaces are the job's.
    analysis::ContextRequest request = analysis::contextRequest(study, options);
    if (fittedAt_ == refits_)
        for (auto* inputs : {&request.inputs, &request.seriesLadders})
            for (auto& input : *inputs)
                for (const auto& [name, profiles] : profiles_)
                    if (name == input.name) input.profiles = profiles;
    return [table = runsForJob(in), settings = study.settings(), request = std::move(request), refits = refits_](
               const fit::FitControl& control) -> Answer {
        analysis::ContextResult r = analysis::contextAnalysis(*table, settings, request, control);
        return Answer{std::move(r.answer), refits, std::move(r.surfaces)};
    };
}

void ContextFigure::take(Answer answer) {
    Answer* a = &answer;
    answer_ = std::move(a->answer);
    surfaces_ = std::move(a->surfaces);
    profiles_.clear();
    for (const auto& s : answer_.series) profiles_.push_back({s.name, s.profiles});
    fittedAt_ = a->refits;  // a refit asked for since the job was made is still to come
}

QString ContextFigure::surfaceNote(bool xlstm) const {
    const Family family = xlstm ? Family::Xlstm : Family::Transformer;
    for (const auto& [f, s] : surfaces_) {
        if (f != family) continue;
        if (s.surface && !s.paper) return QObject::tr("fitted to the runs of %1").arg(QString::fromStdString(s.fittedTo));
        if (s.surface) return s.problem.empty() ? QObject::tr("the paper's (the study has no %1 runs for an L(N,D) fit)").arg(labelOf(f))
                                                : QObject::tr("the paper's (%1)").arg(QString::fromStdString(s.problem));
        if (!s.problem.empty()) return QObject::tr("none (%1)").arg(QString::fromStdString(s.problem));
    }
    return QObject::tr("none (no %1 series in scope)").arg(labelOf(family));
}

QString ContextFigure::problem() const {
    if (!answer_.series.empty()) return {};
    return QObject::tr("no loss surface to re-solve: Transformer: %1; xLSTM: %2").arg(surfaceNote(false), surfaceNote(true));
}

void ContextFigure::draw(const FigureInput& in) {
    noteScale(in);
    const Theme& theme = Theme::current();
    const auto& paper = in.study->paper();
    const double T = answer_.query.context;
    const double H0 = answer_.query.budget;
    const auto& budgets = answer_.query.budgets;
    const auto& contexts = answer_.query.contexts;

    lawChart_->clearSeries();
    trendChart_->clearSeries();
    lawChart_->setAxes({QObject::tr("Budget H (FLOPs)"), true, 1e18, 1e25}, {QObject::tr("N* (params)"), true, 1e7, 1e12, true});
    trendChart_->setAxes({QObject::tr("Context length T"), true, 400, 160000}, {QObject::tr("N* (params)"), true, 1e8, 1e11, true});
    lawChart_->setTitle(QObject::tr("N*(H) at T = %1").arg(T));
    trendChart_->setTitle(QObject::tr("N* at H = %1").arg(formatTickValue(H0)));

    // The study's own profiles, their compute recounted at T: same runs, same N*, new H.
    bool recounted = false, recountedLaw = false;
    for (const auto& a : answer_.series) {
        if (a.recount.budgets.empty()) continue;
        const QColor color = seriesColor(a, answer_).darker(150);
        std::vector<QPointF> pts;
        for (std::size_t i = 0; i < a.recount.budgets.size(); ++i) pts.push_back({a.recount.budgets[i], a.recount.optima[i]});
        const QString name = QString::fromStdString(a.name);
        // The legend names what a style means once, in grey; the colours are the series' (below).
        PlotChart::hideFromLegend(lawChart_, lawChart_->addScatter(QObject::tr("%1 runs recounted at T").arg(name), color, pts, 8, true));
        recounted = true;
        if (const auto& law = a.recount.law) {
            std::vector<QPointF> line;
            for (const double H : budgets) line.push_back({H, (*law)(H)});
            PlotChart::hideFromLegend(lawChart_, lawChart_->addLine(QString(), color, line, 1.2, Qt::DashDotLine));
            recountedLaw = true;
        }
    }

    bool at8k = false, studyFit = false, studyPointsShown = false;
    double trendLo = 1e300, trendHi = 0;
    for (const auto& a : answer_.series) {
        const QColor color = seriesColor(a, answer_);
        const QString name = QString::fromStdString(a.name);
        // N*(H) at this context and at the study's main context, and N* at H0 over every context of the slider.
        const analysis::ContextSweep& sweep = a.sweep;
        for (const auto* optima : {&sweep.atContext, &sweep.atReference}) {
            if (optima->empty()) continue;
            std::vector<QPointF> line;
            for (std::size_t i = 0; i < optima->size(); ++i) line.push_back({budgets[i], (*optima)[i].params});
            if (optima == &sweep.atContext)
                lawChart_->addLine(name, color, line, 2.5);
            else
                PlotChart::hideFromLegend(lawChart_, lawChart_->addLine(QObject::tr("%1 at 8k").arg(name), color.lighter(140), line, 1.2, Qt::DashLine)),
                    at8k = true;
        }
        // The study's own per-context IsoFLOP power laws (Tab. estimated_optimal_*_context_*).
        for (const auto& law : paper.isoflopPowerLaws) {
            if (a.ladder || law.family != a.family || static_cast<double>(law.context) != T ||
                law.sourceTable.find("context") == std::string::npos)
                continue;
            std::vector<QPointF> line;
            for (const double H : budgets) line.push_back({H, law.coefN * std::pow(H, law.exponentN)});
            PlotChart::hideFromLegend(lawChart_, lawChart_->addLine(QObject::tr("%1 (paper's IsoFLOP law at T)").arg(name), color.darker(130), line, 1.5, Qt::DotLine));
            studyFit = true;
        }
        std::vector<QPointF> trend;
        for (std::size_t i = 0; i < contexts.size() && i < sweep.trend.size(); ++i) {
            const double n = sweep.trend[i].params;
            trend.push_back({contexts[i], n});
            trendLo = std::min(trendLo, n), trendHi = std::max(trendHi, n);
        }
        trendChart_->addLine(name, color, trend, 2.5);
        PlotChart::hideFromLegend(trendChart_, trendChart_->addScatter(QString(), color, {{T, sweep.here.params}}, 11));
        std::vector<QPointF> studyPoints;
        for (const auto& law : paper.isoflopPowerLaws)
            if (!a.ladder && law.family == a.family && law.sourceTable.find("context") != std::string::npos)
                studyPoints.push_back({static_cast<double>(law.context), law.coefN * std::pow(H0, law.exponentN)});
        for (const QPointF& p : studyPoints) trendLo = std::min(trendLo, p.y()), trendHi = std::max(trendHi, p.y());
        if (!studyPoints.empty()) {
            // Squares: hollow circles are the recounted runs on the left.
            auto* s = trendChart_->addScatter(QObject::tr("%1 (paper's IsoFLOP laws)").arg(name), color, studyPoints, 9, true);
            s->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
            PlotChart::hideFromLegend(trendChart_, s);
            studyPointsShown = true;
        }
    }
    // One legend entry per style, in grey, so that the legend fits one row.
    const QColor grey = theme.muted;
    if (recounted) lawChart_->addScatter(QObject::tr("runs recounted at T"), grey, {}, 8, true);
    if (recountedLaw) lawChart_->addLine(QObject::tr("their law"), grey, {}, 1.2, Qt::DashDotLine);
    if (at8k) lawChart_->addLine(QObject::tr("at 8k"), grey, {}, 1.2, Qt::DashLine);
    if (studyFit) lawChart_->addLine(QObject::tr("paper's IsoFLOP law at T"), grey, {}, 1.5, Qt::DotLine);
    if (studyPointsShown)
        trendChart_->addScatter(QObject::tr("N* of the paper's IsoFLOP laws"), grey, {}, 9, true)->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    // The slider's position as a vertical line.
    if (trendHi > 0) {
        const double lo = trendLo / 1.25, hi = trendHi * 1.25;
        PlotChart::hideFromLegend(trendChart_, trendChart_->addLine(QString(), theme.muted, {{T, lo}, {T, hi}}, 1.0, Qt::DashLine));
        trendChart_->setAxes({QObject::tr("Context length T"), true, 400, 160000}, {QObject::tr("N* (params)"), true, lo, hi, true});
    }

    QStringList numbers;
    for (const auto& a : answer_.series) {
        const auto& here = a.sweep.here;
        numbers << QObject::tr("<b style='color:%1'>%2</b> N* = %3, D* = %4 (%5 tokens/param)")
                       .arg(seriesColor(a, answer_).name(), QString::fromStdString(a.name), formatCount(here.params), formatCount(here.tokens))
                       .arg(here.tokens / here.params, 0, 'f', 1);
    }
    for (const Family f : {Family::Transformer, Family::Xlstm})
        if (!answer_.find(f))
            numbers << QObject::tr("<b style='color:%1'>%2</b>: no loss surface, %3")
                           .arg(theme.family(f).name(), labelOf(f),
                                surfaceNote(f == Family::Xlstm).toHtmlEscaped());
    summary_ = QObject::tr("At T = %1 and H = %2:&nbsp;&nbsp; %3")
                   .arg(T)
                   .arg(formatTickValue(H0), numbers.join(QStringLiteral("&nbsp;&nbsp;·&nbsp;&nbsp;")));
}

ViewFigure::TablesJob ContextFigure::tablesJob(const FigureInput&) const {
    return [answer = answer_](const fit::FitControl&) {
        return std::vector<FigureTable>{{QStringLiteral("optima"), QObject::tr("N*, D* over context length"), analysis::contextOptimaTable(answer)}};
    };
}

}  // namespace scalex::figures
