#pragma once
// The context-length analysis (the paper's Fig. 5 finding), in one call for the window, the verbs
// and figure recipes: for each series of a known architecture, N*(H) on its loss surface with the
// training FLOPs per token recounted at context T, the same at a reference context, N* at one
// budget over a range of contexts, and the study's own IsoFLOP profiles with their compute
// recounted at T and the law through them.
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/Family.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelLadder.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Export.h"
#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"

namespace scalex::analysis {

struct ContextSeriesInput {
    std::string name;               // the series' label ("Transformer")
    accounting::Family family;      // c_T(N) is recounted from the family's architectures
    // ... or from this ladder's (any architecture; its IsoFLOP profiles are those given, if any).
    std::optional<accounting::ModelLadder> ladder;
    // A family's series whose runs name their specs (data/RunSpecs.h): c_T(N) of those specs in
    // place of the paper's configurations.
    std::optional<accounting::ModelLadder> runSpecs;
    // A series of no family whose runs name their specs: its IsoFLOP runs (isoFlopRuns) are
    // fitted under this name, and c_T(N) is its ladder's.
    std::optional<std::string> series;
    fit::LossSurfaceParams surface;
    RunFilter isoFlopRuns;          // the series' IsoFLOP runs (fitted at their preferred context)
    // Profiles already fitted for these runs and settings (a previous answer's), or none: fitted here.
    std::optional<std::vector<RecountableProfile>> profiles;
};

struct ContextQuery {
    double context = 8192;
    double budget = 1e22;             // the budget of the trend over contexts
    std::vector<double> budgets;      // of N*(H) (default: 1e18 to 1e25 in quarter decades)
    std::vector<double> contexts;     // of the trend (default: the context alone)
    double referenceContext = 8192;
    std::vector<data::PaperModelConfig> configs;  // the study's model configurations
    accounting::FlopConvention convention;
};

struct ContextSeriesAnswer {
    std::string name;
    accounting::Family family = accounting::Family::Transformer;
    bool ladder = false;                        // c_T(N) of a ladder (ContextSeriesInput::ladder), not a family's
    bool runSpecs = false;                      // c_T(N) of the specs the series' runs name
    ContextSweep sweep;                         // over the query's budgets and contexts
    std::vector<RecountableProfile> profiles;   // the IsoFLOP profiles recounted below
    RecountedLaw recount;                       // at T (empty with fewer than two profiles)
};

struct ContextAnswer {
    ContextQuery query;                       // with its default grids filled in
    std::vector<ContextSeriesAnswer> series;  // in the order of the inputs; empty when cancelled
    const ContextSeriesAnswer* find(accounting::Family family) const;
};

// `table` and `settings` give the runs whose IsoFLOP profiles are fitted (the analysis the IsoFLOP
// view and `fit isoflop` run, outliers left out unless kept).
ContextAnswer answerContextQuery(const data::RunTable& table, const AnalysisSettings& settings,
                                 const std::vector<ContextSeriesInput>& inputs, ContextQuery query,
                                 const fit::FitControl& control = {});

// tab:context_optima: N*, D* and D*/N* at the query's budget for every context of the trend.
data::ExportTable contextOptimaTable(const ContextAnswer& answer);

}  // namespace scalex::analysis
