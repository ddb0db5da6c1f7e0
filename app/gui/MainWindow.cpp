#include "app/gui/MainWindow.h"

#include "app/gui/PlotView.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/FirstView.h"
#include "core/data/RunTableIo.h"
#include "core/data/SpecJson.h"
#include "core/data/TrackerJson.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QScrollArea>
#include <QtCharts/QChartView>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>

#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QFileInfo>
#include <QImage>
#include <QEventLoop>
#include <QFutureWatcher>
#include <QProgressDialog>
#include <QTimer>
#include <QtConcurrent/QtConcurrent>
#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

#include "app/figures/CurveBundle.h"
#include "app/figures/PlotChart.h"
#include "app/figures/views/Figures.h"
#include "app/gui/ExportDialog.h"
#include "app/gui/FigureExport.h"
#include "app/gui/Recipes.h"
#include "app/gui/RecipesDialog.h"
#include "app/gui/RunTableLoader.h"
#include "app/gui/FigureView.h"
#include "app/gui/JobPool.h"
#include "app/gui/LessonPane.h"
#include "app/gui/RunsView.h"
#include "app/gui/Session.h"
#include "app/gui/SpecEditorDialog.h"
#include "core/data/DataFileKind.h"
#include "core/data/ProjectHistory.h"
#include "core/data/RunTableIo.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "app/gui/ViewPanel.h"

#include <cmath>

namespace scalex::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    session_ = new Session(this);
    setObjectName(QStringLiteral("ScalexMainWindow"));
    setWindowTitle(QStringLiteral("Scalex"));
    setWindowIcon(QIcon(QStringLiteral(":/scalex/icons/scalex.svg")));
    views_ = new QTabWidget(this);
    views_->setDocumentMode(true);
    // Eleven tabs side by side are wider than a 1024-pixel screen: scroll them rather than let the
    // tab bar set the window's minimum width.
    views_->setUsesScrollButtons(true);
    setCentralWidget(views_);

    explain_ = new QTextBrowser(this);
    explain_->setOpenExternalLinks(false);
    explainDock_ = new QDockWidget(tr("Explain"), this);
    explainDock_->setObjectName(QStringLiteral("ExplainDock"));
    explainDock_->setWidget(explain_);
    explainDock_->setMinimumWidth(200);
    addDockWidget(Qt::RightDockWidgetArea, explainDock_);

    // The window's views, in the registry's order (figures::figureRegistry): a FigureView of each
    // figure, the run table for the entry with none.
    for (const figures::FigureEntry& entry : figures::figureRegistry()) {
        ViewPanel* panel = entry.make ? static_cast<ViewPanel*>(new FigureView(entry, session_, this)) : new RunsView(session_, this);
        Q_ASSERT(panel->viewId() == entry.id);
        addPanel(panel);
    }

    lessonPane_ = new LessonPane(this);
    lessonDock_ = new QDockWidget(tr("Lesson"), this);
    lessonDock_->setObjectName(QStringLiteral("LessonDock"));
    lessonDock_->setWidget(lessonPane_);
    addDockWidget(Qt::RightDockWidgetArea, lessonDock_);
    tabifyDockWidget(explainDock_, lessonDock_);
    lessonDock_->hide();
    highlight_ = new HighlightFrame(this);
    connect(lessonPane_, &LessonPane::stepRequested, this, [this](int i) { showLessonStep(i); });
    connect(lessonPane_, &LessonPane::closeRequested, this, &MainWindow::endLesson);

    connect(views_, &QTabWidget::currentChanged, this, &MainWindow::updateExplain);
    buildMenus();
    statusProject_ = new QLabel(tr("No project"), this);
    statusBar()->addPermanentWidget(statusProject_);
    loader_ = new RunTableLoader(this);
    loadingBox_ = new QWidget(this);
    loadingBox_->setObjectName(QStringLiteral("LoadingBox"));
    auto* loadingLayout = new QHBoxLayout(loadingBox_);
    loadingLayout->setContentsMargins(0, 0, 0, 0);
    loadingBar_ = new QProgressBar(loadingBox_);
    loadingBar_->setRange(0, 100);
    loadingBar_->setMaximumWidth(200);
    auto* cancelLoad = new QPushButton(tr("Cancel"), loadingBox_);
    cancelLoad->setObjectName(QStringLiteral("CancelLoad"));
    loadingLayout->addWidget(loadingBar_);
    loadingLayout->addWidget(cancelLoad);
    statusBar()->addPermanentWidget(loadingBox_);
    loadingBox_->hide();
    connect(cancelLoad, &QPushButton::clicked, this, &MainWindow::cancelLoading);
    connect(loader_, &RunTableLoader::progressed, this, [this](int percent) {
        loadingBar_->setValue(percent);
        emit loadProgressed(percent);
    });
    connect(loader_, &RunTableLoader::finished, this, [this] {
        loadingBox_->hide();
        auto loaded = loader_->takeResult();
        if (!loaded && loaded.error().message == data::kLoadCancelled) {
            lastError_ = tr("Opening %1 cancelled").arg(QFileInfo(loader_->path()).fileName());
            statusBar()->showMessage(lastError_, 8000);
            emit loadFinished(false);
            return;
        }
        emit loadFinished(runTableRead(std::move(loaded), loader_->path(), loadInteractive_));
    });
    statusBar()->showMessage(tr("Ready"));
    resize(1280, 800);
    restoreLayout();
    updateExplain();
}

