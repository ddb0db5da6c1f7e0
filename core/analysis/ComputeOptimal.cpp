#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "core/accounting/ModelConfig.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"

namespace scalex::analysis {

OptimalQuery::OptimalQuery() = default;


fit::OptimalPoint OptimalMethod::atBudget(double budget) const {
    if (!laws) {
        if (!surface) return {budget, 0, 0, std::numeric_limits<double>::quiet_NaN()};
        return fit::computeOptimal(*surface, computePerToken, budget);
    }
    fit::OptimalPoint o;
    o.budget = budget;
    o.params = laws->coefN * std::pow(budget, laws->exponentN);
    o.tokens = laws->coefD * std::pow(budget, laws->exponentD);
    o.loss = surface ? surface->loss(o.params, o.tokens) : std::numeric_limits<double>::quiet_NaN();
    return o;
}

std::optional<fit::OptimalPoint> solveOptimal(const OptimalMethod& method, OptimalGiven given, double value) {
    if (!method.usable()) return std::nullopt;
    if (given == OptimalGiven::Budget) return method.atBudget(value);
    if (given == OptimalGiven::TargetLoss && (!method.surface || !(value > std::exp(method.surface->logE)))) return std::nullopt;
    // N*(H) grows and L̂(N*(H), D*(H)) falls with H: bisect in ln H.
    auto solveFor = [&](auto reached) {
        // Until the bracket is as narrow as ln H can resolve (some 50 halvings, not more: each
        // is an optimum's search).
        double lo = std::log(1e12), hi = std::log(1e30);
        while (hi - lo > 1e-13 * hi) {
            const double mid = (lo + hi) / 2;
            if (mid <= lo || mid >= hi) break;
            (reached(method.atBudget(std::exp(mid))) ? hi : lo) = mid;
        }
        return method.atBudget(std::exp((lo + hi) / 2));
    };
    if (given == OptimalGiven::ModelSize) return solveFor([&](const fit::OptimalPoint& o) { return o.params >= value; });
    return solveFor([&](const fit::OptimalPoint& o) { return o.loss <= value; });
}

accounting::ModelLadder paperLadder(const std::vector<data::PaperModelConfig>& configs, accounting::Family family) {
    accounting::ModelLadder ladder{std::string(accounting::familyName(family)), {}};
    for (const auto& m : configs)
        if (m.family == family) ladder.rungs.push_back(accounting::fromPaperConfig(m.config()));
    for (std::int64_t d : {5120, 6144, 8192, 12288, 16384})
        ladder.rungs.push_back(accounting::fromPaperConfig(
            accounting::makeStudyConfig(family, d, d / 128, family == accounting::Family::Transformer ? d / 128 : d / 512)));
    return ladder;
}

fit::ComputePerToken ladderComputePerToken(const accounting::ModelLadder& ladder, double context,
                                           const accounting::FlopConvention& convention) {
    std::vector<std::pair<double, double>> samples;
    for (const auto& spec : ladder.rungs)
        samples.push_back({static_cast<double>(accounting::paramCounts(spec).activeTotal()),
                           accounting::trainingFlopsPerToken(spec, context, convention)});
    return fit::smoothComputePerToken(samples);
}

fit::ComputePerToken studyComputePerToken(const std::vector<data::PaperModelConfig>& configs, accounting::Family family,
                                          double context, const accounting::FlopConvention& convention) {
    return ladderComputePerToken(paperLadder(configs, family), context, convention);
}

std::optional<OptimalPowerLaws> paperOptimalLaws(const data::PaperTables& paper, accounting::Family family, double context) {
    const data::IsoFlopPowerLawRow* law = nullptr;
    for (const auto& row : paper.isoflopPowerLaws)
        if (row.family == family && static_cast<double>(row.context) == context && (!law || row.sourceTable.find("context") == std::string::npos))
            law = &row;
    if (!law) return std::nullopt;
    return OptimalPowerLaws{law->coefN, law->exponentN, law->coefD, law->exponentD};
}

std::optional<OptimalPowerLaws> paperOptimalLaws(const data::PaperTables& paper, const std::vector<const data::Run*>& runs,
                                                 double context) {
    const auto family = sharedFamily(runs);
    return family ? paperOptimalLaws(paper, *family, context) : std::nullopt;
}

namespace {
// d ln N*/d ln H at H, by a central difference over ±5 % in H.
double localExponent(const OptimalMethod& m, double budget) {
    const double h = std::log(1.05);
    return (std::log(m.atBudget(budget * 1.05).params) - std::log(m.atBudget(budget / 1.05).params)) / (2 * h);
}
}  // namespace

MethodComparison compareMethods(const OptimalMethod& surface, const OptimalMethod& laws, double budget) {
    MethodComparison c;
    c.surface = surface.atBudget(budget);
    c.laws = laws.atBudget(budget);
    c.surfaceExponent = localExponent(surface, budget);
    c.lawExponent = localExponent(laws, budget);
    // ln(N_laws / N_surface) over ln H: the first sign change on a grid of quarter decades, then bisection.
    auto gap = [&](double logH) { return std::log(laws.atBudget(std::exp(logH)).params / surface.atBudget(std::exp(logH)).params); };
    c.agreeAtBudget = std::numeric_limits<double>::quiet_NaN();
    const double step = std::log(10.0) / 4;
    double nearest = std::numeric_limits<double>::infinity();
    for (double a = std::log(1e15); a < std::log(1e27) - 1e-9; a += step) {
        double lo = a, hi = a + step, glo = gap(lo);
        if ((glo > 0) == (gap(hi) > 0)) continue;
        while (hi - lo > 1e-13 * std::abs(hi)) {
            const double mid = (lo + hi) / 2, g = gap(mid);
            if (mid <= lo || mid >= hi) break;
            ((g > 0) == (glo > 0) ? lo : hi) = mid;
        }
        // Of several crossings, the one nearest the budget asked about.
        const double at = (lo + hi) / 2;
        if (std::abs(at - std::log(budget)) < nearest) nearest = std::abs(at - std::log(budget)), c.agreeAtBudget = std::exp(at);
    }
    return c;
}

std::optional<LifetimeOptimum> lifetimeOptimal(const OptimalMethod& method, double targetLoss, double inferenceTokens) {
    const auto optimal = solveOptimal(method, OptimalGiven::TargetLoss, targetLoss);
    if (!optimal || !(inferenceTokens >= 0)) return std::nullopt;
    const fit::LossSurfaceParams& s = *method.surface;  // a target loss was solved: there is one
    // The smallest model that reaches the loss at infinite data: A·N^−α = (L − E)^(1/γ).
    const double reach = std::pow(targetLoss - std::exp(s.logE), 1.0 / s.gamma);
    const double smallest = std::pow(std::exp(s.logA) / reach, 1.0 / s.alpha);
    auto total = [&](double logN, double* tokens) {
        const double n = std::exp(logN);
        const auto d = fit::tokensForLoss(s, n, targetLoss);
        if (!d) return std::numeric_limits<double>::infinity();
        if (tokens) *tokens = *d;
        const double c = method.computePerToken(n);
        return c * *d + inferenceTokens * c / 3;
    };
    // The total falls from +inf just above the smallest model; golden-section search over ln N.
    // Up to 4 N*: the IsoFLOP laws' N* need not minimise the surface's training compute.
    double a = std::log(smallest) + 1e-6, b = std::log(std::max(4 * optimal->params, smallest * 1.001));
    const double g = (std::sqrt(5.0) - 1) / 2;
    double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = total(x1, nullptr), f2 = total(x2, nullptr);
    while (b - a > 1e-9) {
        if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = total(x1, nullptr);
        else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = total(x2, nullptr);
    }
    LifetimeOptimum o;
    o.computeOptimal = *optimal;
    const double logN = (a + b) / 2;
    o.params = std::exp(logN);
    if (!std::isfinite(total(logN, &o.tokens))) return std::nullopt;
    const double c = method.computePerToken(o.params);
    o.trainingCompute = c * o.tokens;
    o.inferenceCompute = inferenceTokens * c / 3;
    const double cOpt = method.computePerToken(optimal->params);
    o.computeOptimalTotal = cOpt * optimal->tokens + inferenceTokens * cOpt / 3;
    return o;
}

double computeOver6ND(const fit::ComputePerToken& computePerToken, double params) { return computePerToken(params) / (6 * params); }

std::optional<fit::OverTraining> overTrained(const OptimalMethod& method, const fit::OptimalPoint& optimum, double fraction) {
    if (!(fraction > 0 && fraction < 1) || !(optimum.params > 0) || !method.surface) return std::nullopt;
    return fit::overTrain(*method.surface, method.computePerToken, optimum, optimum.params * fraction);
}

const OptimalSeriesAnswer* OptimalAnswer::find(accounting::Family family) const {
    for (const auto& s : series)
        if (s.family == family) return &s;
    return nullptr;
}

const OptimalSeriesAnswer* OptimalAnswer::find(const std::string& name) const {
    for (const auto& s : series)
        if (s.name == name) return &s;
    return nullptr;
}

bool OptimalAnswer::pending() const {
    return std::any_of(series.begin(), series.end(), [](const OptimalSeriesAnswer& s) { return s.pending; });
}

namespace {
std::string shortNumber(double v, int precision, bool fixed = false) {
    std::ostringstream out;
    if (fixed) out << std::fixed;
    out << std::setprecision(precision) << v;
    return out.str();
}

// Why a series has no surface, or no laws, where its input does not say.
std::string noSurface(const OptimalSeriesInput& in) {
    if (!in.surfaceProblem.empty()) return in.surfaceProblem;
    if (in.surfacePending) return in.name + ": its L(N,D) fit is under way.";
    return in.name + " has no loss surface.";
}
std::string noLaws(const OptimalSeriesInput& in, const OptimalQuery& query) {
    if (!in.lawsProblem.empty()) return in.lawsProblem;
    if (in.paper)
        return "The paper has IsoFLOP power laws at T = 2048, 8192 and 16384 only, none at T = " + shortNumber(query.context, 10) +
               ": choose one of those, or the loss-surface method (any T).";
    return in.name + " has no IsoFLOP power laws.";
}

// The laws' intervals at one budget: isoFlopIntervals names a, A, b, B, then N* and D* at each
// query budget, in that order.
std::optional<OptimalIntervals> intervalsAt(const OptimalSeriesInput& in, double budget, const fit::BootstrapSettings& bootstrap) {
    const std::vector<double> budgets{budget};
    const fit::BootstrapResult r = isoFlopIntervals(in.isoFlopRuns, in.isoFlopSettings, budgets, bootstrap);
    if (r.intervals.size() != 6 || r.nResamples == 0) return std::nullopt;
    OptimalIntervals out;
    out.exponentN = r.intervals[0];
    out.exponentD = r.intervals[2];
    out.params = r.intervals[4];
    out.tokens = r.intervals[5];
    out.resamples = r.nResamples;
    out.level = bootstrap.level;
    return out;
}
}  // namespace

OptimalAnswer answerOptimalQuery(const std::vector<OptimalSeriesInput>& inputs, OptimalQuery query, const fit::FitControl& control) {
    if (query.budgets.empty())
        for (int i = 0; i <= 28; ++i) query.budgets.push_back(1e18 * std::pow(10.0, i * 0.25));
    if (query.curveSizes.empty())
        for (int i = 0; i <= 33; ++i) query.curveSizes.push_back(1e8 * std::pow(10.0, i * 0.1));
    OptimalAnswer answer;
    answer.query = query;
    auto stop = [&] {
        answer.series.clear();
        answer.problem.clear();
        return answer;
    };
    if (inputs.empty()) {
        answer.problem = "No series in scope to answer for (the paper's models can be shown beside a study's).";
        return answer;
    }
    for (const auto& in : inputs) {
        if (control.cancelled()) return stop();
        const OptimalMethod surface{in.surface, in.computePerToken, std::nullopt};
        const OptimalMethod laws{in.surface, in.computePerToken, in.laws};
        const bool chosenKnown = query.useLaws ? in.laws.has_value() : in.surface.has_value();
        const OptimalMethod& chosen = query.useLaws ? laws : surface;
        const bool otherKnown = query.useLaws ? in.surface.has_value() : in.laws.has_value();
        const OptimalMethod& other = query.useLaws ? surface : laws;
        OptimalSeriesAnswer a;
        a.name = in.name;
        a.series = in.series;
        a.seriesIndex = in.seriesIndex;
        a.context = in.context;
        a.paper = in.paper;
        a.family = in.family;
        a.laws = in.laws;
        a.pending = in.surfacePending;
        if (!in.surface) a.surfaceProblem = noSurface(in);
        if (!in.laws) a.lawsProblem = noLaws(in, query);
        std::optional<fit::OptimalPoint> solved;
        if (!chosenKnown) {
            a.problem = query.useLaws ? a.lawsProblem : a.surfaceProblem;
        } else if (solved = solveOptimal(chosen, query.given, query.value); !solved) {
            // Only a target loss: below the surface's irreducible loss, or no surface to read it off.
            if (in.surface) {
                a.problem = in.name + " cannot reach a loss of " + shortNumber(query.value, 6) + ": its irreducible loss E is " +
                            shortNumber(std::exp(in.surface->logE), 3, true) + ".";
            } else {
                a.problem = in.name + ": a target loss is read off a loss surface, and there is none (" + a.surfaceProblem + ")";
            }
        }
        // Both methods at the optimum's budget; at the query's budget when the chosen one has no optimum.
        const std::optional<double> budget =
            solved ? std::optional(solved->budget) : (query.given == OptimalGiven::Budget ? std::optional(query.value) : std::nullopt);
        if (budget) {
            if (in.surface) a.surfaceAtBudget = surface.atBudget(*budget);
            if (in.laws) a.lawsAtBudget = laws.atBudget(*budget);
            if (in.laws && !in.isoFlopRuns.empty() && query.intervals.resamples > 0)
                a.intervals = intervalsAt(in, *budget, query.intervals);
        }
        if (in.computePerToken)
            for (const double n : query.curveSizes) a.computeRatio.push_back(computeOver6ND(in.computePerToken, n));
        if (in.referencePerToken)
            for (const double n : query.curveSizes) a.referenceComputeRatio.push_back(computeOver6ND(in.referencePerToken, n));
        if (solved) {
            a.optimum = *solved;
            if (query.overtrainFraction < 1) a.overtrained = overTrained(surface, a.optimum, query.overtrainFraction);
            if (in.surface && in.laws) a.comparison = compareMethods(surface, laws, a.optimum.budget);
            if (query.inferenceTokens > 0 && std::isfinite(a.optimum.loss))
                a.lifetime = lifetimeOptimal(chosen, a.optimum.loss, query.inferenceTokens);
            if (control.cancelled()) return stop();
            for (const double n : query.sizes) a.sizes.push_back(solveOptimal(chosen, OptimalGiven::ModelSize, n));
            for (const double h : query.budgets) {
                a.path.push_back(chosen.atBudget(h));
                if (otherKnown) a.otherPath.push_back(other.atBudget(h));
            }
            if (in.computePerToken) a.optimumComputeRatio = computeOver6ND(in.computePerToken, a.optimum.params);
        }
        answer.series.push_back(std::move(a));
    }
    // No numbers anywhere, and none to come: why, each reason once; and no stale numbers.
    // (A series waiting for its fit may answer once it comes.)
    const bool any = std::any_of(answer.series.begin(), answer.series.end(), [](const auto& a) { return a.answered() || a.pending; });
    if (!any) {
        std::vector<std::string> reasons;
        for (const auto& a : answer.series)
            if (std::find(reasons.begin(), reasons.end(), a.problem) == reasons.end()) reasons.push_back(a.problem);
        for (const auto& r : reasons) answer.problem += (answer.problem.empty() ? "" : " ") + r;
        answer.series.clear();
    }
    return answer;
}

ContextSweep contextSweep(const fit::LossSurfaceParams& surface,
                          const std::function<fit::ComputePerToken(double context)>& computePerTokenAt, double context,
                          double budget, std::span<const double> budgets, std::span<const double> contexts,
                          double referenceContext) {
    ContextSweep out;
    const auto optimaAt = [&](double t) {
        const fit::ComputePerToken c = computePerTokenAt(t);
        std::vector<fit::OptimalPoint> optima;
        optima.reserve(budgets.size());
        for (const double h : budgets) optima.push_back(fit::computeOptimal(surface, c, h));
        return optima;
    };
    out.atContext = optimaAt(context);
    if (context != referenceContext) out.atReference = optimaAt(referenceContext);
    out.trend.reserve(contexts.size());
    for (const double t : contexts) out.trend.push_back(fit::computeOptimal(surface, computePerTokenAt(t), budget));
    out.here = fit::computeOptimal(surface, computePerTokenAt(context), budget);
    return out;
}

}  // namespace scalex::analysis
