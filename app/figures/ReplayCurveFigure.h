#pragma once
// The figure of a replay (issue 33, "Simulate before you spend"): the target's mean relative error
// against the fraction of the pool's cost spent, for the planner, the median of the random plans
// with their quartiles as a band, and cheapest-first; the checkpoints (1 %, 5 %, 10 %) marked on
// the planner's line. Written like every figure (FigureWriter.h): PDF, SVG or PNG by the suffix.
#include <QString>

#include "app/figures/FigureWriter.h"
#include "core/analysis/PlanReplay.h"

namespace scalex::figures {

bool writeReplayCurveFigure(const analysis::ReplayCurves& curves, const QString& title, const QString& out, const FigureStyle& style,
                            QString* error);

}  // namespace scalex::figures
