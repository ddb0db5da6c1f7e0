#pragma once
// A view's figure with no window: its controls (Controls.h), the analyses it draws (run as a job
// the window puts on a worker thread, or at once for a headless render), its charts and its export
// tables. The window's view holds one and adds widgets, interaction and the Explain pane; `scalex
// render`, figure recipes and the paper figures make one from the view's id. Both draw the same
// figure from the same study and controls.
#include <QColor>
#include <QPointF>
#include <QJsonObject>
#include <QSet>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/figures/Controls.h"
#include "app/figures/FigureWriter.h"
#include "core/analysis/FitTypes.h"
#include "core/data/DataFileKind.h"

class QChart;
class QGraphicsScene;
class QXYSeries;

namespace scalex::analysis {
class Study;
}
namespace scalex::data {
struct RunTable;
}

namespace scalex::figures {

class PlotChart;

// What a figure is drawn from besides its controls.
struct FigureInput {
    const analysis::Study* study = nullptr;
    // An immutable copy of study->runs() for jobs on worker threads, made once per change of the
    // runs and shared by every job (the window's); empty: runsForJob() copies the runs itself.
    std::function<std::shared_ptr<const data::RunTable>()> runsSnapshot;
    // Runs selected (indices into study->runs().runs): ringed in every chart that draws them.
    QSet<int> selection;
    // In the window: links a drawn series of runs (the item that draws them, and the runs' indices
    // in the order of its points) to hover read-outs and clicks. Empty headless.
    std::function<void(QXYSeries* drawn, const std::shared_ptr<const std::vector<int>>& runs)> linkRuns;
};

// A job for a worker thread with an answer of type T: made on the calling thread, it holds copies
// of what it reads and returns its answer.
template <class T>
using JobOf = std::function<T(const fit::FitControl& control)>;

class ViewFigure {
public:
    virtual ~ViewFigure();
    ViewFigure(const ViewFigure&) = delete;
    ViewFigure& operator=(const ViewFigure&) = delete;

    virtual QString viewId() const = 0;

    Controls& controls() { return controls_; }
    const Controls& controls() const { return controls_; }
    // Refills the choices that depend on the study (its series, its context lengths), keeping the
    // values still offered.
    virtual void refresh(const FigureInput& in) { (void)in; }
    // Sets controls by name as a person would, one after the other in the view's order, the
    // choices refilled after each; a note for each value or name that could not be set.
    QStringList setControls(const QJsonObject& values, const FigureInput& in);

    // The figure's analyses run to their answer and handed to the figure, on this thread (headless
    // renders, tests); a figure whose window runs a second job after the first (bootstrap bands)
    // runs both. Figures with analyses derive from FigureWithAnswer, whose job()/take() carry their
    // own Answer type.
    virtual void compute(const FigureInput& in, const fit::FitControl& control = {}) {
        (void)in;
        (void)control;
    }

