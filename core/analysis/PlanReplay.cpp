#include "core/analysis/PlanReplay.h"
#include "core/analysis/AnalysisJson.h"

#include <QJsonArray>
#include <QJsonValue>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>

#include "core/analysis/LawAnalysis.h"
#include "core/analysis/LawVariables.h"
#include "core/analysis/RunCost.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Series.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/RunDesign.h"
#include "core/fit/SplitMix64.h"

namespace scalex::analysis {

std::string planStrategyName(PlanStrategy s) {
    switch (s) {
        case PlanStrategy::Planner: return "planner";
        case PlanStrategy::Random: return "random";
        case PlanStrategy::Cheapest: return "cheapest";
    }
    return "planner";
}

std::optional<PlanStrategy> parsePlanStrategy(const std::string& text) {
    for (auto s : {PlanStrategy::Planner, PlanStrategy::Random, PlanStrategy::Cheapest})
        if (planStrategyName(s) == text) return s;
    return std::nullopt;
}

namespace {

std::string conditionsText(const std::vector<RowCondition>& conditions) {
    std::string t;
    for (const auto& c : conditions) t += (t.empty() ? "" : " and ") + c.text();
    return t;
}

// One group's runs as the law reads them.
struct GroupRuns {
    fit::LawData pool, target;
    std::vector<double> cost;
    std::vector<std::string> poolLabels;
};

// The law refitted on the revealed runs after each pick. A pick adds one run, so the last optimum is
// usually the basin: the refit starts from it (one local search), and the multi-start search runs
// again only when the revealed runs have grown by a quarter since it last ran (every pick while
// fewer than 8 runs are revealed), or when the warm fit's objective per run has risen by half over
// that search's (the new runs disagree with the basin). A replay of hundreds of picks then runs a
// dozen searches instead of one per pick. Where the search runs, the warm fit competes with it.
class Refits {
public:
    Refits(const fit::CompiledLaw& law, const fit::LawFitSettings& settings, const fit::FitControl& control)
        : law_(law), settings_(settings), control_(control) {}