MainWindow::~MainWindow() = default;

void MainWindow::addPanel(ViewPanel* panel) {
    panels_.push_back(panel);
    // Each view scrolls inside its tab when the window is narrower (or shorter) than the view
    // would like (1024×768 screens, presentation mode), so no view sets the window's minimum size.
    auto* scroll = new QScrollArea(views_);
    scroll->setObjectName(panel->viewId() + QStringLiteral("Scroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(panel);
    views_->addTab(scroll, panel->title());
    connect(panel, &ViewPanel::explainChanged, this, [this, panel] {
        if (currentPanel() == panel) updateExplain();
    });
}

ViewPanel* MainWindow::currentPanel() const {
    auto* scroll = qobject_cast<QScrollArea*>(views_->currentWidget());
    return scroll ? qobject_cast<ViewPanel*>(scroll->widget()) : nullptr;
}

bool MainWindow::showView(const QString& id) {
    for (ViewPanel* p : panels_)
        if (p->viewId() == id) {
            for (int i = 0; i < views_->count(); ++i)
                if (auto* scroll = qobject_cast<QScrollArea*>(views_->widget(i)); scroll && scroll->widget() == p)
                    views_->setCurrentIndex(i);
            return true;
        }
    return false;
}

void MainWindow::updateExplain() {
    if (ViewPanel* p = currentPanel()) explain_->setHtml(p->explainHtml());
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openFileDialog);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("&Add run table…"), this, &MainWindow::addFileDialog);
    file->addAction(tr("Add &model…"), this, &MainWindow::addModelDialog);
    file->addAction(tr("Edit model &specs…"), this, [this] {
        SpecEditorDialog dialog(session_, this);
        dialog.exec();
    });
    QMenu* examples = file->addMenu(tr("Open &example"));
    examples->addAction(tr("&Generated study (the paper's laws)"), this, [this] { openExample(); });
    examples->addAction(tr("G&emstones (real checkpoints, MIT licence)"), this, [this] { openGemstonesExample(); });
    recentMenu_ = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    QAction* save = file->addAction(tr("&Save"), this, [this] { saveProject(); });
    save->setShortcut(QKeySequence::Save);
    QAction* saveAs = file->addAction(tr("Save &as…"), this, &MainWindow::saveAsDialog);
    saveAs->setShortcut(QKeySequence::SaveAs);
    file->addSeparator();
    QAction* exportFigure = file->addAction(tr("&Export view as figure…"), this, &MainWindow::exportViewDialog);
    exportFigure->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    QAction* exportTable = file->addAction(tr("Export view's &table…"), this, &MainWindow::exportTableDialog);
    exportTable->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    file->addAction(tr("Figure &recipes…"), this, &MainWindow::recipesDialog);
    file->addSeparator();
    refreshRecentMenu();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(explainDock_->toggleViewAction());
    view->addSeparator();
    auto* themes = new QActionGroup(this);
    QAction* light = view->addAction(tr("&Light theme"));
    QAction* dark = view->addAction(tr("&Dark theme"));
    for (QAction* a : {light, dark}) {
        a->setCheckable(true);
        themes->addAction(a);
    }
    (Theme::current().kind == ThemeKind::Dark ? dark : light)->setChecked(true);
    connect(light, &QAction::triggered, this, [this] { setDarkTheme(false); });
    connect(dark, &QAction::triggered, this, [this] { setDarkTheme(true); });
    view->addSeparator();
    presentationAction_ = view->addAction(tr("&Presentation"));
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(Qt::Key_F5));
    connect(presentationAction_, &QAction::toggled, this, &MainWindow::setPresentation);
    QAction* zoomIn = view->addAction(tr("Zoom &in"), this, [this] { zoomBy(1); });
    zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    QAction* zoomOut = view->addAction(tr("Zoom &out"), this, [this] { zoomBy(-1); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* zoomReset = view->addAction(tr("&Actual size"), this, [this] { zoomBy(0); });
    zoomReset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QMenu* lessons = help->addMenu(tr("&Lessons"));
    for (const QString& path : data::builtinLessonPaths()) {
        auto lesson = data::loadLesson(path);
        if (!lesson) continue;
        lessons->addAction(QString::fromStdString(lesson->title), this, [this, path] { openLessonFile(path); });
    }
    lessons->addSeparator();
    lessons->addAction(tr("Open lesson &file…"), this, &MainWindow::openLessonDialog);
    help->addAction(tr("&About Scalex"), this, &MainWindow::showAbout);
}

void MainWindow::openFileDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a project, a run table, loss curves or inference measurements"), QString(),
        tr("Projects and run tables (*.scalex *.csv *.tsv *.json *.jsonl *.csv.gz);;All files (*)"));
    if (!path.isEmpty()) openPath(path);
}

