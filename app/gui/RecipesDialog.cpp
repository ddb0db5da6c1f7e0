#include "app/gui/RecipesDialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrent>

#include "app/gui/JobPool.h"
#include "app/gui/MainWindow.h"
#include "app/gui/Recipes.h"
#include "app/gui/Session.h"

namespace scalex::gui {

RecipesDialog::RecipesDialog(MainWindow* window) : QDialog(window), window_(window) {
    setWindowTitle(tr("Figure recipes"));
    resize(760, 360);
    table_ = new QTableWidget(this);
    table_->setColumnCount(7);
    table_->setHorizontalHeaderLabels({tr("Name"), tr("View"), tr("Format"), tr("Size"), tr("Style"), tr("Saved"), tr("Runs")});
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    show_ = new QPushButton(tr("Show in the window"), this);
    regenerate_ = new QPushButton(tr("Regenerate…"), this);
    regenerateAll_ = new QPushButton(tr("Regenerate all…"), this);
    delete_ = new QPushButton(tr("Delete"), this);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* buttons = new QHBoxLayout();
    for (QPushButton* b : {show_, regenerate_, regenerateAll_, delete_}) buttons->addWidget(b);
    buttons->addStretch(1);
    buttons->addWidget(close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Figures kept with the project draw again identically: the same view, settings, runs, "
                                    "size and style. Save the project to keep changes to this list."),
                                 this));
    layout->addWidget(table_, 1);
    layout->addWidget(message_);
    layout->addLayout(buttons);

    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(show_, &QPushButton::clicked, this, [this] { showRecipe(selectedName()); });
    connect(regenerate_, &QPushButton::clicked, this, [this] {
        const QString name = selectedName();
        const auto& recipes = window_->session()->recipes();
        if (!recipes.count(name.toStdString())) return;
        const QString format = QString::fromStdString(recipes.at(name.toStdString()).format);
        const QString out = QFileDialog::getSaveFileName(this, tr("Regenerate %1").arg(name), name + '.' + format,
                                                         QStringLiteral("%1 (*.%2)").arg(format.toUpper(), format));
        if (!out.isEmpty()) regenerate(name, out);
    });
    connect(regenerateAll_, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Regenerate every figure into"));
        if (!dir.isEmpty()) regenerateAll(dir);
    });
    connect(delete_, &QPushButton::clicked, this, [this] {
        window_->session()->removeRecipe(selectedName().toStdString());
    });
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        const bool any = !selectedName().isEmpty();
        for (QPushButton* b : {show_, regenerate_, delete_}) b->setEnabled(any);
    });
    check_ = new QFutureWatcher<std::string>(this);
    connect(check_, &QFutureWatcherBase::finished, this, [this] {
        window_->session()->study().rememberDataDigest(checkedRevision_, check_->result());
        refresh();
    });
    connect(window_->session(), &Session::recipesChanged, this, &RecipesDialog::refresh);
    connect(window_->session(), &Session::runsChanged, this, &RecipesDialog::refresh);
    refresh();
}

void RecipesDialog::startCheck() {
    const Session* session = window_->session();
    if (check_->isRunning() && checkedRevision_ == session->runsRevision()) return;  // under way
    // A check of runs that have changed since is dropped (the watcher follows the new one).
    checkedRevision_ = session->runsRevision();
    std::vector<data::RunTable> tables;
    for (const auto& t : session->study().loaded().tables) tables.push_back(t.table);
    check_->setFuture(QtConcurrent::run(jobPool(), [tables = std::move(tables)] {
        std::vector<const data::RunTable*> pointers;
        for (const auto& t : tables) pointers.push_back(&t);
        return data::runTablesDigest(pointers);
    }));
}

void RecipesDialog::finishChecks() {
    // A check that ended on its worker may still have its answer queued for the UI thread: deliver
    // it whether or not the check was still running.
    if (check_->isRunning()) check_->waitForFinished();
    QCoreApplication::sendPostedEvents(check_);
    QCoreApplication::processEvents();
}

