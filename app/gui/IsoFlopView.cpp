#include "app/gui/IsoFlopView.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "app/gui/FlowLayout.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"
#include "core/data/Export.h"

namespace scalex::gui {

IsoFlopView::IsoFlopView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::IsoFlopFigure>()) {
    profileView_ = new PlotView(figure_->profileChart(), this);
    lawView_ = new PlotView(figure_->lawChart(), this);
    controls_ = new ControlBinding(&figure_->controls(), [this] { controlChanged(); }, this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    // Pick any budget: its profile (from the laws and the fitted curvatures) and optimum move with it.
    budgetValue_ = new QLabel(this);
    budgetValue_->setMinimumWidth(budgetValue_->fontMetrics().horizontalAdvance(QStringLiteral("H = 3.16e22")) + 6);
    auto* pickRow = new QHBoxLayout();
    pickRow->addWidget(controls_->make(QStringLiteral("pick"), this));
    pickRow->addWidget(controls_->make(QStringLiteral("budget"), this), 1);
    pickRow->addWidget(budgetValue_);
    // The controls wrap onto a second line on a narrow window.
    auto* controls = new FlowLayout();
    const figures::Controls& c = figure_->controls();
    for (const char* name : {"panels", "family", "context", "axis", "law", "range"})
        controls->addLabelled(c.at(QLatin1String(name)).label, controls_->make(QLatin1String(name), this));
    chartRow_ = new QHBoxLayout();
    chartRow_->addWidget(profileView_, 1);
    chartRow_->addWidget(lawView_, 1);
    stackWhenNarrow(chartRow_, 420);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(chartRow_, 1);
    layout->addLayout(pickRow);
    layout->addWidget(summary_);
    bands_ = new JobRunner<figures::IsoFlopFigure::Bands>([this](figures::IsoFlopFigure::Bands answer) {
        figure_->takeBands(std::move(answer));
        redraw();
    }, this);
    fits_ = new JobRunner<figures::IsoFlopFigure::Answer>([this](figures::IsoFlopFigure::Answer answer) {
        figure_->take(std::move(answer));
        addContextViews();
        redraw();
        // The bootstrap bands of the laws, off the UI thread too.
        if (figures::JobOf<figures::IsoFlopFigure::Bands> job = figure_->bandsJob()) bands_->start(std::move(job));
    }, this);
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged}) connect(session_, signal, this, &IsoFlopView::recompute);
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &IsoFlopView::redraw);
    recompute();
}

IsoFlopView::~IsoFlopView() = default;

QChart* IsoFlopView::primaryChart() const { return figure_->profileChart(); }
std::vector<QChart*> IsoFlopView::charts() const { return figure_->charts(); }

QStringList IsoFlopView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    controlChanged();
    return notes;
}

void IsoFlopView::controlChanged() {
    if (figure_->fitControls() != fitControls_) recompute();
    else redraw();
}

void IsoFlopView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;  // the fits too, when the view is next shown
    const figures::FigureInput in = figureInput(session_);
    figure_->refresh(in);  // the series with runs now
    controls_->showAll();
    fitControls_ = figure_->fitControls();
    bands_->cancel();  // the bands of the fits replaced
    summary_->setText(tr("Fitting the IsoFLOP profiles…"));
    fits_->start(figure_->job(in));
}

void IsoFlopView::addContextViews() {
    const auto& charts = figure_->contextCharts();
    for (std::size_t i = contextViews_.size(); i < charts.size(); ++i) {
        auto* view = new PlotView(charts[i], this);
        view->setVisible(false);
        chartRow_->addWidget(view, 1);
        contextViews_.push_back(view);
    }
}

void IsoFlopView::computeNow() {
    fits_->finish();
    bands_->finish();
    QCoreApplication::processEvents();
}

std::vector<ViewTable> IsoFlopView::tables() {
    computeNow();  // the fits and the bootstrap intervals
    return tablesJob()(fit::FitControl{});
}

ViewPanel::TablesJob IsoFlopView::tablesJob() {
    fits_->finish();  // the tables are those of the fits asked for last
    return figure_->tablesJob(figureInput(session_));
}

void IsoFlopView::redraw() {
    figure_->enableControls();
    controls_->showAll();
    budgetValue_->setText(tr("H = %1").arg(QString::fromStdString(data::formatScientific(figure_->controls().number(QStringLiteral("budget"))))));
    if (fits_->running() || deferWhileHidden([this] { redraw(); })) return;  // drawn when the fits are done
    figure_->draw(figureInput(session_));
    const bool contexts = figure_->contextsLayout();
    profileView_->setVisible(!contexts);
    lawView_->setVisible(!contexts);
    const std::size_t shown = contexts ? figure_->charts().size() : 0;
    for (std::size_t i = 0; i < contextViews_.size(); ++i) contextViews_[i]->setVisible(i < shown);
    summary_->setText(figure_->summary());
    emit explainChanged();
}

QString IsoFlopView::explainHtml() const {
    const auto& t = result(false);
    const auto& x = result(true);
    auto law = [](const std::optional<fit::PowerLaw>& l) {
        return l ? QStringLiteral("%1·H<sup>%2</sup>").arg(l->coefficient, 0, 'g', 3).arg(l->exponent, 0, 'f', 3) : QStringLiteral("—");
    };
    return tr("<h3>IsoFLOP profiles</h3>"
              "<p>Train many models with the <b>same compute budget H</b> but different sizes: small models see "
              "many tokens, large ones few. The loss over log N is a valley; a parabola through it gives the "
              "best size N* for that budget (red points). The same over log D gives D*.</p>"
              "<p>Repeating this for several budgets and fitting straight lines on log-log axes gives the "
              "compute-optimal scaling laws</p>"
              "<p style='font-size:large'>N*(H) = A'·H<sup>a</sup>, &nbsp; D*(H) = B'·H<sup>b</sup></p>"
              "<p>Now: %1. Shaded: 95&nbsp;% bootstrap bands over runs.</p>")
        .arg([&] {
            QStringList now;  // only the series the view has a law for
            if (t.nOptLaw) now << tr("%1 N* = %2").arg(figure_->seriesLabel(0), law(t.nOptLaw));
            if (x.nOptLaw) now << tr("%1 N* = %2").arg(figure_->seriesLabel(1), law(x.nOptLaw));
            return now.isEmpty() ? tr("no power law yet (it needs profiles at two budgets or more)") : now.join(QStringLiteral("; "));
        }());
}

}  // namespace scalex::gui
