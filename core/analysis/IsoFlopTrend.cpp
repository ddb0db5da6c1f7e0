#include "core/analysis/IsoFlopTrend.h"

#include <algorithm>

namespace scalex::analysis {

std::vector<SeriesContextTrend> isoFlopContextTrends(const std::vector<IsoFlopAnalysis>& analyses, double budget) {
    std::vector<std::string> names;
    for (const auto& a : analyses)
        if (std::find(names.begin(), names.end(), a.group.series) == names.end()) names.push_back(a.group.series);
    std::vector<SeriesContextTrend> out;
    for (const auto& name : names) {
        SeriesContextTrend t{name, {}, {}};
        std::vector<double> contexts;
        std::vector<fit::IsoFlopResult> perContext;
        for (const auto& a : analyses)
            if (a.group.series == name && data::known(a.group.context)) {
                contexts.push_back(a.group.context);
                perContext.push_back(a.result);
                t.contexts.push_back(&a);
            }
        if (contexts.size() < 2) continue;
        t.trend = fit::contextTrend(contexts, perContext, budget);
        out.push_back(std::move(t));
    }
    return out;
}

}  // namespace scalex::analysis
