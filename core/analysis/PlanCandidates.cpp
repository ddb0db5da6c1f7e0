#include "core/analysis/PlanCandidates.h"
#include "core/analysis/AnalysisJson.h"

#include <QJsonArray>
#include <QJsonValue>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "core/analysis/LawAnalysis.h"
#include "core/analysis/LawVariables.h"
#include "core/analysis/RunCost.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Series.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/PlanReplay.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/RunDesign.h"
#include "core/fit/SplitMix64.h"

namespace scalex::analysis {

namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95 % normal quantile


std::string g4(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

std::string trim(std::string s) {
    const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::optional<double> number(const std::string& text) {
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(v)) return std::nullopt;
        return v;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string pointLabel(const TargetPoint& p) {
    std::string t;
    for (const auto& [name, value] : p) t += (t.empty() ? "" : ",") + name + "=" + g4(value);
    return t;
}

// The candidates and targets as the law reads them.
struct Planned {
    fit::LawData candidates, targets;
    std::vector<double> cost, n, d;
    std::vector<std::string> labels, targetLabels;
};

// 95 % half-width of the prediction ŷ from the standard deviation in the law's space (in log space
// sd is that of ln ŷ: the delta method gives ŷ·sd).
double halfWidth(const fit::CompiledLaw& law, double predicted, double sd) {
    return kZ95 * sd * (law.definition.space == fit::LawSpace::Log ? std::abs(predicted) : 1.0);
}

// The candidates a strategy takes for at most `cost`: the planner's picks; random: candidates in a
// shuffled order, each taken while it fits; cheapest: the same in ascending cost.
std::vector<std::size_t> batchOf(PlanStrategy strategy, const std::vector<std::size_t>& picks, const std::vector<double>& costs, double cost,
                                 fit::SplitMix64& rng) {
    if (strategy == PlanStrategy::Planner) return picks;
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (strategy == PlanStrategy::Random)
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    else
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });
    std::vector<std::size_t> batch;
    double spent = 0;
    for (std::size_t c : order)
        if (spent + costs[c] <= cost * (1 + 1e-12)) {
            batch.push_back(c);
            spent += costs[c];
        }
    return batch;
}

// The batch simulated before it is spent (see PlanCandidatesOptions::simulate): per seed one draw
// of the law's parameters (the truth of that seed) shared by the three strategies, the batch's
// losses drawn from it with the residual noise, the law refitted from the current optimum on the
// study's runs and the batch, and the target scored against the drawn law.
std::vector<SimulatedBatch> simulateBatches(const fit::CompiledLaw& law, const fit::LawData& runs, const std::vector<double>& params,
                                            const Planned& planned, const std::vector<std::size_t>& picks, double spent, double sigma2,
                                            const PlanCandidatesOptions& options) {
    // Draws of the law consistent with the runs: the bootstrap over runs, each replicate refitted
    // from the optimum (the curvature's Gaussian draws leave the curved valley of a law like
    // E + A/N^alpha and give truths the runs contradict).
    std::vector<std::vector<double>> truths;
    for (auto& theta : fit::bootstrapLawFits(law, runs, params, static_cast<int>(options.simulate), options.seed, options.fit))
        if (!theta.empty()) truths.push_back(std::move(theta));
    std::vector<std::vector<double>> atCandidates, atTargets;  // the drawn laws' values, per seed
    for (const auto& theta : truths) {
        atCandidates.push_back(fit::predictLaw(law, planned.candidates, theta));
        atTargets.push_back(fit::predictLaw(law, planned.targets, theta));
    }
    const double sigma = std::sqrt(sigma2);
    const bool logSpace = law.definition.space == fit::LawSpace::Log;
    std::vector<SimulatedBatch> out;
    for (PlanStrategy strategy : {PlanStrategy::Planner, PlanStrategy::Random, PlanStrategy::Cheapest}) {
        const auto index = static_cast<std::uint64_t>(strategy);
        const std::size_t nTargets = planned.targets.size();
        std::vector<double> count, cost;
        std::vector<std::vector<double>> halfWidths(nTargets), errors(nTargets);
        SimulatedBatch b;
        b.strategy = planStrategyName(strategy);
        for (std::size_t s = 0; s < truths.size(); ++s) {
            fit::SplitMix64 rng = fit::SplitMix64::stream(options.seed + 1000003 * (index + 1), s);
            const auto batch = batchOf(strategy, picks, planned.cost, spent, rng);
            fit::LawData data = runs;
            double batchCost = 0;
            for (std::size_t c : batch) {
                const double y = atCandidates[s][c];
                data.add(planned.candidates.row(c), logSpace ? y * std::exp(sigma * rng.normal()) : y + sigma * rng.normal());
                batchCost += planned.cost[c];
            }
            count.push_back(static_cast<double>(batch.size()));
            cost.push_back(batchCost);
            const auto refit = fit::fitLawFrom(law, data, params, options.fit);
            if (!std::isfinite(refit.objective)) {
                ++b.failed;
                continue;
            }
            const auto predicted = fit::predictLaw(law, planned.targets, refit.params);
            const auto after = fit::scoreAfter(law, data, refit.params, planned.candidates, {}, planned.targets, {}, fit::DesignModel{.misfit = 0});
            for (std::size_t t = 0; t < nTargets; ++t) {
                halfWidths[t].push_back(halfWidth(law, predicted[t], after.targetSd[t]));
                errors[t].push_back(std::abs(predicted[t] - atTargets[s][t]));
            }
        }
        b.runs = fit::finitePercentile(count, 0.5);
        b.spent = fit::finitePercentile(cost, 0.5);
        for (std::size_t t = 0; t < nTargets; ++t) {
            b.halfWidth.push_back(fit::finitePercentile(halfWidths[t], 0.5));
            b.error.push_back(fit::finitePercentile(errors[t], 0.5));
            b.errorLow.push_back(fit::finitePercentile(errors[t], 0.25));
            b.errorHigh.push_back(fit::finitePercentile(errors[t], 0.75));
        }
        out.push_back(std::move(b));
    }
    return out;
}

void planGroup(const fit::CompiledLaw& law, const fit::LawData& runs, const Planned& planned, const PlanCandidatesOptions& options,
               const fit::FitControl& control, PlanCandidatesGroup& g) {
    g.runs = runs.size();
    g.candidates = planned.candidates.size();
    fit::LawFitResult f;
    try {
        f = fit::fitLaw(law, runs, options.fit, control);
    } catch (const std::invalid_argument& e) {
        g.error = std::string("the law cannot be fitted: ") + e.what();
        return;
    }
    if (!std::isfinite(f.objective)) {
        g.error = "the law's fit did not converge";
        return;
    }
    g.params = f.params;
    const std::vector<double> predicted = fit::predictLaw(law, planned.targets, f.params);
    const auto before = fit::scoreCandidates(law, runs, f.params, planned.candidates, planned.cost, planned.targets, options.design);
    g.misfit = before.misfit;
    const fit::DesignModel design{.misfit = before.misfit, .lengthScale = options.design.lengthScale};  // estimated once, on the runs
    double largestN = 0;
    const auto nIndex = std::find(law.variables.begin(), law.variables.end(), "N");
    if (nIndex != law.variables.end())
        for (std::size_t i = 0; i < runs.size(); ++i) largestN = std::max(largestN, runs.row(i)[static_cast<std::size_t>(nIndex - law.variables.begin())]);

    // Rival fits, and how far apart each candidate would put them (in residual SDs, law's space).
    const double sigma = std::sqrt(before.sigma2);
    const bool logSpace = law.definition.space == fit::LawSpace::Log;
    const auto inSpace = [&](double y) { return logSpace ? std::log(y) : y; };
    const std::vector<double> atCandidates = fit::predictLaw(law, planned.candidates, f.params);
    std::vector<double> separation(planned.candidates.size(), 0.0);
    // Per rival: the spread its disagreement adds to the target's error (the two fits as an even
    // mixture: Σₜ (Δₜ / 2)² in the law's space), and each candidate's separation of it.
    std::vector<double> rivalSpread;
    std::vector<std::vector<double>> rivalSeparation;
    for (const auto& o : f.optima) {
        if (!(o.objective <= f.objective * (1 + options.rivalTolerance))) continue;
        const auto targetsThere = fit::predictLaw(law, planned.targets, o.params);
        const auto differs = [&](const std::vector<double>& a) {
            for (std::size_t t = 0; t < a.size(); ++t)
                if (!(std::abs(inSpace(a[t]) - inSpace(targetsThere[t])) <= 1e-3 * sigma)) return true;
            return false;
        };
        if (!differs(predicted) || std::any_of(g.rivals.begin(), g.rivals.end(), [&](const RivalFit& r) { return !differs(r.predicted); }))
            continue;
        g.rivals.push_back({f.objective > 0 ? o.objective / f.objective : 1.0, o.params, targetsThere});
        double spread = 0;
        for (std::size_t t = 0; t < predicted.size(); ++t) spread += std::pow((inSpace(predicted[t]) - inSpace(targetsThere[t])) / 2, 2);
        rivalSpread.push_back(std::isfinite(spread) ? spread : 0.0);
        const auto there = fit::predictLaw(law, planned.candidates, o.params);
        rivalSeparation.emplace_back(there.size(), 0.0);
        for (std::size_t c = 0; c < there.size(); ++c) {
            const double s = std::abs(inSpace(there[c]) - inSpace(atCandidates[c])) / sigma;
            if (std::isfinite(s)) separation[c] = std::max(separation[c], s), rivalSeparation.back()[c] = s;
        }
    }
    // A run that puts the two fits s residual SDs apart leaves, in expectation, the weight w of the
    // wrong one, w = 1 / (1 + e^(s²/2)) (its expected likelihood ratio), so of the rival's spread the
    // fraction 4w(1 − w) (1 at s = 0, 0.04 at s = 3). The ranking adds what a candidate removes of
    // the spread to its drop of the expected squared error; `rivalLeft` is what the batch has left.
    const auto spreadLeft = [](double s) {
        const double w = 1 / (1 + std::exp(std::min(s * s / 2, 700.0)));
        return 4 * w * (1 - w);
    };
    std::vector<double> rivalLeft(rivalSpread.size(), 1.0);
    const auto separationGain = [&](std::size_t c) {
        double gain = 0;
        for (std::size_t r = 0; r < rivalSpread.size(); ++r) gain += rivalSpread[r] * rivalLeft[r] * (1 - spreadLeft(rivalSeparation[r][c]));
        return gain;
    };

    const std::size_t maxPicks = options.pick ? *options.pick : (options.budget ? planned.candidates.size() : 5);
    const double budget = options.budget.value_or(std::numeric_limits<double>::infinity());
    std::vector<std::size_t> picked;
    std::vector<char> taken(planned.candidates.size(), 0);
    auto scores = before;
    std::vector<double> perCost(planned.candidates.size(), 0.0);
    while (picked.size() < maxPicks) {
        std::size_t best = planned.candidates.size(), left = 0;
        for (std::size_t c = 0; c < planned.candidates.size(); ++c) {
            if (taken[c] || g.spent + planned.cost[c] > budget * (1 + 1e-12)) continue;
            ++left;
            perCost[c] = (scores.reduction[c] + separationGain(c)) / planned.cost[c];
            if (perCost[c] > 0 && (best == planned.candidates.size() || perCost[c] > perCost[best])) best = c;
        }
        if (best == planned.candidates.size()) break;  // nothing affordable lowers the variance
        taken[best] = 1;
        picked.push_back(best);
        g.spent += planned.cost[best];
        const auto after = fit::scoreAfter(law, runs, f.params, planned.candidates, picked, planned.targets, planned.cost, design);
        CandidatePick p;
        p.run = planned.labels[best];
        p.n = planned.n[best];
        p.d = planned.d[best];
        p.cost = planned.cost[best];
        p.score = perCost[best];
        p.separation = separation[best];
        const double separated = separationGain(best);
        const double total = before.targetError + std::accumulate(rivalSpread.begin(), rivalSpread.end(), 0.0);
        p.reduction = total > 0 ? (scores.reduction[best] + separated) / total : 0.0;
        p.separated = total > 0 ? separated / total : 0.0;
        for (std::size_t r = 0; r < rivalSpread.size(); ++r) rivalLeft[r] *= spreadLeft(rivalSeparation[r][best]);
        for (std::size_t t = 0; t < predicted.size(); ++t) p.halfWidthAfter.push_back(halfWidth(law, predicted[t], after.targetSd[t]));
        std::string why = "lowers the target's expected squared error" + std::string(rivalSpread.empty() ? "" : " (with the rival fits' disagreement)") + " by " +
                          g4(100 * p.reduction) +
                          " % of its value before the batch for " + g4(p.cost) +
                          " cost, the most per unit cost of " + std::to_string(left) + " affordable candidates";
        if (p.separated > 0)
            why += "; " + g4(100 * p.separated) + " % of it by putting the rival fits " + g4(p.separation) + " residual SDs apart";
        if (std::isfinite(p.n) && largestN > 0)
            why += p.n > largestN ? "; N is " + g4(p.n / largestN) + "x the study's largest, so it pins the extrapolation"
                                  : "; N within the study's range (up to " + g4(largestN) + ")";
        p.why = why;
        g.picks.push_back(std::move(p));
        scores = after;
    }
    if (!g.rivals.empty()) {
        // The cheapest affordable run that tells the fits apart (kSeparates SDs), else the one that separates them most.
        constexpr double kSeparates = 3;
        const std::size_t none = planned.candidates.size();
        std::size_t cheapest = none, widest = none;
        for (std::size_t c = 0; c < planned.candidates.size(); ++c) {
            if (!(planned.cost[c] <= budget * (1 + 1e-12))) continue;
            if (separation[c] >= kSeparates && (cheapest == none || planned.cost[c] < planned.cost[cheapest])) cheapest = c;
            if (widest == none || separation[c] > separation[widest]) widest = c;
        }
        const std::size_t best = cheapest != none ? cheapest : widest;
        if (best != none) {
            CandidatePick p;
            p.run = planned.labels[best];
            p.n = planned.n[best];
            p.d = planned.d[best];
            p.cost = planned.cost[best];
            p.separation = separation[best];
            const std::string others = g.rivals.size() == 1 ? "1 other optimum" : std::to_string(g.rivals.size()) + " other optima";
            p.why = others + " of the multi-start fit within " + g4(100 * options.rivalTolerance) +
                    " % of the best objective predict the target differently; a run here lies " + g4(p.separation) +
                    " residual SDs between them and the best fit, " +
                    (cheapest != none ? "the cheapest affordable candidate to tell them apart (" + g4(kSeparates) + " SDs or more)"
                                      : "the most of any affordable candidate (none reaches " + g4(kSeparates) + " SDs)");
            g.separating = std::move(p);
        }
    }
    if (options.simulate > 0 && !picked.empty())
        g.simulated = simulateBatches(law, runs, f.params, planned, picked, g.spent, before.sigma2, options);
    for (std::size_t t = 0; t < predicted.size(); ++t) {
        CandidateTarget ct;
        ct.label = planned.targetLabels[t];
        ct.predicted = predicted[t];
        ct.halfWidthBefore = halfWidth(law, predicted[t], before.targetSd[t]);
        ct.halfWidthAfter = g.picks.empty() ? ct.halfWidthBefore : g.picks.back().halfWidthAfter[t];
        g.targets.push_back(ct);
    }
}

}  // namespace

