#include "app/gui/FigureView.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtCharts/QChartView>
#include <algorithm>

#include "app/gui/FlowLayout.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"

namespace scalex::gui {

using figures::Control;

namespace {

// A chart view whose height hint is its minimum height rather than the height it last had: the
// layout of a page of charts (its height, when it scrolls) is then the same whether the charts
// came before the window showed or after, as on a busy machine.
class SteadyPlotView : public PlotView {
public:
    // Tick labels that would run into each other on a narrow chart (beside a form, stacked on a
    // projector) are thinned by the chart itself (PlotChart::thinTickLabels).
    SteadyPlotView(PlotChart* chart, QWidget* parent) : PlotView(chart, parent) {}
    QSize sizeHint() const override { return {PlotView::sizeHint().width(), minimumHeight()}; }
};

// `t` into `table`: its headers, rows (colours, tooltips, a short row's last cell spanning the rest)
// and height (`layoutRows`: the layout's rows tall for a table that names none, ViewLayout::tableRows).
void fillShownTable(QTableWidget* table, const figures::ViewFigure::ShownTable& t, int layoutRows) {
    table->clearSpans();
    table->clearContents();
    table->setColumnCount(static_cast<int>(t.headers.size()));
    table->setHorizontalHeaderLabels(t.headers);
    for (int col = 0; col < t.headerTips.size() && col < t.headers.size(); ++col)
        if (QTableWidgetItem* header = table->horizontalHeaderItem(col)) header->setToolTip(t.headerTips[col]);
    table->setRowCount(static_cast<int>(t.rows.size()));
    for (int r = 0; r < static_cast<int>(t.rows.size()); ++r) {
        const figures::ViewFigure::ShownRow& row = t.rows[static_cast<std::size_t>(r)];
        for (int col = 0; col < row.cells.size(); ++col) {
            auto* item = new QTableWidgetItem(row.cells[col]);
            const bool spans = col + 1 == row.cells.size() && row.cells.size() < t.headers.size();
            if (t.numbers) item->setTextAlignment((col == 0 || spans ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
            if (col == 0 && row.color.isValid()) item->setForeground(row.color);
            if (!row.toolTip.isEmpty()) item->setToolTip(row.toolTip);
            table->setItem(r, col, item);
            if (spans) table->setSpan(r, col, 1, static_cast<int>(t.headers.size()) - col);
        }
    }
    // A table of so many rows, or as the layout says; else at most 220 pixels with stretched columns.
    const bool rowsTall = t.visibleRows >= 0 || layoutRows > 0;
    QHeaderView* header = table->horizontalHeader();
    header->setSectionResizeMode(t.numbers || rowsTall ? QHeaderView::ResizeToContents : QHeaderView::Stretch);
    header->setStretchLastSection(t.numbers || rowsTall);
    if (!rowsTall) {
        table->setMaximumHeight(220);
        return;
    }
    // Rows tall: the layout's count (room kept for rows to come), every row, or at most so many; the
    // header and those rows whole, however short the window (rows as tall as the style makes them).
    const int rows = t.visibleRows < 0   ? layoutRows
                     : t.visibleRows == 0 ? std::max(1, table->rowCount())
                                          : std::min(t.visibleRows, std::max(1, table->rowCount()));
    table->resizeRowsToContents();
    const int rowHeight = table->rowCount() > 0 ? table->verticalHeader()->sectionSize(0) : table->verticalHeader()->defaultSectionSize();
    const int height = header->sizeHint().height() + rows * rowHeight + 2 * table->frameWidth() + table->horizontalScrollBar()->sizeHint().height();
    if (t.visibleRows > 0) table->setMaximumHeight(height);
    else table->setFixedHeight(height);
}

}  // namespace

FigureView::FigureView(const figures::FigureEntry& entry, Session* session, QWidget* parent)
    : ViewPanel(parent), entry_(entry), session_(session), figure_(entry.make()) {
    controls_ = new ControlBinding(&figure_->controls(), [this] { controlChanged(); }, this);
    buildLayout();
    followUps_ = new JobRunner<figures::ViewFigure::Taking>([this](figures::ViewFigure::Taking take) {
        take();
        redraw();
    }, this);
    afterDraw_ = new JobRunner<figures::ViewFigure::Taking>([this](figures::ViewFigure::Taking take) {
        take();
        showSummary(figure_->summary());
        emit explainChanged();
    }, this);
    jobs_ = new JobRunner<figures::ViewFigure::Taking>([this](figures::ViewFigure::Taking take) {
        take();
        redraw();
        if (figures::JobOf<figures::ViewFigure::Taking> next = figure_->followUpJob()) followUps_->start(std::move(next));
    }, this);
    // The project's specs are ladders (context), bars (breakdown) and operating points (roofline).
    for (auto signal : {&Session::runsChanged, &Session::settingsChanged, &Session::specsChanged})
        connect(session_, signal, this, [this] {
            studyAt_ = session_->changeCount();
            figure_->studyChanged();
            recompute();
        });
    // Measurements loaded (a project opened has asked for the analyses again already).
    connect(session_, &Session::inferenceChanged, this, [this] {
        if (session_->changeCount() != studyAt_) recompute();
    });
    for (auto signal : {&Session::selectionChanged, &Session::curvesChanged, &Session::styleChanged})
        connect(session_, signal, this, [this, signal] {
            if (signal == &Session::curvesChanged && figure_->analysesReadCurves()) return recompute();
            // Opening a project emits each of these once: the figure is drawn once (a million
            // checkpoints take a quarter of a second to draw).
            if (session_->changeCount() != drawnAt_) redraw();
        });
    recompute();
}

FigureView::~FigureView() = default;

void FigureView::buildLayout() {
    const figures::ViewLayout& layout = entry_.layout;
    const figures::Controls& c = figure_->controls();
    auto make = [this](const QString& name, QWidget* parent) { return makeControl(name, parent); };
    QStringList inRows;
    for (const QStringList& row : layout.rows) inRows << row;
    // A check box carries its own text; other controls get theirs beside them.
    auto labelOf = [&](const QString& name) { return c.at(name).kind == Control::Kind::Switch ? QString() : c.at(name).label; };
    if (layout.side) {
        auto* row = new QHBoxLayout(this);
        row->addWidget(sideColumn(), 0);
        // Beside the controls: the tables, the charts, the tables under them.
        tablesAbove_ = new QVBoxLayout();
        tablesBelow_ = new QVBoxLayout();
        chartRow_ = new QHBoxLayout();
        auto* rightWidget = new QWidget(this);  // a widget: stacked under the controls on a narrow window
        auto* right = new QVBoxLayout(rightWidget);
        right->setContentsMargins(0, 0, 0, 0);
        right->addLayout(tablesAbove_);
        right->addLayout(chartRow_, 3);
        right->addLayout(tablesBelow_);
        row->addWidget(rightWidget, 1);
        showCharts();
        stackWhenNarrow(row, layout.stackWidth);  // the controls above the charts on a narrow window
        return;
    }
    std::vector<QStringList> groups = layout.groups;
    if (groups.empty())
        for (const Control& control : c.list())
            if (!layout.below.contains(control.name) && !layout.aside.contains(control.name) && !inRows.contains(control.name) &&
                control.name != layout.lead)
                groups.push_back({control.name});

    // The controls above the charts wrap onto more lines on a narrow window; under a leading
    // slider's read-out they are one row.
    QLayout* above = layout.lead.isEmpty() ? static_cast<QLayout*>(new FlowLayout()) : new QHBoxLayout();
    for (const QStringList& group : groups) {
        if (group.size() == 1) {
            const QString label = labelOf(group.front());
            QWidget* widget = make(group.front(), this);
            if (auto* flow = dynamic_cast<FlowLayout*>(above); flow && !label.isEmpty()) flow->addLabelled(label, widget);
            else {
                if (!label.isEmpty()) above->addWidget(new QLabel(label, this));
                above->addWidget(widget);
            }
            continue;
        }
        auto* box = new QWidget(this);
        auto* form = new QFormLayout(box);
        form->setContentsMargins(0, 0, 0, 0);
        for (const QString& name : group) form->addRow(labelOf(name), make(name, box));
        above->addWidget(box);
    }
    addActions(above);

    // A leading slider across the top: its read-out large above the other controls, beside it.
    QHBoxLayout* lead = nullptr;
    if (!layout.lead.isEmpty()) {
        auto* readout = new QLabel(figure_->readout(layout.lead), this);
        readout->setMinimumWidth(170);
        QFont big = readout->font();
        big.setPointSize(big.pointSize() + 3);
        big.setBold(true);
        readout->setFont(big);
        readouts_.emplace_back(layout.lead, readout);
        auto* column = new QVBoxLayout();
        column->addWidget(readout);
        column->addLayout(above);
        lead = new QHBoxLayout();
        lead->addLayout(column);
        lead->addSpacing(12);
        lead->addLayout(sliderWithScale(make(layout.lead, this), figure_->scale(layout.lead)), 1);
    }

    chartRow_ = new QHBoxLayout();
    if (layout.chartsPerRow > 0) {
        secondRow_ = new QHBoxLayout();
        if (!layout.aside.isEmpty()) secondRow_->addWidget(buildAside(), 1);
    }
    showCharts();
    stackWhenNarrow(chartRow_, layout.stackWidth);
    if (secondRow_) stackWhenNarrow(secondRow_, layout.stackWidth);

    // Controls under the charts (a slider stretched), each with its read-out.
    auto* below = new QHBoxLayout();
    for (const QString& name : layout.below) {
        below->addWidget(make(name, this), c.at(name).kind == Control::Kind::Value ? 1 : 0);
        if (const QString text = figure_->readout(name); !text.isEmpty()) {
            auto* readout = new QLabel(text, this);
            // Room for the longest value the slider shows, so the slider keeps its length.
            readout->setMinimumWidth(readout->fontMetrics().horizontalAdvance(text + QStringLiteral(".00")) + 6);
            below->addWidget(readout);
            readouts_.emplace_back(name, readout);
        }
    }

    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->hide();  // until the figure has something to say
    tablesAbove_ = tablesBelow_ = new QVBoxLayout();

    auto* column = new QVBoxLayout(this);
    if (!layout.rows.empty()) column->addLayout(buildRows());
    column->addLayout(lead ? static_cast<QLayout*>(lead) : above);
    if (layout.checkTyping) {
        QStringList grouped;
        for (const QStringList& group : groups) grouped << group;
        column->addWidget(problemLine(grouped, QStringLiteral("controlsProblem")));
    }
    column->addLayout(chartRow_, 1);
    if (secondRow_) column->addLayout(secondRow_, 1);
    if (!layout.below.isEmpty()) column->addLayout(below);
    else delete below;
    column->addWidget(summary_);
    column->addLayout(tablesAbove_);
    showTables();  // a figure's tables have their place before it draws (the window's height)
}

QWidget* FigureView::makeControl(const QString& name, QWidget* parent) {
    const figures::ViewLayout& layout = entry_.layout;
    QWidget* widget = nullptr;
    if (layout.sliders.contains(name)) {
        // A whole number on a slider, its read-out beside it.
        auto* slider = new QSlider(Qt::Horizontal, parent);
        slider->setObjectName(name);
        showControl(slider, figure_->controls().at(name));
        controls_->bind(slider);
        widget = slider;
    } else {
        widget = controls_->make(name, parent);
    }
    if (auto* box = qobject_cast<QComboBox*>(widget); box && layout.widestChoices) box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    if (auto* edit = qobject_cast<QLineEdit*>(widget); edit && !layout.fieldSample.isEmpty())
        edit->setMinimumWidth(edit->fontMetrics().horizontalAdvance(layout.fieldSample) + 12);
    checkWhileTyping(name, widget);
    return widget;
}

void FigureView::showTables() {
    const std::vector<figures::ViewFigure::ShownTable> shown = figure_->shownTables();
    for (std::size_t k = 0; k < shown.size(); ++k) {
        const figures::ViewFigure::ShownTable& t = shown[k];
        if (k == tables_.size()) {
            // Made where the figure first shows it (above or under the charts).
            QVBoxLayout* place = t.belowCharts ? tablesBelow_ : tablesAbove_;
            auto* title = new QLabel(this);
            title->setWordWrap(true);
            auto* table = new QTableWidget(this);
            table->verticalHeader()->setVisible(false);
            table->setEditTriggers(QAbstractItemView::NoEditTriggers);
            table->setAlternatingRowColors(t.numbers);
            auto* note = new QLabel(this);
            note->setWordWrap(true);
            note->setTextFormat(Qt::RichText);
            note->setTextInteractionFlags(Qt::TextSelectableByMouse);
            place->addWidget(title);
            place->addWidget(table, t.visibleRows > 0 ? 1 : 0);
            place->addWidget(note);
            tables_.push_back({title, table, note});
        }
        const TableWidgets& w = tables_[k];
        QTableWidget* table = w.table;
        table->setObjectName(t.name);
        w.title->setText(t.title.isEmpty() ? QString() : QStringLiteral("<b>%1</b>").arg(t.title.toHtmlEscaped()));
        w.title->setVisible(!t.title.isEmpty());
        w.note->setText(t.note);
        w.note->setVisible(!t.note.isEmpty());
        fillShownTable(table, t, entry_.layout.tableRows);
        table->setVisible(true);
    }
    for (std::size_t k = shown.size(); k < tables_.size(); ++k) {
        tables_[k].title->hide();
        tables_[k].table->hide();
        tables_[k].note->hide();
    }
}

QLayout* FigureView::buildRows() {
    const figures::Controls& c = figure_->controls();
    auto* grid = new QGridLayout();
    int r = 0;
    for (const QStringList& row : entry_.layout.rows) {
        grid->addWidget(new QLabel(c.at(row.front()).label, this), r, 0);
        for (int i = 0; i < row.size(); ++i) {
            QWidget* widget = controls_->make(row[i], this);
            if (auto* edit = qobject_cast<QLineEdit*>(widget)) edit->setPlaceholderText(c.at(row[i]).label);
            checkWhileTyping(row[i], widget);
            grid->addWidget(widget, r, 1 + i);
        }
        grid->addWidget(problemLine({row.front()}, row.front() + QStringLiteral("Problem")), r + 1, 2, 1, std::max(1, static_cast<int>(row.size()) - 1));
        r += 2;
    }
    // The first text field of a row (a formula) is the widest.
    grid->setColumnStretch(2, 3);
    grid->setColumnStretch(3, 2);
    return grid;
}

QLabel* FigureView::problemLine(const QStringList& names, const QString& objectName) {
    auto* label = new QLabel(this);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(QStringLiteral("color: #c0392b"));
    label->hide();
    problems_.emplace_back(names, label);
    return label;
}

void FigureView::checkWhileTyping(const QString& name, QWidget* widget) {
    auto* edit = qobject_cast<QLineEdit*>(widget);
    if (!edit || !entry_.layout.checkTyping) return;
    connect(edit, &QLineEdit::textEdited, this, [this, name, edit] {
        // The field's text into its control, so that the check reads it; the analyses wait for Enter.
        figure_->controls().set(name, edit->text());
        figure_->refresh(figureInput(session_));
        showProblems();
    });
}

void FigureView::showProblems() {
    for (const auto& [names, label] : problems_) {
        QStringList found;
        for (const QString& name : names)
            if (const QString problem = figure_->controlProblem(name); !problem.isEmpty() && !found.contains(problem)) found << problem;
        label->setText(found.join(QLatin1Char('\n')));
        label->setVisible(!found.isEmpty());
    }
}

QWidget* FigureView::buildAside() {
    auto* box = new QWidget(this);
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    if (!entry_.layout.asideTitle.isEmpty()) column->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(entry_.layout.asideTitle.toHtmlEscaped()), box));
    auto* form = new QFormLayout();
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    for (const QString& name : entry_.layout.aside) form->addRow(figure_->controls().at(name).label, controls_->make(name, box));
    column->addLayout(form);
    asideText_ = new QLabel(box);
    asideText_->setWordWrap(true);
    asideText_->setTextFormat(Qt::RichText);
    column->addWidget(asideText_);
    column->addStretch(1);
    // The controls scroll rather than take height from the charts (presentation fonts).
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(box);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

QWidget* FigureView::sideColumn() {
    const figures::Controls& c = figure_->controls();
    auto* side = new QWidget(this);
    auto* form = new QFormLayout();
    // In the order of the layout's groups, else the figure's.
    QStringList names;
    for (const QStringList& group : entry_.layout.groups) names += group;
    if (names.isEmpty())
        for (const Control& control : c.list()) names << control.name;
    // Labels above their fields where the layout asks (long labels): the fields get the column's width.
    if (entry_.layout.labelsAbove) {
        form->setRowWrapPolicy(QFormLayout::WrapAllRows);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    }
    for (const QString& name : names) {
        QWidget* widget = makeControl(name, side);
        const QString label = c.at(name).kind == Control::Kind::Switch ? QString() : c.at(name).label;
        const QString text = figure_->readout(name);
        if (text.isEmpty()) {
            form->addRow(label, widget);
            continue;
        }
        // A read-out beside its control, as wide as its longest value.
        auto* readout = new QLabel(text, side);
        readout->setObjectName(name + QStringLiteral("Value"));
        readout->setMinimumWidth(readout->fontMetrics().horizontalAdvance(text + QStringLiteral("00")) + 4);
        readout->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        readouts_.emplace_back(name, readout);
        auto* row = new QHBoxLayout();
        row->addWidget(widget, 1);
        row->addWidget(readout);
        form->addRow(label, row);
    }
    auto* buttons = new QHBoxLayout();
    auto* bars = new QVBoxLayout();
    addActions(buttons, bars);
    if (buttons->count() > 0)  // Enter runs the first action (a fit)
        if (auto* first = qobject_cast<QPushButton*>(buttons->itemAt(0)->widget())) first->setDefault(true);
    summary_ = new QLabel(side);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* column = new QVBoxLayout(side);
    column->addLayout(form);
    column->addLayout(buttons);
    column->addLayout(bars);
    column->addWidget(summary_);
    column->addStretch(1);
    side->setMinimumWidth(280);
    side->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Minimum);  // stacked, its words whole
    return side;
}

QLayout* FigureView::sliderWithScale(QWidget* widget, const std::vector<figures::ViewFigure::ScaleMark>& marks) {
    auto* box = new QVBoxLayout();
    box->addWidget(widget);
    auto* slider = qobject_cast<QSlider*>(widget);
    if (!slider || marks.size() < 2) return box;
    // A tick under each label, the labels spread from the first position to the last.
    const int step = std::max(1, (slider->maximum() - slider->minimum()) / static_cast<int>(marks.size() - 1));
    slider->setTickPosition(QSlider::TicksBelow);
    slider->setTickInterval(step);
    slider->setPageStep(step);
    auto* row = new QHBoxLayout();
    row->setContentsMargins(0, 0, 0, 0);
    for (std::size_t i = 0; i < marks.size(); ++i) {
        auto* label = new QLabel(marks[i].emphasis ? QStringLiteral("<b>%1</b>▲").arg(marks[i].text) : marks[i].text, this);
        label->setAlignment(i == 0 ? Qt::AlignLeft : (i + 1 == marks.size() ? Qt::AlignRight : Qt::AlignHCenter));
        row->addWidget(label, 1);
    }
    box->addLayout(row);
    return box;
}

void FigureView::addActions(QLayout* row, QLayout* under) {
    for (const figures::ViewFigure::Action& action : figure_->actions()) {
        auto* button = new QPushButton(action.text, this);
        button->setObjectName(action.name);
        button->setToolTip(action.toolTip);
        row->addWidget(button);
        if (!action.fileFilter.isEmpty()) {
            connect(button, &QPushButton::clicked, this, [this, action] {
                const QString path = QFileDialog::getOpenFileName(this, action.text, QString(), action.fileFilter);
                if (!path.isEmpty()) openFile(action.name, path);
            });
            continue;
        }
        auto* cancel = new QPushButton(tr("Cancel"), this);
        cancel->setEnabled(false);
        auto* progress = new QProgressBar(this);
        progress->setFormat(action.progress);
        progress->setToolTip(tr("Progress of %1").arg(action.text));
        row->addWidget(cancel);
        if (under) {
            under->addWidget(progress);  // in sight, full at the end of a job
            progress->setFormat(QStringLiteral("%p%"));
            progress->setValue(0);
        } else {
            progress->setMaximumWidth(200);
            progress->hide();  // shown while the job runs: idle, it reads as an empty text box
            row->addWidget(progress);
        }
        // The buttons and the bar when a job ends or is dropped.
        auto idle = [button, cancel, progress, keep = under != nullptr] {
            button->setEnabled(true);
            cancel->setEnabled(false);
            if (!keep) progress->hide();
            progress->setFormat(QStringLiteral("%p%"));
            progress->setValue(progress->maximum());
        };
        auto* runner = new JobRunner<figures::ViewFigure::Taking>([this, idle](figures::ViewFigure::Taking take) {
            idle();
            take();
            redraw();
        }, this);
        connect(runner, &JobRunnerBase::progressed, progress, [progress](qint64 done, qint64 total, const QString& phase) {
            if (!phase.isEmpty()) progress->setFormat(phase + QStringLiteral(": %v / %m"));  // the bar restarts with the phase
            progress->setRange(0, static_cast<int>(total));
            progress->setValue(static_cast<int>(done));
        });
        connect(cancel, &QPushButton::clicked, runner, &JobRunnerBase::interrupt);  // what it measured still arrives
        auto start = [this, action, runner, button, cancel, progress] {
            figures::JobOf<figures::ViewFigure::Taking> job = figure_->studyActionJob(action.name, figureInput(session_));
            if (!job || runner->running()) return;
            button->setEnabled(false);
            cancel->setEnabled(true);
            progress->setFormat(action.progress);
            progress->setValue(0);
            progress->show();
            showSummary(action.busy.isEmpty() ? figure_->summary() : action.busy);
            runner->start(std::move(job));
        };
        connect(button, &QPushButton::clicked, this, start);
        std::function<void()> drop;
        if (action.ofTheControls)
            drop = [runner, idle] {
                if (!runner->running()) return;
                runner->cancel();  // its answer is for a study or controls no longer shown
                idle();
            };
        actionRuns_.push_back({action.name, runner, start, drop});
    }
}

void FigureView::startDemandedAction() {
    const QString name = figure_->demandedAction();
    for (const ActionRun& run : actionRuns_)
        if (!name.isEmpty() && run.name == name && !run.runner->running()) run.start();
}

bool FigureView::openFile(const QString& name, const QString& path, QString* error) {
    const std::vector<figures::ViewFigure::Action> actions = figure_->actions();
    const auto action = std::find_if(actions.begin(), actions.end(), [&](const auto& a) { return a.name == name; });
    // Data the project keeps goes into the study, which draws it here when it changes.
    const QString why = action != actions.end() && action->projectData ? session_->addDataFile(*action->projectData, path)
                                                                       : figure_->openFile(name, path);
    if (error) *error = why;
    if (!why.isEmpty()) {
        showSummary(why);
        return false;
    }
    redraw();
    return true;
}

void FigureView::addChartViews() {
    const std::vector<QChart*> shown = figure_->windowCharts();
    for (std::size_t i = 0; i < shown.size(); ++i) {
        QChart* chart = shown[i];
        if (std::any_of(chartViews_.begin(), chartViews_.end(), [&](const auto& v) { return v.first == chart; })) continue;
        QChartView* view = nullptr;
        if (auto* plot = dynamic_cast<PlotChart*>(chart)) {
            auto* plotView = new SteadyPlotView(plot, this);
            connect(plotView, &PlotView::draggedTo, this, [this, chart](QPointF value) {
                if (figure_->chartDragged(chart, value)) controlChanged();
            });
            view = plotView;
        } else {
            view = new QChartView(chart, this);  // a chart with its own axes (bars)
            view->setRenderHint(QPainter::Antialiasing);
        }
        view->setVisible(false);  // until its chart is drawn
        if (secondRow_ && i >= static_cast<std::size_t>(entry_.layout.chartsPerRow))
            secondRow_->insertWidget(secondRow_->count() - (entry_.layout.aside.isEmpty() ? 0 : 1), view, 1);  // before the aside
        else
            chartRow_->addWidget(view, 1);
        chartViews_.emplace_back(chart, view);
        restack(true);  // stacked, it gets a stacked chart's height
    }
}

void FigureView::showCharts() {
    addChartViews();
    const std::vector<QChart*> shown = figure_->windowCharts();
    for (const auto& [chart, view] : chartViews_) view->setVisible(std::find(shown.begin(), shown.end(), chart) != shown.end());
}

void FigureView::showSummary(const QString& summary) {
    // A study the figure cannot work on says so instead of the figure's own summary.
    const QString text = figure_->scaleNotice().isEmpty() ? summary : figure_->scaleNotice();
    summary_->setText(text);
    summary_->setVisible(!text.isEmpty());  // a figure with nothing to say takes no room for it
}

void FigureView::showReadouts() {
    for (const auto& [name, label] : readouts_) label->setText(figure_->readout(name));
}

QChart* FigureView::primaryChart() const {
    const std::vector<QChart*> shown = figure_->charts();
    return shown.empty() ? nullptr : shown.front();
}

std::vector<QChart*> FigureView::charts() const { return figure_->charts(); }

QStringList FigureView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    controlChanged();
    return notes;
}

