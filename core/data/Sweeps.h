#pragma once
// Hyperparameter sweeps (DESIGN.md "The shape"): runs of one series at one context length that
// share N and D and differ in a hyperparameter column (learning rate, batch size, seed, ...). A
// scaling law is a law of the best run at each (N, D), so the best of each sweep stands for it;
// the others are marked with the reason and left out of the analyses until the user ticks one in
// or asks for every sweep run.
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

struct Sweep {
    std::vector<std::size_t> runs;     // indices into the table, in table order
    std::size_t best = 0;              // the run of lowest loss
    std::vector<std::string> columns;  // the hyperparameter columns its runs differ in
};

// Finds the sweeps among the finished runs with N, D and a loss (same series, context, N and D to
// one part in a million), marks Run::sweepLeftOut on every run its sweep's best beat (and clears it
// on every other run), replaces the table's note on sweeps, and returns them.
std::vector<Sweep> markSweeps(RunTable& table);

}  // namespace scalex::data
