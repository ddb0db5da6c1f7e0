#pragma once
// The tables the analyses export (LaTeX, CSV, JSON through core/data/Export): built here from
// analysis results, so the window's tables, the verbs and figure recipes write the same numbers.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Export.h"
#include "core/fit/Bootstrap.h"

namespace scalex::analysis {

class Study;

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

// tab:lnd_fit_params of every group in `groups` with bootstrap intervals: `known` (a fit already
// made, e.g. the one on screen) stands for its own group, the others are fitted here with the same
// settings. Nothing when `control` is cancelled.
std::optional<data::ExportTable> lossSurfaceParameterTable(const data::RunTable& table, const AnalysisSettings& settings,
                                                           const std::vector<SeriesGroup>& groups, const LossSurfaceAnalysis& known,
                                                           const fit::LossSurfaceSettings& fitSettings,
                                                           const fit::BootstrapSettings& bootstrap, const fit::FitControl& control);

// One over-training analysis shown (its run pointers may be gone: the table reads its fits) and
// the bootstrap intervals of its exponents (named "eta(M)"; empty: none).
struct SlopesWithIntervals {
    const SlopeAnalysis* analysis = nullptr;
    fit::BootstrapResult intervals;
};

// tab:tokenparam_slopes per series: for each fitted tokens/param ratio M, the runs, eta with its
// 95 % interval, lambda and R^2.
data::ExportTable slopeTable(const std::vector<SlopesWithIntervals>& slopes);

// One IsoFLOP fit as a view shows it: the series, its context length (0: unknown), the fit, the
// bootstrap intervals of its laws (named A, a, B, b; null: none) and the paper's laws for the
// same family and context where the paper has them.
struct IsoFlopShown {
    std::string series;
    double context = 0;
    const fit::IsoFlopResult* result = nullptr;
    const fit::BootstrapResult* intervals = nullptr;
    std::optional<OptimalPowerLaws> paper;
};

// tab:isoflop_powerlaws: N*(H) and D*(H) of each fit with coefficient and exponent intervals, the
// number of budgets, R^2 and the paper's exponent.
data::ExportTable isoFlopLawTable(const std::vector<IsoFlopShown>& fits);
// tab:isoflop_optima: the minimum of every fitted parabola (N*, D*, the loss there), and whether
// its budget is in the power law.
data::ExportTable isoFlopOptimaTable(const std::vector<IsoFlopShown>& fits);
// tab:isoflop_powerlaws_context: the laws fitted separately at each context length, in the order
// given (intervals and paper values are not read).
data::ExportTable isoFlopContextTable(const std::vector<IsoFlopShown>& fits);

// The compute-optimal calculator's tables of one answer (answerOptimalQuery). `asked` is the
// query as the user typed it ("a training budget $H$ = 1e22 FLOPs"), `problem` why there are no
// numbers (empty when there are), `methodsNote` why a method did not answer.
// tab:estimated_optimal_flops_tokens: budget, tokens and tokens per parameter per model size.
data::ExportTable optimalSizesTable(const OptimalAnswer& answer, const std::string& problem);
// The optima of the query, then the over-trained and the lifetime models.
data::ExportTable optimalQueryTable(const OptimalAnswer& answer, const std::string& asked, const std::string& problem);
// Both methods at the query's budget: N*, local exponents, the budget at which they agree.
data::ExportTable optimalMethodsTable(const OptimalAnswer& answer, const std::string& methodsNote);

// The paper's appendix tables recomputed from a study's runs (its selection, context 8192 where a
// table has one context): tab:lnd_fit_params, tab:tokenparam_slopes,
// tab:estimated_optimal_flops_tokens_powerlaw and its per-context counterparts, each with the
// file name stem it is written under (`render --paper-figures`).
std::vector<std::pair<std::string, data::ExportTable>> paperAppendixTables(const data::RunTable& runs);

// The runs `rows` (indices into the study's runs, in that order) as the Runs view shows them: id,
// whether the run takes part in the analyses, series, set, T, N, D, D/N, C, budget, loss, the
// study's own selection and the problems.
data::ExportTable runListTable(const Study& study, const std::vector<int>& rows);

}  // namespace scalex::analysis
