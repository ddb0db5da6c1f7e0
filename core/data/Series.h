#pragma once
// Series and checkpoints of a run table (DESIGN.md "The shape": a run belongs to a series, any
// grouping the user chooses).
#include <optional>
#include <string>
#include <vector>

#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::data {

// Groups the runs into series by the values of `columns` (any column of the file, by its name or
// a field's spelling; several are joined with " / "; a family column gives a known family by its
// canonical name). Empty `columns`: the default grouping (data/SeriesChoice.h: the first of the
// file's series, family, model-like and experiment-like columns whose series are each one
// experiment, else the run's dataset, the file name), kept with the groupings weighed in
// RunTable::seriesConsidered. A run whose cells are empty goes to its dataset's series. A column
// the table lacks is an error naming it. Then marks the table's sweeps (data/Sweeps.h).
std::optional<LoadError> groupRunsBy(RunTable& table, const std::vector<std::string>& columns);
// The series `columns` put a run in, as groupRunsBy does.
std::string seriesValue(const Run& run, const std::vector<std::string>& columns);
// The error groupRunsBy would give, without changing the table.
std::optional<LoadError> checkGroupRunsBy(const RunTable& table, const std::vector<std::string>& columns);

// The value of `column` for a run: its raw cell where the source had that column, else the
// field the name stands for (any spelling: "params", "loss", "family", "series", ...). Empty
// optional when neither exists.
std::optional<std::string> runValue(const Run& run, const std::string& column);
// The same as a number (NaN where the text is no number); empty optional when the column is unknown.
std::optional<double> runNumber(const Run& run, const std::string& column);

// The series of the runs, in order of first appearance.
std::vector<std::string> seriesNames(const RunTable& table);

// How a series is written for people: the known families by their labels (Transformer, xLSTM),
// anything else as it is.
std::string seriesLabel(const std::string& series);

// What names a run to a person: its run id, else its name, else "line N" of its file.
std::string runLabel(const Run& run);

}  // namespace scalex::data
