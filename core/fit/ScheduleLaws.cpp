#include "core/fit/ScheduleLaws.h"

#include <Eigen/Dense>
#include <dlib/optimization.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/fit/LossSurface.h"  // huber()

namespace scalex::fit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::size_t parameterCount(CurveLaw law) {
    switch (law) {
    case CurveLaw::MultiPower: return 7;
    case CurveLaw::LrAnnealing: return 4;
    case CurveLaw::PowerLaw: return 3;
    }
    return 3;
}

// Which parameters the search moves in logarithms (positive scales spanning decades).
bool searchedInLog(CurveLaw law, std::size_t i) {
    switch (law) {
    case CurveLaw::MultiPower: return i == 1 || i == 3 || i == 4;  // A, B, C
    case CurveLaw::LrAnnealing: return i == 1 || i == 3;           // A, C
    case CurveLaw::PowerLaw: return i == 1;                         // A
    }
    return false;
}

// The standard normal quantile of p by bisection on erfc (p in (0.5, 1)).
double normalQuantile(double p) {
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// Student's t quantile of p with ν degrees of freedom from the normal one by the Cornish–Fisher
// expansion of Abramowitz & Stegun 26.7.5 (within 0.2 % for ν ≥ 3 at p ≤ 0.975, 1 % at p = 0.995).
double studentQuantile(double p, double nu) {
    const double z = normalQuantile(p), z2 = z * z;
    const double g1 = (z2 + 1) * z / 4, g2 = ((5 * z2 + 16) * z2 + 3) * z / 96, g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + g1 / nu + g2 / (nu * nu) + g3 / (nu * nu * nu) + g4 / (nu * nu * nu * nu);
}

}  // namespace

std::string curveLawName(CurveLaw law) {
    switch (law) {
    case CurveLaw::MultiPower: return "mpl";
    case CurveLaw::LrAnnealing: return "lra";
    case CurveLaw::PowerLaw: return "power";
    }
    return "mpl";
}

std::optional<CurveLaw> parseCurveLaw(std::string_view name) {
    if (name == "mpl" || name == "multi-power") return CurveLaw::MultiPower;
    if (name == "lra" || name == "lr-annealing") return CurveLaw::LrAnnealing;
    if (name == "power") return CurveLaw::PowerLaw;
    return std::nullopt;
}

std::vector<std::string> curveLawParameterNames(CurveLaw law) {
    switch (law) {
    case CurveLaw::MultiPower: return {"L0", "A", "alpha", "B", "C", "beta", "gamma"};
    case CurveLaw::LrAnnealing: return {"L0", "A", "alpha", "C"};
    case CurveLaw::PowerLaw: return {"L0", "A", "alpha"};
    }
    return {};
}

PreparedSchedule::PreparedSchedule(Schedule schedule, const CurveLawOptions& options)
    : schedule_(std::move(schedule)), options_(options) {
    const long T = schedule_.steps(), W = schedule_.warmupSteps();
    block_ = options.blockSteps > 0 ? options.blockSteps
                                    : std::max(1L, std::lround(std::sqrt(static_cast<double>(std::max(0L, T - W)) / 4.0)));
    const auto n = static_cast<std::size_t>(std::max(0L, T));
    drop_.assign(n, 0.0);
    logRate_.assign(n, 0.0);
    areaBefore_.assign(n, 0.0);
    momentumArea_.assign(n + 1, 0.0);
    double momentum = 0;
    for (long k = 1; k <= T; ++k) {
        const auto i = static_cast<std::size_t>(k - 1);
        const double rate = schedule_.lr(k);
        // η_0 is the rate at the end of the warm-up (Luo et al. count t after it); without a
        // warm-up the first step has no drop.
        const double before = k > 1 ? schedule_.lr(k - 1) : rate;
        if (k > W) drop_[i] = before - rate;
        logRate_[i] = std::log(std::max(rate, 1e-30));
        areaBefore_[i] = schedule_.area(k - 1);
        // Tissue et al. Eq. (1): m_i = λ·m_{i−1} + (η_{i−1} − η_i), S2 = Σ m_i.
        if (k > W) momentum = options.lraDecay * momentum + (before - rate);
        momentumArea_[static_cast<std::size_t>(k)] = momentumArea_[i] + momentum;
    }
    for (long first = W + 1; first <= T; first += block_) {
        const long last = std::min(T, first + block_ - 1);
        Block b{first, last, 0, 0, 0};
        double weight = 0;
        for (long k = first; k <= last; ++k) {
            const auto i = static_cast<std::size_t>(k - 1);
            const double w = std::abs(drop_[i]);
            b.drop += drop_[i];
            b.logRate += w * logRate_[i];
            b.areaBefore += w * areaBefore_[i];
            weight += w;
        }
        if (weight <= 0) continue;
        b.logRate /= weight;
        b.areaBefore /= weight;
        blocks_.push_back(b);
    }
}