    // The window's generic view runs a figure's analyses through these, whatever its answer's type.
    // A job whose answer, delivered on the UI thread, is handed to the figure by calling it.
    using Taking = std::function<void()>;
    // The figure's analyses as such a job (FigureWithAnswer: job() and take()); empty: nothing to compute.
    virtual JobOf<Taking> takingJob(const FigureInput& in) {
        (void)in;
        return {};
    }
    // A second job the window starts once the first one's answer is drawn (bootstrap bands); empty: none.
    virtual JobOf<Taking> followUpJob() { return {}; }
    // A job the window starts after each draw, about what was drawn (the bootstrap interval of a
    // ratio the summary states); empty when none is needed now (nothing to compute, or the answer
    // under way or known still applies). A newer one replaces one under way, whose answer is dropped;
    // its answer changes the summary and the Explain text, not the charts.
    virtual JobOf<Taking> afterDrawJob() { return {}; }
    // The values of the controls the analyses depend on: a change of another control only redraws.
    virtual QJsonObject jobControls() const { return {}; }
    // The window waits for the analyses and draws them at once rather than when they come (small
    // studies, whose analyses take less than a frame).
    virtual bool answersAtOnce(const FigureInput& in) const {
        (void)in;
        return false;
    }
    // The study's runs or settings have changed (before the analyses run again).
    virtual void studyChanged() {}
    // The analyses read the study's loss-curve sets: loading curves runs them again (other views
    // only redraw).
    virtual bool analysesReadCurves() const { return false; }
    // Enables the controls that apply to the others' values (before the window shows them).
    virtual void enableControls() {}
    // The read-out beside the widget of the control `name` ("H = 1e21"); empty: none.
    virtual QString readout(const QString& name) const {
        (void)name;
        return {};
    }
    // Work the user asks for with a button beside the controls (measure this machine, read a file),
    // done by the figure and then drawn.
    struct Action {
        QString name;        // the button's object name (lessons and tests find it by it)
        QString text;
        QString toolTip;
        QString fileFilter;  // not empty: the button asks for a file of this kind, and openFile() reads it
        QString busy;        // shown while its job runs, beside a progress bar and a Cancel button (empty: the figure's summary())
        QString progress;    // the progress bar's text ("%v of %m kernels"); a phase the job names restarts it as "phase: %v / %m"
        // Set: the file is data the project keeps (saved with it) of this kind; the window adds it to
        // the study as File › Open does, and the figure draws it from there (openFile() is not called).
        std::optional<data::DataFileKind> projectData = {};
        // Its answer is for the study and the jobControls() it started with: a change of either
        // cancels the job under way (a fit of a series no longer shown).
        bool ofTheControls = false;
    };
    virtual std::vector<Action> actions() const { return {}; }
    // The job of the action `name` (empty: none). It reports to control.progress and, cancelled,
    // stops early with what it has.
    virtual JobOf<Taking> actionJob(const QString& name) {
        (void)name;
        return {};
    }
    // The same for an action whose job reads the study (a fit of its runs); by default actionJob(name).
    virtual JobOf<Taking> studyActionJob(const QString& name, const FigureInput& in) {
        (void)in;
        return actionJob(name);
    }
    // The action that computeNow() and the export tables start when the figure has no answer for
    // its controls without it (a fit the user otherwise starts with its button); empty: none.
    virtual QString demandedAction() const { return {}; }
    // Reads the file `path` that the action `name` asked for: empty, or why it could not.
    virtual QString openFile(const QString& name, const QString& path) {
        (void)name;
        (void)path;
        return {};
    }

    // The labels of the scale under the slider of the control `name`, spread evenly from its first
    // position to its last; an emphasised one (the study's own values) stands out. None by default.
    struct ScaleMark {
        QString text;
        bool emphasis = false;
    };
    virtual std::vector<ScaleMark> scale(const QString& name) const {
        (void)name;
        return {};
    }
    // Rich text the window shows under the layout's `aside` controls (the answers to the questions
    // they ask), read after draw(); empty: none.
    virtual QString asideText() const { return {}; }
    // Why the value of the control `name` cannot be used as typed (read after refresh()); the window
    // shows it under the control's row, as it is typed. Empty: it can.
    virtual QString controlProblem(const QString& name) const {
        (void)name;
        return {};
    }
    // A schedule typed for a run of the study's loss curves, for the project to keep with the run
    // (data::ProjectCurves::schedules; an empty description drops the run's): read by the window
    // after the controls change. None by default, and while the typed text does not parse.
    struct DescribedSchedule {
        std::string set, run, description;
    };
    virtual std::optional<DescribedSchedule> describedSchedule() const { return std::nullopt; }
    // The left mouse button pressed or dragged at `value` (in the units of `chart`'s axes) inside its
    // plot area: true when the figure changed its controls for it (the window then redraws).
    virtual bool chartDragged(QChart* chart, QPointF value) {
        (void)chart;
        (void)value;
        return false;
    }
    // The charts the window shows, in the layout's order (by default those charts() has): a window may
    // show a chart, empty of measurements, that a render or an export leaves out.
    virtual std::vector<QChart*> windowCharts() const { return charts(); }
    // One line on what is drawn (read after draw()); the window shows it under the charts.
    virtual QString summary() const { return {}; }
    // A small table of what the charts show (the window's, not an export): headers and rows; none by default.
    virtual QStringList shownHeaders() const { return {}; }
    virtual std::vector<QStringList> shownRows() const { return {}; }
    // The window's tables (read after draw()), in their order: by default the one of shownHeaders()
    // and shownRows(), where it has headers.
    struct ShownRow {
        QStringList cells;  // fewer than the headers: the last one spans the columns left (why a row has no numbers)
        QColor color = {};  // the first cell's text (a series' colour); invalid: the style's
        QString toolTip;    // on every cell of the row
    };
    struct ShownTable {
        QString name;         // the table widget's object name (tests and lessons find it by it)
        QString title;        // bold above it; empty: none
        QStringList headers;
        QStringList headerTips;
        std::vector<ShownRow> rows;
        QString note;         // rich text under it; empty: none
        bool numbers = false; // the columns after the first right-aligned, every column as wide as its contents
        // How many rows tall: -1 as the layout says (ViewLayout::tableRows), 0 every row, else at most this many (it scrolls).
        int visibleRows = -1;
        bool belowCharts = false;  // under the charts rather than above them (a layout with the controls beside the charts)
    };
    virtual std::vector<ShownTable> shownTables() const;

