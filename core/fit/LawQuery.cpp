#include "core/fit/LawQuery.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/fit/LawCurvature.h"
#include "core/fit/SplitMix64.h"

namespace scalex::fit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The budgets searched for a target loss: beyond 1e80 FLOPs every power-law term of a law fitted
// to real runs has vanished, so what is left there is the law's floor.
constexpr double kLowestBudget = 1e3, kHighestBudget = 1e80;

bool logSpace(const CompiledLaw& law) { return law.definition.space == LawSpace::Log; }

int variableIndex(const CompiledLaw& law, const char* name) {
    for (std::size_t i = 0; i < law.variables.size(); ++i)
        if (law.variables[i] == name) return static_cast<int>(i);
    return -1;
}

double lossAt(const CompiledLaw& law, std::span<const double> params, std::span<const double> point) {
    thread_local std::vector<double> scratch;
    return lawValue(law.expression, params, point, scratch);
}

// The loss along C = 6ND as a function of ln N.
struct Profile {
    const CompiledLaw& law;
    std::span<const double> params;
    double lnC6;  // ln(C/6)
    int iN, iD;
    double operator()(double lnN) const {
        double point[2];
        point[iN] = std::exp(lnN);
        point[iD] = std::exp(lnC6 - lnN);
        return lossAt(law, params, point);
    }
};

// The minimum over ln N in [0, ln(C/6)] (N and D at least one): bisection on the sign of the
// profile's central difference. Like golden section it needs only a unimodal profile (every sum of
// decreasing powers of N and D is convex in ln N), but the sign of a difference stays right far
// closer to the optimum than a comparison of two values, so N* comes out to about 1e-10 rather
// than the 1e-8 that comparing values allows.
double optimalLnN(const Profile& f) {
    double lo = 0, hi = f.lnC6;
    const double h = 1e-5;
    for (int it = 0; it < 200 && hi - lo > 1e-13 * (1 + std::abs(lo)); ++it) {
        const double mid = 0.5 * (lo + hi);
        const double slope = f(mid + h) - f(mid - h);
        if (!std::isfinite(slope)) break;
        if (slope > 0) hi = mid;
        else lo = mid;
    }
    return 0.5 * (lo + hi);
}

std::vector<double> optimumAt(const CompiledLaw& law, std::span<const double> params, double C) {
    const Profile f{law, params, std::log(C / 6), variableIndex(law, "N"), variableIndex(law, "D")};
    const double lnN = optimalLnN(f);
    return {std::exp(lnN), C / 6 / std::exp(lnN), f(lnN)};
}

// The standard normal quantile: Newton on Φ(z) = p from z = 0 (Φ by erfc, exact to rounding).
double normalQuantile(double p) {
    double z = 0;
    for (int it = 0; it < 60; ++it) {
        const double phi = 0.5 * std::erfc(-z / std::sqrt(2.0));
        const double density = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
        const double step = (phi - p) / density;
        z -= step;
        if (std::abs(step) < 1e-14) break;
    }
    return z;
}