void MainWindow::addFileDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Add a run table"), QString(),
                                                      tr("Run tables (*.csv *.tsv *.json *.jsonl *.csv.gz);;All files (*)"));
    if (!path.isEmpty()) addRunTable(path);
}

void MainWindow::addModelDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Add a model (a Hugging Face config.json or a Scalex spec)"), QString(),
                                                      tr("Model files (*.json);;All files (*)"));
    if (!path.isEmpty()) addModel(path);
}

bool MainWindow::addModel(const QString& path, bool interactive) {
    const auto model = data::readModelFile(path.toStdString());
    if (!model) {
        reportError(tr("Could not read the model"), QString::fromStdString(model.error().toString()), interactive);
        return false;
    }
    // A config.json is named by its folder (the model's name on the hub), any other file by its stem.
    const QFileInfo info(path);
    const QString stem = info.completeBaseName() == QLatin1String("config") ? info.dir().dirName() : info.completeBaseName();
    const accounting::ParamCounts n = accounting::paramCounts(model->spec);
    const std::string name = session_->addSpec({stem.toStdString(), path.toStdString(), model->spec});
    showView(QStringLiteral("context"));
    statusBar()->showMessage(tr("Added model %1: %2 parameters (%3 active), drawn in the Context, Roofline and Breakdown views "
                                "and saved with the project")
                                 .arg(QString::fromStdString(name))
                                 .arg(n.total())
                                 .arg(n.activeTotal()),
                             8000);
    return true;
}

void MainWindow::exportViewDialog() {
    ViewPanel* panel = currentPanel();
    if (!panel || panel->charts().empty()) {
        statusBar()->showMessage(tr("This view has no chart to export"), 5000);
        return;
    }
    QStringList recipes;
    for (const auto& [name, r] : session_->recipes()) recipes << QString::fromStdString(name);
    ExportDialog dialog(panel->title(), panel->viewId(), recipes, this);
    if (dialog.exec() != QDialog::Accepted) return;
    exportView(dialog.path(), dialog.style(), dialog.recipeName());
}

bool MainWindow::exportView(const QString& path, FigureStyle style, const QString& recipe, bool interactive) {
    ViewPanel* panel = currentPanel();
    if (!panel) return false;
    style.dark = !style.paper && Theme::current().kind == ThemeKind::Dark;  // the view's colours
    // The recipe is what the view shows before the export restyles its charts (taken only when
    // one is asked for: it names every run).
    std::optional<data::FigureRecipe> kept;
    if (!recipe.isEmpty()) kept = captureRecipe(*session_, *panel, style, QFileInfo(path).suffix().toLower());
    QString error;
    const bool ok = exportPanel(panel, path, style, &error);
    if (style.paper) redrawViews(panel);  // in the screen style again
    if (!ok) {
        reportError(tr("Could not export the figure"), error, interactive);
        return false;
    }
    if (recipe.isEmpty()) {
        statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()), 5000);
    } else {
        session_->setRecipe(recipe.toStdString(), *kept);
        statusBar()->showMessage(tr("Exported %1 and kept it as the recipe “%2” (save the project to keep the recipe)")
                                     .arg(QFileInfo(path).fileName(), recipe),
                                 8000);
    }
    return true;
}

