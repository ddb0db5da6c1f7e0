#pragma once
#include <QMainWindow>

#include "app/gui/FigureExport.h"
#include "core/data/Lesson.h"
#include "core/data/RunTableIo.h"
#include <optional>
#include <vector>

class QImage;
class QLabel;
class QProgressBar;
class QTabWidget;
class QTextBrowser;
class QDockWidget;

namespace scalex::gui {

class ViewPanel;
class Session;
class LessonPane;
class HighlightFrame;
class RunTableLoader;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    QTabWidget* views() const { return views_; }
    const std::vector<ViewPanel*>& panels() const { return panels_; }
    // Shows the view with this id (e.g. "breakdown"); false when there is none.
    bool showView(const QString& id);
    ViewPanel* currentPanel() const;
    QTextBrowser* explainPane() const { return explain_; }

    void setDarkTheme(bool dark);
    // Presentation mode (View → Presentation): larger fonts and thicker lines for a projector.
    void setPresentation(bool on);
    bool presentation() const { return presentation_; }
    // Ctrl + / Ctrl −: scales fonts and lines by 1.15 per step (in both modes); 0 resets.
    void zoomBy(int steps);
    double zoom() const { return zoom_; }

    // Lessons (core/data/Lesson.h). checkLesson says, naming the file and field, what in the
    // lesson this window cannot show (a view or control that does not exist); empty when none.
    QString checkLesson(const data::Lesson& lesson) const;
    // Opens the lesson at step `step` (0-based) in the side pane; errors as for files.
    bool openLesson(const data::Lesson& lesson, int step = 0, bool interactive = true);
    bool openLessonFile(const QString& idOrPath, int step = 0, bool interactive = true);
    // Sets the view and controls of step `index` of the open lesson and frames its control.
    bool showLessonStep(int index, bool interactive = true);
    LessonPane* lessonPane() const { return lessonPane_; }
    HighlightFrame* lessonHighlight() const { return highlight_; }
    Session* session() const { return session_; }
    // The shown window's picture once the current view's work is done and the window is at rest
    // (`scalex --screenshot`): the same picture however fast the view's jobs ran.
    QImage screenshot();

    // Loads a run table (CSV, TSV, JSON, JSON Lines, .csv.gz). On failure shows the error and
    // leaves the current data untouched; returns whether the file was opened.
    bool openRunTable(const QString& path, bool interactive = true);
    // Reads a run table on a worker thread while the window goes on drawing the project it has,
    // with progress and Cancel in the status bar; loadFinished says how it ended (a failed or
    // cancelled load leaves the project as it was). Returns at once.
    void loadRunTableInBackground(const QString& path, bool interactive = true);
    bool loading() const;
    void cancelLoading();
    // Opens a .scalex project, a run table, loss curves or inference measurements (told apart by
    // their columns as `scalex check` does); the same error rules. An interactive open of a run
    // table of kBackgroundLoadBytes or more loads in the background and returns true at once.
    bool openPath(const QString& path, bool interactive = true);
    // Several files at once (the command line's): the run tables first (the first opens, the others are added), then
    // the loss curves and measurements, each added by its kind, so no file given is left out. A project opens alone.
    bool openPaths(const QStringList& paths, bool interactive = true);
    static constexpr qint64 kBackgroundLoadBytes = 4 << 20;
    // Adds a loss-curves file's curves to the project (the loss-curves view shows them).
    bool openLossCurves(const QString& path, bool interactive = true);
    // Reads a model's config.json or a spec file into the project's specs (File > Add model).
    bool addModel(const QString& path, bool interactive = true);
    // Loads inference measurements into the inference view and the project.
    bool openMeasurements(const QString& path, bool interactive = true);
    bool openExample(bool interactive = true);
    // The shipped real study (datasets/gemstones).
    bool openGemstonesExample(bool interactive = true);
    bool addRunTable(const QString& path, bool interactive = true);
    // Saves the project (atomically); asks for a name when it has none and `path` is empty.
    bool saveProject(const QString& path = QString(), bool interactive = true);
    // What to open on start: the last session's project, else the built-in example.
    void restoreLastSession();
    QString lastError() const { return lastError_; }
    // Writes the current view as a figure in `style`; a non-empty `recipe` also keeps it as that
    // recipe in the project. Errors are reported as for files.
    bool exportView(const QString& path, FigureStyle style, const QString& recipe = QString(), bool interactive = true);
    // Writes the current view's table `tableId` (its first when empty) as .tex, .csv or .json.
    bool exportTable(const QString& tableId, const QString& path, bool interactive = true);

signals:
    void loadProgressed(int percent);
    void loadFinished(bool opened);

protected:
    void showEvent(QShowEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private:
    void addPanel(ViewPanel* panel);
    bool openFilesTogether(const QStringList& paths, bool interactive);  // openPaths' work for one file or more
    void buildMenus();
    void showAbout();
    void updateExplain();
    void restoreLayout();
    void saveLayout();

    void openFileDialog();
    void addFileDialog();
    void addModelDialog();
    void saveAsDialog();
    void exportViewDialog();
    void exportTableDialog();
    // The current view's tables, their fits and bootstraps run off the UI thread behind a progress
    // dialog; none when the user cancels.
    std::optional<std::vector<ViewTable>> computeTables(ViewPanel* panel);
    bool writeTable(ViewPanel* panel, const std::vector<ViewTable>& tables, const QString& tableId, const QString& path,
                    bool interactive);
    void recipesDialog();
    void refreshRecentMenu();
    void reportError(const QString& title, const QString& message, bool interactive);
    void projectOpened(const QString& label);
    // Takes a run table read for `path` as the project (or reports its error).
    bool runTableRead(data::Expected<data::RunTable> loaded, const QString& path, bool interactive);
    void applyStyle();
    // Every view draws again in the current style (after a theme change or a paper-style export);
    // only `only` when given.
    void redrawViews(ViewPanel* only = nullptr);
    void endLesson();
    void openLessonDialog();
    QMenu* recentMenu_ = nullptr;
    QDockWidget* lessonDock_ = nullptr;
    LessonPane* lessonPane_ = nullptr;
    bool raiseLessonOnShow_ = false;  // a lesson opened before the window first showed
    HighlightFrame* highlight_ = nullptr;
    QAction* presentationAction_ = nullptr;
    bool presentation_ = false;
    double zoom_ = 1.0;

    Session* session_ = nullptr;
    QString lastError_;
    QTabWidget* views_ = nullptr;
    QTextBrowser* explain_ = nullptr;
    QDockWidget* explainDock_ = nullptr;
    QLabel* statusProject_ = nullptr;
    RunTableLoader* loader_ = nullptr;
    QWidget* loadingBox_ = nullptr;  // progress and Cancel of a background load, in the status bar
    QProgressBar* loadingBar_ = nullptr;
    bool loadInteractive_ = true;
    std::vector<ViewPanel*> panels_;
};

}  // namespace scalex::gui
