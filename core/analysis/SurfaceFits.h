#pragma once
// The L(N,D) surfaces the figures draw with besides the loss-surface view (compute-optimal,
// context length, the Pareto front's L̂(N,D)): each series group's own fit, the loss-surface
// analysis of its runs (SeriesAnalyses.h), or the paper's fitted surfaces where the study is the
// paper's. A fit is made once for the same runs, analysis settings and fit settings and then kept
// for every view, render and verb of the process (in ResultCache, keyed "loss-surface"), so that
// what a view shows depends on the study and the settings alone, never on which view fitted first,
// and nothing is fitted twice.
#include <optional>
#include <string>

#include "core/accounting/Family.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"
#include "core/fit/LossSurface.h"

namespace scalex::analysis {

// A group's surface, or why it has none.
struct GroupSurface {
    std::optional<fit::LossSurfaceParams> surface;
    std::string problem;     // too few runs, a parameter at its bound ("lab-a, T = 8192: …"), a cancelled fit
    bool cancelled = false;  // the fit was cancelled: nothing kept
};

// The surface of the group's Token/Param runs (studySet), lossSurfaceAnalysis with the settings'
// Huber δ and γ over the grid and stops of `base` (lossSurfaceSettings). A fit is kept by what it
// is made from: the same values of the group's runs (N, D, loss, ticked in by the user), analysis
// settings and fit settings give the kept fit back at once, or wait for it while another thread
// makes it (ResultCache::shared()).
GroupSurface groupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                          const fit::LossSurfaceSettings& base, const fit::FitControl& control = {});
// The same with the default grid and stops (the paper's 8000 starts, screened).
GroupSurface groupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                          const fit::FitControl& control = {});
// The kept fit of groupSurface, if any; fits nothing.
std::optional<GroupSurface> keptGroupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                             const fit::LossSurfaceSettings& base);

// Keeps a fit made elsewhere (the loss-surface view's) as groupSurface's for the same runs and
// settings: `analysis` is lossSurfaceAnalysis(table, settings, group, fitSettings) with fitSettings
// made by lossSurfaceSettings. Nothing is kept for a cancelled fit.
void keepGroupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                      const fit::LossSurfaceSettings& fitSettings, const LossSurfaceAnalysis& analysis);

// The group that stands for a series where a figure draws one surface for it: its runs at
// `context` when given (NaN: runs that give none), else at 8192 (the paper's) where it has runs
// there, else at its largest context; with its Token/Param runs where the study names them. None
// when the series has no runs in scope there.
std::optional<SeriesGroup> surfaceGroup(const data::RunTable& table, const AnalysisSettings& settings, const std::string& series,
                                        std::optional<double> context = std::nullopt);
// The first series in scope named by the family ("transformer", "llama", "xLSTM", …).
std::optional<std::string> familySeries(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family);

// The surface a figure draws for an architecture family (its FLOPs recounted through the family's
// model configurations): groupSurface of the family's series (familySeries) in surfaceGroup at
// `context`; where the runs give none, `paperFallback` (the paper's surface, passed on the paper's
// study alone). `fittedTo` names the group fitted; `problem` says why the runs give no surface
// (also when the paper's stands in); neither when the family has no runs there.
struct FamilySurface {
    std::optional<fit::LossSurfaceParams> surface;
    bool paper = false;    // the surface is the paper's
    std::string fittedTo;  // "Transformer, T = 8192"; empty: no runs of the family there
    std::string problem;
    bool cancelled = false;
};
FamilySurface familySurface(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family,
                            std::optional<double> context, const std::optional<fit::LossSurfaceParams>& paperFallback,
                            const fit::FitControl& control = {});
// familySurface where it needs no fit (the fit is kept, or the family has no runs there); nothing
// when its fit is still to be made.
std::optional<FamilySurface> keptFamilySurface(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family,
                                               std::optional<double> context, const std::optional<fit::LossSurfaceParams>& paperFallback);

// The paper's fitted surface of a family (Tab. lnd_fit_params) at Huber δ, else at 1e-3 (the one
// the paper reports everywhere); none when the tables lack it.
std::optional<fit::LossSurfaceParams> paperSurface(const data::PaperTables& paper, accounting::Family family, double huberDelta);

}  // namespace scalex::analysis