double PreparedSchedule::multiPower(std::span<const double> p, long t, std::span<double> g) const {
    const double L0 = p[0], A = p[1], alpha = p[2], B = p[3], C = p[4], beta = p[5], gamma = p[6];
    const double S = schedule_.area(t);  // S1(t) + S_W
    if (!(S > 0)) return kNaN;
    double LD = 0, dC = 0, dBeta = 0, dGamma = 0;
    const bool wantGradient = !g.empty();
    // One term (η_{k−1} − η_k)·G(η_k^(−γ)·S_k(t)) of LD(t)/B, with S_k(t) = S1(t) − S1(k−1).
    const auto term = [&](double drop, double logRate, double areaBefore) {
        const double x = std::exp(-gamma * logRate) * std::max(0.0, S - areaBefore);
        const double lu = std::log1p(C * x);
        const double pw = std::exp(-beta * lu);  // (C·x + 1)^(−β)
        LD += drop * (1 - pw);
        if (wantGradient) {
            const double dGdx = beta * pw / (1 + C * x);
            dC += drop * dGdx * x;
            dBeta += drop * pw * lu;
            dGamma += drop * dGdx * C * (-logRate * x);
        }
    };
    const long W = schedule_.warmupSteps();
    // Blocks that end at least one block before t are merged; the rest is summed step by step.
    const long done = t - block_ - W >= 0 ? (t - block_ - W) / block_ : 0;
    const long exactFrom = W + 1 + done * block_;
    for (const auto& b : blocks_) {
        if (b.last >= exactFrom) break;
        term(b.drop, b.logRate, b.areaBefore);
    }
    for (long k = exactFrom; k <= t; ++k) {
        const auto i = static_cast<std::size_t>(k - 1);
        if (drop_[i] != 0) term(drop_[i], logRate_[i], areaBefore_[i]);
    }
    const double power = std::pow(S, -alpha);
    if (wantGradient) {
        g[0] = 1;
        g[1] = power;
        g[2] = -A * power * std::log(S);
        g[3] = -LD;
        g[4] = -B * dC;
        g[5] = -B * dBeta;
        g[6] = -B * dGamma;
    }
    return L0 + A * power - B * LD;
}

double PreparedSchedule::loss(CurveLaw law, std::span<const double> p, long t, std::span<double> g) const {
    if (t < 1 || t > schedule_.steps() || p.size() != parameterCount(law)) return kNaN;
    switch (law) {
    case CurveLaw::MultiPower:
        return multiPower(p, t, g);
    case CurveLaw::LrAnnealing: {
        const double S1 = schedule_.area(t), S2 = momentumArea_[static_cast<std::size_t>(t)];
        if (!(S1 > 0)) return kNaN;
        const double power = std::pow(S1, -p[2]);
        if (!g.empty()) g[0] = 1, g[1] = power, g[2] = -p[1] * power * std::log(S1), g[3] = -S2;
        return p[0] + p[1] * power - p[3] * S2;
    }
    case CurveLaw::PowerLaw: {
        const double D = static_cast<double>(t) * options_.tokensPerStep;
        if (!(D > 0)) return kNaN;
        const double power = std::pow(D, -p[2]);
        if (!g.empty()) g[0] = 1, g[1] = power, g[2] = -p[1] * power * std::log(D);
        return p[0] + p[1] * power;
    }
    }
    return kNaN;
}

namespace {

using Vector = dlib::matrix<double, 0, 1>;

// The points the fit sees and the conversions between search coordinates and parameters.
struct Problem {
    CurveLaw law;
    std::size_t dim;
    double delta;
    struct Point {
        const PreparedSchedule* schedule;
        long step;
        double logLoss;
        std::size_t curve;
    };
    std::vector<Point> points;

