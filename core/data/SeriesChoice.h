#pragma once
// The default grouping of runs into series (DESIGN.md "The shape": a series is one experiment).
// Among the columns that can name a series (the file's series column, its family, model-like and
// experiment-like columns, alone or in pairs), the first grouping whose series are each one
// experiment:
//  - no series holds two runs at the same N and D (or budget) that no hyperparameter column tells
//    apart (the same points twice, two loss transforms, two studies) while another grouping
//    separates them;
//  - not every series holds a single model size: a column that names the size is not a series.
// Each grouping weighed is kept with its verdict, for `check` to say why.
#include <string>
#include <vector>

#include "core/data/RunTable.h"

namespace scalex::data {

// The columns of the table's header that could name its series, in the order they are preferred.
std::vector<std::string> seriesCandidateColumns(const RunTable& table);

// How one grouping fares on the table's runs.
GroupingConsidered weighGrouping(const RunTable& table, const std::vector<std::string>& columns);

struct SeriesChoice {
    std::vector<std::string> columns;          // empty: one series per file
    std::vector<GroupingConsidered> considered;  // in the order weighed; the chosen one has chosen = true
};
SeriesChoice chooseSeriesGrouping(const RunTable& table);

}  // namespace scalex::data
