#include "app/gui/LossSurfaceView.h"

#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <chrono>
#include <cmath>
#include <thread>

#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

LossSurfaceView::LossSurfaceView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::LossSurfaceFigure>()) {
    view_ = new PlotView(static_cast<PlotChart*>(figure_->charts().front()), this);
    controls_ = new ControlBinding(&figure_->controls(), [this] { controlsChanged(); }, this);
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
    const figures::Controls& c = figure_->controls();
    for (const QString name : {"series", "context", "set", "huber_delta", "gamma", "grid"}) form->addRow(c.at(name).label, controls_->make(name, this));
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

    fit_ = new JobRunner<figures::LossSurfaceFigure::Answer>([this](figures::LossSurfaceFigure::Answer answer) { onFitDone(std::move(answer)); }, this);
    // The screening of the starts, then the phases after it: the bar restarts with the phase's name.
    connect(fit_, &JobRunnerBase::progressed, this, [this](qint64 done, qint64 total, const QString& phase) {
        if (!phase.isEmpty()) {
            progress_->setRange(0, static_cast<int>(total));
            progress_->setFormat(phase + QStringLiteral(": %v / %m"));
        }
        progress_->setValue(static_cast<int>(done));
    });
    connect(fitButton_, &QPushButton::clicked, this, &LossSurfaceView::startFit);
    connect(cancelButton_, &QPushButton::clicked, this, &LossSurfaceView::cancelFit);
    connect(session_, &Session::runsChanged, this, [this] {
        forgetFit();
        if (session_->sourceLabel() != source_) {
            // Another study: its token/param runs where it has them (the figure falls back to
            // every run where it has none); a toggled run keeps the user's choice.
            source_ = session_->sourceLabel();
            figure_->controls().set(QStringLiteral("set"), QStringLiteral("tokenparam"));
        }
        redraw();
    });
    connect(session_, &Session::settingsChanged, this, [this] {
        forgetFit();  // the scope, outlier handling or fit options may have changed
        redraw();
    });
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &LossSurfaceView::redraw);
    redraw();
}

LossSurfaceView::~LossSurfaceView() = default;

QChart* LossSurfaceView::primaryChart() const { return figure_->charts().front(); }
bool LossSurfaceView::fitting() const { return fit_->running(); }

void LossSurfaceView::waitForFit() {
    fit_->finish();
    QCoreApplication::processEvents();
}

void LossSurfaceView::setGrid(int index) {
    figure_->controls().set(QStringLiteral("grid"), index == 1 ? QStringLiteral("quick") : QStringLiteral("paper"));
    controls_->showAll();
}

std::optional<analysis::SeriesGroup> LossSurfaceView::group() const { return figure_->group(figureInput(session_)); }

QJsonObject LossSurfaceView::fittedChoice() const {
    const figures::Controls& c = figure_->controls();
    QJsonObject choice;
    for (const QString name : {"set", "series", "context"}) choice[name] = c.choice(name);
    return choice;
}

void LossSurfaceView::controlsChanged() {
    // Another series, context or run set drops the fit; the fit's own settings (δ, γ, starts)
    // take effect with the next Fit.
    if (fittedChoice() == choiceShown_) return;
    forgetFit();
    redraw();
}

QStringList LossSurfaceView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    // Controls other than those of the fit shown or under way: the next computeNow() fits anew.
    if (figure_->controls().values() != fitControls_) forgetFit();
    redraw();
    return notes;
}

void LossSurfaceView::forgetFit() {
    if (fit_->running()) {
        fit_->cancel();  // its answer is for runs or a choice no longer shown
        fitDone();
    }
    figure_->forget();
}

void LossSurfaceView::startFit() {
    if (fitting()) return;
    const figures::FigureInput in = figureInput(session_);
    figure_->refresh(in);
    controls_->showAll();
    fitControls_ = figure_->controls().values();
    if (!figure_->fitProblem(in).isEmpty()) {
        figure_->compute(in);  // no fit: the answer says why
        redraw();
        return;
    }
    fitButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    progress_->setRange(0, static_cast<int>(figure_->starts(in)));
    progress_->setValue(0);
    progress_->setFormat(tr("screening starts: %p%"));
    summary_->setText(figure_->fittingText(in));
    fit_->start(figure_->job(in));
}

void LossSurfaceView::computeNow() {
    waitForFit();  // a fit of an earlier choice (cancelled) ends first
    if (!figure_->result() && !fitting()) startFit();
    waitForFit();
}

std::vector<ViewTable> LossSurfaceView::tables() {
    computeNow();
    return tablesJob()(fit::FitControl{});
}

ViewPanel::TablesJob LossSurfaceView::tablesJob() {
    if (!figure_->result() && !fitting()) startFit();
    const figures::FigureInput in = figureInput(session_);
    if (!fitting()) return figure_->tablesJob(in);
    // The fit under way: its answer, waited for by the job.
    QFuture<std::optional<figures::LossSurfaceFigure::Fitted>> running = fit_->future();
    return figure_->tablesJobOf(in, [running](const fit::FitControl& control) -> std::optional<figures::LossSurfaceFigure::Fitted> {
        while (!running.isFinished()) {
            if (control.cancelled()) return {};
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return running.result();
    });
}

void LossSurfaceView::cancelFit() {
    fit_->interrupt();  // the fit so far still arrives, marked cancelled
}

void LossSurfaceView::fitDone() {
    fitButton_->setEnabled(true);
    cancelButton_->setEnabled(false);
    progress_->setFormat(QStringLiteral("%p%"));
    progress_->setValue(progress_->maximum());
}

void LossSurfaceView::onFitDone(figures::LossSurfaceFigure::Answer answer) {
    fitDone();
    figure_->take(std::move(answer));
    redraw();
    emit fitFinished();
}

void LossSurfaceView::redraw() {
    if (deferWhileHidden([this] { redraw(); })) return;
    figure_->draw(figureInput(session_));
    controls_->showAll();
    choiceShown_ = fittedChoice();
    summary_->setText(figure_->summary());
    emit explainChanged();
}

QString LossSurfaceView::explainHtml() const { return figures::figureEntry(viewId())->explain(*figure_, figureInput(session_)); }

}  // namespace scalex::gui
