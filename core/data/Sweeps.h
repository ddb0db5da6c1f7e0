#pragma once
// Hyperparameter names: what a column's name says, for the default grouping's clash test
// (data/SeriesChoice.h). Which columns a study's sweeps tune, and which runs a sweep's best stands
// for, is read from the values of the runs in scope (analysis/StudyReading.h), not here.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/RunTable.h"

namespace scalex::data {

// Whether a column's name says it holds a hyperparameter of training: learning rate, batch size,
// seed, warm-up, weight decay, optimiser betas, dropout, clipping, schedule. The last part of a
// dotted or slashed name counts ("config.optimizer.lr").
bool isHyperparameterColumn(std::string_view name);

// The hyperparameter columns of a table's header, in header order.
std::vector<std::string> hyperparameterColumns(const RunTable& table);

// The hyperparameter columns whose values differ between two runs.
std::vector<std::string> differingColumns(const Run& a, const Run& b, const std::vector<std::string>& columns);

}  // namespace scalex::data
