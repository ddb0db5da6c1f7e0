#pragma once
// From a run table to the fits of core/fit: which runs take part (the user's include toggles and
// the filter below, which an AnalysisSettings scope compiles to), and the numbers each analysis
// needs. Runs that pass the filter but lack a number an analysis needs are not dropped silently:
// they are listed in `skipped`.
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/Family.h"
#include "core/analysis/Condition.h"
#include "core/data/RunTable.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"
#include "core/fit/OvertrainingSlopes.h"
#include "core/fit/Pareto.h"

namespace scalex::analysis {

using data::Run;
using data::RunTable;
using data::ExperimentSet;

struct RunFilter {
    std::optional<std::string> series;           // one series (Run::series)
    std::optional<accounting::Family> family;    // one architecture family (accounting views)
    std::optional<double> context;               // training context length T; NaN: runs that give none
    std::optional<ExperimentSet> experimentSet;
    // Leave out runs the study deselected (its selected_in_paper column, wherever a table has one).
    bool selectedOnly = true;
    bool includeCheckpoints = false;             // intermediate checkpoints count as runs
    bool allSweepRuns = false;                   // not only the best run of each sweep (data/Sweeps.h)
    std::vector<RowCondition> where;             // every condition must hold
};

// Included (Run::included()) and matching every filter that is set.
bool passes(const Run& run, const RunFilter& filter);

// "run <id> (line L): <why>" for the `skipped` lists.
std::string describeRun(const Run& run, const std::string& why);

template <class Point>
struct Selection {
    std::vector<Point> points;
    std::vector<const Run*> runs;       // the run behind each point
    std::vector<std::string> skipped;   // runs that passed the filter but lack a needed number
    std::vector<const Run*> notBestOfSweep;  // runs in scope that their sweep's best run stands for
};

// A run the filter leaves out only because its sweep's best run stands for it (Run::sweepLeftOut).
bool leftOutBySweep(const Run& run, const RunFilter& filter);

// What an analysis needs of a run's scale: N and D (L(N,D), IsoFLOP, over-training slopes, context,
// compute-optimal), or only compute C (the Pareto front: a compute column, or N and D).
enum class ScaleNeed { NAndD, Compute };

// Why such an analysis has nothing to work on: no run that passes `filter` has what it needs, and
// the runs' tables have no column for N or D (data::Provenance::NoColumn). "the study has no N
// column (...)"; empty where some run has it or the runs only lack values (listed as skipped).
std::optional<std::string> missingScaleColumns(const RunTable& table, const RunFilter& filter,
                                               ScaleNeed need = ScaleNeed::NAndD);

// N, D and loss (validation loss, else training loss).
Selection<fit::LossPoint> lossSurfacePoints(const RunTable& table, const RunFilter& filter);
// N, D, C and loss.
Selection<fit::IsoFlopRun> isoFlopRuns(const RunTable& table, const RunFilter& filter);
// C, loss and D/N.
Selection<fit::ComputeLossPoint> computeLossPoints(const RunTable& table, const RunFilter& filter);

// The analyses on a table (thin wrappers that select and fit).
fit::LossSurfaceFit fitLossSurface(const RunTable& table, const RunFilter& filter, const fit::LossSurfaceSettings& settings,
                                   const fit::FitControl& control = {});
fit::IsoFlopResult fitIsoFlop(const RunTable& table, const RunFilter& filter, const fit::IsoFlopSettings& settings);
fit::SlopeResult fitOvertrainingSlopes(const RunTable& table, const RunFilter& filter, const fit::SlopeSettings& settings);

// The distinct context lengths among the runs that pass `filter` (ascending).
std::vector<double> contextLengths(const RunTable& table, const RunFilter& filter);

// The architecture family every run of `runs` has; none when one has no family or two differ.
std::optional<accounting::Family> sharedFamily(const std::vector<const Run*>& runs);

// The one context length an IsoFLOP analysis of `filter` looks at when the user names none: the
// study's main context (8192) where the runs have it, else the context with the most IsoFLOP runs
// (the shortest of equals). None when no run gives a context.
std::optional<double> preferredContext(const RunTable& table, const RunFilter& filter);

}  // namespace scalex::analysis
