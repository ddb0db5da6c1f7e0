#pragma once
// The view a study opens on when none is asked for (the window after opening a project, a run
// table or the example; `scalex` without --view): the figure that teaches most about it.
#include <string>

#include "core/analysis/Study.h"

namespace scalex::analysis {

// The runs in scope with N, D, C and a loss span at least this factor in C for a Pareto front.
inline constexpr double kFirstViewComputeSpan = 10.0;

// "isoflop" when the reading finds IsoFLOP budgets among the runs in scope (a budget column, run
// names or clusters of C: StudyReading's BudgetReading), "pareto" when those runs span a decade of
// compute or more, "curves" when the study has loss curves and no such runs, "runs" otherwise.
// The ids are the window's views (app/figures/ViewFigure.h figureViews(), and "runs").
std::string firstView(const Study& study);

}  // namespace scalex::analysis