void FigureView::figureChanged() {
    controls_->showAll();
    controlChanged();
}

void FigureView::controlChanged() {
    // A schedule typed for a run: kept in the project (its curvesChanged fits the curves again).
    if (const auto described = figure_->describedSchedule())
        if (session_->describeSchedule(described->set, described->run, described->description)) return;
    if (figure_->jobControls() != jobControls_) recompute();
    else redraw();  // or when the analyses under way are done
}

void FigureView::recompute() {
    if (deferWhileHidden([this] { recompute(); }, 1)) return;  // the analyses too, when the view is next shown
    const figures::FigureInput in = figureInput(session_);
    figure_->refresh(in);  // the choices the study offers now
    controls_->showAll();
    showReadouts();
    showProblems();
    jobControls_ = figure_->jobControls();
    followUps_->cancel();  // the second job of the analyses replaced
    for (const ActionRun& run : actionRuns_)
        if (run.drop) run.drop();
    figures::JobOf<figures::ViewFigure::Taking> job = figure_->takingJob(in);
    if (!job) {
        // Opening a project emits runs and settings changes: a figure with nothing to compute
        // draws once for both (and again for other controls its answer depends on).
        if (session_->changeCount() != drawnAt_ || jobControls_ != controlsDrawn_) redraw();
        return;
    }
    if (!entry_.layout.busy.isEmpty()) showSummary(entry_.layout.busy);
    jobs_->start(std::move(job));
    if (figure_->answersAtOnce(in)) jobs_->finish();
}

