#include "core/analysis/LawVariables.h"

#include <algorithm>

#include "core/analysis/RunSelection.h"
#include "core/data/Series.h"

namespace scalex::analysis {

bool namesStudyLoss(const std::string& name) { return name.empty() || name == "L" || name == "loss"; }

std::optional<double> lawVariableOf(const data::Run& run, const std::string& name) {
    if (auto v = data::runNumber(run, name)) return v;
    if (namesStudyLoss(name)) return run.loss();
    if (name == "U")
        for (const char* alias : {"unique_tokens", "unique_tokens_count", "unique_data"})
            if (auto v = data::runNumber(run, alias)) return v;
    if (name == "epochs") {
        const auto u = lawVariableOf(run, "U");
        if (u) return run.tokens / *u;
    }
    return std::nullopt;
}

std::vector<const data::Run*> runsInScope(const data::RunTable& table, const AnalysisSettings& settings) {
    const RunFilter filter = settings.scope.filter();
    std::vector<const data::Run*> out;
    for (const auto& run : table.runs)
        if (settings.scope.containsSeries(run.series) && passes(run, filter)) out.push_back(&run);
    return out;
}

std::function<bool(const std::string&)> lawColumnTest(const std::vector<const data::Run*>& runs) {
    return [runs](const std::string& name) {
        return std::any_of(runs.begin(), runs.end(), [&](const data::Run* r) { return lawVariableOf(*r, name).has_value(); });
    };
}

}  // namespace scalex::analysis
