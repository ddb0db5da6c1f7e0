#include "app/gui/ContextView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSlider>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

#include "app/gui/FigureNames.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

namespace {
// The slider's grid (the figure's).
constexpr int kStepsPerOctave = figures::ContextFigure::kStepsPerOctave;
constexpr double kMinContext = figures::ContextFigure::kMinContext;
constexpr int kOctaves = figures::ContextFigure::kOctaves;
const QString kContext = QStringLiteral("context");
const QString kBudget = QStringLiteral("budget");
}  // namespace

ContextView::ContextView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::ContextFigure>()) {
    controls_ = new ControlBinding(&figure_->controls(), [this] { recompute(); }, this);
    auto* slider = static_cast<QSlider*>(controls_->make(kContext, this));
    slider->setTickPosition(QSlider::TicksBelow);
    slider->setTickInterval(kStepsPerOctave);
    slider->setPageStep(kStepsPerOctave);
    contextLabel_ = new QLabel(this);
    contextLabel_->setMinimumWidth(170);
    QFont big = contextLabel_->font();
    big.setPointSize(big.pointSize() + 3);
    big.setBold(true);
    contextLabel_->setFont(big);
    QWidget* budget = controls_->make(kBudget, this);
    numbers_ = new QLabel(this);
    numbers_->setTextFormat(Qt::RichText);
    numbers_->setWordWrap(true);  // a long line would set the window's minimum width

    // Tick labels under the slider, with the study's contexts marked.
    auto* marks = new QHBoxLayout();
    marks->setContentsMargins(0, 0, 0, 0);
    for (int o = 0; o <= kOctaves; ++o) {
        const double t = kMinContext * std::pow(2.0, o);
        const bool study = t == 2048 || t == 8192 || t == 16384;
        auto* l = new QLabel(t >= 1024 ? QString::number(t / 1024) + 'k' : QString::number(t), this);
        if (study) l->setText(QStringLiteral("<b>%1</b>▲").arg(l->text()));
        l->setAlignment(o == 0 ? Qt::AlignLeft : (o == kOctaves ? Qt::AlignRight : Qt::AlignHCenter));
        marks->addWidget(l, 1);
    }
    auto* sliderBox = new QVBoxLayout();
    sliderBox->addWidget(slider);
    sliderBox->addLayout(marks);
    // The context length and the budget one above the other, the slider beside them.
    auto* budgetRow = new QHBoxLayout();
    budgetRow->addWidget(new QLabel(figure_->controls().at(kBudget).label, this));
    budgetRow->addWidget(budget);
    auto* readout = new QVBoxLayout();
    readout->addWidget(contextLabel_);
    readout->addLayout(budgetRow);
    auto* top = new QHBoxLayout();
    top->addLayout(readout);
    top->addSpacing(12);
    top->addLayout(sliderBox, 1);

    const std::vector<QChart*> charts = figure_->charts();
    lawView_ = new PlotView(static_cast<PlotChart*>(charts[0]), this);
    trendView_ = new PlotView(static_cast<PlotChart*>(charts[1]), this);
    auto* chartRow = new QHBoxLayout();
    chartRow->addWidget(lawView_, 1);
    chartRow->addWidget(trendView_, 1);
    stackWhenNarrow(chartRow);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(chartRow, 1);
    layout->addWidget(numbers_);

    jobs_ = new JobRunner<figures::ContextFigure::Answer>([this](figures::ContextFigure::Answer answer) {
        figure_->take(std::move(answer));
        redraw();
    }, this);
    // The profiles are refitted when the view is next shown (a recompute alone waits too).
    auto refit = [this] {
        figure_->refitProfiles();
        if (!deferWhileHidden([this] { recompute(); }, 1)) recompute();
    };
    connect(session_, &Session::settingsChanged, this, refit);
    connect(session_, &Session::runsChanged, this, refit);
    connect(session_, &Session::specsChanged, this, refit);  // a ladder per spec
    connect(session_, &Session::styleChanged, this, [this] {
        if (jobs_->running()) return;  // drawn when the answer comes
        if (!deferWhileHidden([this] { redraw(); }, -1)) redraw();
    });
    recompute();
}

ContextView::~ContextView() = default;

QChart* ContextView::primaryChart() const { return figure_->charts().front(); }
std::vector<QChart*> ContextView::charts() const { return figure_->charts(); }

void ContextView::setContext(double t) {
    const int position = std::clamp(positionOf(t), 0, figures::ContextFigure::positions() - 1);
    if (contextAt(position) != context()) {
        figure_->controls().set(kContext, contextAt(position));
        controls_->showAll();
        recompute();
    }
    computeNow();
}

QStringList ContextView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    recompute();
    return notes;
}

void ContextView::recompute() {
    contextLabel_->setText(tr("T = %1").arg(QLocale().toString(static_cast<qlonglong>(context()))));
    jobs_->start(figure_->job(figureInput(session_)));  // a newer query replaces the running one
}

void ContextView::computeNow() { jobs_->finish(); }

void ContextView::redraw() {
    figure_->draw(figureInput(session_));
    numbers_->setText(figure_->summary());
    emit explainChanged();
}

std::vector<ViewTable> ContextView::tables() {
    computeNow();
    return figure_->tablesJob(figureInput(session_))(fit::FitControl{});
}

QString ContextView::explainHtml() const {
    const double T = context();
    return tr("<h3>Context length and the compute-optimal model</h3>"
              "<p>Training compute is C = c<sub>T</sub>(N)·D: FLOPs per token times tokens. For a Transformer, "
              "attention adds about 6·n<sub>layer</sub>·T·d<sub>model</sub> FLOPs per token (training), which "
              "grows with the context length T; the mLSTM's cell does not grow with T.</p>"
              "<p>For a fixed budget H, the best model minimises the loss surface L̂(N, D) on the line "
              "c<sub>T</sub>(N)·D = H. When T grows, every Transformer token becomes more expensive, the "
              "line moves, and the optimum shifts to <b>smaller Transformers</b>. The xLSTM optimum "
              "stays put.</p>"
              "<p>Now: T = %1, H = %2. N*: Transformer %3, xLSTM %4.</p>"
              "<p>FLOPs are counted with the <b>%5</b> convention through the study's model configurations; "
              "the loss surfaces: Transformer %6; xLSTM %7. Dotted lines (left) and hollow squares "
              "(right): the paper's own IsoFLOP laws at 2048, 8192 and 16384 tokens; hollow circles (left): "
              "the study's IsoFLOP runs with their compute recounted at T.</p>")
        .arg(T)
        .arg(formatTickValue(budget()), formatCount(optimalParams(false)), formatCount(optimalParams(true)), QString::fromStdString(session_->settings().convention),
             figure_->surfaceNote(false).toHtmlEscaped(), figure_->surfaceNote(true).toHtmlEscaped());
}

}  // namespace scalex::gui
