#pragma once
// Shared by the fit_* tests: the study's run files read into data::RunTable with the test CSV
// reader (the files have no quoted fields), so the tests do not depend on the app's loader.
#include <QFile>
#include <QString>
#include <QStringList>
#include <cmath>
#include <limits>

#include "core/accounting/Family.h"
#include "core/data/RunTable.h"
#include "tests/support/TestData.h"

namespace scalex::test {

// Splits one CSV line honouring double quotes (the reference power-law file quotes its list of
// budgets, which readSimpleCsv would split).
inline QStringList splitQuoted(const QString& line) {
    QStringList cells;
    QString cell;
    bool quoted = false;
    for (const QChar c : line) {
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) {
            cells << cell;
            cell.clear();
        } else cell += c;
    }
    cells << cell;
    return cells;
}

inline SimpleCsv readQuotedCsv(const QString& path) {
    SimpleCsv plain = readSimpleCsv(path);  // reports a missing file
    QFile file(path);
    SimpleCsv csv;
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return plain;
    bool first = true;
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith('#')) continue;
        if (first) csv.header = splitQuoted(line);
        else csv.rows.append(splitQuoted(line));
        first = false;
    }
    return csv;
}

inline double numberOrNaN(const QString& text) {
    bool ok = false;
    const double v = text.toDouble(&ok);
    return ok ? v : std::numeric_limits<double>::quiet_NaN();
}

// tokenparam_runs_ctx8192.csv: 31 Transformer + 35 xLSTM over-training runs (data README).
inline data::RunTable readTokenParamRuns() {
    data::RunTable table;
    table.source = "tokenparam_runs_ctx8192.csv";
    const auto csv = readSimpleCsv(sharedPath("data/xlstm/tokenparam_runs_ctx8192.csv"));
    for (int r = 0; r < csv.rows.size(); ++r) {
        data::Run run;
        run.name = csv.at(r, "name").toStdString();
        run.runId = run.name;
        run.sourceLine = r + 2;
        run.family = *accounting::parseFamily(csv.at(r, "model_type").toStdString());
        run.experimentSet = data::ExperimentSet::TokenParam;
        run.context = csv.number(r, "context_length");
        run.params = csv.number(r, "num_params");
        run.tokens = csv.number(r, "num_tokens_training");
        run.flops = csv.number(r, "num_flops_training");
        run.valLoss = csv.number(r, "val_dclm_loss");
        run.trainLoss = csv.number(r, "train_loss_mean");
        table.runs.push_back(run);
    }
    return table;
}

// runs_isoflop_<set>.csv: one row per W&B run; failed runs have no numbers and are marked.
inline data::RunTable readIsoFlopRuns(const QString& set) {
    data::RunTable table;
    table.source = ("runs_isoflop_" + set + ".csv").toStdString();
    const auto csv = readSimpleCsv(sharedPath("data/xlstm/runs_isoflop_" + set + ".csv"));
    for (int r = 0; r < csv.rows.size(); ++r) {
        data::Run run;
        run.runId = csv.at(r, "run_id").toStdString();
        run.name = csv.at(r, "run_name").toStdString();
        run.dataset = csv.at(r, "dataset").toStdString();
        run.sourceLine = r + 2;
        run.family = *accounting::parseFamily(csv.at(r, "model_family").toStdString());
        run.experimentSet = data::ExperimentSet::IsoFlop;
        run.context = numberOrNaN(csv.at(r, "context_length"));
        run.params = numberOrNaN(csv.at(r, "num_params"));
        run.tokens = numberOrNaN(csv.at(r, "num_tokens_training"));
        run.flops = numberOrNaN(csv.at(r, "num_flops_training"));
        run.budget = numberOrNaN(csv.at(r, "isoflop_bucket"));
        run.valLoss = numberOrNaN(csv.at(r, "val_loss"));
        const QString selected = csv.at(r, "selected_in_paper");
        if (selected == "True") run.selectedInPaper = true;
        if (selected == "False") run.selectedInPaper = false;
        if (!data::known(run.valLoss) || !data::known(run.params) || !data::known(run.flops))
            run.problems.push_back("no numbers (status " + csv.at(r, "status").toStdString() + ")");
        table.runs.push_back(run);
    }
    return table;
}

}  // namespace scalex::test