    // `search`: the multi-start search runs whether due or not.
    fit::LawFitResult operator()(const fit::LawData& revealed, const std::vector<double>& previous, bool search = false) {
        const std::size_t n = revealed.size();
        std::optional<fit::LawFitResult> warm;
        if (!previous.empty()) warm = fit::fitLawFrom(law_, revealed, previous, settings_);
        const bool due = search || searchedAt_ == 0 || n >= searchedAt_ + std::max<std::size_t>(1, searchedAt_ / 4) || !warm ||
                         !(warm->objective / static_cast<double>(n) <= kRise * perRun_);
        if (!due) return *warm;
        fit::LawFitResult best = fit::fitLaw(law_, revealed, settings_, control_);
        if (warm && std::isfinite(warm->objective) && !(warm->objective >= best.objective)) best = *warm;
        searchedAt_ = n;
        perRun_ = best.objective / static_cast<double>(n);
        return best;
    }

private:
    static constexpr double kRise = 1.5;
    const fit::CompiledLaw& law_;
    const fit::LawFitSettings& settings_;
    const fit::FitControl& control_;
    std::size_t searchedAt_ = 0;  // revealed runs at the last multi-start search
    double perRun_ = 0;           // its objective per run
};

// The misfit the planner's ranking allows for (fit::misfitFor), estimated again when the revealed
// runs have grown by an eighth since the last estimate (every pick below 16 runs): its REML fit and
// rolling-origin refits cost far more than ranking the candidates, and one run moves it little.
class MisfitEstimates {
public:
    double operator()(const fit::CompiledLaw& law, const fit::LawData& revealed, std::span<const double> params, const fit::LawData& targets,
                      double lengthScale) {
        const std::size_t n = revealed.size();
        if (!value_ || n >= at_ + std::max<std::size_t>(1, at_ / 8)) {
            value_ = fit::misfitFor(law, revealed, params, targets, lengthScale);
            at_ = n;
        }
        return *value_;
    }

private:
    std::optional<double> value_;
    std::size_t at_ = 0;
};

// The group replayed: the picks in order and the target's predictions after each.
void replayGroup(const fit::CompiledLaw& law, const GroupRuns& runs, const PlanReplayOptions& options, std::uint64_t seed,
                 const fit::FitControl& control, PlanReplayGroup& g) {
    const std::size_t n = runs.pool.size();
    std::size_t freeCount = 0;
    for (std::size_t j = 0; j < law.parameterCount(); ++j) freeCount += law.lower[j] < law.upper[j] ? 1 : 0;
    const std::size_t initialCount = freeCount + 1;
    g.poolRuns = n;
    g.targetRuns = runs.target.size();
    g.targetObserved = runs.target.target;
    g.poolCost = std::accumulate(runs.cost.begin(), runs.cost.end(), 0.0);
    if (n < initialCount) {
        g.error = "the pool has " + std::to_string(n) + " runs; the law's " + std::to_string(freeCount) + " free parameters need at least " +
                  std::to_string(initialCount);
        return;
    }
    std::vector<std::size_t> byCost(n);
    std::iota(byCost.begin(), byCost.end(), 0);
    std::stable_sort(byCost.begin(), byCost.end(), [&](std::size_t a, std::size_t b) { return runs.cost[a] < runs.cost[b]; });
    const double budget = options.budget * g.poolCost;
    std::vector<std::size_t> revealed(byCost.begin(), byCost.begin() + static_cast<std::ptrdiff_t>(initialCount));
    // The initial runs: the cheapest that determine the law (fit::determiningRuns: the cheapest basis
    // of the Jacobian's rows at three parameter draws; a cheap run that repeats what others tell is
    // passed over), and the cheapest other run, for a residual. Where the pool cannot determine the
    // law, the cheapest free parameters + 1 as they come.
    if (std::vector<std::size_t> basis = fit::determiningRuns(law, runs.pool, byCost); basis.size() == freeCount) {
        for (std::size_t i : byCost)
            if (std::find(basis.begin(), basis.end(), i) == basis.end()) {
                basis.push_back(i);
                break;
            }
        std::stable_sort(basis.begin(), basis.end(), [&](std::size_t a, std::size_t b) { return runs.cost[a] < runs.cost[b]; });
        revealed = basis;
    }
    std::vector<char> taken(n, 0);
    double spent = 0;
    for (std::size_t i : revealed) taken[i] = 1, spent += runs.cost[i];

    fit::LawFitSettings settings = options.fit;
    settings.seed = seed;
    fit::SplitMix64 rng = fit::SplitMix64::stream(seed, 0);  // seeds k and k+1 must not be one stream shifted by a draw
    std::vector<double> params;
    Refits refit(law, settings, control);
    MisfitEstimates misfits;
    // The law refitted on the revealed runs; the target's predictions and score with it.
    auto fitState = [&](bool search) {
        const fit::LawData data = runs.pool.subset(revealed);
        fit::LawFitResult f;
        try {
            f = refit(data, params, search);
        } catch (const std::invalid_argument&) {
            f.objective = std::numeric_limits<double>::quiet_NaN();
        }
        if (std::isfinite(f.objective)) params = f.params;
        std::vector<double> predicted = params.empty() ? std::vector<double>(runs.target.size(), std::numeric_limits<double>::quiet_NaN())
                                                       : fit::predictLaw(law, runs.target, params);
        const auto score = fit::scoreHeldOut(runs.target.target, predicted);
        return std::pair{std::move(predicted), score};
    };
    auto record = [&](std::size_t pick, bool initial) {
        auto [predicted, score] = fitState(false);
        g.picks.push_back({runs.poolLabels[pick], runs.cost[pick], spent / g.poolCost, score.r2, score.mape, initial});
        g.stateFraction.push_back(spent / g.poolCost);
        g.statePredicted.push_back(std::move(predicted));
    };
    // The initial runs enter together; their picks are listed with the fit on all of them.
    for (std::size_t k = 0; k + 1 < revealed.size(); ++k) {
        const std::size_t i = revealed[k];
        g.picks.push_back({runs.poolLabels[i], runs.cost[i], 0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::quiet_NaN(), true});
    }
    {
        double before = 0;
        for (std::size_t k = 0; k < revealed.size(); ++k) {
            before += runs.cost[revealed[k]];
            if (k + 1 < revealed.size()) g.picks[k].fraction = before / g.poolCost;
        }
    }
    record(revealed.back(), true);

    while (true) {
        std::vector<std::size_t> affordable;
        for (std::size_t i = 0; i < n; ++i)
            if (!taken[i] && spent + runs.cost[i] <= budget * (1 + 1e-12)) affordable.push_back(i);
        if (affordable.empty()) break;
        std::size_t pick = affordable.front();
        double misfit = std::numeric_limits<double>::quiet_NaN();
        if (options.strategy == PlanStrategy::Random) {
            pick = affordable[rng.below(affordable.size())];
        } else {
            auto cheapest = *std::min_element(affordable.begin(), affordable.end(), [&](std::size_t a, std::size_t b) { return runs.cost[a] < runs.cost[b]; });
            pick = cheapest;
            if (options.strategy == PlanStrategy::Planner && !params.empty()) {
                const fit::LawData candidates = runs.pool.subset(affordable);  // their losses are not read
                std::vector<double> costs;
                for (std::size_t i : affordable) costs.push_back(runs.cost[i]);
                const fit::LawData fitted = runs.pool.subset(revealed);
                fit::DesignModel design = options.design;
                if (!design.misfit) design.misfit = misfits(law, fitted, params, runs.target, design.lengthScale);
                const auto scores = fit::scoreCandidates(law, fitted, params, candidates, costs, runs.target, design);
                double best = 0;
                pick = n;  // none lowers the target's expected error: the planner stops
                for (std::size_t c = 0; c < affordable.size(); ++c)
                    if (scores.perCost[c] > best) best = scores.perCost[c], pick = affordable[c];
                misfit = scores.misfit;
            }
        }
        if (pick == n) break;
        taken[pick] = 1;
        spent += runs.cost[pick];
        revealed.push_back(pick);
        record(pick, false);
        g.picks.back().misfit = misfit;
    }
    // The plan's result is the law fitted on every run it revealed by the multi-start search (and
    // from the last optimum, the better of the two), whatever the last pick's refit was.
    {
        auto [predicted, score] = fitState(true);
        g.picks.back().r2 = score.r2, g.picks.back().mape = score.mape;
        g.statePredicted.back() = std::move(predicted);
    }
    g.params = params;
}

// The pooled score with each group at its last state no later than `fraction` (or its first).
PlanPoint pooledAt(const std::vector<PlanReplayGroup>& groups, double fraction) {
    PlanPoint p;
    std::vector<double> observed, predicted;
    for (const auto& g : groups) {
        if (!g.error.empty() || g.stateFraction.empty()) continue;
        std::size_t s = 0;
        while (s + 1 < g.stateFraction.size() && g.stateFraction[s + 1] <= fraction * (1 + 1e-12)) ++s;
        p.fraction = std::max(p.fraction, g.stateFraction[s]);
        // The initial runs, then one per later state.
        std::size_t initial = 0;
        for (const auto& pick : g.picks) initial += pick.initial ? 1 : 0;
        p.runs += initial + s;
        observed.insert(observed.end(), g.targetObserved.begin(), g.targetObserved.end());
        predicted.insert(predicted.end(), g.statePredicted[s].begin(), g.statePredicted[s].end());
    }
    const auto score = fit::scoreHeldOut(observed, predicted);
    p.r2 = score.r2;
    p.mape = score.mape;
    return p;
}

}  // namespace

PlanReplay replayPlan(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                      const PlanReplayOptions& options, const fit::FitControl& control) {
    PlanReplay r;
    r.law = law;
    r.options = options;
    r.cost = options.cost.empty() ? kDefaultRunCost : options.cost;
    if (!(options.budget > 0 && options.budget <= 1)) {
        r.error = "--budget is a fraction of the pool's cost in (0, 1], got " + std::to_string(options.budget);
        return r;
    }
    if (options.pool.empty()) {
        r.error = "--pool: no condition (the runs whose losses the planner may reveal)";
        return r;
    }
    if (options.target.empty()) {
        r.error = "--target: no condition (the runs the law is scored on)";
        return r;
    }
    for (const auto* conditions : {&options.pool, &options.target})
        if (auto bad = checkColumns(table, *conditions)) {
            r.error = (conditions == &options.pool ? "--pool: " : "--target: ") + bad->column + ": " + bad->message;
            return r;
        }
    const auto scoped = runsInScope(table, settings);
    std::vector<const data::Run*> poolRuns, targetRuns;
    for (const data::Run* run : scoped) {
        const bool inPool = meetsAll(*run, options.pool), inTarget = meetsAll(*run, options.target);
        if (inPool && inTarget) {
            r.error = "run " + data::runLabel(*run) + " meets both --pool (" + conditionsText(options.pool) + ") and --target (" +
                      conditionsText(options.target) + "): the target's losses must stay hidden from the planner";
            return r;
        }
        if (inPool) poolRuns.push_back(run);
        if (inTarget) targetRuns.push_back(run);
    }
    if (poolRuns.empty()) {
        r.error = "--pool '" + conditionsText(options.pool) + "' matches no run in scope (" + std::to_string(scoped.size()) + " runs)";
        return r;
    }
    if (targetRuns.empty()) {
        r.error = "--target '" + conditionsText(options.target) + "' matches no run in scope (" + std::to_string(scoped.size()) + " runs)";
        return r;
    }
    // The law reads only the pool's columns (the target's are checked below).
    const auto compiledOr = fit::compileLaw(law, lawColumnTest(poolRuns));
    if (const auto* e = std::get_if<fit::LawError>(&compiledOr)) {
        r.error = "formula '" + law.formula + "': " + e->text();
        return r;
    }
    const auto& compiled = std::get<fit::CompiledLaw>(compiledOr);
    r.target = namesStudyLoss(compiled.target) ? (compiled.target.empty() ? "loss" : compiled.target) : compiled.target;
    auto costOr = parseRunCost(r.cost, poolRuns);
    if (!costOr) {
        r.error = "--cost " + costOr.error().message;
        return r;
    }
    const RunCostExpression& cost = *costOr;

    // Every target run must be predictable and scorable: a law that cannot express it is an error.
    auto valuesOf = [&](const data::Run& run, std::vector<double>& values) -> std::string {
        values.clear();
        for (const auto& v : compiled.variables) {
            const auto x = lawVariableOf(run, v);
            if (!x || !std::isfinite(*x)) return v;
            values.push_back(*x);
        }
        return {};
    };
    auto groupOf = [&](const data::Run& run) {
        return options.groupColumn ? data::runValue(run, *options.groupColumn).value_or("") : SeriesGroup{run.series, run.context, {}}.label();
    };
    if (options.groupColumn &&
        std::none_of(scoped.begin(), scoped.end(), [&](const data::Run* run) { return data::runValue(*run, *options.groupColumn).has_value(); })) {
        r.error = "--group: no column '" + *options.groupColumn + "' in the runs";
        return r;
    }
    std::vector<std::string> order;
    std::map<std::string, GroupRuns> groups;
    auto groupData = [&](const std::string& name) -> GroupRuns& {
        if (!groups.count(name)) {
            order.push_back(name);
            groups[name].pool.variableCount = groups[name].target.variableCount = compiled.variables.size();
        }
        return groups[name];
    };
    std::vector<double> values;
    for (const data::Run* run : targetRuns) {
        if (const auto missing = valuesOf(*run, values); !missing.empty()) {
            r.error = "the law cannot predict the target: run " + data::runLabel(*run) + " has no number for '" + missing + "', which " +
                      law.formula + " reads";
            return r;
        }
        const auto y = lawVariableOf(*run, r.target);
        if (!y || !std::isfinite(*y)) {
            r.error = "target run " + data::runLabel(*run) + " has no " + r.target + " to score the law with";
            return r;
        }
        if (law.space == fit::LawSpace::Log && !(*y > 0)) {
            r.error = "target run " + data::runLabel(*run) + ": " + r.target + " must be positive for a law fitted in log space";
            return r;
        }
        groupData(groupOf(*run)).target.add(values, *y);
    }
    for (const data::Run* run : poolRuns) {
        std::string missing = valuesOf(*run, values);
        const auto y = lawVariableOf(*run, r.target);
        if (missing.empty() && (!y || !std::isfinite(*y))) missing = r.target;
        const auto c = runCost(cost, *run);
        if (missing.empty() && !c) missing = "cost " + cost.text;
        if (!missing.empty()) {
            r.skipped.push_back(describeRun(*run, "no number for '" + missing + "'"));
            continue;
        }
        GroupRuns& g = groupData(groupOf(*run));
        g.pool.add(values, *y);
        g.cost.push_back(*c);
        g.poolLabels.push_back(data::runLabel(*run));
    }

    for (std::size_t k = 0; k < order.size(); ++k) {
        PlanReplayGroup g;
        g.name = order[k];
        const GroupRuns& runs = groups[order[k]];
        if (runs.target.size() == 0) {
            g.error = "no target run in this group";
            g.poolRuns = runs.pool.size();
        } else if (runs.pool.size() == 0) {
            g.error = "no pool run in this group (its target cannot be predicted)";
            g.targetRuns = runs.target.size();
        } else {
            replayGroup(compiled, runs, options, options.seed + 0x51ED270B27ull * k, control, g);
        }
        r.groups.push_back(std::move(g));
    }
    if (std::all_of(r.groups.begin(), r.groups.end(), [](const PlanReplayGroup& g) { return !g.error.empty(); })) {
        r.error = r.groups.size() == 1 ? r.groups.front().error : "no group could be replayed (" + r.groups.front().name + ": " + r.groups.front().error + ")";
        return r;
    }

    std::vector<double> fractions;
    for (const auto& g : r.groups) fractions.insert(fractions.end(), g.stateFraction.begin(), g.stateFraction.end());
    std::sort(fractions.begin(), fractions.end());
    fractions.erase(std::unique(fractions.begin(), fractions.end()), fractions.end());
    // The curve starts once every group has its initial runs (before, the points would repeat).
    double start = 0;
    for (const auto& g : r.groups)
        if (!g.stateFraction.empty()) start = std::max(start, g.stateFraction.front());
    for (double f : fractions)
        if (f >= start) r.curve.push_back(pooledAt(r.groups, f));
    r.final = pooledAt(r.groups, 1.0);
    for (double c : options.checkpoints)
        if (c <= options.budget * (1 + 1e-12)) r.checkpoints.push_back({c, pooledAt(r.groups, c)});
    return r;
}

ReplayCurves replayCurves(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                          const PlanReplayOptions& options, std::size_t randomSeeds, const fit::FitControl& control) {
    ReplayCurves out;
    out.randomSeeds = randomSeeds;
    auto run = [&](PlanStrategy strategy, std::uint64_t seed) {
        PlanReplayOptions o = options;
        o.strategy = strategy;
        o.seed = seed;
        return replayPlan(table, settings, law, o, control);
    };
    out.planner = run(PlanStrategy::Planner, options.seed);
    if (out.planner.error) {
        out.error = out.planner.error;
        return out;
    }
    const PlanReplay cheapest = run(PlanStrategy::Cheapest, options.seed);
    std::vector<PlanReplay> random;
    for (std::size_t s = 0; s < randomSeeds; ++s) random.push_back(run(PlanStrategy::Random, options.seed + 1 + s));

    // Every replay starts from the same cheapest runs; the grid starts where all of them have theirs.
    double start = 0;
    for (const PlanReplay* r : {static_cast<const PlanReplay*>(&out.planner), &cheapest})
        for (const auto& g : r->groups)
            if (!g.stateFraction.empty()) start = std::max(start, g.stateFraction.front());
    std::vector<double> grid;
    const int steps = 40;
    for (int k = 0; k < steps; ++k) grid.push_back(start * std::pow(options.budget / start, static_cast<double>(k) / steps));
    grid.push_back(options.budget);
    for (double c : options.checkpoints)
        if (c > start && c <= options.budget) grid.push_back(c);
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());

