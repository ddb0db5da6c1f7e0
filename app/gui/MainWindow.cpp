#include "app/gui/MainWindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextBrowser>

#include <QFileDialog>
#include <QFileInfo>

#include "app/gui/AnalysisViews.h"
#include "app/gui/ContextView.h"
#include "app/gui/FlopBreakdownView.h"
#include "app/gui/LossSurfaceView.h"
#include "app/gui/RunsView.h"
#include "app/gui/Session.h"
#include "core/data/RunTableIo.h"
#include "app/gui/Theme.h"
#include "app/gui/ViewPanel.h"

namespace scalex::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    session_ = new Session(this);
    setObjectName(QStringLiteral("ScalexMainWindow"));
    setWindowTitle(QStringLiteral("Scalex"));
    setWindowIcon(QIcon(QStringLiteral(":/scalex/icons/scalex.svg")));
    views_ = new QTabWidget(this);
    views_->setDocumentMode(true);
    setCentralWidget(views_);

    explain_ = new QTextBrowser(this);
    explain_->setOpenExternalLinks(false);
    explainDock_ = new QDockWidget(tr("Explain"), this);
    explainDock_->setObjectName(QStringLiteral("ExplainDock"));
    explainDock_->setWidget(explain_);
    explainDock_->setMinimumWidth(260);
    addDockWidget(Qt::RightDockWidgetArea, explainDock_);

    addPanel(new RunsView(session_, this));
    addPanel(new ParetoView(session_, this));
    addPanel(new LossSurfaceView(session_, this));
    addPanel(new OverTrainingView(session_, this));
    addPanel(new IsoFlopView(session_, this));
    addPanel(new ContextView(session_, this));
    addPanel(new FlopBreakdownView(this));

    connect(views_, &QTabWidget::currentChanged, this, &MainWindow::updateExplain);
    buildMenus();
    statusProject_ = new QLabel(tr("No project"), this);
    statusBar()->addPermanentWidget(statusProject_);
    statusBar()->showMessage(tr("Ready"));
    resize(1280, 800);
    restoreLayout();
    updateExplain();
}

MainWindow::~MainWindow() = default;

void MainWindow::addPanel(ViewPanel* panel) {
    panels_.push_back(panel);
    views_->addTab(panel, panel->title());
    connect(panel, &ViewPanel::explainChanged, this, [this, panel] {
        if (currentPanel() == panel) updateExplain();
    });
}

ViewPanel* MainWindow::currentPanel() const { return qobject_cast<ViewPanel*>(views_->currentWidget()); }

bool MainWindow::showView(const QString& id) {
    for (ViewPanel* p : panels_)
        if (p->viewId() == id) {
            views_->setCurrentWidget(p);
            return true;
        }
    return false;
}

void MainWindow::updateExplain() {
    if (ViewPanel* p = currentPanel()) explain_->setHtml(p->explainHtml());
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open run table…"), this, &MainWindow::openFileDialog);
    open->setShortcut(QKeySequence::Open);
    file->addSeparator();
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

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Scalex"), this, &MainWindow::showAbout);
}

void MainWindow::openFileDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open run table"), QString(),
        tr("Run tables (*.csv *.tsv *.json *.jsonl *.csv.gz);;All files (*)"));
    if (!path.isEmpty()) openRunTable(path);
}

bool MainWindow::openRunTable(const QString& path, bool interactive) {
    auto loaded = data::loadRunTable(path.toStdString());
    if (!loaded) {
        lastError_ = QString::fromStdString(loaded.error().toString());
        statusBar()->showMessage(tr("Could not open %1").arg(QFileInfo(path).fileName()), 8000);
        if (interactive) QMessageBox::warning(this, tr("Could not open the file"), lastError_);
        return false;
    }
    lastError_.clear();
    const QString label = QFileInfo(path).fileName();
    session_->setRuns(std::move(*loaded), label);
    statusProject_->setText(label);
    setWindowTitle(QStringLiteral("%1 — Scalex").arg(label));
    return true;
}

void MainWindow::setDarkTheme(bool dark) {
    Theme::setCurrent(dark ? Theme::dark() : Theme::light());
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) Theme::current().applyTo(*app);
    QSettings().setValue(QStringLiteral("ui/theme"), dark ? QStringLiteral("dark") : QStringLiteral("light"));
    // Views rebuild their charts with the new colours.
    for (ViewPanel* p : panels_)
        if (auto* b = qobject_cast<FlopBreakdownView*>(p)) b->setConvention(accounting::studyConvention());
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
    s.setValue(QStringLiteral("ui/geometry"), saveGeometry());
    s.setValue(QStringLiteral("ui/state"), saveState());
    if (ViewPanel* p = currentPanel()) s.setValue(QStringLiteral("ui/view"), p->viewId());
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveLayout();
    event->accept();
}

}  // namespace scalex::gui
