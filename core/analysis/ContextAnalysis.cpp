#include "core/analysis/ContextAnalysis.h"

#include <cmath>

#include "core/data/ColumnMapping.h"

namespace scalex::analysis {

const ContextSeriesAnswer* ContextAnswer::find(accounting::Family family) const {
    for (const auto& s : series)
        if (s.family == family && !s.ladder) return &s;
    return nullptr;
}

ContextAnswer answerContextQuery(const data::RunTable& table, const AnalysisSettings& settings,
                                 const std::vector<ContextSeriesInput>& inputs, ContextQuery query, const fit::FitControl& control) {
    if (query.budgets.empty())
        for (int i = 0; i <= 28; ++i) query.budgets.push_back(1e18 * std::pow(10.0, i * 0.25));
    if (query.contexts.empty()) query.contexts.push_back(query.context);
    ContextAnswer answer;
    answer.query = query;
    for (const auto& in : inputs) {
        if (control.cancelled()) return {};
        ContextSeriesAnswer a;
        a.name = in.name;
        a.family = in.family;
        a.ladder = in.ladder.has_value();
        a.runSpecs = in.runSpecs.has_value() || in.series.has_value();
        if (in.profiles) {
            a.profiles = *in.profiles;
        } else if (!in.ladder || in.series) {
            RunFilter filter = in.isoFlopRuns;
            filter.experimentSet = data::ExperimentSet::IsoFlop;
            filter.context = preferredContext(table, filter);  // the context the IsoFLOP view fits at
            if (filter.context) {
                const SeriesGroup group{in.series ? *in.series : std::string(accounting::familyName(in.family)), *filter.context, filter};
                a.profiles = recountableProfiles(table, settings, group);
            }
        }
        if (control.cancelled()) return {};
        if (a.profiles.size() >= 2) a.recount = recountAtContext(a.profiles, query.context, query.convention);
        const auto perToken = [&](double t) {
            if (const auto& ladder = in.ladder ? in.ladder : in.runSpecs) return ladderComputePerToken(*ladder, t, query.convention);
            return studyComputePerToken(query.configs, in.family, t, query.convention);
        };
        a.sweep = contextSweep(in.surface, perToken, query.context, query.budget, query.budgets, query.contexts, query.referenceContext);
        answer.series.push_back(std::move(a));
    }
    return answer;
}

data::ExportTable contextOptimaTable(const ContextAnswer& answer) {
    data::ExportTable t;
    t.caption = "Compute-optimal model size $N^*$ and tokens $D^*$ at a training budget of " + data::formatScientific(answer.query.budget) +
                " FLOPs over the context length $T$, from the loss surface with the FLOP count at each $T$.";
    t.label = "tab:context_optima";
    t.columns = {{"context", "$T$", data::CellStyle::Integer}};
    for (const auto& a : answer.series) {
        const std::string key = data::normalizeColumnName(a.name);
        t.columns.push_back({key + "_n_opt", data::latexEscape(a.name) + " $N^*$", data::CellStyle::Count});
        t.columns.push_back({key + "_d_opt", "$D^*$", data::CellStyle::Count});
        t.columns.push_back({key + "_tokens_per_param", "$D^*/N^*$", data::CellStyle::Fixed1});
    }
    for (std::size_t i = 0; i < answer.query.contexts.size(); ++i) {
        std::vector<data::ExportCell> row{answer.query.contexts[i]};
        for (const auto& a : answer.series) {
            const fit::OptimalPoint& o = a.sweep.trend[i];
            row.insert(row.end(), {o.params, o.tokens, o.tokens / o.params});
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

}  // namespace scalex::analysis
