#include "app/gui/OverTrainingView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"
#include "core/data/Series.h"

namespace scalex::gui {

// --- Over-training --------------------------------------------------------------------------------

OverTrainingView::OverTrainingView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::OverTrainingFigure>()) {
    controls_ = new ControlBinding(&figure_->controls(), [this] { redraw(); }, this);
    auto* charts = new QHBoxLayout();
    auto* choices = new QHBoxLayout();
    const std::vector<QChart*> figureCharts = figure_->charts();
    for (int k = 0; k < 2; ++k) {
        views_[k] = new PlotView(static_cast<PlotChart*>(figureCharts[static_cast<std::size_t>(k)]), this);
        charts->addWidget(views_[k], 1);
        const QString name = k == 0 ? QStringLiteral("series") : QStringLiteral("series2");
        QWidget* series = controls_->make(name, this);
        if (auto* box = qobject_cast<QComboBox*>(series)) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        choices->addWidget(new QLabel(figure_->controls().at(name).label, this));
        choices->addWidget(series);
    }
    choices->addWidget(new QLabel(figure_->controls().at(QStringLiteral("context")).label, this));
    choices->addWidget(controls_->make(QStringLiteral("context"), this));
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
    jobs_ = new JobRunner<figures::OverTrainingFigure::Answer>([this](figures::OverTrainingFigure::Answer answer) {
        figure_->take(std::move(answer));
        redraw();
    }, this);
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged}) connect(session_, signal, this, &OverTrainingView::recompute);
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &OverTrainingView::redraw);
    recompute();
}

OverTrainingView::~OverTrainingView() = default;

QStringList OverTrainingView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    redraw();  // or when the analyses under way are done
    return notes;
}

void OverTrainingView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;
    // The series to choose from are the study's already; what is drawn comes with the analyses.
    figure_->refresh(figureInput(session_));
    controls_->showAll();
    note_->setText(tr("Fitting the power laws…"));
    jobs_->start(figure_->job(figureInput(session_)));
}

void OverTrainingView::computeNow() { jobs_->finish(); }

QChart* OverTrainingView::primaryChart() const { return figure_->charts().front(); }
std::vector<QChart*> OverTrainingView::charts() const { return figure_->charts(); }

void OverTrainingView::redraw() {
    if (jobs_->running() || deferWhileHidden([this] { redraw(); })) return;  // drawn when the analyses are done
    figure_->draw(figureInput(session_));
    controls_->showAll();
    note_->setText(figure_->summary());
    const QStringList& headers = figure_->panelHeaders();
    const auto& rows = figure_->panelRows();
    table_->setColumnCount(static_cast<int>(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(static_cast<int>(rows.size()));
    for (int r = 0; r < static_cast<int>(rows.size()); ++r)
        for (int c = 0; c < rows[static_cast<std::size_t>(r)].size(); ++c)
            table_->setItem(r, c, new QTableWidgetItem(rows[static_cast<std::size_t>(r)][c]));
    emit explainChanged();
}

std::vector<ViewTable> OverTrainingView::tables() { return tablesJob()(fit::FitControl{}); }

ViewPanel::TablesJob OverTrainingView::tablesJob() {
    computeNow();  // the analyses shown
    return figure_->tablesJob(figureInput(session_));
}

QString OverTrainingView::explainHtml() const {
    QString etas;
    for (int k = 0; k < 2; ++k)
        if (const auto& shown = figure_->shown(k))
            for (const auto& g : shown->result.groups)
                if (g.fitted && (g.ratio == 22 || g.ratio == 2200))
                    etas += tr("%1, M = %2: η = %3<br>").arg(QString::fromStdString(data::seriesLabel(shown->group.series))).arg(g.ratio).arg(g.eta, 0, 'f', 3);
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