void MainWindow::exportTableDialog() {
    ViewPanel* panel = currentPanel();
    if (!panel) return;
    const auto computed = computeTables(panel);  // tables may compute bootstrap intervals
    if (!computed) return;
    const std::vector<ViewTable>& tables = *computed;
    if (tables.empty()) {
        statusBar()->showMessage(tr("This view has no table to export"), 5000);
        return;
    }
    int chosen = 0;
    if (tables.size() > 1) {
        QStringList titles;
        for (const ViewTable& t : tables) titles << t.title;
        bool ok = false;
        const QString title = QInputDialog::getItem(this, tr("Export a table"), tr("Table of the %1 view:").arg(panel->title()),
                                                    titles, 0, false, &ok);
        if (!ok) return;
        chosen = static_cast<int>(titles.indexOf(title));
    }
    const ViewTable& table = tables[static_cast<std::size_t>(chosen)];
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("export/tableDirectory"), QDir::homePath()).toString();
    const QString latex = tr("LaTeX booktabs (*.tex)"), csv = tr("CSV (*.csv)"), json = tr("JSON records (*.json)");
    QString filter = settings.value(QStringLiteral("export/tableFilter"), latex).toString();
    QString path = QFileDialog::getSaveFileName(this, tr("Export table"),
                                                QDir(dir).filePath(QStringLiteral("%1_%2").arg(panel->viewId(), table.id)),
                                                QStringList{latex, csv, json}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += filter == csv ? QStringLiteral(".csv") : filter == json ? QStringLiteral(".json") : QStringLiteral(".tex");
    settings.setValue(QStringLiteral("export/tableDirectory"), QFileInfo(path).absolutePath());
    settings.setValue(QStringLiteral("export/tableFilter"), filter);
    writeTable(panel, tables, table.id, path, true);
}

std::optional<std::vector<ViewTable>> MainWindow::computeTables(ViewPanel* panel) {
    QProgressDialog progress(tr("Computing the tables of the %1 view (fits and bootstrap intervals)…").arg(panel->title()),
                             tr("Cancel"), 0, 0, this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(400);
    QEventLoop loop;
    connect(&progress, &QProgressDialog::canceled, &loop, &QEventLoop::quit);
    connect(&progress, &QDialog::finished, &loop, &QEventLoop::quit);
    // The view's analyses under way end first, their answer taken in this event loop: the window
    // goes on answering rather than wait for them (or run them) on its own thread.
    if (panel->computing()) {
        QTimer poll;
        connect(&poll, &QTimer::timeout, &loop, [&] {
            if (!panel->computing()) loop.quit();
        });
        poll.start(20);
        loop.exec();
        if (panel->computing() || progress.wasCanceled()) {
            statusBar()->showMessage(tr("Table export cancelled"), 5000);
            return std::nullopt;
        }
    }
    const ViewPanel::TablesJob job = panel->tablesJob();
    if (!job) return panel->tables();
    // The job keeps the flag alive: a cancelled job may still be finishing after this returns.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    QFutureWatcher<std::vector<ViewTable>> watcher;
    connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run(jobPool(), [job, cancel] {
        fit::FitControl control;
        control.cancel = cancel.get();
        return job(control);
    }));
    if (!watcher.isFinished()) loop.exec();
    if (!watcher.isFinished() || progress.wasCanceled()) {
        cancel->store(true);
        statusBar()->showMessage(tr("Table export cancelled"), 5000);
        return std::nullopt;
    }
    return watcher.result();
}

bool MainWindow::exportTable(const QString& tableId, const QString& path, bool interactive) {
    ViewPanel* panel = currentPanel();
    if (!panel) return false;
    if (!tableSuffixes().contains(QFileInfo(path).suffix().toLower())) {
        QString error;
        exportViewTable(std::vector<ViewTable>{}, panel->viewId(), tableId, path, &error);  // names the suffixes
        reportError(tr("Could not export the table"), error, interactive);
        return false;
    }
    const auto tables = computeTables(panel);
    if (!tables) {
        lastError_ = tr("Table export cancelled");
        return false;
    }
    return writeTable(panel, *tables, tableId, path, interactive);
}

bool MainWindow::writeTable(ViewPanel* panel, const std::vector<ViewTable>& tables, const QString& tableId, const QString& path,
                            bool interactive) {
    QString error;
    const bool ok = exportViewTable(tables, panel->viewId(), tableId, path, &error);
    if (!ok) {
        reportError(tr("Could not export the table"), error, interactive);
        return false;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

void MainWindow::recipesDialog() {
    RecipesDialog dialog(this);
    dialog.exec();
}

void MainWindow::saveAsDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save project"), session_->projectPath(), tr("Scalex projects (*.scalex)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1String(".scalex"))) path += QLatin1String(".scalex");
    saveProject(path);
}

void MainWindow::reportError(const QString& title, const QString& message, bool interactive) {
    lastError_ = message;
    statusBar()->showMessage(title, 8000);
    if (interactive) QMessageBox::warning(this, title, message);
}

void MainWindow::projectOpened(const QString& label) {
    lastError_.clear();
    statusProject_->setText(session_->sourceLabel());
    setWindowTitle(QStringLiteral("%1 — Scalex").arg(label));
    refreshRecentMenu();
    if (!session_->settingsProblem().isEmpty()) statusBar()->showMessage(session_->settingsProblem(), 30000);
    // The view that teaches most about this study (--view, a lesson or the last session choose after).
    showView(QString::fromStdString(analysis::firstView(session_->study())));
}