    for (double f : grid) {
        ReplayCurvePoint p;
        p.fraction = f;
        const PlanPoint a = pooledAt(out.planner.groups, f), b = pooledAt(cheapest.groups, f);
        p.plannerR2 = a.r2, p.plannerMape = a.mape, p.cheapestR2 = b.r2, p.cheapestMape = b.mape;
        std::vector<double> r2, mape;
        for (const auto& r : random) {
            if (r.error) continue;
            const PlanPoint q = pooledAt(r.groups, f);
            r2.push_back(q.r2);
            mape.push_back(q.mape);
        }
        using fit::finitePercentile;
        p.randomR2 = finitePercentile(r2, 0.5), p.randomR2Low = finitePercentile(r2, 0.25), p.randomR2High = finitePercentile(r2, 0.75);
        p.randomMape = finitePercentile(mape, 0.5), p.randomMapeLow = finitePercentile(mape, 0.25), p.randomMapeHigh = finitePercentile(mape, 0.75);
        out.points.push_back(p);
    }
    return out;
}

std::string replayCurvesCsv(const ReplayCurves& curves) {
    std::ostringstream s;
    s.precision(8);
    s << "fraction,planner_mape,cheapest_mape,random_mape,random_mape_low,random_mape_high,planner_r2,cheapest_r2,random_r2,random_r2_low,"
         "random_r2_high\n";
    for (const auto& p : curves.points)
        s << p.fraction << ',' << p.plannerMape << ',' << p.cheapestMape << ',' << p.randomMape << ',' << p.randomMapeLow << ',' << p.randomMapeHigh
          << ',' << p.plannerR2 << ',' << p.cheapestR2 << ',' << p.randomR2 << ',' << p.randomR2Low << ',' << p.randomR2High << '\n';
    return s.str();
}

