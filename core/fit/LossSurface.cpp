// The L(N, D) fit (App. "Details on the Parametric Loss Surface Fit"): analytic gradients of the
// Huber objective on log-loss residuals, L-BFGS via dlib from every start of the grid.
#include "core/fit/LossSurface.h"

#include <Eigen/Core>
#include <dlib/optimization.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace scalex::fit {

namespace {

// ln(e^x + e^y) without overflow.
inline double logSumExp(double x, double y) {
    const double m = std::max(x, y);
    if (m == -std::numeric_limits<double>::infinity()) return m;
    return m + std::log1p(std::exp(-std::abs(x - y)));
}


// Precomputed ln N, ln D, ln L of the points, and the value/gradient of the objective in one pass
// (dlib asks for f and f' separately at the same x; the second call is served from the cache).
template <long Dim>
class Objective {
public:
    using Vector = dlib::matrix<double, Dim, 1>;

    Objective(std::span<const LossPoint> points, double delta, bool fitGamma, double scale)
        : delta_(delta), fitGamma_(fitGamma), scale_(scale) {
        const Eigen::Index n = static_cast<Eigen::Index>(points.size());
        lnN_.resize(n);
        lnD_.resize(n);
        lnL_.resize(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            const auto& p = points[static_cast<std::size_t>(i)];
            lnN_(i) = std::log(p.params);
            lnD_(i) = std::log(p.tokens);
            lnL_(i) = std::log(p.loss);
        }
        for (auto* a : {&p_, &q_, &t1_, &u_, &wp_, &wq_, &z_, &t2_, &sz_, &se_, &r_, &dr_}) a->resize(n);
    }

    double value(const Vector& x) {
        evaluate(x);
        return cachedValue_;
    }
    const Vector& gradient(const Vector& x) {
        evaluate(x);
        return cachedGradient_;
    }

private:
    // Array expressions so that Eigen vectorises exp/log over the runs (the fit spends most of
    // its time here); member arrays keep the loop free of allocations.
    void evaluate(const Vector& x) {
        if (haveCache_ && x == cachedX_) return;
        const double a = x(0), b = x(1), e = x(2), alpha = x(3), beta = x(4);
        const double gamma = fitGamma_ ? x(5) : 1.0;
        // u = LSE(p, q) with softmax weights wp, wq
        p_ = a - alpha * lnN_;
        q_ = b - beta * lnD_;
        t1_ = (-(p_ - q_).abs()).exp();
        u_ = p_.max(q_) + (1.0 + t1_).log();
        wq_ = 1.0 / (1.0 + t1_);  // weight of the larger term
        wp_ = (p_ >= q_).select(wq_, t1_ * wq_);
        wq_ = (p_ >= q_).select(t1_ * wq_, wq_);
        // v = LSE(γu, e) = ln L̂ with weights sz, se
        z_ = gamma * u_;
        t2_ = (-(z_ - e).abs()).exp();
        se_ = 1.0 / (1.0 + t2_);
        sz_ = (z_ >= e).select(se_, t2_ * se_);
        se_ = (z_ >= e).select(t2_ * se_, se_);
        r_ = lnL_ - (z_.max(e) + (1.0 + t2_).log());
        // Huber value and derivative d Huber / d r
        const double d = delta_;
        const double f = (r_.abs() <= d).select(0.5 * r_.square(), d * (r_.abs() - 0.5 * d)).sum();
        dr_ = (r_.abs() <= d).select(r_, (r_ > 0).select(Eigen::ArrayXd::Constant(r_.size(), d), -d));
        // d obj / d θ = −Huber'(r) · d v / d θ
        t1_ = -dr_ * sz_ * gamma;  // reuse as c·sz·γ
        cachedX_ = x;
        cachedValue_ = f * scale_;
        cachedGradient_(0) = (t1_ * wp_).sum() * scale_;
        cachedGradient_(1) = (t1_ * wq_).sum() * scale_;
        cachedGradient_(2) = -(dr_ * se_).sum() * scale_;
        cachedGradient_(3) = -(t1_ * wp_ * lnN_).sum() * scale_;
        cachedGradient_(4) = -(t1_ * wq_ * lnD_).sum() * scale_;
        if (fitGamma_) cachedGradient_(5) = -(dr_ * sz_ * u_).sum() * scale_;
        haveCache_ = true;
    }

