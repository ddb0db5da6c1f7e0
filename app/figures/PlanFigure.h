#pragma once
// The figure of a plan (issue 33, "show the top picks"): the N–D plane on log axes with lines of
// equal cost 6ND (one per decade, the IsoFLOP view's budgets), the study's runs in scope, the
// target points, and each group's picks numbered in the order taken, with their cost and the
// target's 95 % half-width after them in the legend. Written like every figure (FigureWriter.h).
#include <QString>

#include "app/figures/FigureWriter.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/PlanCandidates.h"
#include "core/data/RunTable.h"

namespace scalex::figures {

bool writePlanFigure(const analysis::PlanCandidates& plan, const data::RunTable& study, const analysis::AnalysisSettings& settings,
                     const QString& title, const QString& out, const FigureStyle& style, QString* error);

}  // namespace scalex::figures
