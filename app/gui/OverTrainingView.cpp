#include "app/gui/OverTrainingView.h"

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

// --- Over-training --------------------------------------------------------------------------------

OverTrainingView::OverTrainingView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    auto* charts = new QHBoxLayout();
    auto* choices = new QHBoxLayout();
    for (int k = 0; k < 2; ++k) {
        charts_[k] = new PlotChart();
        views_[k] = new PlotView(charts_[k], this);
        charts->addWidget(views_[k], 1);
        series_[k] = new QComboBox(this);
        series_[k]->setObjectName(k == 0 ? QStringLiteral("series") : QStringLiteral("series2"));
        series_[k]->setToolTip(tr("The series drawn in this panel, at the paper's context 8192 where it has runs there"));
        series_[k]->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        choices->addWidget(new QLabel(k == 0 ? tr("Left") : tr("Right"), this));
        choices->addWidget(series_[k]);
        connect(series_[k], &QComboBox::currentIndexChanged, this, &OverTrainingView::redraw);
    }
    choices->addStretch(1);
    stackWhenNarrow(charts);
    table_ = new QTableWidget(this);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setMaximumHeight(220);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(choices);
    layout->addLayout(charts, 1);
    layout->addWidget(note_);
    layout->addWidget(table_);
    watcher_ = new QFutureWatcher<Outcome>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, &OverTrainingView::takeOutcome);
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged}) connect(session_, signal, this, &OverTrainingView::recompute);
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &OverTrainingView::redraw);
    recompute();
}

OverTrainingView::~OverTrainingView() {
    latest_->store(-1);
    watcher_->waitForFinished();
}

void OverTrainingView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;
    const int generation = ++generation_;
    latest_->store(generation);
    computing_ = true;
    note_->setText(tr("Fitting the power laws…"));
    auto table = session_->runsSnapshot();
    watcher_->setFuture(QtConcurrent::run(jobPool(), [table, settings = session_->settings(), generation, latest = latest_] {
        if (latest->load() != generation) return Outcome{};  // superseded before it began
        // The analyses the verbs run (outliers off their line left out unless kept).
        return Outcome{table, analysis::slopeAnalyses(*table, settings, fit::SlopeSettings{}), generation};
    }));
}

void OverTrainingView::takeOutcome() {
    if (!computing_ || !watcher_->isFinished()) return;
    Outcome outcome = watcher_->result();
    if (outcome.generation != generation_) return;  // a newer one is under way
    computing_ = false;
    runs_ = std::move(outcome.table);
    analyses_ = std::move(outcome.analyses);
    redraw();
}

void OverTrainingView::computeNow() {
    if (!computing_) return;
    watcher_->waitForFinished();
    takeOutcome();
}

QChart* OverTrainingView::primaryChart() const { return charts_[0]; }
std::vector<QChart*> OverTrainingView::charts() const { return {charts_[0], charts_[1]}; }

void OverTrainingView::refillSeries() {
    // The series in scope; by default the first two (the study's Transformer and xLSTM).
    const auto& names = session_->seriesNames();
    for (int k = 0; k < 2; ++k) {
        const QString current = series_[k]->currentData().toString();
        QSignalBlocker block(series_[k]);
        series_[k]->clear();
        for (const auto& name : names) series_[k]->addItem(QString::fromStdString(data::seriesLabel(name)), QString::fromStdString(name));
        int index = series_[k]->findData(current);
        if (index < 0) index = std::min(k, series_[k]->count() - 1);
        series_[k]->setCurrentIndex(index);
        series_[k]->setEnabled(series_[k]->count() > 1);
    }
}