    Eigen::ArrayXd lnN_, lnD_, lnL_;
    Eigen::ArrayXd p_, q_, t1_, u_, wp_, wq_, z_, t2_, sz_, se_, r_, dr_;
    double delta_;
    bool fitGamma_;
    double scale_;
    bool haveCache_ = false;
    Vector cachedX_;
    double cachedValue_ = 0;
    Vector cachedGradient_;
};

// dlib's objective_delta_stop_strategy, plus what we report: iterations and why it stopped.
// dlib takes the strategy by value, so the counters live in a state the copies share.
struct StopState {
    int iterations = 0;
    bool hitCap = false;
};

class DeltaStop {
public:
    DeltaStop(double minDelta, int maxIterations, StopState& state)
        : minDelta_(minDelta), maxIterations_(maxIterations), state_(&state) {}
    template <typename T>
    bool should_continue_search(const T&, const double value, const T&) {
        if (!std::isfinite(value)) return false;
        if (state_->iterations >= maxIterations_) {
            state_->hitCap = true;
            return false;
        }
        ++state_->iterations;
        if (first_) {
            first_ = false;
            previous_ = value;
            return true;
        }
        const bool keepGoing = std::abs(value - previous_) >= minDelta_;
        previous_ = value;
        return keepGoing;
    }

private:
    double minDelta_;
    int maxIterations_;
    StopState* state_;
    bool first_ = true;
    double previous_ = 0;
};

double objectiveScale(double delta) {
    const double s = std::min(delta, 1e-2);
    return 1.0 / (s * s);
}

void validate(std::span<const LossPoint> points, bool fitGamma) {
    const std::size_t needed = fitGamma ? 6 : 5;
    if (points.size() < needed)
        throw std::invalid_argument("the L(N,D) fit needs at least " + std::to_string(needed) + " runs, got " +
                                    std::to_string(points.size()));
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (!(p.params > 0) || !(p.tokens > 0) || !(p.loss > 0) || !std::isfinite(p.params) || !std::isfinite(p.tokens) ||
            !std::isfinite(p.loss))
            throw std::invalid_argument("run " + std::to_string(i) + ": N, D and loss must be positive and finite");
    }
}

}  // namespace

double LossSurfaceParams::logLoss(double params, double tokens) const {
    const double u = logSumExp(logA - alpha * std::log(params), logB - beta * std::log(tokens));
    return logSumExp(gamma * u, logE);
}

double LossSurfaceParams::loss(double params, double tokens) const { return std::exp(logLoss(params, tokens)); }

double huber(double residual, double delta) {
    const double a = std::abs(residual);
    return a <= delta ? 0.5 * residual * residual : delta * (a - 0.5 * delta);
}

double lossSurfaceObjective(std::span<const LossPoint> points, const LossSurfaceParams& p, double delta) {
    double sum = 0;
    for (const auto& pt : points) sum += huber(std::log(pt.loss) - p.logLoss(pt.params, pt.tokens), delta);
    return sum;
}

InitGrid InitGrid::paper() {
    return InitGrid{{0.0, 5.0, 10.0, 15.0, 20.0}, {0.0, 5.0, 10.0, 15.0, 20.0}, {-1.0, -0.5, 0.0, 0.5, 1.0},
                    {0.0, 0.2, 0.5, 1.0},           {0.0, 0.2, 0.5, 1.0},           {0.0, 0.5, 1.0, 1.5}};
}

