#include "core/analysis/OptimalInputs.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/accounting/Family.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/SurfaceFits.h"
#include "core/data/RunSpecs.h"
#include "core/data/Series.h"

namespace scalex::analysis {

namespace {

bool sameContext(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool sameGroup(const OptimalSeriesInput& in, const SeriesGroup& g) { return in.series == g.series && sameContext(in.context, g.context); }

// Why a group's IsoFLOP analysis gives no laws.
std::string noLawsBecause(const IsoFlopAnalysis& a) {
    const std::string label = a.group.label();
    if (a.runs.empty()) return label + ": no IsoFLOP runs (several model sizes at each of two budgets or more) for N*(H) = A'·H^a.";
    int fitted = 0;
    for (const auto& p : a.result.profiles) fitted += p.fitted ? 1 : 0;
    std::string why = label + ": no IsoFLOP law N*(H) = A'·H^a: its runs give a profile at " + std::to_string(fitted) +
                      (fitted == 1 ? " budget" : " budgets");
    if (a.result.nBudgetsInLaw < fitted) why += " (" + std::to_string(a.result.nBudgetsInLaw) + " in the budget range)";
    return why + "; a law needs two.";
}

GroupSurface surfaceOf(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                       const OptimalQuery& query, const fit::FitControl& control) {
    return groupSurface(table, settings, group, query.surfaceFit, control);
}

// A group's IsoFLOP laws and the runs they were fitted to (values, no pointers into the table), or
// why it has none: one result of the cache (ResultCache.h) for every view and verb that asks.
struct GroupIsoFlopLaws {
    std::optional<OptimalPowerLaws> laws;
    std::vector<fit::IsoFlopRun> runs;
    fit::IsoFlopSettings settings;
    std::string problem;
};

std::shared_ptr<const GroupIsoFlopLaws> isoFlopLawsOf(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group) {
    const SeriesGroup runs = studySet(table, group, data::ExperimentSet::IsoFlop);
    const ResultKey key{"isoflop-laws", runs.label(), canonicalJson(settings.toJson()), runsRevision(table, runs.filter)};
    return ResultCache::shared().get<GroupIsoFlopLaws>(key, [&] {
        const IsoFlopAnalysis iso = isoFlopAnalysis(table, settings, runs);
        GroupIsoFlopLaws out;
        if (iso.result.nOptLaw && iso.result.dOptLaw) {
            out.laws = OptimalPowerLaws{iso.result.nOptLaw->coefficient, iso.result.nOptLaw->exponent, iso.result.dOptLaw->coefficient,
                                        iso.result.dOptLaw->exponent};
            for (const data::Run* r : iso.runs) out.runs.push_back({r->params, r->tokens, r->flops, r->loss()});
            out.settings = iso.settings;
        } else {
            out.problem = noLawsBecause(iso);
        }
        return std::make_shared<const GroupIsoFlopLaws>(std::move(out));
    });
}

void takeSurface(OptimalSeriesInput& in, const GroupSurface& s) {
    in.surfacePending = false;
    in.surface = s.surface;
    in.surfaceProblem = s.problem;
}

// Too few runs for an L(N,D) fit: known at once, nothing to wait for.
bool surfaceCannotFit(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group) {
    const RunFilter runs = studySet(table, group, data::ExperimentSet::TokenParam).filter;
    return lossSurfacePoints(table, runs).points.size() < (settings.fitGamma ? 6u : 5u);
}

OptimalSeriesInput paperModel(const data::PaperTables& paper, accounting::Family family, const AnalysisSettings& settings,
                              const OptimalQuery& query) {
    OptimalSeriesInput in;
    const std::string label(accounting::familyLabel(family));
    in.name = query.paperStudy ? label : label + " (paper)";
    if (query.paperStudy) in.series = accounting::familyName(family);
    in.context = query.context;
    in.paper = true;
    in.family = family;
    in.surface = paperSurface(paper, family, settings.huberDelta);
    if (!in.surface) in.surfaceProblem = label + ": the paper's tables give no loss surface.";
    const auto convention = accounting::conventionByName(settings.convention).value_or(accounting::studyConvention());
    in.computePerToken = studyComputePerToken(paper.modelConfigs, family, query.context, convention);
    in.referencePerToken = studyComputePerToken(paper.modelConfigs, family, query.referenceContext, convention);
    in.laws = paperOptimalLaws(paper, family, query.context);
    return in;
}

OptimalSeriesInput ladderModel(const data::PaperTables& paper, const accounting::ModelLadder& ladder,
                               const AnalysisSettings& settings, const OptimalQuery& query) {
    OptimalSeriesInput in;
    const std::string surfaceLabel(accounting::familyLabel(query.ladderSurface));
    in.name = ladder.name + " (ladder, " + surfaceLabel + " surface)";
    in.context = query.context;
    in.ladder = true;
    in.surface = paperSurface(paper, query.ladderSurface, settings.huberDelta);
    if (!in.surface) in.surfaceProblem = surfaceLabel + ": the paper's tables give no loss surface.";
    const auto convention = accounting::conventionByName(settings.convention).value_or(accounting::studyConvention());
    in.computePerToken = ladderComputePerToken(ladder, query.context, convention);
    in.referencePerToken = ladderComputePerToken(ladder, query.referenceContext, convention);
    in.lawsProblem = ladder.name + ": a model ladder has no IsoFLOP runs; the loss-surface method answers for it.";
    return in;
}

}  // namespace

std::vector<OptimalSeriesInput> optimalInputs(const data::RunTable& table, const AnalysisSettings& settings,
                                              const data::PaperTables& paper, const OptimalQuery& query,
                                              const fit::FitControl& control) {
    std::vector<OptimalSeriesInput> out;
    const std::vector<std::string> names = data::seriesNames(table);
    for (const SeriesGroup& g : seriesGroups(table, settings)) {
        if (control.cancelled()) return out;
        // The paper's study: its Transformer and xLSTM are answered by the paper's models.
        if (query.paperModels && query.paperStudy && accounting::parseFamily(g.series)) continue;
        OptimalSeriesInput in;
        in.name = g.label();
        in.series = g.series;
        in.seriesIndex = static_cast<int>(std::find(names.begin(), names.end(), g.series) - names.begin());
        in.context = g.context;
        if (const auto ladder = data::seriesSpecLadder(table, g.series)) {
            // The runs name their specs: c_T(N) is counted from them at the runs' context.
            const auto convention = accounting::conventionByName(settings.convention).value_or(accounting::studyConvention());
            in.computePerToken = ladderComputePerToken(*ladder, std::isnan(g.context) ? query.context : g.context, convention);
            in.referencePerToken = ladderComputePerToken(*ladder, query.referenceContext, convention);
        } else {
            const fit::PowerLaw perToken = computePerTokenOfRuns(table, g.filter);
            in.computePerToken = [perToken](double n) { return perToken(n); };
        }
        const auto iso = isoFlopLawsOf(table, settings, g);
        in.laws = iso->laws;
        in.isoFlopRuns = iso->runs;
        in.isoFlopSettings = iso->settings;
        in.lawsProblem = iso->problem;
        if (query.fitSurfaces || surfaceCannotFit(table, settings, g)) takeSurface(in, surfaceOf(table, settings, g, query, control));
        else if (auto kept = keptGroupSurface(table, settings, g, query.surfaceFit)) takeSurface(in, *kept);
        else in.surfacePending = true;
        out.push_back(std::move(in));
    }
    if (query.paperModels)
        for (accounting::Family f : {accounting::Family::Transformer, accounting::Family::Xlstm})
            out.push_back(paperModel(paper, f, settings, query));
    for (const auto& ladder : query.ladders) out.push_back(ladderModel(paper, ladder, settings, query));
    return out;
}

void fitOptimalSurfaces(std::vector<OptimalSeriesInput>& inputs, const data::RunTable& table, const AnalysisSettings& settings,
                        const OptimalQuery& query, const fit::FitControl& control) {
    const std::vector<SeriesGroup> groups = seriesGroups(table, settings);
    for (auto& in : inputs) {
        if (!in.surfacePending) continue;
        if (control.cancelled()) return;
        const auto g = std::find_if(groups.begin(), groups.end(), [&](const SeriesGroup& x) { return sameGroup(in, x); });
        if (g == groups.end()) continue;  // not in these runs: left pending
        takeSurface(in, surfaceOf(table, settings, *g, query, control));
    }
}

OptimalAnswer answerOptimalQuery(const data::RunTable& table, const AnalysisSettings& settings, const data::PaperTables& paper,
                                 const OptimalQuery& query, const fit::FitControl& control) {
    return answerOptimalQuery(optimalInputs(table, settings, paper, query, control), query, control);
}

}  // namespace scalex::analysis