double quantile(std::vector<double>& sorted, double q) {
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

std::vector<std::string> lawQueryOutputs(LawQueryKind kind) {
    switch (kind) {
    case LawQueryKind::At: return {"loss"};
    case LawQueryKind::OptimalAt: return {"N", "D", "loss"};
    case LawQueryKind::BudgetForLoss: return {"C", "N", "D"};
    }
    return {};
}

std::string lawQueryKindName(LawQueryKind kind) {
    switch (kind) {
    case LawQueryKind::At: return "loss_at";
    case LawQueryKind::OptimalAt: return "optimal_at";
    case LawQueryKind::BudgetForLoss: return "budget_for_loss";
    }
    return {};
}

std::string lawIntervalMethodName(LawIntervalMethod m) { return m == LawIntervalMethod::Bootstrap ? "bootstrap" : "curvature"; }

std::string checkLawQuery(const CompiledLaw& law, const LawQuery& q) {
    if (q.kind == LawQueryKind::At) {
        if (q.point.size() != law.variables.size()) return "the point gives " + std::to_string(q.point.size()) + " of the law's " + std::to_string(law.variables.size()) + " variables";
        return {};
    }
    if (law.variables.size() != 2 || variableIndex(law, "N") < 0 || variableIndex(law, "D") < 0) {
        std::string vars;
        for (const auto& v : law.variables) vars += (vars.empty() ? "" : ", ") + v;
        return "N*(C) needs a law in N and D alone; this one reads " + vars;
    }
    if (!(q.value > 0) || !std::isfinite(q.value))
        return q.kind == LawQueryKind::OptimalAt ? "the compute C must be a positive number" : "the target loss must be a positive number";
    if (q.kind == LawQueryKind::OptimalAt && !(q.value > 6)) return "the compute C must exceed 6 FLOPs (one parameter, one token)";
    return {};
}

LawQueryValue answerLawQuery(const CompiledLaw& law, std::span<const double> params, const LawQuery& q) {
    LawQueryValue out;
    if (auto bad = checkLawQuery(law, q); !bad.empty()) {
        out.error = bad;
        return out;
    }
    switch (q.kind) {
    case LawQueryKind::At: out.values = {lossAt(law, params, q.point)}; break;
    case LawQueryKind::OptimalAt: out.values = optimumAt(law, params, q.value); break;
    case LawQueryKind::BudgetForLoss: {
        // The optimum's loss falls as C grows: bisection on ln C.
        const double floor = optimumAt(law, params, kHighestBudget)[2];
        if (!(floor < q.value)) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "the target loss %g is not above the law's floor (%.6g at C = 1e80): no budget reaches it", q.value, floor);
            out.error = buf;
            return out;
        }
        double lo = std::log(kLowestBudget), hi = std::log(kHighestBudget);
        if (optimumAt(law, params, kLowestBudget)[2] <= q.value) {
            out.error = "the target loss is reached below 1e3 FLOPs: no budget to speak of";
            return out;
        }
        for (int it = 0; it < 300 && hi - lo > 1e-14 * hi; ++it) {
            const double mid = 0.5 * (lo + hi);
            if (optimumAt(law, params, std::exp(mid))[2] > q.value) lo = mid;
            else hi = mid;
        }
        const double C = std::exp(0.5 * (lo + hi));
        const auto opt = optimumAt(law, params, C);
        out.values = {C, opt[0], opt[1]};
        break;
    }
    }
    return out;
}

