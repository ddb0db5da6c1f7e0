#include "app/gui/LawsView.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QScrollBar>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/gui/FlowLayout.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

using figures::LawsFigure;

namespace {

QLabel* errorLabel(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #c0392b"));
    label->hide();
    return label;
}

void showError(QLabel* label, const QString& text) {
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

}  // namespace

LawsView::LawsView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<LawsFigure>()) {
    controls_ = new ControlBinding(&figure_->controls(), [this] { controlChanged(); }, this);
    const figures::Controls& c = figure_->controls();
    // One row per law: the law, its formula and parameters, and the error under them.
    auto* laws = new QGridLayout();
    for (int k = 0; k < LawsFigure::kLaws; ++k) {
        laws->addWidget(new QLabel(c.at(LawsFigure::lawKey(k)).label, this), 2 * k, 0);
        laws->addWidget(controls_->make(LawsFigure::lawKey(k), this), 2 * k, 1);
        for (const auto& [name, column] : {std::pair{LawsFigure::formulaKey(k), 2}, std::pair{LawsFigure::paramsKey(k), 3}}) {
            auto* edit = static_cast<QLineEdit*>(controls_->make(name, this));
            edit->setPlaceholderText(c.at(name).label);
            connect(edit, &QLineEdit::textEdited, this, [this, edit] { checkTyping(edit); });
            laws->addWidget(edit, 2 * k, column);
        }
        lawErrors_[static_cast<std::size_t>(k)] = errorLabel(this);
        laws->addWidget(lawErrors_[static_cast<std::size_t>(k)], 2 * k + 1, 2, 1, 2);
    }
    laws->setColumnStretch(2, 3);
    laws->setColumnStretch(3, 2);
    auto* settings = new FlowLayout();
    for (const char* name : {"loss", "space", "starts", "resamples", "split", "train", "test", "group", "axis"}) {
        QWidget* w = controls_->make(QLatin1String(name), this);
        if (auto* edit = qobject_cast<QLineEdit*>(w)) {
            edit->setMinimumWidth(edit->fontMetrics().horizontalAdvance(QStringLiteral("N<1e9, D<1e11")) + 12);
            connect(edit, &QLineEdit::textEdited, this, [this, edit] { checkTyping(edit); });
        }
        settings->addLabelled(c.at(QLatin1String(name)).label, w);
    }
    splitError_ = errorLabel(this);
    auto* charts = new QHBoxLayout();
    const std::vector<QChart*> figureCharts = figure_->charts();
    for (int k = 0; k < 2; ++k) {
        views_[k] = new PlotView(static_cast<PlotChart*>(figureCharts[static_cast<std::size_t>(k)]), this);
        charts->addWidget(views_[k], 1);
    }
    stackWhenNarrow(charts);
    note_ = new QLabel(this);
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("lawTable"));
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(laws);
    layout->addLayout(settings);
    layout->addWidget(splitError_);
    layout->addLayout(charts, 1);
    layout->addWidget(note_);
    layout->addWidget(table_);
    jobs_ = new JobRunner<figures::LawsFigure::Answer>([this](figures::LawsFigure::Answer answer) {
        figure_->take(std::move(answer));
        redraw();
    }, this);
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged}) connect(session_, signal, this, &LawsView::recompute);
    for (auto signal : {&Session::selectionChanged, &Session::styleChanged}) connect(session_, signal, this, &LawsView::redraw);
    recompute();
}

LawsView::~LawsView() = default;

QChart* LawsView::primaryChart() const { return figure_->charts().front(); }
std::vector<QChart*> LawsView::charts() const { return figure_->charts(); }

QJsonObject LawsView::fitValues() const {
    QJsonObject v = figure_->controls().values();
    v.remove(QStringLiteral("axis"));
    return v;
}

QStringList LawsView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    controlChanged();
    return notes;
}

void LawsView::controlChanged() {
    if (fitValues() != fitted_) recompute();
    else redraw();
}

void LawsView::checkTyping(QLineEdit* edit) {
    // The field's text into its control, so that the check reads it; the fit waits for Enter.
    figure_->controls().set(edit->objectName(), edit->text());
    figure_->refresh(figureInput(session_));
    showErrors();
}

void LawsView::showErrors() {
    for (int k = 0; k < LawsFigure::kLaws; ++k) showError(lawErrors_[static_cast<std::size_t>(k)], figure_->lawError(k));
    showError(splitError_, figure_->splitError());
}

QString LawsView::lawErrorText(int k) const { return lawErrors_[static_cast<std::size_t>(k)]->text(); }
QString LawsView::splitErrorText() const { return splitError_->text(); }

void LawsView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;
    const figures::FigureInput in = figureInput(session_);
    figure_->refresh(in);
    controls_->showAll();
    showErrors();
    fitted_ = fitValues();
    note_->setText(tr("Fitting the laws…"));
    jobs_->start(figure_->job(in));
}

void LawsView::computeNow() { jobs_->finish(); }

void LawsView::redraw() {
    if (jobs_->running() || deferWhileHidden([this] { redraw(); })) return;  // drawn when the fits are done
    figure_->draw(figureInput(session_));
    controls_->showAll();
    showErrors();
    note_->setText(figure_->summary());
    // The laws side by side, as the exported table has them (numbers rounded for the screen).
    std::vector<analysis::NamedLawAnalysis> shown = figure_->shown();
    const data::ExportTable t = analysis::lawComparisonTable(shown);
    table_->clear();
    table_->setColumnCount(static_cast<int>(t.columns.size()));
    QStringList headers;
    for (const auto& col : t.columns) headers << QString::fromStdString(col.key);
    table_->setHorizontalHeaderLabels(headers);
    table_->setRowCount(static_cast<int>(t.rows.size()));
    for (int r = 0; r < static_cast<int>(t.rows.size()); ++r)
        for (int col = 0; col < static_cast<int>(t.columns.size()); ++col) {
            const auto& cell = t.rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(col)];
            QString text;
            if (const auto* s = std::get_if<std::string>(&cell)) text = QString::fromStdString(*s);
            else if (const auto* d = std::get_if<double>(&cell)) text = QString::number(*d, 'g', 5);
            table_->setItem(r, col, new QTableWidgetItem(text));
        }
    // The header and a row per law, whole, however short the window (rows as tall as the style makes them).
    table_->resizeRowsToContents();
    const int row = table_->rowCount() > 0 ? table_->verticalHeader()->sectionSize(0) : table_->verticalHeader()->defaultSectionSize();
    table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() + LawsFigure::kLaws * row + 2 * table_->frameWidth() +
                           table_->horizontalScrollBar()->sizeHint().height());
    emit explainChanged();
}

std::vector<ViewTable> LawsView::tables() { return tablesJob()(fit::FitControl{}); }

ViewPanel::TablesJob LawsView::tablesJob() {
    computeNow();
    return figure_->tablesJob(figureInput(session_));
}

QString LawsView::explainHtml() const { return figures::figureEntry(viewId())->explain(*figure_, figureInput(session_)); }

}  // namespace scalex::gui