std::size_t InitGrid::size(bool fitGamma) const {
    std::size_t n = logA.size() * logB.size() * logE.size() * alpha.size() * beta.size();
    return fitGamma ? n * gamma.size() : n;
}

LossSurfaceParams InitGrid::start(std::size_t i, bool fitGamma) const {
    LossSurfaceParams p;
    auto take = [&i](const std::vector<double>& axis) {
        const double v = axis[i % axis.size()];
        i /= axis.size();
        return v;
    };
    p.logB = take(logB);
    p.logA = take(logA);
    p.logE = take(logE);
    p.alpha = take(alpha);
    p.beta = take(beta);
    p.gamma = fitGamma ? take(gamma) : 1.0;
    return p;
}

std::optional<InitGrid> parseInitGrid(std::string_view text, std::string* error) {
    InitGrid grid;
    bool seen[6] = {false, false, false, false, false, false};
    const char* names[6] = {"logA", "logB", "logE", "alpha", "beta", "gamma"};
    std::vector<double>* axes[6] = {&grid.logA, &grid.logB, &grid.logE, &grid.alpha, &grid.beta, &grid.gamma};
    auto fail = [&](int line, const std::string& why) -> std::optional<InitGrid> {
        if (error) *error = "line " + std::to_string(line) + ": " + why;
        return std::nullopt;
    };
    int lineNo = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        std::string cleaned(line);
        std::replace_if(cleaned.begin(), cleaned.end(), [](char c) { return c == ',' || c == ':' || c == '\t' || c == '\r'; }, ' ');
        std::vector<std::string_view> words;
        std::string_view rest(cleaned);
        while (!rest.empty()) {
            const auto b = rest.find_first_not_of(' ');
            if (b == std::string_view::npos) break;
            rest = rest.substr(b);
            const auto e = std::min(rest.find(' '), rest.size());
            words.push_back(rest.substr(0, e));
            rest = rest.substr(e);
        }
        if (words.empty()) continue;
        int axis = -1;
        for (int k = 0; k < 6; ++k)
            if (words[0] == names[k]) axis = k;
        if (axis < 0)
            return fail(lineNo, "expected an axis name (logA, logB, logE, alpha, beta or gamma), got '" + std::string(words[0]) + "'");
        if (seen[axis]) return fail(lineNo, "axis " + std::string(names[axis]) + " given twice");
        seen[axis] = true;
        if (words.size() < 2) return fail(lineNo, "axis " + std::string(names[axis]) + " has no values");
        for (std::size_t w = 1; w < words.size(); ++w) {
            double v = 0;
            const auto res = std::from_chars(words[w].data(), words[w].data() + words[w].size(), v);
            if (res.ec != std::errc() || res.ptr != words[w].data() + words[w].size() || !std::isfinite(v))
                return fail(lineNo, "expected a number for " + std::string(names[axis]) + ", got '" + std::string(words[w]) + "'");
            axes[axis]->push_back(v);
        }
        if (pos > text.size()) break;
    }
    for (int k = 0; k < 5; ++k)
        if (!seen[k]) return fail(lineNo, "axis " + std::string(names[k]) + " is missing");
    if (!seen[5]) grid.gamma = {1.0};
    return grid;
}