    std::vector<double> toParams(std::span<const double> x) const {
        std::vector<double> p(x.begin(), x.end());
        for (std::size_t i = 0; i < dim; ++i)
            if (searchedInLog(law, i)) p[i] = std::exp(x[i]);
        return p;
    }
    // ∂ ln L̂ / ∂x at one point from ∂L̂/∂θ.
    void logGradient(std::span<const double> params, double value, std::span<const double> g, std::span<double> out) const {
        for (std::size_t i = 0; i < dim; ++i) out[i] = g[i] / value * (searchedInLog(law, i) ? params[i] : 1.0);
    }
    // Σ Huber_δ(ln L̂ − ln L) and its gradient in x.
    double evaluate(std::span<const double> x, std::span<double> gradient) const {
        const auto params = toParams(x);
        std::fill(gradient.begin(), gradient.end(), 0.0);
        std::vector<double> g(dim), lg(dim);
        double total = 0;
        for (const auto& pt : points) {
            const double value = pt.schedule->loss(law, params, pt.step, g);
            if (!(value > 0) || !std::isfinite(value)) return kInf;
            const double r = std::log(value) - pt.logLoss;
            total += huber(r, delta);
            const double slope = std::clamp(r, -delta, delta);  // Huber_δ'(r)
            logGradient(params, value, g, lg);
            for (std::size_t i = 0; i < dim; ++i) gradient[i] += slope * lg[i];
        }
        return total;
    }
};

// Stops when the objective changes by less than `relative` of itself between iterations.
class RelativeChangeStop {
public:
    RelativeChangeStop(double relative, int maxIterations) : relative_(relative), max_(maxIterations) {}
    template <typename T>
    bool should_continue_search(const T&, const double value, const T&) {
        if (!std::isfinite(value)) return false;
        if (iterations >= max_) return hitCap = true, false;
        ++iterations;
        const bool keepGoing = first_ || std::abs(value - previous_) > relative_ * std::max(std::abs(value), 1e-300);
        first_ = false;
        previous_ = value;
        return keepGoing;
    }
    int iterations = 0;
    bool hitCap = false;

private:
    double relative_;
    int max_;
    bool first_ = true;
    double previous_ = 0;
};

struct StartResult {
    std::vector<double> x;
    double objective = kInf;
    int iterations = 0;
    bool converged = false;
};

StartResult runStart(const Problem& problem, std::vector<double> x0, const std::vector<double>& lower,
                     const std::vector<double>& upper, double stopDelta, int maxIterations) {
    const long dim = static_cast<long>(problem.dim);
    Vector x(dim), lo(dim), hi(dim);
    for (long m = 0; m < dim; ++m) {
        const auto i = static_cast<std::size_t>(m);
        lo(m) = lower[i], hi(m) = upper[i], x(m) = std::clamp(x0[i], lower[i], upper[i]);
    }
    std::vector<double> xs(problem.dim), g(problem.dim);
    for (long m = 0; m < dim; ++m) xs[static_cast<std::size_t>(m)] = x(m);
    const double f0 = problem.evaluate(xs, g);
    const double scale = std::isfinite(f0) && f0 > 0 ? 1.0 / f0 : 1.0;
    Vector cachedX, cachedGradient(dim), bestX = x;
    double cachedValue = kInf, bestValue = kInf;
    const auto evaluate = [&](const Vector& v) {
        if (cachedX.size() == v.size() && cachedX == v) return;
        for (long m = 0; m < dim; ++m) xs[static_cast<std::size_t>(m)] = v(m);
        const double f = problem.evaluate(xs, g);
        cachedX = v;
        cachedValue = std::isfinite(f) ? f * scale : kInf;
        for (long m = 0; m < dim; ++m) cachedGradient(m) = g[static_cast<std::size_t>(m)] * scale;
        if (cachedValue < bestValue) bestValue = cachedValue, bestX = v;
    };
    RelativeChangeStop stop(stopDelta, maxIterations);
    bool finite = true;
    try {
        dlib::find_min_box_constrained(
            dlib::lbfgs_search_strategy(10), stop,
            [&](const Vector& v) {
                evaluate(v);
                return cachedValue;
            },
            [&](const Vector& v) {
                evaluate(v);
                return cachedGradient;
            },
            x, lo, hi);
    } catch (const dlib::error&) {
        finite = false;
    }
    evaluate(x);
    if (!(cachedValue <= bestValue)) x = bestX, evaluate(x);
    StartResult out;
    out.x.assign(x.begin(), x.end());
    out.objective = cachedValue / scale;
    out.iterations = stop.iterations;
    out.converged = finite && !stop.hitCap && std::isfinite(out.objective);
    return out;
}

}  // namespace

