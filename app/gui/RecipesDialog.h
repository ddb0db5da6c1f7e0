#pragma once
// File → Figure recipes: the figures kept in the project, each drawn again on demand into a file
// (one or all), brought back into the window, or deleted.
#include <QDialog>
#include <QFutureWatcher>
#include <cstdint>
#include <string>

class QTableWidget;
class QLabel;
class QPushButton;

namespace scalex::gui {

class MainWindow;

class RecipesDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecipesDialog(MainWindow* window);

    QTableWidget* table() const { return table_; }
    // The actions behind the buttons, for tests: each returns false and shows why on failure.
    bool showRecipe(const QString& name);
    bool regenerate(const QString& name, const QString& out);
    // Every recipe into `directory` as <name>.<format>.
    bool regenerateAll(const QString& directory);
    QString message() const;

    // Waits for the check of the runs against the recipes' (tests).
    void finishChecks();

private:
    void refresh();
    // The digest of the project's runs, on a worker thread (hashing 20,000 runs takes a while);
    // the "Runs" column says "checking…" until it is known.
    void startCheck();
    QString selectedName() const;
    void report(const QStringList& warnings, const QString& done);

    MainWindow* window_;
    QTableWidget* table_;
    QLabel* message_;
    QPushButton* show_;
    QPushButton* regenerate_;
    QPushButton* regenerateAll_;
    QPushButton* delete_;
    QFutureWatcher<std::string>* check_;
    std::uint64_t checkedRevision_ = 0;
};

}  // namespace scalex::gui