data::Expected<GridAxis> parseGridAxis(const std::string& text) {
    const std::string expected = "expected LO:HI:K (log-spaced from LO to HI, K values, 0 < LO <= HI)";
    const auto a = text.find(':');
    const auto b = a == std::string::npos ? std::string::npos : text.find(':', a + 1);
    if (b == std::string::npos || text.find(':', b + 1) != std::string::npos) return data::LoadError{"grid", 0, text, expected};
    const auto lo = number(trim(text.substr(0, a))), hi = number(trim(text.substr(a + 1, b - a - 1)));
    const auto k = number(trim(text.substr(b + 1)));
    if (!lo || !hi || !k || !(*lo > 0) || !(*hi >= *lo) || !(*k >= 1) || *k != std::floor(*k) || *k > 10000)
        return data::LoadError{"grid", 0, text, expected};
    if (*k == 1 && *lo != *hi) return data::LoadError{"grid", 0, text, "one value (K = 1) needs LO = HI"};
    return GridAxis{*lo, *hi, static_cast<std::size_t>(*k)};
}

data::Expected<TargetPoint> parseTargetPoint(const std::string& text) {
    TargetPoint p;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(',', start), text.size());
        const std::string item = trim(text.substr(start, end - start));
        const auto eq = item.find('=');
        const auto value = eq == std::string::npos ? std::nullopt : number(trim(item.substr(eq + 1)));
        const std::string name = eq == std::string::npos ? std::string() : trim(item.substr(0, eq));
        if (name.empty() || !value) return data::LoadError{"target", 0, text, "expected NAME=VALUE,NAME=VALUE (e.g. N=7e9,D=2e12)"};
        if (p.count(name)) return data::LoadError{"target", 0, text, "'" + name + "' is given twice"};
        p[name] = *value;
        start = end + 1;
    }
    return p;
}

