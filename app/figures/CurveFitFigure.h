#pragma once
// The figure of a schedule-aware curve fit (`scalex fit curves --plot`, `scalex predict curve
// --plot`): each curve's logged losses as points, the law's loss as a line with its interval as a
// band (fitted curves solid, held-out and predicted ones dashed), over the optimiser's steps.
// Written like every figure (FigureWriter.h): PDF, SVG or PNG by the suffix.
#include <QString>
#include <vector>

#include "app/figures/FigureWriter.h"
#include "core/analysis/CurveFits.h"

namespace scalex::figures {

class PlotChart;

// Draws the bands into `chart`: each curve's logged losses from 5 % of the longest on (the steep
// start would flatten the rest), the law's loss as a line (held-out and predicted ones dashed)
// and its interval as a band; legend names keep the parts of the run names that tell them apart.
// With `accentLast`, the last band (a predicted schedule) is drawn in the theme's accent colour.
void addCurveBands(PlotChart* chart, const std::vector<analysis::CurveBand>& bands, bool accentLast = false);

bool writeCurveFitFigure(const std::vector<analysis::CurveBand>& bands, const QString& title, const QString& out, const FigureStyle& style,
                         QString* error);

}  // namespace scalex::figures