bool MainWindow::openPath(const QString& path, bool interactive) {
    if (data::isTrackerJsonFile(path)) return openFilesTogether({path}, interactive);  // its run and its curve
    if (!path.endsWith(QLatin1String(".scalex"), Qt::CaseInsensitive)) {
        switch (data::dataFileKind(path)) {
            case data::DataFileKind::LossCurves: return openLossCurves(path, interactive);
            case data::DataFileKind::InferenceMeasurements: return openMeasurements(path, interactive);
            default:
                if (interactive && QFileInfo(path).size() >= kBackgroundLoadBytes) {
                    loadRunTableInBackground(path, interactive);
                    return true;
                }
                return openRunTable(path, interactive);
        }
    }
    auto loaded = data::loadProject(path);
    if (!loaded) {
        reportError(tr("Could not open the project"), QString::fromStdString(loaded.error().toString()), interactive);
        return false;
    }
    session_->setProject(std::move(*loaded), QFileInfo(path).absoluteFilePath());
    QSettings settings;
    data::addRecentProject(settings, path);
    projectOpened(QFileInfo(path).fileName());
    return true;
}

bool MainWindow::openPaths(const QStringList& paths, bool interactive) {
    return paths.size() == 1 ? openPath(paths.front(), interactive) : openFilesTogether(paths, interactive);
}

bool MainWindow::openFilesTogether(const QStringList& paths, bool interactive) {
    QStringList tables, curves, measurements;
    std::vector<data::TrackerRun> trackerRuns;
    for (const QString& path : paths) {
        if (path.endsWith(QLatin1String(".scalex"), Qt::CaseInsensitive)) {
            reportError(tr("Could not open the files"),
                        tr("%1: a project opens on its own; give it alone, or its run tables and curves as files").arg(path),
                        interactive);
            return false;
        }
        switch (data::dataFileKind(path)) {
            case data::DataFileKind::LossCurves: curves << path; break;
            case data::DataFileKind::InferenceMeasurements: measurements << path; continue;
            default: tables << path; continue;
        }
        if (data::isTrackerJsonFile(path)) {
            auto run = data::loadTrackerRun(path.toStdString());
            if (!run) {
                reportError(tr("Could not open the tracker export"), QString::fromStdString(run.error().toString()), interactive);
                return false;
            }
            trackerRuns.push_back(std::move(*run));
        }
    }
    // Opening a run table starts a new study, so the tables come first and the curves are added to it.
    bool opened = false;
    for (const QString& path : tables) {
        if (!(opened ? addRunTable(path, interactive) : openRunTable(path, interactive))) return false;
        opened = true;
    }
    if (!trackerRuns.empty()) {
        // Tracker exports are runs too: one row each, its config's keys as columns, as `scalex convert`
        // writes them (data::trackerRunsCsv), so the study's reading sees their settings.
        auto table = data::parseRunTable(data::trackerRunsCsv(trackerRuns), "tracker_runs");
        if (opened && table) session_->addRuns(std::move(*table), "tracker_runs");
        else if (!runTableRead(std::move(table), QStringLiteral("tracker_runs"), interactive)) return false;
    }
    for (const QString& path : curves)
        if (!openLossCurves(path, interactive)) return false;
    for (const QString& path : measurements)
        if (!openMeasurements(path, interactive)) return false;
    if (paths.size() > 1)
        statusBar()->showMessage(tr("Opened %1 files: %2 run tables, %3 tracker exports as runs, %4 loss curves, %5 measurements "
                                    "(saved with the project)")
                                     .arg(paths.size())
                                     .arg(tables.size())
                                     .arg(trackerRuns.size())
                                     .arg(curves.size())
                                     .arg(measurements.size()),
                                 8000);
    return true;
}

bool MainWindow::openRunTable(const QString& path, bool interactive) {
    return runTableRead(data::loadRunTable(path.toStdString()), path, interactive);
}

void MainWindow::loadRunTableInBackground(const QString& path, bool interactive) {
    loadInteractive_ = interactive;
    loadingBar_->setValue(0);
    loadingBox_->show();
    statusBar()->showMessage(tr("Opening %1 …").arg(QFileInfo(path).fileName()));
    loader_->start(path);
}

bool MainWindow::loading() const { return loader_->busy(); }

void MainWindow::cancelLoading() { loader_->cancel(); }