    // Draws the present answer into the charts.
    virtual void draw(const FigureInput& in) = 0;
    // The charts shown now, left to right (a figure's layout may show some of the charts it has).
    virtual std::vector<QChart*> charts() const = 0;
    // Why the figure has no results for its controls and the study (a query it cannot answer, too
    // few runs to fit, nothing to draw); empty when it has them. Read after draw(); headless
    // renders fail with it rather than write an empty figure.
    virtual QString problem() const { return {}; }
    // Why the study cannot feed the figure at all: it has no N or D column (a benchmark's table of
    // other variables; analysis::missingScaleColumns). Set by the figures that need them when they
    // draw; shown instead of the summary, and a headless render fails with it. Empty otherwise.
    QString scaleNotice() const { return scaleNotice_; }

    // The figure's export tables as a job (copies of what it reads, as job()); empty: no tables.
    using TablesJob = std::function<std::vector<FigureTable>(const fit::FitControl& control)>;
    virtual TablesJob tablesJob(const FigureInput& in) const {
        (void)in;
        return {};
    }

    // Puts every chart of the figure that has no scene into one of the figure's own, at `size`
    // points, so that it lays out and paints with no window (headless renders).
    void placeInScenes(const QSizeF& size);

protected:
    ViewFigure();
    // A chart of the figure; it lives as long as the figure, or as the view that shows it.
    PlotChart* makeChart();
    // The same for a chart that makes its own axes (bar charts), which PlotChart's would replace.
    QChart* makePlainChart();
    // Sets scaleNotice() for the study in `in`: N and D needed, or only compute (`computeSuffices`).
    void noteScale(const FigureInput& in, bool computeSuffices = false);

private:
    QString scaleNotice_;
    Controls controls_;
    std::vector<QChart*> made_;
    std::vector<std::unique_ptr<QGraphicsScene>> scenes_;
};

// `job` as a job whose answer is handed to `take` on the UI thread (ViewFigure::Taking); empty
// when `job` is.
template <class T, class Take>
JobOf<ViewFigure::Taking> takingJobOf(JobOf<T> job, Take take) {
    if (!job) return {};
    return [job = std::move(job), take = std::move(take)](const fit::FitControl& control) -> ViewFigure::Taking {
        auto answer = std::make_shared<T>(job(control));
        return [take, answer] { take(std::move(*answer)); };
    };
}

// A figure whose analyses give one typed answer: `Derived` names `Answer`, makes the job with
// `JobOf<Answer> job(const FigureInput&) const` (empty: nothing to compute) and takes its answer
// with `void take(Answer)`. The window runs the job on a worker thread (gui::JobRunner<Answer>).
template <class Derived>
class FigureWithAnswer : public ViewFigure {
public:
    void compute(const FigureInput& in, const fit::FitControl& control = {}) override {
        auto& self = static_cast<Derived&>(*this);
        if (auto j = self.job(in)) self.take(j(control));
    }
    JobOf<Taking> takingJob(const FigureInput& in) override {
        auto* self = static_cast<Derived*>(this);
        return takingJobOf<typename Derived::Answer>(self->job(in), [self](typename Derived::Answer answer) { self->take(std::move(answer)); });
    }
};

// The runs a job reads: `in.runsSnapshot()`, else a copy of the study's.
std::shared_ptr<const data::RunTable> runsForJob(const FigureInput& in);

// The views that draw a figure, in the window's order.
QStringList figureViews();
// "--view: unknown view 'X' (expected one of ...)".
QString unknownViewError(const QString& view);
// A new figure of the view `id`; null for an id that is not one of figureViews().
std::unique_ptr<ViewFigure> makeFigure(const QString& id);
// The views with tables to export and the ids of their tables, the default first.
std::vector<std::pair<QString, QStringList>> viewTables();
QStringList tableViews();

}  // namespace scalex::figures