namespace {

// Fixed-size vectors keep dlib's L-BFGS free of heap allocations (5 or 6 parameters).
template <long Dim>
LossSurfaceStart fitFrom(std::span<const LossPoint> points, const LossSurfaceParams& init, const LossSurfaceSettings& settings) {
    constexpr bool fitGamma = Dim == 6;
    constexpr long dim = Dim;
    using Vector = typename Objective<Dim>::Vector;
    Objective<Dim> objective(points, settings.huberDelta, fitGamma, objectiveScale(settings.huberDelta));
    Vector x, lower, upper;
    const auto i0 = init.asArray(), lo = settings.bounds.lower.asArray(), hi = settings.bounds.upper.asArray();
    for (long k = 0; k < dim; ++k) {
        lower(k) = lo[static_cast<std::size_t>(k)];
        upper(k) = hi[static_cast<std::size_t>(k)];
        x(k) = std::clamp(i0[static_cast<std::size_t>(k)], lower(k), upper(k));
    }
    StopState state;
    DeltaStop stop(settings.stopDelta, settings.maxIterations, state);
    LossSurfaceStart result;
    result.init = init;
    if (!fitGamma) result.init.gamma = 1.0;
    bool finite = true;
    try {
        dlib::find_min_box_constrained(
            dlib::lbfgs_search_strategy(10), stop, [&](const Vector& v) { return objective.value(v); },
            [&](const Vector& v) { return objective.gradient(v); }, x, lower, upper);
    } catch (const dlib::error&) {
        finite = false;  // the objective left the finite range from this start
    }
    std::array<double, 6> fitted{x(0), x(1), x(2), x(3), x(4), fitGamma ? x(5) : 1.0};
    result.fitted = LossSurfaceParams::fromArray(fitted);
    result.objective = lossSurfaceObjective(points, result.fitted, settings.huberDelta);
    result.iterations = state.iterations;
    result.converged = finite && !state.hitCap && std::isfinite(result.objective);
    if (!std::isfinite(result.objective)) result.objective = std::numeric_limits<double>::infinity();
    return result;
}

}  // namespace

LossSurfaceStart fitLossSurfaceFrom(std::span<const LossPoint> points, const LossSurfaceParams& init,
                                    const LossSurfaceSettings& settings) {
    return settings.fitGamma ? fitFrom<6>(points, init, settings) : fitFrom<5>(points, init, settings);
}

namespace {

// A subsample of `m` runs stratified over (ln N, ln D): a g × g grid of cells over the data's
// range, g = ⌈√m⌉, visited round by round, one run per non-empty cell per round (in a fixed
// pseudo-random order within the cell), so sparse corners of the design are always represented.
std::vector<LossPoint> stratifiedSubsample(std::span<const LossPoint> points, std::size_t m) {
    const std::size_t n = points.size();
    if (m >= n) return {points.begin(), points.end()};
    const auto g = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(m))));
    double nLo = INFINITY, nHi = -INFINITY, dLo = INFINITY, dHi = -INFINITY;
    for (const auto& p : points) {
        nLo = std::min(nLo, std::log(p.params)), nHi = std::max(nHi, std::log(p.params));
        dLo = std::min(dLo, std::log(p.tokens)), dHi = std::max(dHi, std::log(p.tokens));
    }
    auto cellOf = [g](double v, double lo, double hi) {
        if (!(hi > lo)) return std::size_t{0};
        return std::min(g - 1, static_cast<std::size_t>((v - lo) / (hi - lo) * static_cast<double>(g)));
    };
    std::vector<std::vector<std::pair<std::uint64_t, std::size_t>>> cells(g * g);
    for (std::size_t i = 0; i < n; ++i) {
        // SplitMix64 finaliser of the index: a fixed order within each cell.
        std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        cells[cellOf(std::log(points[i].params), nLo, nHi) * g + cellOf(std::log(points[i].tokens), dLo, dHi)].emplace_back(z, i);
    }
    for (auto& c : cells) std::sort(c.begin(), c.end());
    std::vector<std::size_t> chosen;
    for (std::size_t round = 0; chosen.size() < m; ++round)
        for (const auto& c : cells)
            if (round < c.size() && chosen.size() < m) chosen.push_back(c[round].second);
    std::sort(chosen.begin(), chosen.end());
    std::vector<LossPoint> out;
    out.reserve(m);
    for (std::size_t i : chosen) out.push_back(points[i]);
    return out;
}

std::vector<double> logLossAt(std::span<const LossPoint> points, const LossSurfaceParams& p) {
    std::vector<double> v;
    v.reserve(points.size());
    for (const auto& pt : points) v.push_back(p.logLoss(pt.params, pt.tokens));
    return v;
}