bool MainWindow::runTableRead(data::Expected<data::RunTable> loaded, const QString& path, bool interactive) {
    if (!loaded) {
        reportError(tr("Could not open the file"), QString::fromStdString(loaded.error().toString()), interactive);
        return false;
    }
    const QString label = QFileInfo(path).fileName();
    session_->setRuns(std::move(*loaded), label);
    projectOpened(label);
    return true;
}

bool MainWindow::openLossCurves(const QString& path, bool interactive) {
    if (const QString why = session_->addDataFile(data::DataFileKind::LossCurves, path); !why.isEmpty()) {
        reportError(tr("Could not open the loss curves"), why, interactive);
        return false;
    }
    const auto curves = session_->curveSets().back().curves.curves.size();
    showView(QStringLiteral("curves"));
    statusBar()->showMessage(tr("Added the loss curves of %1 runs from %2 (saved with the project)").arg(curves).arg(QFileInfo(path).fileName()), 8000);
    return true;
}

bool MainWindow::openMeasurements(const QString& path, bool interactive) {
    if (const QString why = session_->addDataFile(data::DataFileKind::InferenceMeasurements, path); !why.isEmpty()) {
        reportError(tr("Could not open the inference measurements"), why, interactive);
        return false;
    }
    showView(QStringLiteral("inference"));
    statusBar()->showMessage(tr("Loaded the inference measurements of %1 (saved with the project)").arg(QFileInfo(path).fileName()), 8000);
    return true;
}

bool MainWindow::addRunTable(const QString& path, bool interactive) {
    auto loaded = data::loadRunTable(path.toStdString());
    if (!loaded) {
        reportError(tr("Could not add the file"), QString::fromStdString(loaded.error().toString()), interactive);
        return false;
    }
    session_->addRuns(std::move(*loaded), QFileInfo(path).fileName());
    statusBar()->showMessage(tr("Added %1").arg(QFileInfo(path).fileName()), 5000);
    return true;
}

bool MainWindow::openExample(bool interactive) {
    QString error;
    auto example = data::loadExampleProject(&error);
    if (!example) {
        reportError(tr("Could not open the example project"), error, interactive);
        return false;
    }
    session_->setProject(std::move(*example), QString());
    projectOpened(tr("Example project"));
    return true;
}

bool MainWindow::openGemstonesExample(bool interactive) {
    QString error;
    auto example = data::loadGemstonesExample(&error);
    if (!example) {
        reportError(tr("Could not open the Gemstones example"), error, interactive);
        return false;
    }
    session_->setProject(std::move(*example), QString());
    projectOpened(tr("Gemstones example"));
    statusBar()->showMessage(tr("Gemstones: checkpoints along 22 runs per validation set; each run's last checkpoint is a run "
                                "in the fits (constant-learning-rate runs, see datasets/gemstones/README.md)"),
                             15000);
    return true;
}

bool MainWindow::saveProject(const QString& requested, bool interactive) {
    QString path = requested.isEmpty() ? session_->projectPath() : requested;
    if (path.isEmpty()) {
        if (!interactive) return false;
        saveAsDialog();
        return !session_->projectPath().isEmpty();
    }
    // Writing a large project takes a second or more: a copy is written off the UI thread while a
    // modal progress dialog (no cancel: the file is replaced whole or not at all) holds the window.
    QFutureWatcher<std::optional<data::LoadError>> watcher;
    QProgressDialog progress(tr("Saving %1…").arg(QFileInfo(path).fileName()), QString(), 0, 0, this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(400);
    QEventLoop loop;
    connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
    watcher.setFuture(QtConcurrent::run(jobPool(), [project = session_->project(), path] { return data::saveProject(project, path); }));
    if (!watcher.isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);  // no second save meanwhile
    watcher.waitForFinished();
    progress.reset();
    if (const auto error = watcher.result()) {
        reportError(tr("Could not save the project"), QString::fromStdString(error->toString()), interactive);
        return false;
    }
    session_->setProjectPath(QFileInfo(path).absoluteFilePath());
    QSettings settings;
    data::addRecentProject(settings, path);
    refreshRecentMenu();
    statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 5000);
    setWindowTitle(QStringLiteral("%1 — Scalex").arg(QFileInfo(path).fileName()));
    return true;
}

void MainWindow::refreshRecentMenu() {
    if (!recentMenu_) return;
    recentMenu_->clear();
    const QStringList recent = data::recentProjects(QSettings());
    for (const QString& path : recent) {
        QAction* a = recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openPath(path); });
        a->setToolTip(path);
        a->setEnabled(QFileInfo::exists(path));
    }
    if (recent.isEmpty()) recentMenu_->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::restoreLastSession() {
    const auto last = data::lastSession(QSettings());
    if (last && !last->projectPath.isEmpty() && QFileInfo::exists(last->projectPath) && openPath(last->projectPath, false)) {
        if (!last->activeView.isEmpty()) showView(last->activeView);  // where the user left it
        return;
    }
    openExample(false);
}

