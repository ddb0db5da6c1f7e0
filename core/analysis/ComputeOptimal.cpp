#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/RunSelection.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "core/accounting/ModelConfig.h"
#include "core/accounting/ParamCount.h"

namespace scalex::analysis {

fit::OptimalPoint OptimalMethod::atBudget(double budget) const {
    if (!laws) return fit::computeOptimal(surface, computePerToken, budget);
    fit::OptimalPoint o;
    o.budget = budget;
    o.params = laws->coefN * std::pow(budget, laws->exponentN);
    o.tokens = laws->coefD * std::pow(budget, laws->exponentD);
    o.loss = surface.loss(o.params, o.tokens);
    return o;
}

std::optional<fit::OptimalPoint> solveOptimal(const OptimalMethod& method, OptimalGiven given, double value) {
    if (given == OptimalGiven::Budget) return method.atBudget(value);
    if (given == OptimalGiven::TargetLoss && !(value > std::exp(method.surface.logE))) return std::nullopt;
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

fit::ComputePerToken studyComputePerToken(const std::vector<data::PaperModelConfig>& configs, accounting::Family family,
                                          double context, const accounting::FlopConvention& convention) {
    std::vector<std::pair<double, double>> samples;
    auto add = [&](const accounting::ModelConfig& c) {
        samples.push_back({static_cast<double>(accounting::countParameters(c).total()),
                           accounting::trainingFlopsPerToken(c, context, convention)});
    };
    for (const auto& m : configs)
        if (m.family == family) add(m.config());
    for (std::int64_t d : {5120, 6144, 8192, 12288, 16384})
        add(accounting::makeStudyConfig(family, d, d / 128, family == accounting::Family::Transformer ? d / 128 : d / 512));
    return fit::smoothComputePerToken(samples);
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
    const fit::LossSurfaceParams& s = method.surface;
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
    if (!(fraction > 0 && fraction < 1) || !(optimum.params > 0)) return std::nullopt;
    return fit::overTrain(method.surface, method.computePerToken, optimum, optimum.params * fraction);
}

const OptimalSeriesAnswer* OptimalAnswer::find(accounting::Family family) const {
    for (const auto& s : series)
        if (s.family == family) return &s;
    return nullptr;
}

namespace {
std::string shortNumber(double v, int precision, bool fixed = false) {
    std::ostringstream out;
    if (fixed) out << std::fixed;
    out << std::setprecision(precision) << v;
    return out.str();
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
    for (const auto& in : inputs) {
        if (query.given == OptimalGiven::TargetLoss && !(query.value > std::exp(in.surface.logE))) {
            answer.problem = in.name + " cannot reach a loss of " + shortNumber(query.value, 6) + ": its irreducible loss E is " +
                             shortNumber(std::exp(in.surface.logE), 3, true) + ".";
            return answer;
        }
        if (query.useLaws && !in.laws) {
            answer.problem = "The paper has IsoFLOP power laws at T = 2048, 8192 and 16384 only, none at T = " +
                             shortNumber(query.context, 10) + ": choose one of those, or the loss-surface method (any T).";
            return answer;
        }
    }
    for (const auto& in : inputs) {
        if (control.cancelled()) return stop();
        const OptimalMethod surface{in.surface, in.computePerToken, std::nullopt};
        std::optional<OptimalMethod> laws;
        if (in.laws) laws = OptimalMethod{in.surface, in.computePerToken, in.laws};
        const OptimalMethod& chosen = query.useLaws ? *laws : surface;
        const OptimalMethod* other = query.useLaws ? &surface : (laws ? &*laws : nullptr);
        OptimalSeriesAnswer a;
        a.name = in.name;
        a.family = in.family;
        const auto solved = solveOptimal(chosen, query.given, query.value);
        if (!solved) {  // only a target loss at or below E, checked above
            answer.problem = in.name + " cannot reach a loss of " + shortNumber(query.value, 6) + ".";
            answer.series.clear();
            return answer;
        }
        a.optimum = *solved;
        if (query.overtrainFraction < 1) a.overtrained = overTrained(surface, a.optimum, query.overtrainFraction);
        a.surfaceAtBudget = surface.atBudget(a.optimum.budget);
        if (laws) a.comparison = compareMethods(surface, *laws, a.optimum.budget);
        if (query.inferenceTokens > 0) a.lifetime = lifetimeOptimal(chosen, a.optimum.loss, query.inferenceTokens);
        if (control.cancelled()) return stop();
        for (const double n : query.sizes) a.sizes.push_back(solveOptimal(chosen, OptimalGiven::ModelSize, n));
        for (const double h : query.budgets) {
            a.path.push_back(chosen.atBudget(h));
            if (other) a.otherPath.push_back(other->atBudget(h));
        }
        for (const double n : query.curveSizes) {
            a.computeRatio.push_back(computeOver6ND(in.computePerToken, n));
            a.referenceComputeRatio.push_back(computeOver6ND(in.referencePerToken, n));
        }
        a.optimumComputeRatio = computeOver6ND(in.computePerToken, a.optimum.params);
        answer.series.push_back(std::move(a));
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