// Starts sorted best first, grouped into basins: a start joins the first basin whose surface
// agrees with its own within `tolerance` in ln L̂ at every point of `probe`. Returns the first
// (best) start of each basin, at most `limit`, and how many starts joined each.
struct Basin {
    LossSurfaceStart* start;
    std::size_t members;
};
std::vector<Basin> groupIntoBasins(std::span<LossSurfaceStart* const> sorted, std::span<const LossPoint> probe, double tolerance,
                                   std::size_t limit) {
    std::vector<Basin> basins;
    std::vector<std::vector<double>> curves;
    for (LossSurfaceStart* s : sorted) {
        if (!std::isfinite(s->objective)) continue;
        const auto curve = logLossAt(probe, s->fitted);
        bool joined = false;
        for (std::size_t b = 0; b < basins.size() && !joined; ++b) {
            double worst = 0;
            for (std::size_t k = 0; k < curve.size(); ++k) worst = std::max(worst, std::abs(curve[k] - curves[b][k]));
            if (worst <= tolerance) {
                ++basins[b].members;
                joined = true;
            }
        }
        if (joined) continue;
        if (basins.size() >= limit) continue;  // later basins are worse; members of kept ones still count
        basins.push_back({s, 1});
        curves.push_back(curve);
    }
    return basins;
}

