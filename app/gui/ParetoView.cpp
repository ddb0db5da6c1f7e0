#include "app/gui/ParetoView.h"

#include <QLabel>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>

#include "app/gui/FlowLayout.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"
#include "core/data/Series.h"

namespace scalex::gui {

ParetoView::ParetoView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::ParetoFigure>()) {
    const std::vector<QChart*> charts = figure_->charts();
    view_ = new PlotView(static_cast<PlotChart*>(charts.front()), this);
    figure_->controls().set(QStringLiteral("panels"), QStringLiteral("fig1"));
    fitView_ = new PlotView(static_cast<PlotChart*>(figure_->charts().back()), this);
    figure_->controls().set(QStringLiteral("panels"), QStringLiteral("one"));
    controls_ = new ControlBinding(&figure_->controls(), [this] { controlsChanged(); }, this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    auto* top = new FlowLayout();
    const figures::Controls& c = figure_->controls();
    top->addLabelled(c.at(QStringLiteral("panels")).label, controls_->make(QStringLiteral("panels"), this));
    top->addLabelled(c.at(QStringLiteral("context")).label, controls_->make(QStringLiteral("context"), this));
    top->addWidget(controls_->make(QStringLiteral("curves"), this));
    auto* row = new QHBoxLayout();
    row->addWidget(view_, 1);
    row->addWidget(fitView_, 1);
    stackWhenNarrow(row);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(row, 1);
    layout->addWidget(summary_);
    intervalWatcher_ = new QFutureWatcher<std::optional<fit::BootstrapInterval>>(this);
    connect(intervalWatcher_, &QFutureWatcherBase::finished, this, &ParetoView::intervalDone);
    // The frontiers first; then the L(N,D) fits their curves wait for.
    fits_ = new JobRunner<figures::ParetoFigure::Surfaces>([this](figures::ParetoFigure::Surfaces answer) {
        figure_->takeSurfaces(std::move(answer));
        redraw();
    }, this);
    jobs_ = new JobRunner<figures::ParetoFigure::Answer>([this](figures::ParetoFigure::Answer answer) {
        figure_->take(std::move(answer));
        redraw();
        if (figures::JobOf<figures::ParetoFigure::Surfaces> fits = figure_->surfaceJob()) fits_->start(std::move(fits));
    }, this);
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged}) connect(session_, signal, this, &ParetoView::recompute);
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged})
        connect(session_, signal, this, &ParetoView::redraw);
    recompute();
}

ParetoView::~ParetoView() {
    if (intervalCancel_) intervalCancel_->store(true);
    intervalWatcher_->waitForFinished();
}

void ParetoView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;
    figure_->refresh(figureInput(session_));
    controls_->showAll();
    fits_->cancel();  // of the answer replaced
    jobs_->start(figure_->job(figureInput(session_)));
}

QChart* ParetoView::primaryChart() const { return figure_->charts().front(); }

QStringList ParetoView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    controlsChanged();
    return notes;
}

void ParetoView::controlsChanged() {
    // L̂(N,D) at a context not fitted yet is the job's; anything else is a redraw.
    if (figure_->surfacesMissing()) recompute();
    else redraw();
}

std::vector<ViewTable> ParetoView::tables() {
    computeNow();  // the frontiers shown
    return figure_->tablesJob(figureInput(session_))(fit::FitControl{});
}

void ParetoView::computeNow() {
    jobs_->finish();  // which starts the fits it waits for
    fits_->finish();
    if (!intervalPending_) return;
    intervalWatcher_->waitForFinished();
    intervalDone();
}

void ParetoView::startInterval() {
    const auto [a, b] = figure_->comparedPoints();
    auto same = [](const std::vector<fit::ComputeLossPoint>& x, const std::vector<fit::ComputeLossPoint>& y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const auto& p, const auto& q) {
            return p.flops == q.flops && p.loss == q.loss;
        });
    };
    if (same(a, intervalKey_[0]) && same(b, intervalKey_[1]) && (intervalOfKey_ || intervalPending_)) {
        intervalShown_ = intervalOfKey_;
        return;  // the points of the interval known or under way (a selection or style changed)
    }
    figures::ParetoFigure::IntervalJob job = figure_->intervalJob();
    if (!job) return;
    intervalKey_[0] = a;
    intervalKey_[1] = b;
    intervalOfKey_.reset();
    intervalPending_ = true;
    const int generation = ++intervalGeneration_;
    if (intervalCancel_) intervalCancel_->store(true);
    intervalCancel_ = std::make_shared<std::atomic<bool>>(false);
    intervalWatcher_->setProperty("generation", generation);
    intervalWatcher_->setFuture(QtConcurrent::run(jobPool(), [job = std::move(job), cancel = intervalCancel_] {
        fit::FitControl control;
        control.cancel = cancel.get();
        return job(control);
    }));
}

void ParetoView::intervalDone() {
    if (!intervalPending_ || intervalWatcher_->property("generation").toInt() != intervalGeneration_ || !intervalWatcher_->isFinished())
        return;  // superseded by a newer request, or already taken
    intervalPending_ = false;
    intervalOfKey_ = intervalWatcher_->result();
    intervalShown_ = figure_->comparison().overlap ? intervalOfKey_ : std::nullopt;
    showSummary();
}

