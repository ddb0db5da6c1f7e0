#pragma once
// The cost of a run for planning: an expression over its columns (the law's expression parser,
// no parameters), by default 6·N·D (training FLOPs, Kaplan et al. 2020, Sec. 2.1).
#include <optional>
#include <string>
#include <vector>

#include "core/data/LoadError.h"
#include "core/data/RunTable.h"
#include "core/fit/LawExpression.h"

namespace scalex::analysis {

inline constexpr const char* kDefaultRunCost = "6*N*D";

struct RunCostExpression {
    std::string text;
    fit::LawExpression expression;
    std::vector<std::string> columns;  // the names it reads, in order of first use
};

// The text parsed, its names bound to the columns of `runs` (lawVariableOf). The error (column
// "cost") says where the text is wrong or which name no run has.
data::Expected<RunCostExpression> parseRunCost(const std::string& text, const std::vector<const data::Run*>& runs);

// The run's cost; nullopt when a column it reads is missing there or the value is not a positive
// finite number.
std::optional<double> runCost(const RunCostExpression& cost, const data::Run& run);
// The same from the values of its columns (in `columns` order), for planned runs not in a table.
std::optional<double> runCost(const RunCostExpression& cost, const std::vector<double>& values);

}  // namespace scalex::analysis