CurveFitResult fitCurveLaw(std::span<const FitCurve> curves, const CurveFitSettings& settings, const FitControl& control) {
    const auto started = std::chrono::steady_clock::now();
    const CurveLaw law = settings.law;
    Problem problem{law, parameterCount(law), settings.huberDelta, {}};
    double minLoss = kInf, peak = 0, maxMomentum = 0;
    for (const auto& c : curves) {
        if (!c.schedule) throw std::invalid_argument("curve '" + c.name + "' has no learning-rate schedule");
        const auto& s = c.schedule->schedule();
        peak = std::max(peak, s.peak());
        std::vector<CurveObservation> usable;
        for (const auto& p : c.points)
            if (p.step > s.warmupSteps() && p.step <= s.steps() && p.loss > 0 && std::isfinite(p.loss)) usable.push_back(p);
        const std::size_t n = usable.size(), m = static_cast<std::size_t>(std::max(2, settings.maxPointsPerCurve));
        for (std::size_t j = 0; j < std::min(n, m); ++j) {
            const std::size_t i = n <= m ? j : static_cast<std::size_t>(std::llround(static_cast<double>(j) * static_cast<double>(n - 1) / static_cast<double>(m - 1)));
            problem.points.push_back({c.schedule, usable[i].step, std::log(usable[i].loss), static_cast<std::size_t>(&c - curves.data())});
            minLoss = std::min(minLoss, usable[i].loss);
            const std::array<double, 4> probe{0, 0, 0, 1};  // −L̂ of L0 = A = 0, C = 1 is S2
            if (law == CurveLaw::LrAnnealing) maxMomentum = std::max(maxMomentum, -c.schedule->loss(law, probe, usable[i].step));
        }
    }
    const std::size_t dim = problem.dim;
    if (problem.points.size() <= dim)
        throw std::invalid_argument("the curves hold " + std::to_string(problem.points.size()) + " usable points after warm-up; the " +
                                    curveLawName(law) + " law has " + std::to_string(dim) + " parameters");
    if (!(peak > 0)) peak = 1;

    // The box (search coordinates) and a small grid of starts around the scales the data set.
    // L0 lies below every loss only for the power law: the schedule laws subtract a loss drop.
    std::vector<double> lower{0, -15, 0.01}, upper{law == CurveLaw::PowerLaw ? minLoss * 0.999 : minLoss * 1.5, 15, 3};
    if (law == CurveLaw::MultiPower) {
        lower.insert(lower.end(), {std::log(1e-3 / peak), -20, 0.01, 0});
        upper.insert(upper.end(), {std::log(1e4 / peak), 10, 5, 3});
    } else if (law == CurveLaw::LrAnnealing) {
        lower.push_back(-25);
        upper.push_back(25);
    }
    const auto& mid = problem.points[problem.points.size() / 2];
    const double midArea = law == CurveLaw::PowerLaw ? static_cast<double>(mid.step) * mid.schedule->options().tokensPerStep
                                                     : mid.schedule->schedule().area(mid.step);
    std::vector<std::vector<double>> starts;
    for (double l0 : {0.6, 0.95})
        for (double alpha : {0.3, 0.6}) {
            const double L0 = l0 * minLoss;
            const double A = std::max(1e-6, (std::exp(mid.logLoss) - L0) * std::pow(std::max(midArea, 1e-12), alpha));
            std::vector<double> base{L0, std::log(A), alpha};
            if (law == CurveLaw::PowerLaw) starts.push_back(base);
            else if (law == CurveLaw::LrAnnealing)
                for (double c : {0.1, 0.3}) {
                    auto s = base;
                    s.push_back(std::log(maxMomentum > 0 ? c / maxMomentum : c));
                    starts.push_back(s);
                }
            else
                for (double b : {0.1, 0.5})
                    for (double c : {0.5, 2.0}) {
                        auto s = base;
                        s.insert(s.end(), {std::log(b / peak), std::log(c), 0.6, 0.6});
                        starts.push_back(s);
                    }
        }

    if (settings.start.size() == dim) {
        std::vector<double> x(dim);
        for (std::size_t i = 0; i < dim; ++i) {
            const double p = settings.start[i];
            x[i] = std::clamp(searchedInLog(law, i) ? std::log(std::max(p, 1e-300)) : p, lower[i], upper[i]);
        }
        starts = {x};
    }

    // Screening of every start, then the best few refined to the tight stop.
    std::vector<StartResult> screened(starts.size());
    parallelFor(starts.size(), control, [&](std::size_t i) {
        screened[i] = runStart(problem, starts[i], lower, upper, settings.screenStop, settings.maxIterations);
    });
    // Cancelled, parallelFor hands out no more starts and those left have no point: the result has
    // no parameters (callers check control.cancelled(), as the window's jobs are when the study changes).
    const auto cancelledResult = [&] {
        CurveFitResult out;
        out.law = law;
        out.level = settings.level;
        out.warnings.push_back("cancelled");
        return out;
    };
    if (control.cancelled()) return cancelledResult();
    std::vector<std::size_t> order(starts.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return screened[a].objective < screened[b].objective; });
    const std::size_t refine = std::min(order.size(), static_cast<std::size_t>(std::max(1, settings.refineCount)));
    std::vector<StartResult> refined(refine);
    parallelFor(refine, control, [&](std::size_t j) {
        refined[j] = runStart(problem, screened[order[j]].x, lower, upper, settings.stopDelta, settings.maxIterations);
    });
    if (control.cancelled()) return cancelledResult();
    CurveFitResult out;
    out.law = law;
    out.level = settings.level;
    out.nStarts = starts.size();
    out.nPoints = static_cast<int>(problem.points.size());
    std::size_t best = 0;
    for (std::size_t j = 0; j < refined.size(); ++j) {
        if (refined[j].converged) ++out.nConverged;
        if (refined[j].objective < refined[best].objective) best = j;
    }
    const auto& winner = refined[best];
    out.objective = winner.objective;
    out.iterations = winner.iterations;
    out.params = problem.toParams(winner.x);
    if (!winner.converged) out.warnings.push_back("the best start stopped at the iteration cap or left the finite range");
    for (std::size_t i = 0; i < dim; ++i) {
        const double span = upper[i] - lower[i];
        if (winner.x[i] <= lower[i] + 1e-6 * span || winner.x[i] >= upper[i] - 1e-6 * span)
            out.warnings.push_back("parameter " + curveLawParameterNames(law)[i] + " ends on its bound");
    }

    // Gauss–Newton covariance of the search coordinates: σ²·(JᵀJ)⁺ with J = ∂ ln L̂/∂x.
    Eigen::MatrixXd JtJ = Eigen::MatrixXd::Zero(static_cast<long>(dim), static_cast<long>(dim));
    double rss = 0;
    std::vector<double> g(dim), lg(dim);
    for (const auto& pt : problem.points) {
        const double value = pt.schedule->loss(law, out.params, pt.step, g);
        problem.logGradient(out.params, value, g, lg);
        const Eigen::Map<const Eigen::VectorXd> row(lg.data(), static_cast<long>(dim));
        JtJ += row * row.transpose();
        const double r = std::log(value) - pt.logLoss;
        rss += r * r;
    }
    // Residuals along a curve are correlated: σ² is inflated by (1+ρ)/(1−ρ), ρ their lag-1
    // autocorrelation within curves (the AR(1) variance inflation of a mean, e.g. Wilks,
    // "Statistical Methods in the Atmospheric Sciences", Eq. 5.12), ρ clipped to [0, 0.95].
    double lagged = 0;
    for (std::size_t i = 1; i < problem.points.size(); ++i) {
        const auto& a = problem.points[i - 1];
        const auto& b = problem.points[i];
        if (a.curve != b.curve) continue;
        lagged += (std::log(a.schedule->loss(law, out.params, a.step)) - a.logLoss) * (std::log(b.schedule->loss(law, out.params, b.step)) - b.logLoss);
    }
    const double rho = rss > 0 ? std::clamp(lagged / rss, 0.0, 0.95) : 0.0;
    out.residualAutocorrelation = rho;
    const double sigma2 = rss / static_cast<double>(std::max<std::size_t>(1, problem.points.size() - dim)) * (1 + rho) / (1 - rho);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(JtJ);
    const Eigen::VectorXd ev = eig.eigenvalues();
    Eigen::VectorXd inv = Eigen::VectorXd::Zero(ev.size());
    const double cut = 1e-12 * ev.cwiseAbs().maxCoeff();
    int dropped = 0;
    for (long i = 0; i < ev.size(); ++i) (ev(i) > cut ? inv(i) = 1.0 / ev(i) : ++dropped);
    if (dropped > 0) out.warnings.push_back("the curves do not determine every parameter (" + std::to_string(dropped) + " direction(s) unconstrained)");
    const Eigen::MatrixXd cov = sigma2 * eig.eigenvectors() * inv.asDiagonal() * eig.eigenvectors().transpose();
    out.covariance.assign(cov.data(), cov.data() + cov.size());  // symmetric: storage order does not matter
    const double z = normalQuantile(0.5 * (1 + settings.level));
    const auto names = curveLawParameterNames(law);
    for (std::size_t i = 0; i < dim; ++i) {
        const double x = winner.x[i], sd = std::sqrt(std::max(0.0, cov(static_cast<long>(i), static_cast<long>(i))));
        ParameterEstimate e{names[i], out.params[i], x - z * sd, x + z * sd};
        if (searchedInLog(law, i)) e.lower = std::exp(e.lower), e.upper = std::exp(e.upper);
        out.estimates.push_back(e);
    }
    for (const auto& c : curves) out.curves.push_back(scoreCurve(out, c));
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return out;
}

