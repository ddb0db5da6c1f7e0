#include "app/gui/RunsView.h"

#include "core/analysis/ExportTables.h"

#include <QtConcurrent/QtConcurrentMap>
#include "app/gui/FlowLayout.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QTableView>
#include <QVBoxLayout>
#include <set>

#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/gui/Session.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"

#include "core/data/Series.h"

namespace scalex::gui {

namespace {

QString setName(data::ExperimentSet s) {
    switch (s) {
        case data::ExperimentSet::TokenParam: return QStringLiteral("tokenparam");
        case data::ExperimentSet::IsoFlop: return QStringLiteral("isoflop");
        case data::ExperimentSet::Other: return QStringLiteral("other");
    }
    return {};
}

QString number(double v, bool count) {
    if (!data::known(v)) return QStringLiteral("—");
    return count ? formatCount(v) : formatFlops(v);
}

}  // namespace

RunTableModel::RunTableModel(Session* session, QObject* parent) : QAbstractTableModel(parent), session_(session) {}

int RunTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(session_->runs().runs.size());
}
int RunTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

void RunTableModel::reset() {
    beginResetModel();
    shownRevision_ = session_->runsRevision();
    shownRows_ = rowCount();
    endResetModel();
}

bool RunTableModel::refresh() {
    if (session_->runsRevision() != shownRevision_ || rowCount() != shownRows_ || shownRows_ == 0) {
        reset();
        return true;
    }
    emit dataChanged(index(0, 0), index(shownRows_ - 1, ColumnCount - 1), {Qt::CheckStateRole, Qt::ForegroundRole});
    return false;
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"In fit", "Series", "Set", "Context", "N", "D", "D/N", "C (FLOPs)", "Budget", "Loss", "Selected", "Problems"};
    return tr(names[section]);
}

Qt::ItemFlags RunTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.column() == Include) f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
    const data::Run& r = session_->runs().runs[static_cast<std::size_t>(index.row())];
    const int c = index.column();
    if (role == Qt::CheckStateRole && c == Include) return session_->inAnalysis(r) ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::ForegroundRole) {
        if (r.hasProblems()) return Theme::current().highlight;
        if (!session_->inAnalysis(r)) return Theme::current().muted;
        if (c == Family) return Theme::current().series(r.series, session_->seriesIndex(r.series));
        return {};
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QStringLiteral("%1\nline %2").arg(QString::fromStdString(r.name.empty() ? r.runId : r.name)).arg(r.sourceLine);
        for (const auto& p : r.problems) tip += QStringLiteral("\n• ") + QString::fromStdString(p);
        if (!r.sweepLeftOut.empty()) tip += QStringLiteral("\n• ") + QString::fromStdString(r.sweepLeftOut);
        return tip;
    }
    if (role == SortRole) {
        switch (c) {
            case Context: return r.context;
            case Params: return r.params;
            case Tokens: return r.tokens;
            case Ratio: return r.tokensPerParam();
            case Flops: return r.flops;
            case Budget: return r.budget;
            case Loss: return r.loss();
            default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == FilterRole) {
        switch (c) {
            case Family: return QString::fromStdString(r.series);
            case Set: return setName(r.experimentSet);
            case Context: return data::known(r.context) ? QString::number(r.context) : QString();
            default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (c) {
        case Include: return {};
        case Family: return QString::fromStdString(data::seriesLabel(r.series));
        case Set: return setName(r.experimentSet);
        case Context: return data::known(r.context) ? QString::number(r.context) : QStringLiteral("—");
        case Params: return number(r.params, true);
        case Tokens: return number(r.tokens, true);
        case Ratio: return data::known(r.tokens) && data::known(r.params) ? QString::number(r.tokensPerParam(), 'f', 1) : QStringLiteral("—");
        case Flops: {
            QString s = number(r.flops, false);
            if (r.flopsSource == data::Provenance::SixNdFallback) s += QStringLiteral(" (6ND)");
            return s;
        }
        case Budget: return number(r.budget, false);
        case Loss: return data::known(r.loss()) ? QString::number(r.loss(), 'f', 4) : QStringLiteral("—");
        case Selected: return r.selectedInPaper ? (*r.selectedInPaper ? tr("yes") : tr("no")) : QStringLiteral("—");
        case Problems: {
            QStringList p;
            for (const auto& s : r.problems) p << QString::fromStdString(s);
            if (!r.sweepLeftOut.empty()) p << QString::fromStdString(r.sweepLeftOut);
            return p.join(QStringLiteral("; "));
        }
    }
    return {};
}

bool RunTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole || index.column() != Include) return false;
    session_->setIncluded(index.row(), value.toInt() == Qt::Checked);
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    return true;
}

