#include "core/fit/ComputeOptimal.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <Eigen/Dense>

namespace scalex::fit {

OptimalPoint computeOptimal(const LossSurfaceParams& p, const ComputePerToken& c, double H, double lo, double hi) {
    auto f = [&](double logN) {
        const double n = std::exp(logN);
        return p.logLoss(n, H / c(n));
    };
    double a = std::log(lo), b = std::log(hi);
    const double g = (std::sqrt(5.0) - 1) / 2;
    double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(x1), f2 = f(x2);
    while (b - a > 1e-9) {
        if (f1 < f2) {
            b = x2, x2 = x1, f2 = f1;
            x1 = b - g * (b - a), f1 = f(x1);
        } else {
            a = x1, x1 = x2, f1 = f2;
            x2 = a + g * (b - a), f2 = f(x2);
        }
    }
    OptimalPoint o;
    o.budget = H;
    o.params = std::exp((a + b) / 2);
    o.tokens = H / c(o.params);
    o.loss = p.loss(o.params, o.tokens);
    o.atBoundary = std::log(o.params) - std::log(lo) < 1e-3 || std::log(hi) - std::log(o.params) < 1e-3;
    return o;
}

std::optional<double> tokensForLoss(const LossSurfaceParams& p, double params, double target) {
    const double excess = target - std::exp(p.logE);
    if (!(excess > 0)) return std::nullopt;
    const double inner = std::pow(excess, 1.0 / p.gamma) - std::exp(p.logA) * std::pow(params, -p.alpha);
    if (!(inner > 0)) return std::nullopt;
    return std::pow(inner / std::exp(p.logB), -1.0 / p.beta);
}

std::optional<OverTraining> overTrain(const LossSurfaceParams& p, const ComputePerToken& c, const OptimalPoint& opt,
                                      double params) {
    const auto d = tokensForLoss(p, params, opt.loss);
    if (!d) return std::nullopt;
    OverTraining o;
    o.params = params;
    o.tokens = *d;
    o.compute = c(params) * *d;
    o.extraTokens = *d / opt.tokens;
    o.extraCompute = o.compute / opt.budget;
    return o;
}

ComputePerToken smoothComputePerToken(const std::vector<std::pair<double, double>>& samples) {
    std::vector<double> x, y;
    for (const auto& [n, c] : samples)
        if (n > 0 && c > 0) x.push_back(std::log(n)), y.push_back(std::log(c / n));
    if (x.empty()) return [](double n) { return 6.0 * n; };
    const double lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
    const int degree = x.size() >= 3 && hi - lo > 1e-9 ? 2 : (x.size() >= 2 && hi - lo > 1e-9 ? 1 : 0);
    Eigen::MatrixXd design(static_cast<Eigen::Index>(x.size()), degree + 1);
    Eigen::VectorXd target(static_cast<Eigen::Index>(x.size()));
    const double mid = (lo + hi) / 2;  // centred for conditioning
    for (std::size_t i = 0; i < x.size(); ++i) {
        for (int k = 0; k <= degree; ++k) design(static_cast<Eigen::Index>(i), k) = std::pow(x[i] - mid, k);
        target(static_cast<Eigen::Index>(i)) = y[i];
    }
    const Eigen::VectorXd coef = design.colPivHouseholderQr().solve(target);
    std::vector<double> c(coef.data(), coef.data() + coef.size());
    // ln(c/N) and its slope at u = ln N − mid.
    const auto ratio = [c](double u, double* slope) {
        double r = 0, dr = 0;
        for (std::size_t k = c.size(); k-- > 0;) dr = dr * u + r, r = r * u + c[k];
        if (slope) *slope = dr;
        return r;
    };
    return [ratio, lo, hi, mid](double n) {
        const double x = std::log(n);
        if (x >= lo) return n * std::exp(ratio(std::min(x, hi) - mid, nullptr));
        // Below the smallest sample the fit's tangent goes on: the share of attention and
        // embeddings keeps growing as models shrink, and a held ratio would kink the optimum's path.
        double slope = 0;
        const double r = ratio(lo - mid, &slope);
        return n * std::exp(r + slope * (x - lo));
    };
}

}  // namespace scalex::fit