PlanCandidates planCandidates(const data::RunTable& study, const AnalysisSettings& settings, const fit::LawDefinition& law,
                              const PlanCandidatesOptions& options, const data::RunTable* planned, const fit::FitControl& control) {
    PlanCandidates r;
    r.law = law;
    r.options = options;
    auto fail = [&](std::string why) {
        r.error = std::move(why);
        return r;
    };
    if (options.targetPoints.empty() && options.targetRows.empty()) return fail("--target: no point (N=7e9,D=2e12) and no condition on the planned runs");
    if (!options.targetRows.empty() && !planned) return fail("--target: a condition names rows of the planned runs (--candidates FILE)");
    if (!planned && (!options.gridN || !options.gridD)) return fail("no candidates: give --candidates FILE.csv or --grid-n and --grid-d");
    if (options.pick && *options.pick == 0) return fail("--pick: at least one run");
    if (options.budget && !(*options.budget > 0)) return fail("--budget: a positive total cost");

    const auto scoped = runsInScope(study, settings);
    if (scoped.empty()) return fail("no run in scope to fit the law on");
    const auto compiledOr = fit::compileLaw(law, lawColumnTest(scoped));
    if (const auto* e = std::get_if<fit::LawError>(&compiledOr)) return fail("formula '" + law.formula + "': " + e->text());
    const auto& compiled = std::get<fit::CompiledLaw>(compiledOr);
    r.target = namesStudyLoss(compiled.target) ? (compiled.target.empty() ? "loss" : compiled.target) : compiled.target;
    const auto& variables = compiled.variables;
    auto lawReads = [&](const std::string& name) { return std::find(variables.begin(), variables.end(), name) != variables.end(); };
    auto readsText = [&] {
        std::string t;
        for (const auto& v : variables) t += (t.empty() ? "" : ", ") + v;
        return t;
    };

    Planned p;
    p.candidates.variableCount = p.targets.variableCount = variables.size();
    for (const auto& point : options.targetPoints) {
        for (const auto& [name, value] : point)
            if (!lawReads(name)) return fail("--target '" + pointLabel(point) + "': the law reads no '" + name + "' (it reads " + readsText() + ")");
        std::vector<double> values;
        for (const auto& v : variables) {
            if (!point.count(v)) return fail("--target '" + pointLabel(point) + "': no value for '" + v + "', which the law reads");
            values.push_back(point.at(v));
        }
        p.targets.add(values, 0.0);
        p.targetLabels.push_back(pointLabel(point));
    }

    if (planned) {
        if (auto bad = checkColumns(*planned, options.targetRows)) return fail("--target: " + bad->column + ": " + bad->message);
        std::vector<const data::Run*> rows;
        for (const auto& run : planned->runs) rows.push_back(&run);
        if (rows.empty()) return fail("no candidates: the planned-runs table has no rows");
        // The table's own cost column where it has one and no expression is given.
        r.cost = !options.cost.empty() ? options.cost : lawColumnTest(rows)("cost") ? "cost" : kDefaultRunCost;
        auto costOr = parseRunCost(r.cost, rows);
        if (!costOr) return fail("--cost " + costOr.error().message);
        std::vector<double> values;
        for (const data::Run* run : rows) {
            std::string missing;
            values.clear();
            for (const auto& v : variables) {
                const auto x = lawVariableOf(*run, v);
                if (!x || !std::isfinite(*x)) {
                    missing = v;
                    break;
                }
                values.push_back(*x);
            }
            const bool isTarget = !options.targetRows.empty() && meetsAll(*run, options.targetRows);
            if (isTarget) {
                if (!missing.empty())
                    return fail("the law cannot predict the target: planned run " + data::runLabel(*run) + " has no number for '" + missing + "'");
                p.targets.add(values, 0.0);
                p.targetLabels.push_back(data::runLabel(*run));
                continue;
            }
            const auto c = runCost(*costOr, *run);
            if (missing.empty() && !c) missing = "cost " + r.cost;
            if (!missing.empty()) {
                r.skipped.push_back(describeRun(*run, "no number for '" + missing + "'"));
                continue;
            }
            p.candidates.add(values, 0.0);
            p.cost.push_back(*c);
            p.n.push_back(lawVariableOf(*run, "N").value_or(data::kUnknown));
            p.d.push_back(lawVariableOf(*run, "D").value_or(data::kUnknown));
            p.labels.push_back(data::runLabel(*run));
        }
        if (p.targets.size() == 0) return fail("--target matches no planned run");
    } else {
        for (const auto& v : variables)
            if (v != "N" && v != "D") return fail("the grid gives N and D; the law also reads '" + v + "' (use --candidates FILE.csv)");
        r.cost = options.cost.empty() ? kDefaultRunCost : options.cost;
        std::vector<data::Run> probe(1);
        probe[0].params = 1, probe[0].tokens = 1;
        auto costOr = parseRunCost(r.cost, {&probe[0]});
        if (!costOr) return fail("--cost " + costOr.error().message);
        for (const auto& c : costOr->columns)
            if (c != "N" && c != "D") return fail("--cost '" + r.cost + "': the grid gives N and D, not '" + c + "'");
        auto axis = [](const GridAxis& a, std::size_t k) {
            return a.count == 1 ? a.lo : std::exp(std::log(a.lo) + (std::log(a.hi) - std::log(a.lo)) * static_cast<double>(k) / static_cast<double>(a.count - 1));
        };
        for (std::size_t i = 0; i < options.gridN->count; ++i)
            for (std::size_t j = 0; j < options.gridD->count; ++j) {
                const double n = axis(*options.gridN, i), d = axis(*options.gridD, j);
                std::vector<double> values;
                for (const auto& v : variables) values.push_back(v == "N" ? n : d);
                std::vector<double> costValues;
                for (const auto& c : costOr->columns) costValues.push_back(c == "N" ? n : d);
                const auto c = runCost(*costOr, costValues);
                if (!c) continue;
                p.candidates.add(values, 0.0);
                p.cost.push_back(*c);
                p.n.push_back(n);
                p.d.push_back(d);
                p.labels.push_back("N=" + g4(n) + ",D=" + g4(d));
            }
    }
    if (p.candidates.size() == 0) return fail("no candidates: every planned run is a target or lacks a number the law or the cost needs");
    const double cheapest = *std::min_element(p.cost.begin(), p.cost.end());
    if (options.budget && *options.budget < cheapest)
        return fail("--budget " + g4(*options.budget) + " is below the cheapest candidate's cost (" + g4(cheapest) + ")");

    // The study's runs as the law reads them, per group.
    if (options.groupColumn &&
        std::none_of(scoped.begin(), scoped.end(), [&](const data::Run* run) { return data::runValue(*run, *options.groupColumn).has_value(); }))
        return fail("--group: no column '" + *options.groupColumn + "' in the runs");
    std::vector<std::string> order;
    std::map<std::string, fit::LawData> groups;
    for (const data::Run* run : scoped) {
        std::vector<double> values;
        std::string missing;
        for (const auto& v : variables) {
            const auto x = lawVariableOf(*run, v);
            if (!x || !std::isfinite(*x)) {
                missing = v;
                break;
            }
            values.push_back(*x);
        }
        const auto y = lawVariableOf(*run, r.target);
        if (missing.empty() && (!y || !std::isfinite(*y))) missing = r.target;
        if (!missing.empty()) {
            r.skipped.push_back(describeRun(*run, "no number for '" + missing + "'"));
            continue;
        }
        const std::string name = options.groupColumn ? data::runValue(*run, *options.groupColumn).value_or("") : "all runs";
        if (!groups.count(name)) {
            order.push_back(name);
            groups[name].variableCount = variables.size();
        }
        groups[name].add(values, *y);
    }
    if (order.empty()) return fail("no run in scope has the numbers the law reads (" + readsText() + ", " + r.target + ")");
    for (const auto& name : order) {
        PlanCandidatesGroup g;
        g.name = name;
        planGroup(compiled, groups[name], p, options, control, g);
        r.groups.push_back(std::move(g));
    }
    if (std::all_of(r.groups.begin(), r.groups.end(), [](const PlanCandidatesGroup& g) { return !g.error.empty(); }))
        return fail(r.groups.size() == 1 ? r.groups.front().error : r.groups.front().name + ": " + r.groups.front().error);
    return r;
}