// Quality in loss units, the warnings every fit shares, and the time since t0.
void finishFit(LossSurfaceFit& fit, std::span<const LossPoint> points, const LossSurfaceSettings& settings, bool bestConverged,
               std::chrono::steady_clock::time_point t0) {
    std::vector<double> observed, predicted;
    observed.reserve(points.size());
    predicted.reserve(points.size());
    for (const auto& p : points) {
        observed.push_back(p.loss);
        predicted.push_back(fit.best.loss(p.params, p.tokens));
    }
    fit.quality = assessFit(observed, predicted);
    if (!bestConverged) fit.warnings.push_back("the best start did not converge within the iteration limit");
    if (fit.nConverged == 0) fit.warnings.push_back("no start converged");
    const auto b = fit.best.asArray(), l = settings.bounds.lower.asArray(), u = settings.bounds.upper.asArray();
    const char* names[6] = {"logA", "logB", "logE", "alpha", "beta", "gamma"};
    for (std::size_t k = 0; k < (settings.fitGamma ? 6u : 5u); ++k)
        if (b[k] <= l[k] + 1e-6 || b[k] >= u[k] - 1e-6) fit.warnings.push_back(std::string(names[k]) + " hit a bound of the fit box");
    fit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

LossSurfaceFit fitLossSurface(std::span<const LossPoint> points, const LossSurfaceSettings& settings, const FitControl& control) {
    validate(points, settings.fitGamma);
    const std::size_t total = settings.grid.size(settings.fitGamma);
    if (total == 0) throw std::invalid_argument("the grid of initialisations is empty");
    const auto t0 = std::chrono::steady_clock::now();

    // Phase 1 (screening): every start, with a looser stop; phase 2 (refinement): the best
    // `refineCount` screened starts continue to the tight stop. The authors run every start to
    // scipy's tightest tolerances; most of that time is spent polishing starts that end far from
    // the best, so refining only the leaders reaches the same best objective several times faster
    // (the unit tests compare both).
    LossSurfaceSettings screening = settings;
    screening.stopDelta = std::max(settings.screenStopDelta, settings.stopDelta);
    const bool screened = screening.stopDelta > settings.stopDelta;
    const std::size_t needed = settings.fitGamma ? 6 : 5;
    // Many runs: phases 1 and 2 on a stratified subsample, phase 3 refines the best basins on all.
    const bool subsampled = screened && settings.screenPoints >= needed && points.size() > settings.screenPoints;
    std::vector<LossPoint> subsample;
    if (subsampled || points.size() > std::max<std::size_t>(settings.screenPoints, 1))
        subsample = stratifiedSubsample(points, std::max(settings.screenPoints, needed));
    const std::span<const LossPoint> screenSet = subsampled ? std::span<const LossPoint>(subsample) : points;
    // Basins are told apart on the subsample when there is one (enough to separate surfaces).
    const std::span<const LossPoint> probe = subsample.empty() ? points : std::span<const LossPoint>(subsample);

    std::vector<LossSurfaceStart> starts(total);
    std::vector<char> ran(total, 0);
    parallelFor(total, control, [&](std::size_t i) {
        starts[i] = fitLossSurfaceFrom(screenSet, settings.grid.start(i, settings.fitGamma), screening);
        starts[i].index = i;
        ran[i] = 1;
    });

    LossSurfaceFit fit;
    fit.nPoints = static_cast<int>(points.size());
    fit.nScreenPoints = screenSet.size();
    fit.cancelled = control.cancelled();
    std::vector<LossSurfaceStart*> done;
    done.reserve(total);
    for (std::size_t i = 0; i < total; ++i)
        if (ran[i]) done.push_back(&starts[i]);
    fit.nStarts = done.size();
    if (done.empty()) {
        fit.cancelled = true;
        fit.objective = std::numeric_limits<double>::infinity();
        fit.warnings.push_back("cancelled before any start finished");
        return fit;
    }
    // Best first; ties broken by grid index so the result never depends on scheduling.
    auto byObjective = [](const LossSurfaceStart* x, const LossSurfaceStart* y) {
        return x->objective != y->objective ? x->objective < y->objective : x->index < y->index;
    };
    std::sort(done.begin(), done.end(), byObjective);
    const std::size_t refine = screened ? std::min<std::size_t>(done.size(), settings.refineCount) : 0;
    FitControl quiet = control;
    quiet.progress = nullptr;
    // The later phases report through control.phase, under their own names.
    auto phaseControl = [&](const char* name, std::size_t total) {
        FitControl c = quiet;
        if (control.phase) {
            control.phase(name, 0, total);
            c.progress = [&control, name](std::size_t done, std::size_t n) { control.phase(name, done, n); };
        }
        return c;
    };
    if (refine > 0 && !control.cancelled()) {
        parallelFor(refine, phaseControl("refining the best starts", refine), [&](std::size_t k) {
            LossSurfaceStart* s = done[k];
            LossSurfaceStart polished = fitLossSurfaceFrom(screenSet, s->fitted, settings);
            if (polished.objective <= s->objective) {
                s->fitted = polished.fitted;
                s->objective = polished.objective;
            }
            s->iterations += polished.iterations;
            s->converged = s->converged && polished.converged;
        });
        std::sort(done.begin(), done.end(), byObjective);
    }
    for (const auto* s : done) fit.nConverged += s->converged ? 1 : 0;

    const std::size_t considered = std::min(done.size(), std::max<std::size_t>({refine, settings.refineCount, 1}));
    auto basins = groupIntoBasins(std::span<LossSurfaceStart* const>(done.data(), considered), probe, settings.basinTolerance,
                                        std::max<std::size_t>(settings.basinRefineCount, 1));
    if (basins.empty()) basins.push_back({done.front(), 1});  // no finite objective anywhere
    // The starts whose objectives are on every run, best first: the refined basins when the
    // screening saw a subsample, else every start.
    std::vector<LossSurfaceStart> polishedBasins;
    std::vector<std::size_t> basinMembers;
    if (subsampled) {
        polishedBasins.resize(basins.size());
        parallelFor(basins.size(), phaseControl("refining each optimum on every run", basins.size()), [&](std::size_t k) {
            const LossSurfaceStart& s = *basins[k].start;
            LossSurfaceStart full = control.cancelled() ? s : fitLossSurfaceFrom(points, s.fitted, settings);
            if (control.cancelled()) full.objective = lossSurfaceObjective(points, s.fitted, settings.huberDelta);
            else if (!(full.objective <= lossSurfaceObjective(points, s.fitted, settings.huberDelta))) {
                full.fitted = s.fitted;
                full.objective = lossSurfaceObjective(points, s.fitted, settings.huberDelta);
            }
            full.index = s.index;
            full.init = s.init;
            full.iterations += s.iterations;
            full.converged = full.converged && s.converged;
            polishedBasins[k] = full;
        });
        // A basin cancelled before its refinement keeps its subsample fit, scored on every run.
        std::vector<std::size_t> order(basins.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return byObjective(&polishedBasins[x], &polishedBasins[y]); });
        // Basins that the refinement on every run brought to the same optimum become one.
        std::vector<LossSurfaceStart> sorted;
        std::vector<std::vector<double>> curves;
        for (std::size_t k : order) {
            const auto curve = logLossAt(probe, polishedBasins[k].fitted);
            bool merged = false;
            for (std::size_t j = 0; j < sorted.size() && !merged; ++j) {
                double worst = 0;
                for (std::size_t q = 0; q < curve.size(); ++q) worst = std::max(worst, std::abs(curve[q] - curves[j][q]));
                if (worst <= settings.basinTolerance) {
                    basinMembers[j] += basins[k].members;
                    merged = true;
                }
            }
            if (merged) continue;
            sorted.push_back(polishedBasins[k]);
            basinMembers.push_back(basins[k].members);
            curves.push_back(curve);
        }
        polishedBasins = std::move(sorted);
    } else {
        for (const auto& b : basins) {
            polishedBasins.push_back(*b.start);
            basinMembers.push_back(b.members);
        }
    }
    fit.basins = polishedBasins;

    const LossSurfaceStart& best = subsampled ? polishedBasins.front() : *done.front();
    fit.best = best.fitted;
    fit.objective = best.objective;
    fit.bestStart = best.index;
    const auto keep = static_cast<std::size_t>(std::max(settings.keepBest, 1));
    if (subsampled)
        for (std::size_t k = 0; k < polishedBasins.size() && k < keep; ++k) fit.bestStarts.push_back(polishedBasins[k]);
    else
        for (std::size_t k = 0; k < done.size() && k < keep; ++k) fit.bestStarts.push_back(*done[k]);

    std::array<double, 6> lo, hi;
    lo.fill(std::numeric_limits<double>::infinity());
    hi.fill(-std::numeric_limits<double>::infinity());
    auto widen = [&](const LossSurfaceParams& p) {
        const auto v = p.asArray();
        for (std::size_t k = 0; k < 6; ++k) {
            lo[k] = std::min(lo[k], v[k]);
            hi[k] = std::max(hi[k], v[k]);
        }
    };
    const double nearBest = best.objective * (1.0 + settings.spreadTolerance);
    if (subsampled) {
        // Every start of a basin that reaches the optimum counts; the spread is over the basins.
        for (std::size_t k = 0; k < polishedBasins.size(); ++k) {
            if (!(polishedBasins[k].objective <= nearBest)) break;
            fit.nNearBest += basinMembers[k];
            widen(polishedBasins[k].fitted);
        }
    } else {
        for (const auto* s : done) {
            if (!(s->objective <= nearBest)) break;
            ++fit.nNearBest;
            widen(s->fitted);
        }
    }
    std::array<double, 6> range{};
    for (std::size_t k = 0; k < 6; ++k) range[k] = hi[k] - lo[k];
    fit.spread = LossSurfaceParams::fromArray(range);

    if (fit.cancelled) fit.warnings.push_back("cancelled: " + std::to_string(fit.nStarts) + " of " + std::to_string(total) + " starts ran");
    finishFit(fit, points, settings, best.converged, t0);
    return fit;
}

