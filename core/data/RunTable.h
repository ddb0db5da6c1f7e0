#pragma once
// The run table: one row per training run, or per checkpoint of a run (DESIGN.md "Data flow").
// N, D (or C) and a loss are what analyses need; everything else is optional (NaN / 0 / empty
// when unknown) and derived where possible. A run belongs to a series (any grouping of the
// user's choice); the architecture family is known only where the file says so and is used by
// accounting alone. This header is plain C++ so that analyses can use it without Qt.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accounting/Family.h"
#include "core/data/CheckpointRows.h"

namespace scalex::accounting {
struct ModelSpec;
}

namespace scalex::data {

// The column a run names its model spec in (RunSpecs.h).
inline constexpr const char* kSpecColumn = "spec";

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
inline bool known(double v) { return !std::isnan(v); }

enum class ExperimentSet { TokenParam, IsoFlop, Other };

// Where a derived number came from, so views can flag fallbacks.
// SixNdFallback: from C = 6ND, whichever of the three was missing (D = C/6N, N = C/6D or C = 6ND);
// NominalBudget: C taken as the run's nominal IsoFLOP budget, the file giving no compute.
// NoColumn: the table has no column for the quantity and no way to derive it (a study of other
// variables, such as a public benchmark's table): unknown for the whole table, not a problem of the row.
enum class Provenance { Missing, FromFile, Derived, SixNdFallback, NominalBudget, NoColumn };

// The cells of a row as read, for grouping and filtering by any column (compact: one string).
struct RawCells {
    std::shared_ptr<const std::vector<std::string>> header;  // shared by every row of a table
    std::string joined;                                       // cells separated by '\x1f'
    std::vector<std::string_view> split() const;
    // The cell of the column whose name equals `column` (compared as normalizeColumnName does); empty
    // optional when the table has no such column.
    std::optional<std::string> value(std::string_view column) const;
};

struct Run {
    // Identity and where it came from
    std::string runId;
    std::string name;
    std::string dataset;       // source set name (e.g. the file's `dataset` column or file stem)
    int sourceLine = 0;        // 1-based line in the source file (0 for generated runs)
    std::string status;        // the file's run status (finished, failed, ...); empty when not given

    std::string series;  // the group it is analysed in (never empty once loaded)
    std::optional<accounting::Family> family;  // architecture family, for accounting; empty when unknown
    ExperimentSet experimentSet = ExperimentSet::Other;
    double context = kUnknown;  // training context length T
    // The model spec the run names in its `spec` column (a spec of the project or a model file;
    // RunSpecs.h), once the study has bound it: its accounting gives N and C where the file does not.
    std::string specName;
    std::shared_ptr<const accounting::ModelSpec> spec;

    // Architecture (0 = unknown)
    std::int64_t dModel = 0, nLayers = 0, nHeads = 0, nKvHeads = 0, dQk = 0, dHv = 0, dFf = 0, vocab = 0, chunk = 0;

    // Scale
    double params = kUnknown;   // N
    double tokens = kUnknown;   // D
    double flops = kUnknown;    // C, training compute under the table's FLOP convention
    double budget = kUnknown;   // nominal IsoFLOP budget H (NaN when the run is in none)
    double batchSize = kUnknown;     // sequences
    double steps = kUnknown;
    double learningRate = kUnknown;
    double step = kUnknown;          // training step of a checkpoint

    // In a table of checkpoints (several rows per run along its training): true for every row but
    // the run's last. Such rows are loss curves, not finished runs, and analyses leave them out.
    bool intermediateCheckpoint = false;
    // Runs of a hyperparameter sweep (same series, context, N and D, another setting of a knob) that
    // the best setting beat: why it is left out ("not the best of its sweep: peak_lr 0.004, loss
    // +0.021"). Written by the study's reading (analysis/StudyReading.h), never by a reader: empty
    // in a table as loaded. Analyses leave such runs out unless asked for every sweep run.
    std::string sweepLeftOut;

    // Outcome
    double valLoss = kUnknown;
    double trainLoss = kUnknown;

    // The study's own selection flag (`selected_in_paper`), when the file has one.
    std::optional<bool> selectedInPaper;

    Provenance paramsSource = Provenance::Missing;
    Provenance tokensSource = Provenance::Missing;
    Provenance flopsSource = Provenance::Missing;

    // Problems found on load (non-numeric, NaN, non-positive, duplicate, suspicious units, ...).
    // A run with problems is kept and listed but excluded from fits until the user includes it.
    std::vector<std::string> problems;
    std::optional<bool> userIncluded;  // the user's include/exclude toggle; overrides the default

    RawCells raw;  // every cell of the source row, mapped or not

    // The loss analyses use: validation loss, else training loss.
    double loss() const { return known(valLoss) ? valLoss : trainLoss; }
    double tokensPerParam() const { return tokens / params; }
    bool hasProblems() const { return !problems.empty(); }
    // Default: runs without problems that no sweep run beat are in; the user's toggle wins.
    bool included() const { return userIncluded.value_or(!hasProblems() && sweepLeftOut.empty()); }
};

// How a field's column was found: by one of its spellings, by a pattern, or set by the user;
// with the other columns that could have been taken.
struct ColumnChoice {
    std::string field;    // fieldKey
    std::string column;   // as in the header
    std::string rule;     // why this column ("spelling", "pattern: ...", "mapping")
    std::vector<std::string> alternatives;
};

// A grouping of runs into series the default weighed (data/SeriesChoice.h), and its verdict.
struct GroupingConsidered {
    std::vector<std::string> columns;  // empty: one series per file
    std::size_t series = 0;            // how many series it makes
    std::size_t clashes = 0;           // places where a series holds two runs at the same N and D
    bool singleSize = false;           // every series holds one model size
    bool chosen = false;
    std::string verdict;               // "chosen: ...", "not taken: ..."
};

struct RunTable {
    std::string source;  // file the table came from (or "generated")
    std::vector<Run> runs;
    std::vector<ColumnChoice> mapping;    // what the reader chose, for reports
    std::vector<std::string> seriesBy;    // columns the series come from; empty: the file name
    // The groupings weighed for the default series (empty when the user chose the columns).
    std::vector<GroupingConsidered> seriesConsidered;
    std::vector<std::string> notes;       // facts about the whole table ("checkpoints along 22 runs", ...)
    // Rows not in `runs`: intermediate checkpoints of large tables, kept as columns
    // (data/CheckpointRows.h). Their series is that of their run. Analyses leave them out as they
    // leave out every intermediate checkpoint; loss curves, counts and writers read them.
    std::vector<CheckpointBlock> compactCheckpoints;

    std::size_t compactRows() const;
    // Every row the sources had: runs and compact checkpoints.
    std::size_t rowCount() const { return runs.size() + compactRows(); }
    // The run a compact row of `block` stands beside (its template) in `runs`.
    const Run& templateOf(const CheckpointBlock& block, std::size_t row) const {
        return runs[block.runOffset + block.rows->templateRun(row)];
    }
};

// Calls f(run) for every row of the table in source order (table by table as merged), compact
// checkpoints made into full runs one at a time (the reference is valid during the call only).
// withCells false: compact rows come without their source cells (raw empty), for callers that
// read fields only (counts), a million rows faster.
void forEachRow(const RunTable& table, const std::function<void(const Run&)>& f, bool withCells = true);

}  // namespace scalex::data