void RunsView::showScopeError(const QString& text) {
    scopeError_->setVisible(!text.isEmpty());
    scopeError_->setText(text.isEmpty() ? QString() : QStringLiteral("<font color='%1'>%2</font>").arg(Theme::current().highlight.name(), text.toHtmlEscaped()));
}

void RunsView::syncScopeFields() {
    const AnalysisSettings& s = session_->settings();
    QStringList by, where;
    for (const auto& c : s.seriesBy) by << QString::fromStdString(c);
    for (const auto& c : s.scope.where) where << QString::fromStdString(c.text());
    if (!groupBy_->hasFocus()) groupBy_->setText(by.join(", "));
    if (!where_->hasFocus()) where_->setText(where.join("; "));
}

std::vector<ViewTable> RunsView::tables() {
    // The table's rows in its order (its sorting and filters).
    std::vector<int> rows;
    rows.reserve(static_cast<std::size_t>(proxy_->rowCount()));
    for (int r = 0; r < proxy_->rowCount(); ++r) rows.push_back(proxy_->mapToSource(proxy_->index(r, 0)).row());
    return {{QStringLiteral("runs"), tr("Runs as the table shows them"), analysis::runListTable(session_->study(), rows)}};
}

bool RunFilterModel::filterAcceptsRow(int row, const QModelIndex&) const {
    // The choices are checked on the run itself: going through the model's text for each of
    // 20,000 rows made every reset of the table take a second.
    const auto& runs = session_->runs().runs;
    if (row < 0 || static_cast<std::size_t>(row) >= runs.size()) return false;
    const data::Run& r = runs[static_cast<std::size_t>(row)];
    if (!family.isEmpty() && QString::fromStdString(r.series) != family) return false;
    if (!set.isEmpty() && setName(r.experimentSet) != set) return false;
    if (!context.isEmpty() && (!data::known(r.context) || QString::number(r.context) != context)) return false;
    if (problemsOnly && r.problems.empty()) return false;
    if (search.isEmpty()) return true;
    if (rowText_.size() != runs.size()) {
        // Formatting every cell of 20,000 rows takes long on one core; the rows are independent
        // (textOf reads the runs and formats them), so every core makes a share.
        rowText_.assign(runs.size(), QString());
        QtConcurrent::blockingMap(rowText_, [this](QString& text) { text = textOf(static_cast<int>(&text - rowText_.data())); });
    }
    return rowText_[static_cast<std::size_t>(row)].contains(search, Qt::CaseInsensitive);
}

QString RunFilterModel::textOf(int row) const {
    // The cells as shown, and the run's name and id (its tooltip's).
    const QAbstractItemModel* source = sourceModel();
    const auto& runs = session_->runs().runs;
    QString text;
    if (row >= 0 && static_cast<std::size_t>(row) < runs.size()) {
        const data::Run& r = runs[static_cast<std::size_t>(row)];
        text += QString::fromStdString(r.name) + '\n' + QString::fromStdString(r.runId) + '\n';
    }
    for (int c = 0; c < source->columnCount(); ++c) text += source->data(source->index(row, c), Qt::DisplayRole).toString() + '\n';
    return text;
}

void RunFilterModel::setSourceModel(QAbstractItemModel* model) {
    QSortFilterProxyModel::setSourceModel(model);
    rowText_.clear();
    if (!model) return;
    auto forget = [this] { rowText_.clear(); };
    connect(model, &QAbstractItemModel::modelReset, this, forget);
    // A toggled run: its row's text again.
    connect(model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to, const QList<int>& roles) {
        if (!roles.isEmpty() && !roles.contains(Qt::DisplayRole)) return;  // the ticks and colours only
        for (int r = std::max(0, from.row()); r <= to.row() && r < static_cast<int>(rowText_.size()); ++r)
            rowText_[static_cast<std::size_t>(r)] = textOf(r);
    });
    connect(model, &QAbstractItemModel::rowsInserted, this, forget);
    connect(model, &QAbstractItemModel::rowsRemoved, this, forget);
    connect(model, &QAbstractItemModel::layoutChanged, this, forget);
}

