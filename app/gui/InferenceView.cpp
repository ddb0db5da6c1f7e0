#include "app/gui/InferenceView.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "app/gui/FlowLayout.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

namespace {

// Charts beside each other are stacked below a width of this (at the normal font) each: a
// narrower chart cuts its title and legend short.
constexpr int kMinChartWidth = 350;

}  // namespace

InferenceView::InferenceView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::InferenceFigure>()) {
    const std::vector<QChart*> charts = figure_->charts();
    PlotChart* plots[3] = {static_cast<PlotChart*>(charts[0]), static_cast<PlotChart*>(charts[1]),
                           static_cast<PlotChart*>(figure_->utilisationChart())};
    for (int i = 0; i < 3; ++i) {
        views_[i] = new PlotView(plots[i], this);
        // A chart view's size hint is the size it last had: taken at its word, a chart the view
        // once stacked (and made tall) keeps the page taller than the window after unstacking.
        views_[i]->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    }
    controls_ = new ControlBinding(&figure_->controls(), [this] { controlsChanged(); }, this);
    const figures::Controls& c = figure_->controls();
    load_ = new QPushButton(tr("Load measurements…"), this);
    answer_ = new QLabel(this);
    answer_->setWordWrap(true);
    answer_->setTextFormat(Qt::RichText);
    status_ = new QLabel(this);
    status_->setWordWrap(true);

    // The controls wrap onto more lines on a narrow window; every choice stays whole.
    auto* controls = new FlowLayout();
    for (const QString name : {"stage", "batch", "transformer", "xlstm", "accelerator"})
        controls->addLabelled(c.at(name).label, controls_->make(name, this));
    controls->addWidget(load_);

    auto* form = new QFormLayout();
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    for (const QString name : {"budget", "prefill", "factor", "loss"}) form->addRow(c.at(name).label, controls_->make(name, this));
    auto* deployBox = new QWidget(this);
    auto* deploy = new QVBoxLayout(deployBox);
    deploy->setContentsMargins(0, 0, 0, 0);
    deploy->addWidget(new QLabel(tr("<b>Deployment questions</b>"), this));
    deploy->addLayout(form);
    deploy->addWidget(answer_);
    deploy->addStretch(1);

    // The two families side by side, equally wide, and below them the utilisation and the
    // deployment questions; on a narrow window (presentation mode at 1024 px) each row stacks.
    auto* models = new QHBoxLayout();
    models->addWidget(views_[0], 1);
    models->addWidget(views_[1], 1);
    auto* lower = new QHBoxLayout();
    lower->addWidget(views_[2], 1);
    // The questions scroll rather than take height from the charts above (presentation fonts).
    auto* deployScroll = new QScrollArea(this);
    deployScroll->setWidget(deployBox);
    deployScroll->setWidgetResizable(true);
    deployScroll->setFrameShape(QFrame::NoFrame);
    deployScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    lower->addWidget(deployScroll, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(models, 1);
    layout->addLayout(lower, 1);
    layout->addWidget(status_);
    stackWhenNarrow(models, kMinChartWidth);
    stackWhenNarrow(lower, kMinChartWidth);
    for (PlotChart* chart : plots)
        connect(chart, &QChart::plotAreaChanged, this, [chart] { chart->thinTickLabels(); }, Qt::QueuedConnection);

    connect(load_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load inference measurements"), QString(), tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !loadMeasurements(path, &error)) status_->setText(error);
    });
    // A project opened brings its own measurements, or none.
    connect(session_, &Session::inferenceChanged, this, &InferenceView::refit);
    for (auto signal : {&Session::specsChanged, &Session::styleChanged}) connect(session_, signal, this, &InferenceView::redraw);
    refit();
}

QChart* InferenceView::primaryChart() const { return figure_->charts().front(); }
std::vector<QChart*> InferenceView::charts() const { return figure_->charts(); }

QStringList InferenceView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    controlsChanged();
    return notes;
}

void InferenceView::controlsChanged() {
    if (figure_->controls().choice(QStringLiteral("loss")) != fittedWith_) refit();
    else redraw();
}

std::vector<ViewTable> InferenceView::tables() { return figure_->tablesJob(figureInput(session_))(fit::FitControl{}); }

bool InferenceView::loadMeasurements(const QString& path, QString* error) {
    auto set = data::loadProjectInference(path, QFileInfo(path).completeBaseName().toStdString());
    if (!set) {
        if (error) *error = QString::fromStdString(set.error().toString());
        return false;
    }
    // The measurements belong to the project (saved with it); the view shows them from there.
    session_->setInference(std::move(*set));
    return true;
}

void InferenceView::refit() {
    const figures::FigureInput in = figureInput(session_);
    figure_->refresh(in);
    fittedWith_ = figure_->controls().choice(QStringLiteral("loss"));
    figure_->compute(in);
    if (const auto& data = figure_->measurements())
        status_->setText(tr("%1: %2 points of %3 models")
                             .arg(QString::fromStdString(session_->inferenceSets().front().name))
                             .arg(data->points.size())
                             .arg(data->models.size()));
    else
        status_->clear();
    redraw();
}

void InferenceView::redraw() {
    figure_->draw(figureInput(session_));
    controls_->showAll();
    answer_->setText(figure_->deploymentAnswer());
    // The views rearrange a legend when the plot changes size; new entries in a legend of one row
    // (one batch size, then the eight models of Fig. 6) leave it as it was. Queued: the legend
    // shows its new entries once it has laid them out.
    for (PlotView* v : views_) QMetaObject::invokeMethod(v, [v] { v->arrangeLegend(); }, Qt::QueuedConnection);
    emit explainChanged();
}

QString InferenceView::deploymentAnswer() const { return answer_->text(); }

QString InferenceView::explainHtml() const {
    return tr("<h3>Inference runtimes</h3>"
              "<p><b>Prefill</b> reads the prompt and builds the cache; it multiplies large matrices and is "
              "compute-bound: TTFT = FLOPs / α<sub>eff</sub> + ε.</p>"
              "<p><b>Generation</b> produces one token per step; each step streams the weights (and, for a "
              "Transformer, its whole KV cache) from memory: step = bytes / β<sub>eff</sub> + ε.</p>"
              "<p>The Transformer's step time grows with the prefill length because its KV cache grows; the "
              "xLSTM's state has a fixed size, so its step time stays flat.</p>"
              "<p>α<sub>eff</sub>/α<sub>acc</sub> is the share of the accelerator's peak that a model attains; "
              "larger models use the hardware better.</p>"
              "<p><i>TTFT and step time (Fig. 6)</i> draws both stages for several model sizes at once, "
              "colour by size, Transformers solid (Llama 3 dotted) and xLSTMs dashed, as the paper's Fig. 6.</p><p>%1</p>")
        .arg(measurements() ? tr("Fitted to %1 measured points.").arg(measurements()->points.size())
                   : tr("No measurements loaded: curves use %1&nbsp;% of the accelerator's FLOP/s and %2&nbsp;% of its bandwidth "
                        "(the roofline bound). Load the study's inference_results CSV to see measured points and fits.")
                         .arg(100 * figure_->options().alphaFraction)
                         .arg(100 * figure_->options().betaFraction));
}

}  // namespace scalex::gui