void RecipesDialog::refresh() {
    const Session* session = window_->session();
    const auto& recipes = session->recipes();
    // Whether each recipe's runs are the project's: known at once, or checked off the UI thread.
    const std::optional<std::string>& digest = session->study().knownDataDigest();
    if (!recipes.empty() && !digest) startCheck();
    table_->setRowCount(static_cast<int>(recipes.size()));
    int row = 0;
    for (const auto& [name, r] : recipes) {
        const QStringList cells{QString::fromStdString(name),
                                QString::fromStdString(r.view),
                                QString::fromStdString(r.format).toUpper(),
                                r.heightInches > 0 ? tr("%1 × %2 in").arg(r.widthInches).arg(r.heightInches)
                                                   : tr("%1 in wide").arg(r.widthInches),
                                r.paper ? tr("paper, %1").arg(QString::fromStdString(r.font)) : tr("screen"),
                                QString::fromStdString(r.created),
                                !digest ? tr("checking…") : r.dataDigest == *digest ? tr("unchanged") : tr("changed since")};
        for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
        ++row;
    }
    if (table_->rowCount() > 0 && table_->selectedItems().isEmpty()) table_->selectRow(0);
    regenerateAll_->setEnabled(!recipes.empty());
    const bool any = !selectedName().isEmpty();
    for (QPushButton* b : {show_, regenerate_, delete_}) b->setEnabled(any);
    if (recipes.empty())
        message_->setText(tr("No recipes yet: export a view (File → Export view as figure) and tick “Keep as a recipe”."));
}

QString RecipesDialog::selectedName() const {
    const auto rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return {};
    const QTableWidgetItem* item = table_->item(rows.first().row(), 0);
    return item ? item->text() : QString();
}

QString RecipesDialog::message() const { return message_->text(); }

void RecipesDialog::report(const QStringList& warnings, const QString& done) {
    message_->setText(warnings.isEmpty() ? done : done + QStringLiteral("<br>") + warnings.join(QStringLiteral("<br>")));
}

bool RecipesDialog::showRecipe(const QString& name) {
    const auto& recipes = window_->session()->recipes();
    const auto it = recipes.find(name.toStdString());
    if (it == recipes.end()) return false;
    const data::FigureRecipe recipe = it->second;  // applying may change the session's recipes
    QStringList warnings;
    QString error;
    if (!applyRecipe(*window_, recipe, &warnings, &error)) {
        message_->setText(tr("Cannot show “%1”: %2").arg(name, error));
        return false;
    }
    report(warnings, tr("The window shows “%1” as it was saved.").arg(name));
    return true;
}

bool RecipesDialog::regenerate(const QString& name, const QString& out) {
    const Session* session = window_->session();
    const auto it = session->recipes().find(name.toStdString());
    if (it == session->recipes().end()) return false;
    QStringList warnings;
    QString error;
    if (!figures::renderRecipe(session->study(), it->second, out, &warnings, &error)) {
        message_->setText(tr("Cannot regenerate “%1”: %2").arg(name, error));
        return false;
    }
    report(warnings, tr("Wrote %1.").arg(out));
    return true;
}

bool RecipesDialog::regenerateAll(const QString& directory) {
    const Session* session = window_->session();
    const data::Project project = session->project();
    QStringList warnings, written;
    for (const auto& [name, recipe] : project.recipes) {
        const QString out = QDir(directory).filePath(QString::fromStdString(name + "." + recipe.format));
        QString error;
        QStringList notes;
        if (!figures::renderRecipe(session->study(), recipe, out, &notes, &error)) {
            message_->setText(tr("Cannot regenerate “%1”: %2").arg(QString::fromStdString(name), error));
            return false;
        }
        for (const QString& n : notes) warnings << QStringLiteral("%1: %2").arg(QString::fromStdString(name), n);
        written << QFileInfo(out).fileName();
    }
    report(warnings, tr("Wrote %1 to %2.").arg(written.join(", "), directory));
    return true;
}

}  // namespace scalex::gui