RunsView::RunsView(Session* session, QWidget* parent) : ViewPanel(parent), session_(session) {
    model_ = new RunTableModel(session, this);
    proxy_ = new RunFilterModel(session, this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RunTableModel::SortRole);
    proxy_->setFilterKeyColumn(-1);
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

    family_ = new QComboBox(this);
    family_->setObjectName(QStringLiteral("family"));
    set_ = new QComboBox(this);
    set_->setObjectName(QStringLiteral("set"));
    context_ = new QComboBox(this);
    context_->setObjectName(QStringLiteral("context"));
    problemsOnly_ = new QCheckBox(tr("Problem rows only"), this);
    problemsOnly_->setObjectName(QStringLiteral("problemsOnly"));
    selectedOnly_ = new QCheckBox(tr("Study's selection only"), this);
    selectedOnly_->setObjectName(QStringLiteral("selectedOnly"));
    selectedOnly_->setToolTip(tr("Leave out runs the study itself excluded (its `selected_in_paper` flag)"));
    search_ = new QLineEdit(this);
    search_->setObjectName(QStringLiteral("search"));
    search_->setPlaceholderText(tr("Search runs…"));
    search_->setClearButtonEnabled(true);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);  // a long line would set the window's minimum width
    groupBy_ = new QLineEdit(this);
    groupBy_->setObjectName(QStringLiteral("groupBy"));
    groupBy_->setPlaceholderText(tr("the file's family or model column, else the file name"));
    groupBy_->setToolTip(tr("Group runs into series by any column or columns, separated by commas (Enter applies)"));
    where_ = new QLineEdit(this);
    where_->setObjectName(QStringLiteral("where"));
    where_->setPlaceholderText(tr("e.g. loss<3.5; model_family=xlstm"));
    where_->setToolTip(tr("Analyse only runs meeting every condition: COL=VALUE, COL!=VALUE, COL<X, COL>X, COL<=X, COL>=X on any "
                          "column, separated by ';' (Enter applies)"));
    scopeError_ = new QLabel(this);
    scopeError_->setWordWrap(true);

    auto* scope = new FlowLayout();
    scope->addLabelled(tr("Group runs by"), groupBy_);
    where_->setMinimumWidth(where_->fontMetrics().horizontalAdvance(where_->placeholderText()) + 24);
    scope->addLabelled(tr("Analyse only where"), where_);

    auto* filters = new FlowLayout();
    filters->addLabelled(tr("Series"), family_);
    filters->addLabelled(tr("Set"), set_);
    filters->addLabelled(tr("Context"), context_);
    filters->addWidget(problemsOnly_);
    filters->addWidget(selectedOnly_);
    filters->addWidget(search_);

    table_ = new QTableView(this);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->setVisible(false);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->setDefaultSectionSize(22);

    roles_ = new QTableWidget(0, 3, this);
    roles_->setObjectName(QStringLiteral("roles"));
    roles_->setHorizontalHeaderLabels({tr("Column"), tr("Read as"), tr("Why")});
    roles_->verticalHeader()->setVisible(false);
    roles_->horizontalHeader()->setStretchLastSection(true);
    roles_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    roles_->setToolTip(tr("How each column is read, from its values in scope: a condition makes series, a knob's best "
                          "setting stands for its point, a repeat is a seed, a step runs along a loss curve. Choose "
                          "another role to override it (saved with the project)."));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(roles_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addLayout(scope);
    layout->addWidget(scopeError_);
    layout->addWidget(split, 1);
    layout->addWidget(summary_);

    auto applyFilters = [this] {
        proxy_->family = family_->currentData().toString();
        proxy_->set = set_->currentData().toString();
        proxy_->context = context_->currentData().toString();
        proxy_->problemsOnly = problemsOnly_->isChecked();
        proxy_->search = search_->text();
        proxy_->refresh();
        updateSummary();
    };
    for (QComboBox* b : {family_, set_, context_}) connect(b, &QComboBox::currentIndexChanged, this, applyFilters);
    connect(problemsOnly_, &QCheckBox::toggled, this, applyFilters);
    connect(search_, &QLineEdit::textChanged, this, applyFilters);
    connect(groupBy_, &QLineEdit::editingFinished, this, [this] {
        std::vector<std::string> columns;
        for (const QString& c : groupBy_->text().split(',', Qt::SkipEmptyParts))
            if (!c.trimmed().isEmpty()) columns.push_back(c.trimmed().toStdString());
        if (columns == session_->settings().seriesBy) return;
        if (auto e = session_->groupRunsBy(columns)) showScopeError(QString::fromStdString(e->message));
        else showScopeError({});
    });
    connect(where_, &QLineEdit::editingFinished, this, [this] {
        AnalysisSettings s = session_->settings();
        s.scope.where.clear();
        for (const QString& text : where_->text().split(';', Qt::SkipEmptyParts)) {
            if (text.trimmed().isEmpty()) continue;
            auto c = analysis::parseCondition(text.trimmed().toStdString());
            if (!c) return showScopeError(QStringLiteral("'%1': %2").arg(text.trimmed(), QString::fromStdString(c.error().message)));
            s.scope.where.push_back(*c);
        }
        if (auto e = analysis::checkColumns(session_->runs(), s.scope.where)) return showScopeError(QString::fromStdString(e->message));
        showScopeError({});
        if (s.scope.where != session_->settings().scope.where) session_->setSettings(s);
    });
    connect(selectedOnly_, &QCheckBox::toggled, this, [this](bool on) {
        AnalysisSettings s = session_->settings();
        s.scope.allRuns = !on;
        session_->setSettings(s);
    });
    connect(session_, &Session::runsChanged, this, [this] {
        if (model_->refresh()) refillFilters();  // toggled runs keep the rows and their choices
        updateSummary();
        fillRoles();
        emit explainChanged();
    });
    connect(session_, &Session::settingsChanged, this, [this] {
        selectedOnly_->setChecked(!session_->settings().scope.allRuns);
        syncScopeFields();
        fillRoles();
        // The rows, their text and their order do not depend on the settings; whether a run is
        // in the analyses (its tick and colour) does: the visible rows are drawn again.
        table_->viewport()->update();
        updateSummary();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (syncingSelection_) return;
        QSet<int> rows;
        for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows.insert(proxy_->mapToSource(i).row());
        session_->setSelection(rows);
    });
    connect(session_, &Session::styleChanged, this, [this] {
        table_->viewport()->update();
        // The role boxes sized to their text in the new font, once the font has reached them.
        QTimer::singleShot(0, this, [this] { fillRoles(); });
    });
    connect(session_, &Session::selectionChanged, this, [this] {
        syncingSelection_ = true;
        QItemSelection sel;
        for (int row : session_->selection()) {
            const QModelIndex i = proxy_->mapFromSource(model_->index(row, 0));
            if (i.isValid()) sel.select(i, i.siblingAtColumn(RunTableModel::ColumnCount - 1));
        }
        table_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
        syncingSelection_ = false;
    });
    selectedOnly_->setChecked(!session_->settings().scope.allRuns);
    syncScopeFields();
    showScopeError({});
    refillFilters();
    updateSummary();
    fillRoles();
}

