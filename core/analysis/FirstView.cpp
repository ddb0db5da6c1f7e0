#include "core/analysis/FirstView.h"

#include <algorithm>
#include <limits>

namespace scalex::analysis {

std::string firstView(const Study& study) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    std::size_t usable = 0;
    for (const auto& run : study.runs().runs) {
        if (!study.inAnalysis(run)) continue;
        if (!(run.params > 0 && run.tokens > 0 && run.flops > 0 && run.loss() > 0)) continue;  // NaN fails too
        ++usable;
        lo = std::min(lo, run.flops);
        hi = std::max(hi, run.flops);
    }
    if (usable > 0 && !study.reading().budgets.levels.empty()) return "isoflop";
    if (usable > 1 && hi >= kFirstViewComputeSpan * lo) return "pareto";
    if (usable == 0 && !study.curveSets().empty()) return "curves";
    return "runs";
}

}  // namespace scalex::analysis
