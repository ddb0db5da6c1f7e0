#include "app/gui/LossCurvesView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "app/gui/ControlWidgets.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

LossCurvesView::LossCurvesView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::LossCurvesFigure>()) {
    view_ = new PlotView(static_cast<PlotChart*>(figure_->charts().front()), this);
    jobs_ = new JobRunner<figures::LossCurvesFigure::Answer>([this](figures::LossCurvesFigure::Answer answer) {
        figure_->take(std::move(answer));
        drawnAt_ = ~std::uint64_t{0};
        redraw();
    }, this);
    controls_ = new ControlBinding(&figure_->controls(), [this] {
        computedAt_ = ~std::uint64_t{0};  // another axis: the curves are gathered again
        recompute();
    }, this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    auto* top = new QHBoxLayout();
    top->addWidget(new QLabel(figure_->controls().at(QStringLiteral("axis")).label, this));
    top->addWidget(controls_->make(QStringLiteral("axis"), this));
    top->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(view_, 1);
    layout->addWidget(summary_);
    // Opening a project emits several of these: the curves are gathered and drawn once.
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged})
        connect(session_, signal, this, [this] {
            if (session_->changeCount() != computedAt_) recompute();
        });
    for (auto signal : {&Session::selectionChanged, &Session::curvesChanged, &Session::styleChanged})
        connect(session_, signal, this, [this] {
            if (session_->changeCount() != drawnAt_) redraw();
        });
    recompute();
}

LossCurvesView::~LossCurvesView() = default;

QStringList LossCurvesView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    computedAt_ = ~std::uint64_t{0};
    recompute();
    return notes;
}

void LossCurvesView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;
    computedAt_ = session_->changeCount();
    jobs_->start(figure_->job(figureInput(session_)));
    if (session_->runs().rowCount() < kDrawAtOnceRows) jobs_->finish();
}

QChart* LossCurvesView::primaryChart() const { return figure_->charts().front(); }

void LossCurvesView::redraw() {
    if (jobs_->running() || deferWhileHidden([this] { redraw(); })) return;  // drawn when the curves come
    figure_->draw(figureInput(session_));
    drawnAt_ = session_->changeCount();
    summary_->setText(figure_->summary());
    emit explainChanged();
}

QString LossCurvesView::explainHtml() const {
    return tr("<h3>Loss curves</h3>"
              "<p>The validation loss logged at checkpoints along each run's training, over the tokens seen (D) or the "
              "compute spent (C, as the run table gives or derives it). Both axes are logarithmic.</p>"
              "<p>Scaling-law fits use finished runs: the end of each curve. Intermediate checkpoints of a run with a "
              "learning-rate schedule tied to its length are not finished runs of a shorter length.</p>"
              "<p>Now: %1 curves, %2 checkpoints.</p>")
        .arg(figure_->curveCount())
        .arg(figure_->checkpointCount());
}

}  // namespace scalex::gui
