#pragma once
// How a study is read (DESIGN.md "Reading"): what each column of a run table is, decided from the
// values of the runs in scope, with names only breaking ties, and what follows from it: the series
// (the conditions' values), the sweeps (a knob's best setting stands for its point), the
// checkpoints a step column finds, and the IsoFLOP budgets (a budget column, else the budget the
// run names give checked against the runs' compute, else clusters of C from the gaps in log C).
//
// It is a pure function of (table, scope, options) and the only place the study is read: the Study
// applies it to its merged runs whenever the tables, the scope or the choices change, and `check`
// and the run table's panel show it with its evidence. core/data keeps what the files say.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/RunSelection.h"
#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::analysis {

enum class ColumnRole {
    Quantity,    // N, D, C, a loss, a context length, or another count of the run's scale (a function of N and D)
    Budget,      // the nominal IsoFLOP budget
    Condition,   // its values make runs different experiments: the series
    Knob,        // a tuned hyperparameter: at each point the best setting stands
    Repeat,      // a seed: runs differing only by it are repeats of one point
    Identifier,  // unique or nearly unique per run, or a launch id (dates, hashes)
    Descriptor,  // a function of the model (size name, width, depth) or of what is fixed otherwise
    Step,        // checkpoints along one run: a loss curve
    Measure,     // another number measured per run (a metric, a time)
    Constant,    // one value in scope
};

std::string_view roleName(ColumnRole role);
// "condition", "knob", ... and the plurals and a few synonyms ("seed" for repeat, "id" for identifier).
std::optional<ColumnRole> parseRole(std::string_view name);
// The role names, for help texts and errors.
std::string roleNames();

struct ColumnReading {
    std::string column;
    ColumnRole role = ColumnRole::Descriptor;
    std::string evidence;  // "splits 412 runs at 78 (N, D) points; text values long, short"
    std::string weighed;   // what else was weighed, and why not
    bool chosen = false;   // set by the user (--role, the run table's panel, a project)
};

struct BudgetReading {
    // "column 'isoflop_bucket'", "run names (isoflop-6e+19-...) x 3 to the compute", "clusters of C", "none"
    std::string source;
    std::vector<double> levels;  // ascending, in the runs' compute (FLOPs)
    // Runs in scope with N, D and C that land in no budget, and why (index into the table's runs).
    std::vector<std::pair<std::size_t, std::string>> unassigned;
};

struct ReadingOptions {
    std::vector<std::string> seriesBy;           // the user's grouping; empty: the conditions read from the values
    std::map<std::string, std::string> roles;    // column -> role name, the user's choices
};

struct StudyReading {
    std::vector<ColumnReading> columns;  // every column of the runs in scope, in header order
    std::vector<std::string> conditions, knobs, repeats, steps;
    std::vector<std::string> series;        // per run of the table: its series
    std::vector<std::string> sweepLeftOut;  // per run: why its sweep's best stands for it (empty: kept)
    std::vector<char> checkpoint;           // per run: an intermediate checkpoint a step column finds
    std::vector<double> budget;             // per run: its budget (NaN: none)
    // Per run, for runs whose checkpoints a step column finds where the file names no run: the step
    // (NaN: none) and a name for the run the row belongs to (its model size, the total its step
    // reaches and its settings), so that its rows draw as one loss curve.
    std::vector<double> curveStep;
    std::vector<std::string> curveName;
    BudgetReading budgets;
    std::size_t runsInScope = 0, points = 0, sweeps = 0, sweepRunsLeftOut = 0, checkpointRows = 0;
    std::vector<std::string> notes;         // what the reading says of the whole study
    std::vector<data::LoadError> roleErrors;  // a user's role naming no column or no role

    const ColumnReading* column(const std::string& name) const;
};

// The reading of `table`'s runs that pass `scope` (every sweep run counts; intermediate checkpoints
// of the file do not).
StudyReading readStudy(const data::RunTable& table, const RunFilter& scope, const ReadingOptions& options = {});

// The budget a run's name gives ("isoflop-6e+19-d2304-..." -> 6e19); none when it names none.
std::optional<double> budgetInName(std::string_view name);

}  // namespace scalex::analysis
