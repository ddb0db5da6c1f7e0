#pragma once
// The L(N,D) fit's settings as a person gives them beside the analysis settings (`scalex fit lnd`,
// `fit bootstrap --of lnd`): a grid of starts of their own instead of the paper's 8000
// (App. "Details on the Parametric Loss Surface Fit"), and every start run to the tight stop
// instead of screening them first.
#include <optional>
#include <string>

#include "core/analysis/AnalysisSettings.h"
#include "core/fit/LossSurface.h"

namespace scalex::analysis {

struct LossSurfaceFitRequest {
    std::optional<std::string> gridText;  // a grid file's text (lines `logA: 0 5 10`, ...); none: the paper's grid
    std::string gridName;                 // names the grid in errors
    bool exhaustive = false;              // every start to the tight stop (stopDelta), no screening
};

// The fit settings of `settings` (lossSurfaceSettings: Huber delta, γ) with the request. Nothing
// when the grid does not parse or gives no starts, and *error says why after the grid's name
// ("NAME, line L: what was expected", "NAME: the grid has no starts").
std::optional<fit::LossSurfaceSettings> lossSurfaceFitSettings(const AnalysisSettings& settings,
                                                               const LossSurfaceFitRequest& request, std::string* error);

}  // namespace scalex::analysis