void FigureView::redraw() {
    figure_->enableControls();
    controls_->showAll();
    showReadouts();
    if (jobs_->running() || deferWhileHidden([this] { redraw(); })) return;  // drawn when the analyses are done
    // A view for each chart the answer brought (one per context length), shown once it is drawn:
    // a chart view's size hint is the size it last had, so the order is always the same.
    // Views shown before their charts draw: Qt Charts leaves the items of axes replaced in a
    // hidden view in the scene (tick labels twice, at the size the chart had before).
    showCharts();
    figure_->draw(figureInput(session_));
    drawnAt_ = session_->changeCount();
    controlsDrawn_ = figure_->jobControls();
    if (figures::JobOf<figures::ViewFigure::Taking> job = figure_->afterDrawJob()) afterDraw_->start(std::move(job));
    showCharts();
    controls_->showAll();  // tooltips and choices the drawing set
    showSummary(figure_->summary());
    showProblems();
    if (asideText_) asideText_->setText(figure_->asideText());
    // A legend's new entries in a row that fitted (one batch size, then eight models) leave the
    // plot as it was: the views arrange it now, and again once it has laid them out.
    for (const auto& [chart, view] : chartViews_)
        if (auto* plot = dynamic_cast<PlotView*>(view)) {
            plot->arrangeLegend();
            QMetaObject::invokeMethod(plot, [plot] { plot->arrangeLegend(); }, Qt::QueuedConnection);
        }
    showTables();
    emit explainChanged();
}

