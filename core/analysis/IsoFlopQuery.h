#pragma once
// What the IsoFLOP view shows, in one call that runs off the UI thread and that a headless render
// or a recipe can make the same way: which series have IsoFLOP runs, the fit of the series asked
// for (or of a pair of series compared), each at the context length it prefers, and the same fits
// at every context length of their runs (the paper's Fig. 5).
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/ExportTables.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/FitControl.h"

namespace scalex::analysis {

struct IsoFlopQuery {
    RunFilter scope;                  // the runs in scope; series and context are set per fit
    std::vector<std::string> series;  // the study's series, in their order
    // The series whose profiles are shown (empty or without runs: the first series with runs), or
    // with `both` the pair compared.
    std::string shown;
    bool both = false;
    double fitMin = 0, fitMax = 1e300;  // the budgets the power laws are fitted over
    bool everyContext = true;         // also fit every context length of the runs
};

// The fit of one series at one context length.
struct IsoFlopSeriesFit {
    std::string series;
    double context = 0;  // 0: the runs give none
    IsoFlopAnalysis analysis;
    std::optional<OptimalPowerLaws> paperLaw;  // the paper's laws for the runs' family at this context
};

struct IsoFlopContextFits {
    double context = 0;
    std::vector<IsoFlopSeriesFit> fits;  // one per series of the answer's `fits`, in that order
};

struct IsoFlopAnswer {
    IsoFlopQuery query;
    // The runs name experiment sets: only the IsoFLOP set is fitted (else every run with C and loss).
    bool setsNamed = false;
    std::vector<std::string> seriesWithRuns;  // the series with IsoFLOP runs in scope
    // The pair "both" compares: the study's Transformer and xLSTM where both have runs, else the
    // first two series with runs (either empty when there are fewer).
    std::string pair[2];
    // The series shown first, then the other of the pair; or the pair. Series without runs are
    // not fitted and not listed.
    std::vector<IsoFlopSeriesFit> fits;
    // Every series with runs, each at the context it prefers, in the study's order (the fits above
    // among them): what the laws and optima tables hold, as `fit isoflop` gives every series.
    std::vector<IsoFlopSeriesFit> every;
    std::vector<IsoFlopContextFits> contexts;  // ascending (query.everyContext)
    bool cancelled = false;

    const IsoFlopSeriesFit* fitOf(const std::string& series) const;
    // The bootstrap inputs of a fit: its runs as the fit read them, with the settings it used.
    static std::vector<fit::IsoFlopRun> inputsOf(const IsoFlopSeriesFit& fit);
};

// The filter of series `series`'s IsoFLOP runs in the query's scope, at every context length.
RunFilter isoFlopSeriesFilter(const IsoFlopQuery& query, bool setsNamed, const std::string& series);

// The series an IsoFLOP query can show, with no fit (what a view offers before it fits):
// answerIsoFlopQuery's `setsNamed`, `seriesWithRuns` and `pair`. Stops early when `control` is cancelled.
struct IsoFlopSeries {
    bool setsNamed = false;
    std::vector<std::string> withRuns;
    std::string pair[2];
};
IsoFlopSeries isoFlopSeries(const data::RunTable& table, const IsoFlopQuery& query, const fit::FitControl& control = {});

IsoFlopAnswer answerIsoFlopQuery(const data::RunTable& table, const AnalysisSettings& settings, const data::PaperTables& paper,
                                 IsoFlopQuery query, const fit::FitControl& control = {});

// The fits as the export tables read them (pointers into `answer` and `bands`, which may hold
// fewer entries than the fits: the intervals not yet known).
std::vector<IsoFlopShown> isoFlopShown(const IsoFlopAnswer& answer, const std::vector<std::optional<fit::BootstrapResult>>& bands);
// Every series' fit (IsoFlopAnswer::every) with its intervals (`bands`, one per entry of `every`).
std::vector<IsoFlopShown> isoFlopShownEvery(const IsoFlopAnswer& answer, const std::vector<std::optional<fit::BootstrapResult>>& bands);
std::vector<IsoFlopShown> isoFlopShownPerContext(const IsoFlopAnswer& answer);

}  // namespace scalex::analysis