void OverTrainingView::redraw() {
    if (computing_ || deferWhileHidden([this] { redraw(); })) return;  // drawn when the analyses are done
    const Theme& theme = Theme::current();
    const fit::SlopeSettings settings;
    refillSeries();
    const auto& analyses = analyses_;
    // Session indices of the runs (the analyses point into a copy of the session's runs).
    auto indexOf = [this](const data::Run* r) { return static_cast<int>(r - runs_->runs.data()); };
    QStringList notes;
    for (int k = 0; k < 2; ++k) {
        PlotChart* chart = charts_[k];
        chart->clearSeries();
        chart->setAxes({tr("Compute C (FLOPs)"), true, 1e18, 1e22}, {tr("Validation loss"), true, 2, 4});
        shown_[k].reset();
        const std::string name = series_[k]->currentData().toString().toStdString();
        // One context length: the paper's 8192 where the series has runs there, else the one with most runs.
        for (auto& a : analyses)
            if (a.group.series == name && !name.empty() &&
                (!shown_[k] || a.group.context == 8192 || (shown_[k]->group.context != 8192 && a.points.size() > shown_[k]->points.size())))
                shown_[k] = a;
        if (!shown_[k] || (k == 1 && shown_[0] && shown_[0]->group.series == name)) {
            chart->setTitle(k == 1 && series_[1]->count() < 2 ? tr("(one series only)") : tr("no runs"));
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
            addRunPoints(chart, session_, tr("M=%1").arg(g.ratio), color, pts, 7);
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
            notes << tr("%1: %2 left out, %3").arg(QString::fromStdString(a.group.label()), QString::fromStdString(data::runLabel(*o.run)),
                                                   QString::fromStdString(o.outlier.reason));
        }
        if (QScatterSeries* s = addRunPoints(chart, session_, tr("left out as outliers"), theme.highlight, leftOut, 9)) {
            s->setColor(Qt::transparent);
            s->setBorderColor(theme.highlight);
        }
        all.insert(all.end(), leftOut.begin(), leftOut.end());
        chart->fitRangesToData(0.06);
        addSelectionRings(chart, session_, all);
    }
    // How far each line extrapolates: fitted without its largest-compute run, predicting it.
    std::map<double, QString> extrapolation[2];
    for (int k = 0; k < 2; ++k)
        if (shown_[k])
            for (const auto& pr : shown_[k]->extrapolation)
                extrapolation[k][pr.ratio] = QStringLiteral("%1%2 %").arg(pr.error >= 0 ? "+" : "−").arg(std::abs(100 * pr.error), 0, 'f', 1);
    note_->setText(notes.isEmpty() ? tr("Extrapolation: each line fitted without its largest-compute run, the error of its prediction there.")
                                   : notes.join(QStringLiteral("\n")) + tr(" (tick a run in on the Runs view to take it back)"));
    // Table: every nominal M with a fit or a paper value; paper values where the series is one of the study's families.
    QStringList headers{tr("tokens/param M")};
    for (int k = 0; k < 2; ++k) {
        const QString who = shown_[k] ? QString::fromStdString(data::seriesLabel(shown_[k]->group.series)) : QStringLiteral("—");
        headers << tr("η %1").arg(who) << tr("extrapolation") << tr("paper");
    }
    table_->setColumnCount(headers.size());
    table_->setHorizontalHeaderLabels(headers);
    std::vector<double> ratios = settings.ratios;
    table_->setRowCount(static_cast<int>(ratios.size()));
    for (int r = 0; r < static_cast<int>(ratios.size()); ++r) {
        const double M = ratios[static_cast<std::size_t>(r)];
        table_->setItem(r, 0, new QTableWidgetItem(QString::number(M)));
        for (int k = 0; k < 2; ++k) {
            QString fitted = QStringLiteral("—"), paper = QStringLiteral("—"), ex = QStringLiteral("—");
            if (shown_[k]) {
                for (const auto& g : shown_[k]->result.groups)
                    if (g.ratio == M) fitted = g.fitted ? QString::number(g.eta, 'f', 3) : tr("%1 runs").arg(g.runs.size());
                if (auto it = extrapolation[k].find(M); it != extrapolation[k].end()) ex = it->second;
                const auto family = accounting::parseFamily(shown_[k]->group.series);
                for (const auto& s : session_->paper().overTrainingSlopes)
                    if (s.tokensPerParam == M && family) {
                        const auto& eta = *family == Family::Xlstm ? s.etaXlstm : s.etaTransformer;
                        if (eta) paper = QString::number(*eta, 'f', 3);
                    }
            }
            table_->setItem(r, 1 + 3 * k, new QTableWidgetItem(fitted));
            table_->setItem(r, 2 + 3 * k, new QTableWidgetItem(ex));
            table_->setItem(r, 3 + 3 * k, new QTableWidgetItem(paper));
        }
    }
    emit explainChanged();
}

std::vector<ViewTable> OverTrainingView::tables() { return tablesJob()(fit::FitControl{}); }

ViewPanel::TablesJob OverTrainingView::tablesJob() {
    computeNow();  // the analyses shown
    // Copies of the analyses shown, without their run pointers: the job reads the points and fits.
    std::vector<analysis::SlopeAnalysis> shown;
    for (const auto& a : shown_)
        if (a) {
            shown.push_back(*a);
            shown.back().runs.clear();
            shown.back().outliers.clear();
        }
    const QString title = tr("Power-law exponent η per tokens/param");
    return [shown = std::move(shown), title](const fit::FitControl& control) -> std::vector<ViewTable> {
        std::vector<analysis::SlopesWithIntervals> slopes;
        for (const analysis::SlopeAnalysis& a : shown) {
            if (control.cancelled()) return {};
            slopes.push_back({&a, analysis::slopeIntervals(a, fit::SlopeSettings{}, fit::BootstrapSettings{})});
        }
        return {{QStringLiteral("slopes"), title, analysis::slopeTable(slopes)}};
    };
}

QString OverTrainingView::explainHtml() const {
    QString etas;
    for (int k = 0; k < 2; ++k)
        if (shown_[k])
            for (const auto& g : shown_[k]->result.groups)
                if (g.fitted && (g.ratio == 22 || g.ratio == 2200))
                    etas += tr("%1, M = %2: η = %3<br>").arg(QString::fromStdString(data::seriesLabel(shown_[k]->group.series))).arg(g.ratio).arg(g.eta, 0, 'f', 3);
    return tr("<h3>Over-training</h3>"
              "<p>Models are often trained far past the compute-optimal number of tokens, because a smaller model "
              "is cheaper to serve. Here runs are grouped by their tokens per parameter <b>M = D/N</b>, and within "
              "each group the loss follows a power law in compute:</p>"
              "<p style='font-size:large'>L(C) = λ · C<sup>−η</sup></p>"
              "<p>A straight line on these log-log axes; its slope is −η. If η stays the same as M grows, "
              "over-training costs a constant factor of compute, not a worse scaling.</p><p>%1</p>")
        .arg(etas.isEmpty() ? tr("No group has enough runs to fit.") : etas);
}

}  // namespace scalex::gui