LawQueryIntervals lawQueryIntervals(const CompiledLaw& law, const LawData& train, std::span<const double> best,
                                    std::span<const LawQuery> queries, LawIntervalMethod method, int resamples, std::uint64_t seed,
                                    double level, const LawFitSettings& settings, const FitControl& control) {
    LawQueryIntervals out;
    out.method = method;
    for (const auto& q : queries) {
        const std::size_t m = lawQueryOutputs(q.kind).size();
        out.lower.emplace_back(m, kNaN);
        out.upper.emplace_back(m, kNaN);
    }
    if (queries.empty() || train.size() == 0) return out;
    const double tail = (1 - level) / 2;
    // The full fit's residuals in its space: the noise a new run adds to the law's prediction.
    const auto fitted = predictLaw(law, train, best);
    std::vector<double> residuals;
    for (std::size_t i = 0; i < train.size(); ++i) {
        const double r = logSpace(law) ? (fitted[i] > 0 ? std::log(train.target[i] / fitted[i]) : kNaN) : train.target[i] - fitted[i];
        if (std::isfinite(r)) residuals.push_back(r);
    }

    if (method == LawIntervalMethod::Bootstrap) {
        if (resamples <= 0) return out;
        const auto fits = bootstrapLawFits(law, train, best, resamples, seed, settings, control);
        for (std::size_t k = 0; k < queries.size(); ++k) {
            const std::size_t m = out.lower[k].size();
            std::vector<std::vector<double>> columns(m);
            for (std::size_t b = 0; b < fits.size(); ++b) {
                if (fits[b].empty()) continue;
                // A replicate whose optimum never reaches the target has no budget: left out.
                auto v = answerLawQuery(law, fits[b], queries[k]);
                if (!v.error.empty()) continue;
                if (queries[k].kind == LawQueryKind::At && !residuals.empty()) {
                    SplitMix64 rng = SplitMix64::stream(~seed + k, b);
                    const double r = residuals[rng.below(residuals.size())];
                    v.values[0] = logSpace(law) ? v.values[0] * std::exp(r) : v.values[0] + r;
                }
                for (std::size_t j = 0; j < m; ++j)
                    if (std::isfinite(v.values[j])) columns[j].push_back(v.values[j]);
            }
            for (std::size_t j = 0; j < m; ++j) {
                if (columns[j].empty()) continue;
                std::sort(columns[j].begin(), columns[j].end());
                const double lo = tail, hi = 1 - tail;
                out.lower[k][j] = quantile(columns[j], lo);
                out.upper[k][j] = quantile(columns[j], hi);
            }
        }
        out.resamples = static_cast<int>(std::count_if(fits.begin(), fits.end(), [](const auto& f) { return !f.empty(); }));
        return out;
    }

    // The curvature: Σ = σ² (JᵀJ)⁻¹ over the free parameters.
    const auto free = freeLawParameters(law);
    const double sigma2 = lawResidualVariance(law, train, best, free.size());
    const Eigen::MatrixXd J = lawJacobian(law, train, best, free);
    const Eigen::MatrixXd cov = sigma2 * inverseLawInformation(J.transpose() * J);
    const double z = normalQuantile(1 - tail);
    for (std::size_t k = 0; k < queries.size(); ++k) {
        const auto& q = queries[k];
        const auto centre = answerLawQuery(law, best, q);
        if (!centre.error.empty()) continue;
        if (q.kind == LawQueryKind::At) {
            // The prediction's gradient is exact (the law's); a new run adds σ².
            LawData at;
            at.variableCount = law.variables.size();
            at.add(q.point, 0);
            const Eigen::RowVectorXd g = lawJacobian(law, at, best, free).row(0);
            const double sd = std::sqrt(std::max(0.0, (g * cov).dot(g) + sigma2));
            const double y = centre.values[0];
            out.lower[k][0] = logSpace(law) ? y * std::exp(-z * sd) : y - z * sd;
            out.upper[k][0] = logSpace(law) ? y * std::exp(z * sd) : y + z * sd;
            continue;
        }
        // N*, D*, C and the optimum's loss are found by a search, not a formula: the delta method
        // with the gradient of each output's log through the parameters by central differences,
        // each step a thousandth of the parameter's standard error (the scale on which the
        // linearisation is meant to hold). Logs, as the outputs are positive and span decades.
        const std::size_t m = centre.values.size();
        Eigen::MatrixXd G(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(free.size()));
        bool ok = true;
        for (std::size_t c = 0; c < free.size() && ok; ++c) {
            const auto ci = static_cast<Eigen::Index>(c);
            const double sd = std::sqrt(std::max(0.0, cov(ci, ci)));
            const double h = sd > 0 ? 1e-3 * sd : 1e-6 * std::max(1.0, std::abs(best[free[c]]));
            std::vector<double> up(best.begin(), best.end()), down(best.begin(), best.end());
            up[free[c]] += h;
            down[free[c]] -= h;
            const auto vu = answerLawQuery(law, up, q), vd = answerLawQuery(law, down, q);
            if (!vu.error.empty() || !vd.error.empty()) {
                ok = false;  // a step crosses the floor: the linearisation says nothing here
                break;
            }
            for (std::size_t j = 0; j < m; ++j) G(static_cast<Eigen::Index>(j), ci) = (std::log(vu.values[j]) - std::log(vd.values[j])) / (2 * h);
        }
        if (!ok) continue;
        for (std::size_t j = 0; j < m; ++j) {
            const Eigen::RowVectorXd g = G.row(static_cast<Eigen::Index>(j));
            const double sd = std::sqrt(std::max(0.0, (g * cov).dot(g)));
            out.lower[k][j] = centre.values[j] * std::exp(-z * sd);
            out.upper[k][j] = centre.values[j] * std::exp(z * sd);
        }
    }
    return out;
}

}  // namespace scalex::fit