void MainWindow::setDarkTheme(bool dark) {
    Theme::setCurrent(dark ? Theme::dark() : Theme::light());
    QSettings().setValue(QStringLiteral("ui/theme"), dark ? QStringLiteral("dark") : QStringLiteral("light"));
    applyStyle();  // keeps presentation mode and zoom; views rebuild their charts with the new colours
}

void MainWindow::applyStyle() {
    Theme theme = Theme::current().kind == ThemeKind::Dark ? Theme::dark() : Theme::light();
    const double scale = (presentation_ ? 1.4 : 1.0) * zoom_;
    theme.basePointSize = std::max(6, static_cast<int>(std::lround(theme.basePointSize * scale)));
    theme.lineScale = (presentation_ ? 1.8 : 1.0) * zoom_;
    Theme::setCurrent(theme);
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) theme.applyTo(*app);
    redrawViews();
}

void MainWindow::redrawViews(ViewPanel* only) {
    // Views rebuild their charts with the new colours, fonts and lines; nothing is refitted. (Views
    // out of sight redraw when they are shown next.)
    session_->restyle();
    for (ViewPanel* p : panels_) {
        if (only && p != only) continue;
        // Titles laid out for the old fonts would stay cut short (or leave room) for the new ones.
        for (QChartView* v : p->findChildren<QChartView*>())
            if (v->chart()) PlotChart::retitle(v->chart());
    }
}

void MainWindow::setPresentation(bool on) {
    if (presentationAction_ && presentationAction_->isChecked() != on) {
        presentationAction_->setChecked(on);  // toggles back into this function
        return;
    }
    presentation_ = on;
    applyStyle();
}

void MainWindow::zoomBy(int steps) {
    zoom_ = steps == 0 ? 1.0 : std::clamp(zoom_ * std::pow(1.15, steps), 0.6, 2.5);
    applyStyle();
}

QString MainWindow::checkLesson(const data::Lesson& lesson) const {
    QStringList viewIds;
    for (ViewPanel* p : panels_) viewIds << p->viewId();
    for (std::size_t i = 0; i < lesson.steps.size(); ++i) {
        const data::LessonStep& s = lesson.steps[i];
        const QString field = QStringLiteral("steps[%1]").arg(i);
        ViewPanel* panel = nullptr;
        for (ViewPanel* p : panels_)
            if (p->viewId() == QString::fromStdString(s.view)) panel = p;
        if (!panel)
            return QStringLiteral("%1: field '%2.view': no view named '%3' (views: %4)")
                .arg(QString::fromStdString(lesson.file), field, QString::fromStdString(s.view), viewIds.join(", "));
        const QJsonObject named = captureControls(panel);
        QStringList names = named.keys();
        for (auto it = s.controls.begin(); it != s.controls.end(); ++it)
            if (!named.contains(it.key()))
                return QStringLiteral("%1: field '%2.controls.%3': the view '%4' has no control '%3' (it has %5)")
                    .arg(QString::fromStdString(lesson.file), field, it.key(), QString::fromStdString(s.view),
                         names.isEmpty() ? QStringLiteral("none") : names.join(", "));
        if (!s.highlight.empty() && !named.contains(QString::fromStdString(s.highlight)))
            return QStringLiteral("%1: field '%2.highlight': the view '%3' has no control '%4' (it has %5)")
                .arg(QString::fromStdString(lesson.file), field, QString::fromStdString(s.view),
                     QString::fromStdString(s.highlight), names.isEmpty() ? QStringLiteral("none") : names.join(", "));
    }
    return {};
}

bool MainWindow::openLesson(const data::Lesson& lesson, int step, bool interactive) {
    const QString problem = checkLesson(lesson);
    if (!problem.isEmpty()) {
        reportError(tr("Could not open the lesson"), problem, interactive);
        return false;
    }
    if (step < 0 || step >= static_cast<int>(lesson.steps.size())) {
        reportError(tr("Could not open the lesson"),
                    tr("%1: the lesson has %2 steps; there is no step %3")
                        .arg(QString::fromStdString(lesson.file)).arg(lesson.steps.size()).arg(step + 1),
                    interactive);
        return false;
    }
    lessonPane_->setLesson(lesson);
    lessonDock_->show();
    lessonDock_->raise();
    // A window not shown yet (`scalex --lesson`) sets up its dock tabs only when it shows, from the
    // layout it restored (where the Explain tab may be in front): raised now, the pane would not be.
    raiseLessonOnShow_ = !isVisible();
    return showLessonStep(step, interactive);
}

