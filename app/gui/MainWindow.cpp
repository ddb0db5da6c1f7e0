#include "app/gui/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace scalex::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Scalex"));
    setWindowIcon(QIcon(QStringLiteral(":/scalex/icons/scalex.svg")));
    views_ = new QTabWidget(this);
    views_->setDocumentMode(true);
    auto* welcome = new QLabel(
        tr("<h2>Scalex</h2><p>An explorer for neural scaling laws: Pareto fronts, the parametric loss surface "
           "L(N,D), IsoFLOP profiles, compute-optimal model sizes and inference runtimes of Transformer and "
           "xLSTM models.</p>"),
        views_);
    welcome->setAlignment(Qt::AlignCenter);
    welcome->setWordWrap(true);
    welcome->setMargin(40);
    views_->addTab(welcome, tr("Welcome"));
    setCentralWidget(views_);
    buildMenus();
    statusProject_ = new QLabel(tr("No project"), this);
    statusBar()->addPermanentWidget(statusProject_);
    statusBar()->showMessage(tr("Ready"));
    resize(1280, 800);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);
    menuBar()->addMenu(tr("&View"));
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Scalex"), this, &MainWindow::showAbout);
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About Scalex"),
                       tr("<b>Scalex %1</b><p>Desktop explorer for neural scaling laws.</p>").arg(QStringLiteral(SCALEX_VERSION)));
}

}  // namespace scalex::gui
