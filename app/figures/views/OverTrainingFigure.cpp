#include "app/figures/views/OverTrainingFigure.h"

#include <QObject>
#include <set>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>
#include <map>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/RunMarks.h"
#include "app/figures/Theme.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/Study.h"
#include "core/data/Series.h"

namespace scalex::figures {

using accounting::Family;

namespace {

const QString kSeries[2] = {QStringLiteral("series"), QStringLiteral("series2")};
const QString kContext = QStringLiteral("context");
const QString kEachOwn = QStringLiteral("auto");

}  // namespace

OverTrainingFigure::OverTrainingFigure() : charts_{makeChart(), makeChart()} {
    for (int k = 0; k < 2; ++k) {
        Control series;
        series.name = kSeries[k];
        series.label = k == 0 ? QObject::tr("Left") : QObject::tr("Right");
        series.toolTip = QObject::tr("The series drawn in this panel, at the paper's context 8192 where it has runs there");
        controls().add(series);
    }
    controls().add(choiceControl(kContext, QObject::tr("Context"), {{kEachOwn, QObject::tr("per series")}}, kEachOwn,
                                 QObject::tr("The training context length of the runs drawn: one for both panels, or each series "
                                             "at the paper's 8192 where it has runs there, else at the context with most runs")));
}

std::vector<QChart*> OverTrainingFigure::charts() const { return {charts_[0], charts_[1]}; }

void OverTrainingFigure::refresh(const FigureInput& in) {
    // The series in scope (keyed by name); by default the first two (the study's Transformer and xLSTM).
    const auto& names = in.study->seriesNames();
    std::vector<ControlChoice> choices;
    for (const auto& name : names) choices.push_back({QString::fromStdString(name), QString::fromStdString(data::seriesLabel(name))});
    for (int k = 0; k < 2; ++k) {
        const QString fallback = choices.empty() ? QString() : choices[std::min<std::size_t>(k, choices.size() - 1)].key;
        controls().setChoices(kSeries[k], choices, fallback);
        controls().at(kSeries[k]).enabled = choices.size() > 1;
    }
    // The context lengths of the runs in scope.
    std::set<double> contexts;
    for (const auto& g : analysis::seriesGroups(in.study->runs(), in.study->settings()))
        if (!std::isnan(g.context)) contexts.insert(g.context);
    std::vector<ControlChoice> lengths{{kEachOwn, QObject::tr("per series")}};
    for (double c : contexts) lengths.push_back({QString::number(c), QString::number(c)});
    controls().setChoices(kContext, std::move(lengths), kEachOwn);
    controls().at(kContext).enabled = contexts.size() > 1;
}

JobOf<OverTrainingFigure::Answer> OverTrainingFigure::job(const FigureInput& in) const {
    return [table = runsForJob(in), settings = in.study->settings()](const fit::FitControl&) -> Answer {
        // The analyses the verbs run (outliers off their line left out unless kept).
        return Answer{table, analysis::slopeAnalyses(*table, settings, fit::SlopeSettings{})};
    };
}

void OverTrainingFigure::take(Answer answer) {
    answer_ = std::move(answer);
}

QString OverTrainingFigure::problem() const {
    if (shown_[0] || shown_[1]) return {};
    return QObject::tr("no runs to fit for the series and context chosen (the lines group a series' runs by tokens per "
                       "parameter, M = 22 to 2200)");
}

void OverTrainingFigure::draw(const FigureInput& in) {
    noteScale(in);
    const Theme& theme = Theme::current();
    const fit::SlopeSettings settings;
    refresh(in);
    // Study indices of the runs (the analyses point into a copy of the study's runs).
    auto indexOf = [this](const data::Run* r) { return static_cast<int>(r - answer_.table->runs.data()); };
    QStringList notes;
    for (int k = 0; k < 2; ++k) {
        PlotChart* chart = charts_[k];
        chart->clearSeries();
        chart->setAxes({QObject::tr("Compute C (FLOPs)"), true, 1e18, 1e22}, {QObject::tr("Validation loss"), true, 2, 4});
        shown_[k].reset();
        const std::string name = controls().choice(kSeries[k]).toStdString();
        // One context length: the one chosen, else the paper's 8192 where the series has runs there,
        // else the one with most runs.
        const QString chosen = controls().choice(kContext);
        shown_[k] = analysisOf(name);
        if (!shown_[k] || (k == 1 && shown_[0] && shown_[0]->group.series == name)) {
            const bool oneSeries = k == 1 && controls().at(kSeries[1]).choices.size() < 2;
            chart->setTitle(oneSeries          ? QObject::tr("(one series only)")
                            : chosen == kEachOwn ? QObject::tr("no runs")
                                                 : QObject::tr("%1: no runs at T = %2")
                                                       .arg(QString::fromStdString(data::seriesLabel(name)), chosen));
            shown_[k].reset();
            continue;
        }
        const analysis::SlopeAnalysis& a = *shown_[k];
        chart->setTitle(QString::fromStdString(a.group.label()));  // the series and its context; the axes say the rest
        std::vector<RunPoint> all;
        const int n = static_cast<int>(settings.ratios.size());
        for (const auto& g : a.result.groups) {
            const int idx = static_cast<int>(std::find(settings.ratios.begin(), settings.ratios.end(), g.ratio) - settings.ratios.begin());
            const QColor color = theme.sequential(idx, n);
            std::vector<RunPoint> pts;
            double cLo = 1e300, cHi = 0;
            for (std::size_t i : g.runs) {
                pts.push_back({{a.points[i].flops, a.points[i].loss}, indexOf(a.runs[i])});
                cLo = std::min(cLo, a.points[i].flops), cHi = std::max(cHi, a.points[i].flops);
            }
            addRunPoints(chart, in, QObject::tr("M=%1").arg(g.ratio), color, pts, 7);
            all.insert(all.end(), pts.begin(), pts.end());
            if (g.fitted) {
                std::vector<QPointF> line;
                for (double c : logGrid(cLo / 1.5, cHi * 1.5, 20)) line.push_back({c, g.law(c)});
                PlotChart::hideFromLegend(chart, chart->addLine(QString(), color, line, 1.5));
            }
        }
        // Runs off their ratio's line, left out of its fit: hollow in the highlight colour.
        std::vector<RunPoint> leftOut;
        for (const auto& o : a.outliers) {
            leftOut.push_back({{o.run->flops, o.run->loss()}, indexOf(o.run)});
            notes << QObject::tr("%1: %2 left out, %3")
                         .arg(QString::fromStdString(a.group.label()), QString::fromStdString(data::runLabel(*o.run)),
                              QString::fromStdString(o.outlier.reason));
        }
        if (QScatterSeries* s = addRunPoints(chart, in, QObject::tr("left out as outliers"), theme.highlight, leftOut, 9)) {
            s->setColor(Qt::transparent);
            s->setBorderColor(theme.highlight);
        }
        all.insert(all.end(), leftOut.begin(), leftOut.end());
        chart->fitRangesToData(0.06);
        addSelectionRings(chart, in, all);
    }
    summary_ = notes.isEmpty() ? QObject::tr("Extrapolation: each line fitted without its largest-compute run, the error of its prediction there.")
                               : notes.join(QStringLiteral("\n")) + QObject::tr(" (tick a run in on the Runs view to take it back)");
    fillPanelTable(in);
}

void OverTrainingFigure::fillPanelTable(const FigureInput& in) {
    const fit::SlopeSettings settings;
    // How far each line extrapolates: fitted without its largest-compute run, predicting it.
    std::map<double, QString> extrapolation[2];
    for (int k = 0; k < 2; ++k)
        if (shown_[k])
            for (const auto& pr : shown_[k]->extrapolation)
                extrapolation[k][pr.ratio] = QStringLiteral("%1%2 %").arg(pr.error >= 0 ? "+" : "−").arg(std::abs(100 * pr.error), 0, 'f', 1);
    // Every nominal M with a fit or a paper value; paper values where the series is one of the study's families.
    panelHeaders_ = QStringList{QObject::tr("tokens/param M")};
    for (int k = 0; k < 2; ++k) {
        const QString who = shown_[k] ? QString::fromStdString(data::seriesLabel(shown_[k]->group.series)) : QStringLiteral("—");
        panelHeaders_ << QObject::tr("η %1").arg(who) << QObject::tr("extrapolation") << QObject::tr("paper");
    }
    panelRows_.clear();
    for (const double M : settings.ratios) {
        QStringList row{QString::number(M)};
        for (int k = 0; k < 2; ++k) {
            QString fitted = QStringLiteral("—"), paper = QStringLiteral("—"), ex = QStringLiteral("—");
            if (shown_[k]) {
                for (const auto& g : shown_[k]->result.groups)
                    if (g.ratio == M) fitted = g.fitted ? QString::number(g.eta, 'f', 3) : QObject::tr("%1 runs").arg(g.runs.size());
                if (auto it = extrapolation[k].find(M); it != extrapolation[k].end()) ex = it->second;
                const auto family = accounting::parseFamily(shown_[k]->group.series);
                for (const auto& s : in.study->paper().overTrainingSlopes)
                    if (s.tokensPerParam == M && family) {
                        const auto& eta = *family == Family::Xlstm ? s.etaXlstm : s.etaTransformer;
                        if (eta) paper = QString::number(*eta, 'f', 3);
                    }
            }
            row << fitted << ex << paper;
        }
        panelRows_.push_back(std::move(row));
    }
}

std::optional<analysis::SlopeAnalysis> OverTrainingFigure::analysisOf(const std::string& name) const {
    // One context length: the one chosen, else the paper's 8192 where the series has runs there,
    // else the one with most runs.
    std::optional<analysis::SlopeAnalysis> out;
    const QString chosen = controls().choice(kContext);
    for (const auto& a : answer_.analyses) {
        if (a.group.series != name || name.empty()) continue;
        if (chosen != kEachOwn) {
            if (QString::number(a.group.context) == chosen) out = a;
        } else if (!out || a.group.context == 8192 || (out->group.context != 8192 && a.points.size() > out->points.size())) {
            out = a;
        }
    }
    return out;
}

ViewFigure::TablesJob OverTrainingFigure::tablesJob(const FigureInput&) const {
    // Every series in scope at the context the panels show it at (the panels draw two), copied
    // without their run pointers: the job reads the points and fits.
    std::vector<analysis::SlopeAnalysis> shown;
    std::set<std::string> listed;
    for (const auto& a : answer_.analyses)
        if (listed.insert(a.group.series).second)
            if (auto picked = analysisOf(a.group.series)) {
                shown.push_back(std::move(*picked));
                shown.back().runs.clear();
                shown.back().outliers.clear();
            }
    const QString title = QObject::tr("Power-law exponent η per tokens/param");
    return [shown = std::move(shown), title](const fit::FitControl& control) -> std::vector<FigureTable> {
        std::vector<analysis::SlopesWithIntervals> slopes;
        for (const analysis::SlopeAnalysis& a : shown) {
            if (control.cancelled()) return {};
            slopes.push_back({&a, analysis::slopeIntervals(a, fit::SlopeSettings{}, fit::BootstrapSettings{})});
        }
        return {{QStringLiteral("slopes"), title, analysis::slopeTable(slopes)}};
    };
}

}  // namespace scalex::figures