std::vector<LossSurfaceParams> optimaOf(const LossSurfaceFit& fit) {
    std::vector<LossSurfaceParams> starts;
    for (const auto* list : {&fit.basins, &fit.bestStarts})
        for (const auto& s : *list)
            if (std::find_if(starts.begin(), starts.end(), [&](const LossSurfaceParams& p) { return p.asArray() == s.fitted.asArray(); }) ==
                starts.end())
                starts.push_back(s.fitted);
    if (starts.empty()) starts.push_back(fit.best);
    return starts;
}

LossSurfaceFit refitLossSurface(std::span<const LossPoint> points, const LossSurfaceFit& earlier, const LossSurfaceSettings& settings,
                                const FitControl& control) {
    validate(points, settings.fitGamma);
    const auto t0 = std::chrono::steady_clock::now();
    const auto optima = optimaOf(earlier);
    std::vector<LossSurfaceStart> refits(optima.size());
    std::vector<char> ran(optima.size(), 0);
    parallelFor(optima.size(), control, [&](std::size_t k) {
        refits[k] = fitLossSurfaceFrom(points, optima[k], settings);
        refits[k].index = k;
        ran[k] = 1;
    });
    std::vector<LossSurfaceStart> done;
    for (std::size_t k = 0; k < refits.size(); ++k)
        if (ran[k]) done.push_back(refits[k]);
    LossSurfaceFit fit;
    fit.nPoints = static_cast<int>(points.size());
    fit.nStarts = earlier.nStarts;
    fit.nConverged = earlier.nConverged;
    fit.nScreenPoints = earlier.nScreenPoints;
    fit.refitFrom = optima.size();
    fit.cancelled = control.cancelled() || earlier.cancelled;
    if (done.empty()) {
        fit.cancelled = true;
        fit.objective = std::numeric_limits<double>::infinity();
        fit.warnings.push_back("cancelled before any start finished");
        return fit;
    }
    // Best first, ties by the order of the optima, so the result never depends on scheduling.
    std::sort(done.begin(), done.end(), [](const LossSurfaceStart& x, const LossSurfaceStart& y) {
        return x.objective != y.objective ? x.objective < y.objective : x.index < y.index;
    });
    std::vector<LossSurfaceStart*> sorted;
    for (auto& s : done) sorted.push_back(&s);
    for (const auto& b : groupIntoBasins(sorted, points, settings.basinTolerance, std::max<std::size_t>(settings.basinRefineCount, 1)))
        fit.basins.push_back(*b.start);
    if (fit.basins.empty()) fit.basins.push_back(done.front());
    const LossSurfaceStart& best = done.front();
    fit.best = best.fitted;
    fit.objective = best.objective;
    fit.bestStart = earlier.bestStart;
    for (std::size_t k = 0; k < done.size() && k < static_cast<std::size_t>(std::max(settings.keepBest, 1)); ++k)
        fit.bestStarts.push_back(done[k]);
    std::array<double, 6> lo, hi;
    lo.fill(std::numeric_limits<double>::infinity());
    hi.fill(-std::numeric_limits<double>::infinity());
    for (const auto& s : done) {
        if (!(s.objective <= best.objective * (1.0 + settings.spreadTolerance))) break;
        ++fit.nNearBest;
        const auto v = s.fitted.asArray();
        for (std::size_t k = 0; k < 6; ++k) lo[k] = std::min(lo[k], v[k]), hi[k] = std::max(hi[k], v[k]);
    }
    std::array<double, 6> range{};
    for (std::size_t k = 0; k < 6; ++k) range[k] = hi[k] - lo[k];
    fit.spread = LossSurfaceParams::fromArray(range);
    if (fit.cancelled) fit.warnings.push_back("cancelled: " + std::to_string(done.size()) + " of " + std::to_string(optima.size()) + " refits ran");
    finishFit(fit, points, settings, best.converged, t0);
    fit.seconds += earlier.seconds;  // the search the optima came from is part of this fit's cost
    return fit;
}

}  // namespace scalex::fit
