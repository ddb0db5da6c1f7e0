#pragma once
// The window's view of any figure of the registry (app/figures/views/Figures.h): the figure's
// controls placed as the registry's layout says, a chart view per chart it shows, its analyses run
// off the UI thread (and a second job, such as bootstrap bands, once the first's answer is drawn),
// the line on what it draws, its tables and the registry's Explain text. A figure added to the
// registry is a tab of the window with no other code.
#include <QJsonObject>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "app/figures/views/Figures.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"

class QChartView;
class QHBoxLayout;
class QLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QVBoxLayout;

namespace scalex::gui {

class Session;

class FigureView : public ViewPanel {
    Q_OBJECT
public:
    FigureView(const figures::FigureEntry& entry, Session* session, QWidget* parent = nullptr);
    ~FigureView() override;

    QString viewId() const override { return entry_.id; }
    QString title() const override { return entry_.title; }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    // The figure's export tables, its analyses and their second job done first.
    std::vector<ViewTable> tables() override;
    // The same off the UI thread, of the analyses asked for last.
    TablesJob tablesJob() override;
    bool computing() const override;
    // Waits for the analyses under way and their second job, and draws them.
    void computeNow() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QString problem() const override { return figure_->problem(); }
    QStringList applyControls(const QJsonObject& values) override;
    // The figure as its own type (null when it is another), for what only it answers.
    template <class Figure>
    Figure* figureAs() const {
        return dynamic_cast<Figure*>(figure_.get());
    }
    // Brings the view up to date after its figure was changed directly (not through its controls).
    void figureChanged();
    // Reads `path` for the figure's action `name` (what its button does once a file is chosen) and
    // draws it; false, with why in `error` and under the charts, when it could not.
    bool openFile(const QString& name, const QString& path, QString* error = nullptr);

private:
    // The widgets of the controls, around the charts as the registry's layout places them.
    void buildLayout();
    // A control changed: the analyses again when it is one they depend on, else a redraw.
    void controlChanged();
    // Starts the figure's analyses in a job (drawn when the answer comes); draws at once when it has none.
    void recompute();
    void redraw();
    // A view, hidden, for each chart the figure shows that has none yet.
    void addChartViews();
    // The aside controls under their title, the figure's asideText() under them, scrolling.
    QWidget* buildAside();
    // The layout's rows of controls in a grid, each with its problem line under it.
    QLayout* buildRows();
    // A line for the problem of the controls `names` (hidden while they have none).
    QLabel* problemLine(const QStringList& names, const QString& objectName);
    // The text field of `name` checked as it is typed, when the layout asks for it.
    void checkWhileTyping(const QString& name, QWidget* widget);
    void showProblems();
    // The views of the charts the figure shows (made the first time it does), the others hidden.
    void showCharts();
    // The slider `widget` with its scale of labelled ticks under it.
    QLayout* sliderWithScale(QWidget* widget, const std::vector<figures::ViewFigure::ScaleMark>& marks);
    void showReadouts();
    void showSummary(const QString& text);
    // A button for each of the figure's actions in `row`; one that runs a job with its Cancel button
    // and progress bar (in `under`, kept in sight, where given).
    void addActions(QLayout* row, QLayout* under = nullptr);
    // The controls in a column beside the charts (ViewLayout::side), the words on what is drawn under them.
    QWidget* sideColumn();
    // The widget of the control `name` as the layout shapes it (choices as wide as their longest, text
    // fields as wide as its sample, checked as they are typed).
    QWidget* makeControl(const QString& name, QWidget* parent);
    // The figure's shownTables() into the window's tables (more made as needed, those left over hidden).
    void showTables();
    // Starts the job of the figure's demanded action when it waits for it and none runs.
    void startDemandedAction();

    const figures::FigureEntry& entry_;
    Session* session_;
    std::unique_ptr<figures::ViewFigure> figure_;
    ControlBinding* controls_;
    QHBoxLayout* chartRow_ = nullptr;
    QHBoxLayout* secondRow_ = nullptr;  // the charts after the layout's chartsPerRow, and its aside
    QLabel* asideText_ = nullptr;        // the figure's asideText() under the aside controls
    std::vector<std::pair<QChart*, QChartView*>> chartViews_;
    std::vector<std::pair<QString, QLabel*>> readouts_;  // control name, its read-out
    QLabel* summary_ = nullptr;
    std::vector<std::pair<QStringList, QLabel*>> problems_;  // controls, the line of their problems
    // The figure's shownTables(), each with its title and note, made as the figure first shows them.
    struct TableWidgets {
        QLabel* title;
        QTableWidget* table;
        QLabel* note;
    };
    std::vector<TableWidgets> tables_;
    QVBoxLayout* tablesAbove_ = nullptr;  // where the tables go (under the charts in the default layout)
    QVBoxLayout* tablesBelow_ = nullptr;  // the tables ShownTable::belowCharts (the same layout there)
    JobRunner<figures::ViewFigure::Taking>* jobs_;       // the analyses; new ones replace those under way, and their second job
    JobRunner<figures::ViewFigure::Taking>* followUps_;  // the second job of the analyses shown, once they are drawn
    JobRunner<figures::ViewFigure::Taking>* afterDraw_;  // the figure's job about what it drew last (its summary's interval)
    // The figure's actions that run jobs, each with its runner (one job at a time: a second click
    // waits for the first), what starts it as a click would, and what drops the job under way.
    struct ActionRun {
        QString name;
        JobRunner<figures::ViewFigure::Taking>* runner;
        std::function<void()> start;
        std::function<void()> drop;  // set for an action whose answer is of the controls (Action::ofTheControls)
    };
    std::vector<ActionRun> actionRuns_;
    QJsonObject jobControls_;                            // the controls of the analyses asked for last
    std::uint64_t drawnAt_ = ~std::uint64_t{0};           // Session::changeCount() when last drawn
    std::uint64_t studyAt_ = ~std::uint64_t{0};           // Session::changeCount() when the study last changed
    QJsonObject controlsDrawn_;                          // the figure's jobControls() when last drawn
};

}  // namespace scalex::gui
