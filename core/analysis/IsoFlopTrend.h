#pragma once
// How a series' compute-optimal size at one budget moves with the context length it was trained
// at (Fig. 5, App. "Context Length"): its IsoFLOP analyses, one per context length, and the optima
// N*(H), D*(H) of each at the budget with power laws over the context (fit::contextTrend).
#include <string>
#include <vector>

#include "core/analysis/SeriesAnalyses.h"
#include "core/fit/IsoFlop.h"

namespace scalex::analysis {

struct SeriesContextTrend {
    std::string series;
    std::vector<const IsoFlopAnalysis*> contexts;  // the series' analyses at a known context, in their order
    fit::ContextTrend trend;
};

// One trend per series with analyses at two known context lengths or more, the series in order of
// first appearance among `analyses` (which the trends point into).
std::vector<SeriesContextTrend> isoFlopContextTrends(const std::vector<IsoFlopAnalysis>& analyses, double budget);

}  // namespace scalex::analysis