CurvePrediction predictCurveLoss(const CurveFitResult& fit, const PreparedSchedule& schedule, long step) {
    const std::size_t dim = fit.params.size();
    std::vector<double> g(dim), lg(dim);
    const double value = schedule.loss(fit.law, fit.params, step, g);
    CurvePrediction out{value, kNaN, kNaN};
    if (!(value > 0) || fit.covariance.size() != dim * dim) return out;
    for (std::size_t i = 0; i < dim; ++i) lg[i] = g[i] / value * (searchedInLog(fit.law, i) ? fit.params[i] : 1.0);
    double var = 0;
    for (std::size_t i = 0; i < dim; ++i)
        for (std::size_t j = 0; j < dim; ++j) var += lg[i] * fit.covariance[i * dim + j] * lg[j];
    // The misfit is a standard deviation estimated from misfitCurves curves: its quantile is
    // Student's t with misfitCurves − 1 degrees of freedom.
    const double p = 0.5 * (1 + fit.level), z = normalQuantile(p);
    const double t = fit.misfitCurves >= 3 ? studentQuantile(p, fit.misfitCurves - 1) : z;
    const double half = std::sqrt(z * z * std::max(0.0, var) + t * t * fit.misfitSd * fit.misfitSd);
    out.lower = value * std::exp(-half);
    out.upper = value * std::exp(half);
    return out;
}