void RunsView::fillRoles() {
    const analysis::StudyReading& reading = session_->study().reading();
    QSignalBlocker block(roles_);
    roles_->setRowCount(static_cast<int>(reading.columns.size()));
    for (int row = 0; row < static_cast<int>(reading.columns.size()); ++row) {
        const analysis::ColumnReading& c = reading.columns[static_cast<std::size_t>(row)];
        const QString column = QString::fromStdString(c.column);
        auto* name = new QTableWidgetItem(column);
        roles_->setItem(row, 0, name);
        auto* box = qobject_cast<QComboBox*>(roles_->cellWidget(row, 1));
        if (!box) {
            box = new QComboBox(roles_);
            box->addItem(tr("(read from the values)"), QString());
            box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
            for (int r = 0; r <= static_cast<int>(analysis::ColumnRole::Constant); ++r) {
                const auto role = QString::fromUtf8(analysis::roleName(static_cast<analysis::ColumnRole>(r)).data());
                box->addItem(role, role);
            }
            roles_->setCellWidget(row, 1, box);
            connect(box, &QComboBox::activated, this, [this, box] {
                const int at = roles_->indexAt(box->pos()).row();
                if (at < 0 || !roles_->item(at, 0)) return;
                const std::string column = roles_->item(at, 0)->text().toStdString();
                AnalysisSettings s = session_->settings();
                const QString chosen = box->currentData().toString();
                if (chosen.isEmpty()) s.roles.erase(column);
                else s.roles[column] = chosen.toStdString();
                if (s.roles != session_->settings().roles) session_->setSettings(s);
            });
        }
        QSignalBlocker blockBox(box);
        const QString role = QString::fromUtf8(analysis::roleName(c.role).data());
        if (c.chosen && session_->settings().roles.count(c.column)) box->setCurrentIndex(std::max(0, box->findData(role)));
        else {
            box->setCurrentIndex(0);
            box->setItemText(0, tr("%1 (read)").arg(role));
        }
        auto* why = new QTableWidgetItem(QString::fromStdString(c.evidence));
        why->setToolTip(QString::fromStdString(c.evidence + (c.weighed.empty() ? "" : "\n" + c.weighed)));
        roles_->setItem(row, 2, why);
    }
    roles_->resizeColumnToContents(0);
    // Every choice's text whole: the widest text of any box, its arrow and frame beside it.
    int boxWidth = 0;
    for (int row = 0; row < roles_->rowCount(); ++row)
        if (auto* box = qobject_cast<QComboBox*>(roles_->cellWidget(row, 1))) {
            int text = 0;
            for (int i = 0; i < box->count(); ++i) text = std::max(text, box->fontMetrics().horizontalAdvance(box->itemText(i)));
            boxWidth = std::max({boxWidth, box->sizeHint().width(), text + 56});
        }
    for (int row = 0; row < roles_->rowCount(); ++row)
        if (auto* box = roles_->cellWidget(row, 1)) box->setMinimumWidth(boxWidth);
    roles_->setColumnWidth(1, boxWidth + 4);
}