void FigureView::computeNow() {
    for (const ActionRun& run : actionRuns_) run.runner->finish();  // a job of an earlier choice ends first
    startDemandedAction();
    for (const ActionRun& run : actionRuns_) run.runner->finish();
    jobs_->finish();
    followUps_->finish();
    afterDraw_->finish();
    QCoreApplication::processEvents();
}

std::vector<ViewTable> FigureView::tables() {
    if (entry_.tables.isEmpty()) return {};  // nothing to wait for (a benchmark the view runs)
    computeNow();  // the analyses and their second job (bootstrap intervals)
    TablesJob job = tablesJob();
    return job ? job(fit::FitControl{}) : std::vector<ViewTable>{};
}

bool FigureView::computing() const { return jobs_->running(); }

ViewPanel::TablesJob FigureView::tablesJob() {
    startDemandedAction();  // the figure's job waits for its answer
    jobs_->finish();  // the tables are those of the analyses asked for last
    return figure_->tablesJob(figureInput(session_));
}

QString FigureView::explainHtml() const {
    QString html = entry_.explain ? entry_.explain(*figure_, figureInput(session_)) : QString();
    // A study the figure cannot use at all (no N or D column): why, first, under the title.
    if (const QString notice = figure_->scaleNotice(); !notice.isEmpty()) {
        const qsizetype title = html.indexOf(QLatin1String("</h3>"));
        html.insert(title < 0 ? 0 : title + 5, QStringLiteral("<p><b>%1</b></p>").arg(notice.toHtmlEscaped()));
    }
    return html;
}

}  // namespace scalex::gui