QJsonObject toJson(const PlanReplay& r) {
    QJsonObject o{{"law", lawToJson(r.law)},
                  {"target", jsonText(r.target)},
                  {"cost", jsonText(r.cost)},
                  {"strategy", jsonText(planStrategyName(r.options.strategy))},
                  {"budget", r.options.budget},
                  {"seed", static_cast<qint64>(r.options.seed)}};
    if (r.error) o.insert("error", jsonText(*r.error));
    auto pointJson = [](const PlanPoint& p) {
        return QJsonObject{{"fraction", p.fraction}, {"runs", static_cast<qint64>(p.runs)}, {"r2", jsonNumber(p.r2)}, {"mape", jsonNumber(p.mape)}};
    };
    o.insert("r2", jsonNumber(r.final.r2));
    o.insert("mape", jsonNumber(r.final.mape));
    o.insert("fraction", r.final.fraction);
    o.insert("runs", static_cast<qint64>(r.final.runs));
    QJsonArray checkpoints;
    for (const auto& [at, p] : r.checkpoints) {
        QJsonObject c = pointJson(p);
        c.insert("at", at);
        checkpoints.append(c);
    }
    o.insert("checkpoints", checkpoints);
    QJsonArray curve;
    for (const auto& p : r.curve) curve.append(pointJson(p));
    o.insert("curve", curve);
    QJsonArray groups;
    for (const auto& g : r.groups) {
        QJsonObject j{{"name", jsonText(g.name)}, {"pool", static_cast<qint64>(g.poolRuns)}, {"targets", static_cast<qint64>(g.targetRuns)}};
        if (!g.error.empty()) {
            j.insert("error", jsonText(g.error));
            groups.append(j);
            continue;
        }
        j.insert("pool_cost", g.poolCost);
        QJsonArray picks;
        for (const auto& p : g.picks) {
            QJsonObject pick{{"run", jsonText(p.run)}, {"cost", p.cost}, {"fraction", p.fraction}, {"r2", jsonNumber(p.r2)},
                             {"mape", jsonNumber(p.mape)}, {"initial", p.initial}};
            if (std::isfinite(p.misfit)) pick.insert("misfit", p.misfit);
            picks.append(pick);
        }
        j.insert("picks", picks);
        QJsonObject params;
        for (std::size_t k = 0; k < g.params.size() && k < r.law.parameters.size(); ++k)
            params.insert(jsonText(r.law.parameters[k].name), jsonNumber(g.params[k]));
        j.insert("params", params);
        groups.append(j);
    }
    o.insert("groups", groups);
    o.insert("skipped", stringsJson(r.skipped));
    return o;
}

}  // namespace scalex::analysis