std::vector<QChart*> ParetoView::charts() const { return figure_->charts(); }

void ParetoView::redraw() {
    if (jobs_->running() || deferWhileHidden([this] { redraw(); })) return;  // drawn when the analyses are done
    figure_->draw(figureInput(session_));
    controls_->showAll();
    fitView_->setVisible(figure_->sideBySide());
    intervalShown_.reset();
    // The comparison at once; its bootstrap interval in the background (startInterval).
    if (figure_->comparison().overlap) startInterval();
    showSummary();
}

void ParetoView::showSummary() {
    const QString scope = figure_->scope();
    const fit::FrontierComparison& comparison = figure_->comparison();
    const auto& compared = figure_->compared();
    const std::size_t shownSeries = figure_->shown().size();
    if (comparison.overlap) {
        QString interval;
        if (const auto& g = intervalShown_; g && g->nValid > 0)
            interval = tr(", 95 % interval %1× to %2× over %3 resamples of the runs").arg(g->lower, 0, 'f', 2).arg(g->upper, 0, 'f', 2).arg(g->nValid);
        else if (intervalPending_)
            interval = tr("; interval: computing…");
        // "higher by 0.026 to 0.156", or "between 0.003 lower and 0.079 higher" when the frontiers cross.
        auto gap = [](double lo, double hi) {
            if (lo >= 0) return tr("higher by %1 to %2").arg(lo, 0, 'f', 3).arg(hi, 0, 'f', 3);
            if (hi <= 0) return tr("lower by %1 to %2").arg(-hi, 0, 'f', 3).arg(-lo, 0, 'f', 3);
            return tr("between %1 lower and %2 higher (the frontiers cross)").arg(-lo, 0, 'f', 3).arg(hi, 0, 'f', 3);
        };
        summary_->setText(tr("Where both frontiers overlap%5, %6 needs <b>%1×</b> the compute of %7 for the same loss "
                             "(geometric mean%8; %2× to %3× along the front), and at equal compute its loss is %4.%9")
                              .arg(comparison.geomeanComputeRatio, 0, 'f', 2)
                              .arg(comparison.minComputeRatio, 0, 'f', 2)
                              .arg(comparison.maxComputeRatio, 0, 'f', 2)
                              .arg(gap(comparison.minLossGap, comparison.maxLossGap))
                              .arg(scope)
                              .arg(compared.second, compared.first)
                              .arg(interval)
                              .arg(comparison.aDominates ? tr(" %1 is Pareto-dominant over the whole overlap.").arg(compared.first) : QString()));
    }
    else if (shownSeries < 2)
        summary_->setText(shownSeries == 0 ? tr("No runs with compute and loss in scope.")
                                            : tr("One series%1: nothing to compare.").arg(scope));
    else
        summary_->setText(tr("The frontiers%1 do not overlap in compute and loss: nothing to compare.").arg(scope));
    emit explainChanged();
}

QString ParetoView::explainHtml() const {
    return tr("<h3>Loss over compute: the Pareto front</h3>"
              "<p>Each point is one training run: its training compute <b>C</b> (FLOPs) and the validation loss it "
              "reached. Both axes are logarithmic, so a power law L ∝ C<sup>−η</sup> is a straight line.</p>"
              "<p>The solid line of each series is its <b>Pareto frontier</b>: the runs no other run beats with "
              "less compute. A frontier below another means better loss for the same compute. Runs of one context "
              "length are shown at a time (<i>Context</i>).</p>"
              "<p>Dashed: the loss surface L̂(N, D) fitted to the runs of each architecture family at this context "
              "(the paper's fit on the paper's study where its runs give none), along runs with a fixed number of "
              "tokens per parameter (D/N = 22 is Chinchilla-optimal; 2200 is heavily over-trained).</p>"
              "<p>Now: %1.</p>")
        .arg(nowText());
}

QString ParetoView::nowText() const {
    // Each series' frontier (the first few of many), then the compared pair's ratio.
    constexpr int kListed = 6;
    QStringList sizes;
    int withRuns = 0;
    for (const auto& a : figure_->shown()) {
        if (a.points.empty()) continue;
        if (++withRuns <= kListed)
            sizes << QStringLiteral("%1 %2").arg(QString::fromStdString(data::seriesLabel(a.group.series))).arg(a.frontier.size());
    }
    if (withRuns > kListed) sizes << tr("%n more series", nullptr, withRuns - kListed);
    if (sizes.isEmpty()) return tr("no runs with compute and loss in scope");
    QString now = tr("frontier runs %1").arg(sizes.join(QStringLiteral(", ")));
    const auto& compared = figure_->compared();
    if (figure_->comparison().overlap)
        now += tr("; %1 needs %2× the compute of %3 for the same loss")
                   .arg(compared.second, QString::number(figure_->comparison().geomeanComputeRatio, 'f', 2), compared.first);
    else if (withRuns == 1)
        now += tr("; one series, nothing to compare");
    return now;
}

}  // namespace scalex::gui
