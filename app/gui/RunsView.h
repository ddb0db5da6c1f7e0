#pragma once
// The run table: sorting, filtering, problem rows with their reasons, include/exclude toggles.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include "app/gui/ViewPanel.h"

class QComboBox;
class QCheckBox;
class QLineEdit;
class QTableView;
class QTableWidget;
class QLabel;

namespace scalex::gui {

class Session;

class RunTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Include, Family, Set, Context, Params, Tokens, Ratio, Flops, Budget, Loss, Selected, Problems, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, FilterRole };

    explicit RunTableModel(Session* session, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    void reset();
    // After the session's runs changed: a reset where their values or series changed, else (runs
    // toggled) their ticks and colours redrawn, which keeps the rows' text. Returns whether it reset.
    bool refresh();

private:
    Session* session_;
    std::uint64_t shownRevision_ = 0;  // the runs' revision the rows show
    int shownRows_ = 0;
};

class RunFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    RunFilterModel(const Session* session, QObject* parent) : QSortFilterProxyModel(parent), session_(session) {}
    QString family, set, context;  // empty: any
    bool problemsOnly = false;
    bool excludedOnly = false;
    // Rows holding this text in any cell or in the run's name or id, in any case (empty: every row).
    QString search;
    void refresh() { invalidateFilter(); }
    void setSourceModel(QAbstractItemModel* model) override;

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
    QString textOf(int row) const;
    const Session* session_;
    // Every cell's text of each row, one line per cell: made on the first search after the rows
    // change, so that typing a search scans strings instead of formatting 20,000 rows per key.
    mutable std::vector<QString> rowText_;
};

class RunsView : public ViewPanel {
    Q_OBJECT
public:
    explicit RunsView(Session* session, QWidget* parent = nullptr);
    QString viewId() const override { return QStringLiteral("runs"); }
    QString explainHtml() const override;
    QTableView* table() const { return table_; }
    // The rows the table shows, in its order, with an `in_analysis` column.
    std::vector<ViewTable> tables() override;
    RunTableModel* model() const { return model_; }

private:
    void refillFilters();
    void updateSummary();

    Session* session_;
    RunTableModel* model_;
    RunFilterModel* proxy_;
    QTableView* table_;
    QComboBox* family_;
    QComboBox* set_;
    QComboBox* context_;
    QCheckBox* problemsOnly_;
    QCheckBox* selectedOnly_;
    QLineEdit* groupBy_;
    QLineEdit* where_;
    QLabel* scopeError_;
    void showScopeError(const QString& text);
    void syncScopeFields();  // the fields from the session's settings
    QLineEdit* search_;
    QLabel* summary_;
    bool syncingSelection_ = false;
    // How the columns are read (analysis/StudyReading.h): column, role (a choice the user can change:
    // kept in the settings, so in the project and its recipes), evidence.
    QTableWidget* roles_;
    void fillRoles();
};

}  // namespace scalex::gui