QJsonObject toJson(const PlanCandidates& r) {
    QJsonObject o{{"law", lawToJson(r.law)}, {"target", jsonText(r.target)}, {"cost", jsonText(r.cost)}};
    o.insert("budget", r.options.budget ? QJsonValue(*r.options.budget) : QJsonValue(QJsonValue::Null));
    o.insert("pick", r.options.pick ? QJsonValue(static_cast<qint64>(*r.options.pick)) : QJsonValue(QJsonValue::Null));
    if (r.error) o.insert("error", jsonText(*r.error));
    QJsonArray groups;
    for (const auto& g : r.groups) {
        QJsonObject j{{"name", jsonText(g.name)}, {"runs", static_cast<qint64>(g.runs)}, {"candidates", static_cast<qint64>(g.candidates)}};
        if (!g.error.empty()) {
            j.insert("error", jsonText(g.error));
            groups.append(j);
            continue;
        }
        QJsonObject params;
        for (std::size_t k = 0; k < g.params.size() && k < r.law.parameters.size(); ++k)
            params.insert(jsonText(r.law.parameters[k].name), jsonNumber(g.params[k]));
        j.insert("params", params);
        j.insert("spent", g.spent);
        j.insert("misfit", g.misfit);
        QJsonArray targets;
        for (const auto& t : g.targets)
            targets.append(QJsonObject{{"label", jsonText(t.label)}, {"predicted", jsonNumber(t.predicted)},
                                       {"halfwidth_before", jsonNumber(t.halfWidthBefore)}, {"halfwidth_after", jsonNumber(t.halfWidthAfter)}});
        j.insert("targets", targets);
        QJsonArray picks;
        for (const auto& p : g.picks) {
            QJsonArray after;
            for (double h : p.halfWidthAfter) after.append(jsonNumber(h));
            picks.append(QJsonObject{{"run", jsonText(p.run)}, {"N", jsonNumber(p.n)}, {"D", jsonNumber(p.d)}, {"cost", p.cost},
                                     {"score", jsonNumber(p.score)}, {"reduction", jsonNumber(p.reduction)}, {"separated", jsonNumber(p.separated)}, {"halfwidth_after", after},
                                     {"separation", jsonNumber(p.separation)}, {"why", jsonText(p.why)}});
        }
        j.insert("picks", picks);
        QJsonArray rivals;
        for (const auto& rival : g.rivals) {
            QJsonObject values;
            for (std::size_t k = 0; k < rival.params.size() && k < r.law.parameters.size(); ++k)
                values.insert(jsonText(r.law.parameters[k].name), jsonNumber(rival.params[k]));
            QJsonArray predicted;
            for (double y : rival.predicted) predicted.append(jsonNumber(y));
            rivals.append(QJsonObject{{"objective_ratio", jsonNumber(rival.objectiveRatio)}, {"params", values}, {"predicted", predicted}});
        }
        j.insert("rivals", rivals);
        if (g.separating)
            j.insert("separating", QJsonObject{{"run", jsonText(g.separating->run)}, {"N", jsonNumber(g.separating->n)}, {"D", jsonNumber(g.separating->d)},
                                               {"cost", g.separating->cost}, {"separation", jsonNumber(g.separating->separation)},
                                               {"why", jsonText(g.separating->why)}});
        if (!g.simulated.empty()) {
            auto numbers = [](const std::vector<double>& v) {
                QJsonArray a;
                for (double x : v) a.append(jsonNumber(x));
                return a;
            };
            QJsonArray simulated;
            for (const auto& b : g.simulated)
                simulated.append(QJsonObject{{"strategy", jsonText(b.strategy)}, {"runs", jsonNumber(b.runs)}, {"spent", jsonNumber(b.spent)},
                                             {"halfwidth", numbers(b.halfWidth)}, {"error", numbers(b.error)}, {"error_low", numbers(b.errorLow)},
                                             {"error_high", numbers(b.errorHigh)}, {"failed", static_cast<qint64>(b.failed)}});
            j.insert("simulated", simulated);
        }
        groups.append(j);
    }
    o.insert("groups", groups);
    o.insert("skipped", stringsJson(r.skipped));
    o.insert("simulate", static_cast<qint64>(r.options.simulate));
    o.insert("seed", static_cast<qint64>(r.options.seed));
    return o;
}

std::string pickedRunsCsv(const PlanCandidates& plan) {
    std::ostringstream s;
    s.precision(10);
    const std::string column = plan.options.groupColumn.value_or("");
    s << "name," << (column.empty() ? "" : column + ",") << "params,tokens,cost,halfwidth_after,loss\n";
    for (const auto& g : plan.groups) {
        int k = 0;
        for (const auto& p : g.picks) {
            ++k;
            if (!(p.n > 0 && p.d > 0)) continue;
            // Names and values with a comma or quote are quoted (RFC 4180).
            auto cell = [](const std::string& text) {
                if (text.find_first_of(",\"\n") == std::string::npos) return text;
                std::string q = "\"";
                for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
                return q + "\"";
            };
            s << cell("planned " + g.name + " " + std::to_string(k)) << ',' << (column.empty() ? "" : cell(g.name) + ",") << std::llround(p.n) << ','
              << std::llround(p.d) << ',' << p.cost << ',' << (p.halfWidthAfter.empty() ? std::nan("") : p.halfWidthAfter.front()) << ",\n";
        }
    }
    return s.str();
}

}  // namespace scalex::analysis