void RunsView::refillFilters() {
    std::set<QString> families, sets, contexts;
    for (const auto& r : session_->runs().runs) {
        families.insert(QString::fromStdString(r.series));
        sets.insert(setName(r.experimentSet));
        if (data::known(r.context)) contexts.insert(QString::number(r.context));
    }
    auto fill = [](QComboBox* box, const std::set<QString>& values) {
        const QString current = box->currentData().toString();
        QSignalBlocker block(box);
        box->clear();
        box->addItem(tr("all"), QString());
        for (const QString& v : values) box->addItem(v, v);
        box->setCurrentIndex(std::max(0, box->findData(current)));
    };
    fill(family_, families);
    fill(set_, sets);
    fill(context_, contexts);
}

void RunsView::updateSummary() {
    int problems = 0, inFit = 0;
    for (const auto& r : session_->runs().runs) {
        problems += r.hasProblems();
        inFit += session_->inAnalysis(r);
    }
    QString text = tr("%1 runs shown of %2 · %3 in the analyses · %4 with problems · %5")
                       .arg(proxy_->rowCount())
                       .arg(session_->runs().runs.size())
                       .arg(inFit)
                       .arg(problems)
                       .arg(session_->sourceLabel());
    // The checkpoints a large table keeps as columns are no rows here; say where they are.
    if (const std::size_t compact = session_->runs().compactRows())
        text += tr(" · %1 more checkpoints along the runs, drawn in Loss curves").arg(compact);
    summary_->setText(text);
}

QString RunsView::explainHtml() const {
    int problems = 0, inFit = 0;
    for (const auto& r : session_->runs().runs) {
        problems += r.hasProblems();
        inFit += session_->inAnalysis(r);
    }
    return tr("<h3>The runs</h3><p>A scaling-law study is a table of training runs. Each run trained a model "
              "with <b>N</b> parameters on <b>D</b> tokens, spending <b>C</b> FLOPs of compute, and reached a "
              "validation loss <b>L</b>. Everything else Scalex shows is fitted to these rows.</p>"
              "<p><b>D/N</b> is the number of tokens per parameter: Chinchilla-style compute-optimal training sits "
              "near 20; over-trained models go far beyond.</p>"
              "<p>Rows with problems (missing or impossible numbers, duplicates, suspicious units) are kept, shown "
              "in red with the reason, and left out of fits until you tick them.</p>"
              "<p>Now: <b>%1</b> runs, <b>%2</b> in the analyses, <b>%3</b> with problems.</p>")
        .arg(session_->runs().runs.size())
        .arg(inFit)
        .arg(problems);
}

}  // namespace scalex::gui
