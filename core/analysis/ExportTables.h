#pragma once
// The tables the analyses export (LaTeX, CSV, JSON through core/data/Export): built here from
// analysis results, so the window's tables, the verbs and figure recipes write the same numbers.
#include <string>
#include <utility>
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

// The paper's appendix tables recomputed from a study's runs (its selection, context 8192 where a
// table has one context): tab:lnd_fit_params, tab:tokenparam_slopes,
// tab:estimated_optimal_flops_tokens_powerlaw and its per-context counterparts, each with the
// file name stem it is written under (`render --paper-figures`).
std::vector<std::pair<std::string, data::ExportTable>> paperAppendixTables(const data::RunTable& runs);

}  // namespace scalex::analysis
