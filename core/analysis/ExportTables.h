#pragma once
// The tables the analyses export (LaTeX, CSV, JSON through core/data/Export): built here from
// analysis results, so the window's tables, the verbs and figure recipes write the same numbers.
#include <vector>

#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Export.h"
#include "core/fit/Bootstrap.h"

namespace scalex::analysis {

// One fitted L(N,D) and its bootstrap intervals.
struct SurfaceWithIntervals {
    const LossSurfaceAnalysis* analysis = nullptr;
    fit::BootstrapResult intervals;
};

// tab:lnd_fit_params: per fitted group the parameters (log A, log B, log E, α, β and γ when
// fitted) with their percentile intervals, the run count, and a caption naming the groups, the
// fit's settings and the resampling. Groups without a fit are left out.
data::ExportTable lossSurfaceParameterTable(const std::vector<SurfaceWithIntervals>& fits, const fit::LossSurfaceSettings& settings,
                                            const fit::BootstrapSettings& bootstrap);

}  // namespace scalex::analysis
