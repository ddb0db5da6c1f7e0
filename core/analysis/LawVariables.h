#pragma once
// How a law reads a run: the value of a name of its formula (a column as spelled in the file, a
// field by any of its spellings, the study's loss, U and epochs), and the runs a law analysis
// looks at. Shared by the law fit and the run planner so that both read a run the same way.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/data/RunTable.h"

namespace scalex::analysis {

// The study's loss where a formula names L or loss and the file has no column of that name.
bool namesStudyLoss(const std::string& name);

// A variable of a run: a column as spelled in the file or a field by any of its spellings (so
// N, D, C derived from each other count), the study's loss for L, and the data-constrained
// names U (unique tokens) and epochs (D / U where no column gives them).
// nullopt: the run's table has no such column; NaN: the cell is no number.
std::optional<double> lawVariableOf(const data::Run& run, const std::string& name);

// The runs of the settings' scope (series, filter), in table order.
std::vector<const data::Run*> runsInScope(const data::RunTable& table, const AnalysisSettings& settings);

// Whether any of `runs` has a value for a name (what compileLaw accepts as a column).
std::function<bool(const std::string&)> lawColumnTest(const std::vector<const data::Run*>& runs);

}  // namespace scalex::analysis