bool MainWindow::openLessonFile(const QString& idOrPath, int step, bool interactive) {
    auto lesson = data::findLesson(idOrPath);
    if (!lesson) {
        reportError(tr("Could not open the lesson"), QString::fromStdString(lesson.error().toString()), interactive);
        return false;
    }
    return openLesson(*lesson, step, interactive);
}

bool MainWindow::showLessonStep(int index, bool interactive) {
    const data::Lesson& lesson = lessonPane_->lesson();
    if (index < 0 || index >= static_cast<int>(lesson.steps.size())) return false;
    const data::LessonStep& s = lesson.steps[static_cast<std::size_t>(index)];
    const QString field = QStringLiteral("steps[%1]").arg(index);
    if (!showView(QString::fromStdString(s.view))) {
        reportError(tr("Could not show the lesson step"), checkLesson(lesson), interactive);
        return false;
    }
    ViewPanel* panel = currentPanel();
    const QStringList notes = restoreControls(panel, s.controls);
    lessonPane_->showStep(index);
    QWidget* target = nullptr;
    if (!s.highlight.empty())
        for (QWidget* w : panel->findChildren<QWidget*>(QString::fromStdString(s.highlight))) target = target ? target : w;
    highlight_->setTarget(target);
    if (!notes.isEmpty()) {
        reportError(tr("Could not show the lesson step"),
                    QStringLiteral("%1: field '%2.controls': %3").arg(QString::fromStdString(lesson.file), field, notes.join("; ")),
                    interactive);
        return false;
    }
    lastError_.clear();
    return true;
}

QImage MainWindow::screenshot() {
    // The view's work done first (computeNow waits for its jobs and for those their answers start),
    // then all the answers set off: tables filled, the layouts a new table size or text starts
    // (posted requests, one level of widgets per round), the scroll to a lesson's framed control.
    // Rounds until no event is left, so an answer that came late (a busy machine) gives the picture
    // an early one gives. (computeNow only once: a view without a result, such as a loss surface
    // whose fit failed, fits again on each call.)
    if (ViewPanel* panel = currentPanel()) panel->computeNow();
    QEventLoop loop;
    auto settle = [&loop] {
        for (int round = 0; round < 100; ++round) {
            const bool handled = loop.processEvents();
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);  // replaced chart items
            if (!handled) break;
        }
    };
    settle();
    // Then the view drawn once more from its answer (nothing refitted), at the size it has now:
    // a chart drawn before the window showed was laid out for another size and changed since.
    if (ViewPanel* panel = currentPanel()) {
        redrawViews(panel);
        settle();
    }
    QImage shot = grab().toImage();
    // Curves the window shows as an image made on a worker thread (CurveBundle.h) are in it once made.
    bool imageMade = false;
    if (ViewPanel* panel = currentPanel())
        for (QChart* chart : panel->charts())
            if (auto* plot = qobject_cast<figures::PlotChart*>(chart); plot && plot->bundle()) imageMade = plot->bundle()->finishImage() || imageMade;
    return imageMade ? grab().toImage() : shot;
}

void MainWindow::endLesson() {
    highlight_->setTarget(nullptr);
    lessonPane_->setLesson({});
    lessonDock_->hide();
    explainDock_->raise();
}

void MainWindow::openLessonDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a lesson"), QString(), tr("Lessons (*.json);;All files (*)"));
    if (!path.isEmpty()) openLessonFile(path);
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About Scalex"),
                       tr("<b>Scalex %1</b><p>Desktop explorer for neural scaling laws: Pareto fronts, the parametric "
                          "loss surface L(N,D), IsoFLOP profiles, compute-optimal model sizes and inference runtimes of "
                          "Transformer and xLSTM models.</p>")
                           .arg(QStringLiteral(SCALEX_VERSION)));
}

void MainWindow::restoreLayout() {
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("ui/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("ui/state")).toByteArray());
    showView(s.value(QStringLiteral("ui/view")).toString());
}

void MainWindow::saveLayout() {
    QSettings s;
    data::LastSession last;
    last.projectPath = session_->projectPath();
    if (ViewPanel* p = currentPanel()) last.activeView = p->viewId();
    last.windowGeometry = saveGeometry();
    last.windowState = saveState();
    data::saveLastSession(s, last);
    s.setValue(QStringLiteral("ui/geometry"), saveGeometry());
    s.setValue(QStringLiteral("ui/state"), saveState());
    if (ViewPanel* p = currentPanel()) s.setValue(QStringLiteral("ui/view"), p->viewId());
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (std::exchange(raiseLessonOnShow_, false) && lessonPane_->hasLesson()) lessonDock_->raise();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveLayout();
    event->accept();
}

}  // namespace scalex::gui