CurveScore scoreCurve(const CurveFitResult& fit, const FitCurve& curve) {
    CurveScore s;
    s.name = curve.name;
    if (!curve.schedule) return s;
    std::vector<double> observed, predicted;
    long lastStep = 0;
    for (const auto& p : curve.points) {
        const double v = curve.schedule->loss(fit.law, fit.params, p.step);
        if (!std::isfinite(v) || !(p.loss > 0) || p.step <= curve.schedule->schedule().warmupSteps()) continue;
        observed.push_back(p.loss);
        predicted.push_back(v);
        lastStep = p.step;
    }
    s.points = static_cast<int>(observed.size());
    if (observed.empty()) return s;
    const double mean = std::accumulate(observed.begin(), observed.end(), 0.0) / static_cast<double>(observed.size());
    double ssRes = 0, ssTot = 0;
    for (std::size_t i = 0; i < observed.size(); ++i) {
        const double r = observed[i] - predicted[i];
        ssRes += r * r;
        ssTot += (observed[i] - mean) * (observed[i] - mean);
        s.mae += std::abs(r);
        const double rel = std::abs(r) / observed[i];
        s.predE += rel;
        s.worstE = std::max(s.worstE, rel);
    }
    const double n = static_cast<double>(observed.size());
    s.r2 = ssTot > 0 ? 1 - ssRes / ssTot : kNaN;
    s.mae /= n;
    s.rmse = std::sqrt(ssRes / n);
    s.predE /= n;
    s.finalStep = lastStep;
    s.finalObserved = observed.back();
    const auto final = predictCurveLoss(fit, *curve.schedule, lastStep);
    s.finalPredicted = final.loss;
    s.finalLower = final.lower;
    s.finalUpper = final.upper;
    return s;
}

}  // namespace scalex::fit
