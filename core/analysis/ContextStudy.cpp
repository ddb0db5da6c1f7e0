#include "core/analysis/ContextStudy.h"

#include <algorithm>
#include <cmath>

#include "core/accounting/ModelLadder.h"
#include "core/analysis/Study.h"
#include "core/data/RunSpecs.h"

namespace scalex::analysis {

std::vector<double> contextTrendGrid() {
    std::vector<double> out;
    for (int pos = 0; pos <= kTrendOctaves * kContextStepsPerOctave; ++pos) {
        const double t = kMinTrendContext * std::pow(2.0, static_cast<double>(pos) / kContextStepsPerOctave);
        out.push_back(std::max(64.0, std::round(t / 64.0) * 64.0));
    }
    return out;
}

ContextRequest contextRequest(const Study& study, const ContextOptions& options) {
    ContextRequest r;
    for (accounting::Family f : {accounting::Family::Transformer, accounting::Family::Xlstm}) {
        ContextSeriesInput input;
        input.name = accounting::familyLabel(f);
        input.family = f;
        input.isoFlopRuns = study.filter(f);
        if (const auto series = familySeries(study.runs(), study.settings(), f))
            input.runSpecs = data::seriesSpecLadder(study.runs(), *series);
        r.inputs.push_back(std::move(input));
        // The paper's surfaces stand in on the paper's study alone.
        r.paper.push_back(study.isPaperStudy() ? study.paperSurface(f) : std::nullopt);
    }
    for (const auto& spec : study.specs()) {
        ContextSeriesInput input;
        input.name = spec.name + " ladder";
        input.family = accounting::Family::Transformer;
        input.ladder = accounting::specLadder(spec.spec);
        input.profiles = std::vector<RecountableProfile>{};
        r.ladders.push_back(std::move(input));
    }
    for (const std::string& series : study.seriesNames()) {
        if (accounting::parseFamily(series)) continue;
        auto ladder = data::seriesSpecLadder(study.runs(), series);
        if (!ladder) continue;
        ContextSeriesInput input;
        input.name = series;
        input.family = accounting::Family::Transformer;
        input.series = series;
        input.ladder = std::move(ladder);
        input.isoFlopRuns = study.filter();
        input.isoFlopRuns.series = series;
        r.seriesLadders.push_back(std::move(input));
    }
    r.query.context = options.context;
    r.query.budget = options.budget;
    r.query.contexts = options.contexts;
    r.query.configs = study.paper().modelConfigs;
    r.query.convention = study.convention();
    return r;
}

ContextResult contextAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const ContextRequest& request,
                              const fit::FitControl& control) {
    ContextResult out;
    // Each family's L(N,D) fitted to its own runs (the one fit of ResultCache for these runs and settings).
    std::vector<ContextSeriesInput> withSurface;
    for (std::size_t i = 0; i < request.inputs.size(); ++i) {
        const FamilySurface s = familySurface(table, settings, request.inputs[i].family, std::nullopt, request.paper[i], control);
        if (control.cancelled()) {
            out.cancelled = true;
            return out;
        }
        out.surfaces.push_back({request.inputs[i].family, s});
        if (!s.surface) continue;
        ContextSeriesInput in = request.inputs[i];
        in.surface = *s.surface;
        withSurface.push_back(std::move(in));
        if (request.inputs[i].family == accounting::Family::Transformer)
            for (ContextSeriesInput ladder : request.ladders) {
                ladder.surface = *s.surface;
                withSurface.push_back(std::move(ladder));
            }
    }
    for (const ContextSeriesInput& input : request.seriesLadders) {
        const auto group = surfaceGroup(table, settings, *input.series);
        GroupSurface s;
        if (group)
            s = groupSurface(table, settings, *group, control);
        else
            s.problem = "no runs in scope";
        if (control.cancelled()) {
            out.cancelled = true;
            return out;
        }
        out.seriesSurfaces.push_back({*input.series, s});
        if (!s.surface) continue;
        ContextSeriesInput in = input;
        in.surface = *s.surface;
        withSurface.push_back(std::move(in));
    }
    // Profiles handed in with the inputs are reused; the others are fitted.
    out.answer = answerContextQuery(table, settings, withSurface, request.query, control);
    return out;
}

}  // namespace scalex::analysis
