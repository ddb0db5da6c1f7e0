// The law fit (LawFit.h): objective and exact gradient through the expression tree, bounded
// multi-start L-BFGS via dlib, variable projection with NNLS, bootstrap prediction intervals.
#include "core/fit/LawFit.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <dlib/optimization.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/fit/LossSurface.h"
#include "core/fit/Nnls.h"
#include "core/fit/SplitMix64.h"

namespace scalex::fit {

void LawData::add(std::span<const double> variables, double observed) {
    values.insert(values.end(), variables.begin(), variables.end());
    target.push_back(observed);
}

LawData LawData::subset(std::span<const std::size_t> rows) const {
    LawData out;
    out.variableCount = variableCount;
    out.values.reserve(rows.size() * variableCount);
    out.target.reserve(rows.size());
    for (std::size_t i : rows) out.add(row(i), target[i]);
    return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool logSpace(const CompiledLaw& law) { return law.definition.space == LawSpace::Log; }

// ρ(r) and ρ'(r) of the law's loss.
double rho(const CompiledLaw& law, double r) {
    return law.definition.loss == LawLoss::Huber ? huber(r, law.definition.huberDelta) : r * r;
}
double rhoPrime(const CompiledLaw& law, double r) {
    if (law.definition.loss == LawLoss::Huber) return std::clamp(r, -law.definition.huberDelta, law.definition.huberDelta);
    return 2 * r;
}

// The residual in the fit's space; NaN where the prediction cannot be scored (ln of ŷ ≤ 0).
double residual(const CompiledLaw& law, double observed, double predicted) {
    if (logSpace(law)) return predicted > 0 ? std::log(observed) - std::log(predicted) : std::numeric_limits<double>::quiet_NaN();
    return observed - predicted;
}

// The runs with what does not change with the parameters computed once (lawConstants), column by
// column for the block sweeps (lawForwardBlock): slot c of run i at columns[c · size() + i].
struct Prepared {
    const LawData& data;
    std::vector<double> columns;

    Prepared(const CompiledLaw& law, const LawData& d) : data(d) {
        const auto width = static_cast<std::size_t>(law.expression.constantCount);
        columns.resize(width * d.size());
        std::vector<double> row(width);
        for (std::size_t i = 0; i < d.size(); ++i) {
            lawConstants(law.expression, d.row(i), row);
            for (std::size_t c = 0; c < width; ++c) columns[c * d.size() + i] = row[c];
        }
    }
    std::size_t size() const { return data.size(); }
};

// The buffers of the block sweeps: values, aux and adjoints of every node for kLawBlock runs, the
// runs' weights, and (for a Jacobian) every parameter's derivative per run.
struct BlockScratch {
    std::vector<double> values, aux, adjoint, weights, perRun;
    void fit(const CompiledLaw& law) {
        const std::size_t size = law.expression.nodes.size() * kLawBlock;
        if (values.size() < size) values.resize(size), aux.resize(size), adjoint.resize(size);
        weights.resize(kLawBlock);
        perRun.resize(std::max<std::size_t>(law.parameterCount(), 1) * kLawBlock);
    }
};

// The law's values at the runs [begin, begin + rows) of `prepared` (every node's in s.values).
const double* forwardBlock(const CompiledLaw& law, const Prepared& prepared, std::span<const double> params, std::size_t begin,
                           std::size_t rows, BlockScratch& s) {
    s.fit(law);
    lawForwardBlock(law.expression, params, prepared.columns.data() + begin, prepared.size(), rows, s.values.data(), s.aux.data());
    return s.values.data() + static_cast<std::size_t>(law.expression.root()) * rows;
}

// Σ ρ(r) and, when `gradient` is given, its derivative (reverse mode through the tree, a block of
// runs at a time).
double objectiveAndGradient(const CompiledLaw& law, const Prepared& prepared, std::span<const double> params, double* gradient,
                            BlockScratch& scratch) {
    const LawData& data = prepared.data;
    const std::size_t k = law.parameterCount();
    if (gradient) std::fill(gradient, gradient + k, 0.0);
    double sum = 0;
    const bool log = logSpace(law);
    for (std::size_t begin = 0; begin < data.size(); begin += kLawBlock) {
        const std::size_t rows = std::min(kLawBlock, data.size() - begin);
        const double* predicted = forwardBlock(law, prepared, params, begin, rows, scratch);
        for (std::size_t i = 0; i < rows; ++i) {
            const double r = residual(law, data.target[begin + i], predicted[i]);
            if (!std::isfinite(r)) return kInf;
            sum += rho(law, r);
            // dρ/dθ = ρ'(r) · dr/dŷ · dŷ/dθ, dr/dŷ = −1 (linear) or −1/ŷ (log)
            scratch.weights[i] = -rhoPrime(law, r) * (log ? 1.0 / predicted[i] : 1.0);
        }
        if (gradient)
            lawBackwardBlock(law.expression, scratch.weights.data(), rows, scratch.values.data(), scratch.aux.data(), scratch.adjoint.data(),
                             std::span<double>(gradient, k));
    }
    if (!std::isfinite(sum)) return kInf;
    if (gradient)
        for (std::size_t j = 0; j < k; ++j)
            if (!std::isfinite(gradient[j])) return kInf;
    return sum;
}

// Per group, every parameter of the law (shared ones hold the same value in every group).
using GroupParams = std::vector<std::vector<double>>;

// The search of one start over one or several groups: the values it moves (every free parameter
// once per group, a shared one once for all; under projection not the linear coefficients) and
// how the others follow (fixed, or solved by NNLS per group).
class Problem {
public:
    struct Slot {
        std::size_t parameter;
        int group;  // -1: shared by every group
    };

    Problem(const CompiledLaw& law, std::span<const Prepared* const> groups, const std::vector<char>& shared, bool projected)
        : law_(law), groups_(groups.begin(), groups.end()) {
        const std::size_t k = law.parameterCount();
        std::vector<char> linear(k, 0);
        if (projected)
            for (const auto& t : law.linearTerms)
                if (!shared[static_cast<std::size_t>(t.parameter)]) {
                    linear[static_cast<std::size_t>(t.parameter)] = 1;
                    terms_.push_back(t);
                }
        for (std::size_t j = 0; j < k; ++j) {
            if (linear[j] || !(law.lower[j] < law.upper[j])) continue;
            if (shared[j] || groups_.size() == 1) slots_.push_back({j, -1});
            else
                for (std::size_t g = 0; g < groups_.size(); ++g) slots_.push_back({j, static_cast<int>(g)});
        }
        gradient_.resize(k);
    }

    const std::vector<Slot>& slots() const { return slots_; }

    // The moving values at `p`.
    std::vector<double> at(const GroupParams& p) const {
        std::vector<double> x;
        for (const auto& s : slots_) x.push_back(p[s.group < 0 ? 0 : static_cast<std::size_t>(s.group)][s.parameter]);
        return x;
    }

    // Every parameter of every group from the moving values: `base` for fixed ones, NNLS for linear ones.
    GroupParams complete(std::span<const double> x, const GroupParams& base) {
        GroupParams p = base;
        for (std::size_t m = 0; m < slots_.size(); ++m) {
            const auto& s = slots_[m];
            if (s.group < 0)
                for (auto& pg : p) pg[s.parameter] = x[m];
            else
                p[static_cast<std::size_t>(s.group)][s.parameter] = x[m];
        }
        if (!terms_.empty())
            for (std::size_t g = 0; g < p.size(); ++g) solveLinear(p[g], *groups_[g]);
        return p;
    }

    // The objective summed over the groups, and its gradient in the moving values.
    double evaluate(std::span<const double> x, const GroupParams& base, double* gradientOut) {
        const GroupParams p = complete(x, base);
        if (gradientOut) std::fill(gradientOut, gradientOut + slots_.size(), 0.0);
        double f = 0;
        for (std::size_t g = 0; g < p.size() && std::isfinite(f); ++g) {
            f += objectiveAndGradient(law_, *groups_[g], p[g], gradientOut ? gradient_.data() : nullptr, block_);
            if (gradientOut)
                for (std::size_t m = 0; m < slots_.size(); ++m)
                    if (slots_[m].group < 0 || static_cast<std::size_t>(slots_[m].group) == g) gradientOut[m] += gradient_[slots_[m].parameter];
        }
        if (!std::isfinite(f)) {
            if (gradientOut) std::fill(gradientOut, gradientOut + slots_.size(), 0.0);
            return kInf;
        }
        return f;
    }

    // The residuals of every group's runs (group by group) and, when J is given, their exact
    // Jacobian in the moving values (reverse mode per run, weight 1). Without projection only.
    // False where a residual or a derivative is not finite.
    bool residuals(std::span<const double> x, const GroupParams& base, Eigen::VectorXd& r, Eigen::MatrixXd* J) {
        const GroupParams p = complete(x, base);
        std::size_t rows = 0;
        for (const auto* g : groups_) rows += g->size();
        const std::size_t k = law_.parameterCount();
        r.resize(static_cast<Eigen::Index>(rows));
        if (J) J->setZero(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(slots_.size()));
        const bool log = logSpace(law_);
        std::size_t at = 0;
        for (std::size_t g = 0; g < groups_.size(); ++g) {
            const Prepared& data = *groups_[g];
            for (std::size_t begin = 0; begin < data.size(); begin += kLawBlock) {
                const std::size_t rows = std::min(kLawBlock, data.size() - begin);
                const double* predicted = forwardBlock(law_, data, p[g], begin, rows, block_);
                for (std::size_t i = 0; i < rows; ++i) {
                    const double ri = residual(law_, data.data.target[begin + i], predicted[i]);
                    if (!std::isfinite(ri)) return false;
                    r(static_cast<Eigen::Index>(at + i)) = ri;
                    // dr/dθ = −dŷ/dθ (linear) or −dŷ/dθ / ŷ (log)
                    block_.weights[i] = log ? -1.0 / predicted[i] : -1.0;
                }
                if (J) {
                    lawBackwardBlock(law_.expression, block_.weights.data(), rows, block_.values.data(), block_.aux.data(), block_.adjoint.data(),
                                     std::span<double>(gradient_.data(), k), block_.perRun.data());
                    for (std::size_t m = 0; m < slots_.size(); ++m)
                        if (slots_[m].group < 0 || static_cast<std::size_t>(slots_[m].group) == g)
                            for (std::size_t i = 0; i < rows; ++i)
                                (*J)(static_cast<Eigen::Index>(at + i), static_cast<Eigen::Index>(m)) = block_.perRun[slots_[m].parameter * rows + i];
                }
                at += rows;
            }
        }
        return !J || J->allFinite();
    }

private:
    // c = lower + c', c' ≥ 0 from NNLS on B c' = y − rest − B·lower, B the terms' bases.
    void solveLinear(std::vector<double>& p, const Prepared& data) {
        const std::size_t n = data.size(), m = terms_.size();
        for (const auto& t : terms_) p[static_cast<std::size_t>(t.parameter)] = 0;
        Eigen::MatrixXd B(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(m));
        Eigen::VectorXd y(static_cast<Eigen::Index>(n));
        for (std::size_t begin = 0; begin < n; begin += kLawBlock) {
            const std::size_t rows = std::min(kLawBlock, n - begin);
            const double* rest = forwardBlock(law_, data, p, begin, rows, block_);
            for (std::size_t i = 0; i < rows; ++i) {
                double shifted = data.data.target[begin + i] - rest[i];
                for (std::size_t j = 0; j < m; ++j) {
                    const auto& t = terms_[j];
                    double basis = t.basis < 0 ? 1.0 : block_.values[static_cast<std::size_t>(t.basis) * rows + i];
                    if (t.divides) basis = 1.0 / basis;
                    basis *= t.sign;
                    B(static_cast<Eigen::Index>(begin + i), static_cast<Eigen::Index>(j)) = basis;
                    shifted -= law_.lower[static_cast<std::size_t>(t.parameter)] * basis;
                }
                y(static_cast<Eigen::Index>(begin + i)) = shifted;
            }
        }
        if (!B.allFinite() || !y.allFinite()) {
            for (const auto& t : terms_) p[static_cast<std::size_t>(t.parameter)] = std::numeric_limits<double>::quiet_NaN();
            return;
        }
        const NnlsResult solved = solveNnls(B, y);
        for (std::size_t j = 0; j < m; ++j) {
            const auto k = static_cast<std::size_t>(terms_[j].parameter);
            p[k] = std::min(law_.lower[k] + solved.x(static_cast<Eigen::Index>(j)), law_.upper[k]);
        }
    }

    const CompiledLaw& law_;
    std::vector<const Prepared*> groups_;
    std::vector<CompiledLaw::LinearTerm> terms_;
    std::vector<Slot> slots_;
    std::vector<double> gradient_;
    BlockScratch block_;
};

// dlib's stop strategy with a relative threshold: the objective's scale varies by orders of
// magnitude between laws and losses (a Huber objective near its optimum is ~1e-6), so an absolute
// one would stop some fits at once and polish others for ever.
struct StopState {
    int iterations = 0;
    bool hitCap = false;
};
class RelativeStop {
public:
    RelativeStop(double relative, int maxIterations, StopState& state) : relative_(relative), max_(maxIterations), state_(&state) {}
    template <typename T>
    bool should_continue_search(const T&, const double value, const T&) {
        if (!std::isfinite(value)) return false;
        if (state_->iterations >= max_) {
            state_->hitCap = true;
            return false;
        }
        ++state_->iterations;
        if (first_) {
            first_ = false;
            previous_ = value;
            return true;
        }
        const bool keepGoing = std::abs(value - previous_) > relative_ * std::max(std::abs(value), 1e-300);
        previous_ = value;
        return keepGoing;
    }

private:
    double relative_;
    int max_;
    StopState* state_;
    bool first_ = true;
    double previous_ = 0;
};

struct StartRun {
    std::size_t index = 0;
    GroupParams params;
    double objective = kInf;  // summed over the groups
    int iterations = 0;
    bool converged = false;
};

// What every start of one fit shares: the law, the groups' prepared runs, which parameters are shared.
struct Fit {
    const CompiledLaw& law;
    std::vector<const Prepared*> groups;
    std::vector<char> shared;
    bool projected;
};

StartRun runFrom(const Fit& fit, const GroupParams& start, double stopDelta, int maxIterations) {
    using Vector = dlib::matrix<double, 0, 1>;
    const CompiledLaw& law = fit.law;
    Problem problem(law, fit.groups, fit.shared, fit.projected);
    const auto& slots = problem.slots();
    const long dim = static_cast<long>(slots.size());
    StartRun out;
    GroupParams base = start;
    for (auto& pg : base)
        for (std::size_t j = 0; j < pg.size(); ++j) pg[j] = std::clamp(pg[j], law.lower[j], law.upper[j]);
    auto finish = [&](std::span<const double> x) {
        out.params = problem.complete(x, base);
        out.objective = problem.evaluate(x, base, nullptr);
        if (!std::isfinite(out.objective)) out.objective = kInf;
    };
    if (dim == 0) {
        finish({});
        out.converged = std::isfinite(out.objective);
        return out;
    }
    Vector x(dim), lower(dim), upper(dim);
    const auto x0 = problem.at(base);
    for (long m = 0; m < dim; ++m) {
        const std::size_t j = slots[static_cast<std::size_t>(m)].parameter;
        lower(m) = law.lower[j];
        upper(m) = law.upper[j];
        x(m) = x0[static_cast<std::size_t>(m)];
    }
    std::vector<double> xs(static_cast<std::size_t>(dim)), g(static_cast<std::size_t>(dim));
    const double f0 = problem.evaluate(x0, base, nullptr);
    const double scale = std::isfinite(f0) && f0 > 0 ? 1.0 / f0 : 1.0;
    // The best point seen, kept in case the search leaves the finite range and dlib gives up.
    double bestValue = kInf;
    Vector bestX = x;
    Vector cachedX;
    double cachedValue = kInf;
    Vector cachedGradient(dim);
    auto evaluate = [&](const Vector& v) {
        if (cachedX.size() == v.size() && cachedX == v) return;
        for (long m = 0; m < dim; ++m) xs[static_cast<std::size_t>(m)] = v(m);
        const double f = problem.evaluate(xs, base, g.data());
        cachedX = v;
        cachedValue = std::isfinite(f) ? f * scale : kInf;
        for (long m = 0; m < dim; ++m) cachedGradient(m) = g[static_cast<std::size_t>(m)] * scale;
        if (cachedValue < bestValue) bestValue = cachedValue, bestX = v;
    };
    StopState state;
    RelativeStop stop(stopDelta, maxIterations, state);
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
            x, lower, upper);
    } catch (const dlib::error&) {
        finite = false;
    }
    evaluate(x);
    if (!(cachedValue <= bestValue)) x = bestX;
    finish(std::vector<double>(x.begin(), x.end()));
    out.iterations = state.iterations;
    out.converged = finite && !state.hitCap && std::isfinite(out.objective);
    return out;
}

// Levenberg–Marquardt on Σ r² over every free parameter (no projection), inside the box: the step
// solves (JᵀJ + λ·diag(JᵀJ)) δ = −Jᵀr on the parameters not held at a bound (Moré 1978's scaling,
// which makes the step independent of each parameter's units), projected onto the box; λ shrinks
// by 3 after a step that lowers the objective and grows by 4 after one that does not.
StartRun polishLeastSquares(const Fit& fit, const GroupParams& start, int maxIterations) {
    const CompiledLaw& law = fit.law;
    Problem problem(law, fit.groups, fit.shared, false);
    const auto& slots = problem.slots();
    const auto d = static_cast<Eigen::Index>(slots.size());
    StartRun out;
    out.params = start;
    GroupParams base = start;
    for (auto& pg : base)
        for (std::size_t j = 0; j < pg.size(); ++j) pg[j] = std::clamp(pg[j], law.lower[j], law.upper[j]);
    std::vector<double> x = problem.at(base);
    Eigen::VectorXd r, rTrial;
    Eigen::MatrixXd J;
    if (d == 0 || !problem.residuals(x, base, r, &J)) return out;
    double f = r.squaredNorm(), lambda = 1e-3;
    std::vector<double> trial(x.size());
    int it = 0;
    for (; it < maxIterations; ++it) {
        const Eigen::VectorXd g = J.transpose() * r;
        std::vector<Eigen::Index> free;
        for (Eigen::Index m = 0; m < d; ++m) {
            const std::size_t j = slots[static_cast<std::size_t>(m)].parameter;
            const double v = x[static_cast<std::size_t>(m)];
            if ((v <= law.lower[j] && g(m) > 0) || (v >= law.upper[j] && g(m) < 0)) continue;  // held at its bound
            free.push_back(m);
        }
        if (free.empty()) break;
        const auto nf = static_cast<Eigen::Index>(free.size());
        Eigen::MatrixXd Jf(J.rows(), nf);
        Eigen::VectorXd gf(nf);
        for (Eigen::Index q = 0; q < nf; ++q) Jf.col(q) = J.col(free[static_cast<std::size_t>(q)]), gf(q) = g(free[static_cast<std::size_t>(q)]);
        const Eigen::MatrixXd H = Jf.transpose() * Jf;
        Eigen::VectorXd diag = H.diagonal();
        for (auto& v : diag) v = std::max(v, 1e-300);
        bool improved = false;
        while (lambda < 1e16) {
            Eigen::MatrixXd A = H;
            A.diagonal() += lambda * diag;
            const Eigen::VectorXd delta = A.ldlt().solve(-gf);
            trial = x;
            for (Eigen::Index q = 0; q < nf; ++q) {
                const auto m = static_cast<std::size_t>(free[static_cast<std::size_t>(q)]);
                const std::size_t j = slots[m].parameter;
                trial[m] = std::clamp(x[m] + (std::isfinite(delta(q)) ? delta(q) : 0.0), law.lower[j], law.upper[j]);
            }
            if (problem.residuals(trial, base, rTrial, nullptr)) {
                const double ft = rTrial.squaredNorm();
                if (ft < f) {
                    const double gain = f - ft;
                    x = trial;
                    f = ft;
                    lambda = std::max(lambda / 3, 1e-12);
                    improved = gain > 1e-15 * f;
                    break;
                }
            }
            lambda *= 4;
        }
        if (!improved || !problem.residuals(x, base, r, &J)) break;
    }
    out.params = problem.complete(x, base);
    out.objective = problem.evaluate(x, base, nullptr);
    if (!std::isfinite(out.objective)) out.objective = kInf;
    out.iterations = it;
    out.converged = it < maxIterations;
    return out;
}

// Radical inverse of i in base b (the Halton sequence's coordinate).
double radicalInverse(std::uint64_t i, std::uint64_t b) {
    double f = 1, r = 0;
    while (i > 0) {
        f /= static_cast<double>(b);
        r += f * static_cast<double>(i % b);
        i /= b;
    }
    return r;
}

// Log-uniform over a positive range, uniform over one that reaches zero or below (as the benchmark's
// baseline_full_train.py draws its starts, Li et al. 2026).
bool logUniform(double lo, double hi) { return lo > 0 && hi > lo; }

// Points first … first + count − 1 of a Halton sequence shifted by a seeded random offset per axis
// (Cranley–Patterson rotation), log-uniform over a positive range, uniform over one reaching zero.
std::vector<std::vector<double>> haltonPoints(const CompiledLaw& law, std::uint64_t seed, int first, int count) {
    static constexpr std::uint64_t kPrimes[] = {2,  3,  5,  7,  11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
                                                59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131};
    const std::size_t k = law.parameterCount();
    SplitMix64 rng{seed};
    std::vector<double> shift(k);
    for (auto& v : shift) v = rng.uniform();
    std::vector<std::vector<double>> out;
    for (int i = first; i < first + count; ++i) {
        std::vector<double> p(k);
        for (std::size_t j = 0; j < k; ++j) {
            double u = radicalInverse(static_cast<std::uint64_t>(i), kPrimes[j % std::size(kPrimes)]) + shift[j];
            // Beyond 32 parameters the primes repeat: scramble those axes with a second rotation.
            if (j >= std::size(kPrimes)) u += static_cast<double>(j / std::size(kPrimes)) * 0.6180339887498949;
            u -= std::floor(u);
            const double lo = law.lower[j], hi = law.upper[j];
            p[j] = logUniform(lo, hi) ? std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))) : lo + u * (hi - lo);
        }
        out.push_back(std::move(p));
    }
    return out;
}

// Declared starts (the parameters' own, the others at the middle of their range), then the
// budget's Halton points.
std::vector<std::vector<double>> startingPoints(const CompiledLaw& law, const LawFitSettings& s) {
    const std::size_t k = law.parameterCount();
    auto middle = [&](std::size_t j) {
        const double lo = law.lower[j], hi = law.upper[j];
        return logUniform(lo, hi) ? std::sqrt(lo * hi) : 0.5 * (lo + hi);
    };
    std::vector<std::vector<double>> starts;
    const auto& params = law.definition.parameters;
    if (std::any_of(params.begin(), params.end(), [](const auto& p) { return p.start.has_value(); })) {
        std::vector<double> s0(k);
        for (std::size_t j = 0; j < k; ++j) s0[j] = params[j].start.value_or(middle(j));
        starts.push_back(s0);
    }
    for (auto& p : haltonPoints(law, s.seed, 1, std::max(s.starts, 0))) starts.push_back(std::move(p));
    if (starts.empty()) {
        std::vector<double> s0(k);
        for (std::size_t j = 0; j < k; ++j) s0[j] = middle(j);
        starts.push_back(s0);
    }
    return starts;
}

// Per moving value of a search over every parameter (Problem::slots, no projection), whether the
// runs leave it undetermined at `params`: its column of the residuals' Jacobian, in units of its
// range, below 1e-6 of the largest. All false where the Jacobian is not finite.
std::vector<char> undetermined(const Fit& fit, const GroupParams& params) {
    Problem problem(fit.law, fit.groups, fit.shared, false);
    const auto& slots = problem.slots();
    std::vector<char> out(slots.size(), 0);
    Eigen::VectorXd r;
    Eigen::MatrixXd J;
    if (slots.empty() || !problem.residuals(problem.at(params), params, r, &J)) return out;
    std::vector<double> size(slots.size());
    double largest = 0;
    for (std::size_t m = 0; m < slots.size(); ++m) {
        const std::size_t j = slots[m].parameter;
        const double width = fit.law.upper[j] - fit.law.lower[j];
        size[m] = J.col(static_cast<Eigen::Index>(m)).norm() * (std::isfinite(width) ? width : 1.0);
        largest = std::max(largest, size[m]);
    }
    for (std::size_t m = 0; m < slots.size(); ++m) out[m] = size[m] < 1e-6 * largest ? 1 : 0;
    return out;
}

// Why an optimum may not be the best (LawFitResult::doubt): a single start reached it, or it lies on
// a bound of the box (the law would go further outside it).
std::string optimumDoubt(std::size_t nearBest, std::size_t starts, const std::vector<std::string>& atBound) {
    std::string out;
    if (nearBest < 2)
        out = std::to_string(nearBest) + " of " + std::to_string(starts) + " starts reached this optimum: it may not be the best; raise --starts";
    if (!atBound.empty()) {
        std::string names;
        for (const auto& n : atBound) names += (names.empty() ? "" : ", ") + n;
        out += (out.empty() ? "" : "; ") + std::string("the optimum sits on a bound of ") + names + ": the law may fit better outside its ranges";
    }
    return out;
}

// The values the fit determines (free parameters; per group unless shared) against the runs.
void validate(const CompiledLaw& law, std::span<const LawData> groups, const std::vector<char>& shared) {
    std::size_t free = 0, runs = 0;
    for (std::size_t j = 0; j < law.parameterCount(); ++j)
        if (law.lower[j] < law.upper[j]) free += shared[j] ? 1 : groups.size();
    for (const auto& data : groups) {
        runs += data.size();
        for (std::size_t i = 0; i < data.size(); ++i) {
            const double y = data.target[i];
            if (!std::isfinite(y)) throw std::invalid_argument("run " + std::to_string(i) + ": the target is not a finite number");
            if (logSpace(law) && !(y > 0))
                throw std::invalid_argument("run " + std::to_string(i) + ": the target is " + std::to_string(y) +
                                            ", but a fit in log space needs positive values (use --space linear)");
        }
    }
    if (runs < std::max<std::size_t>(free, 1))
        throw std::invalid_argument("the law has " + std::to_string(free) + " free parameters but only " + std::to_string(runs) +
                                    " runs to fit them");
}

}  // namespace

std::vector<double> predictLaw(const CompiledLaw& law, const LawData& data, std::span<const double> params) {
    std::vector<double> out(data.size()), scratch;
    for (std::size_t i = 0; i < data.size(); ++i) out[i] = lawValue(law.expression, params, data.row(i), scratch);
    return out;
}

double lawObjective(const CompiledLaw& law, const LawData& data, std::span<const double> params) {
    BlockScratch scratch;
    return objectiveAndGradient(law, Prepared(law, data), params, nullptr, scratch);
}

double lawObjectiveGradient(const CompiledLaw& law, const LawData& data, std::span<const double> params, std::vector<double>& gradient) {
    BlockScratch scratch;
    gradient.assign(law.parameterCount(), 0.0);
    return objectiveAndGradient(law, Prepared(law, data), params, gradient.data(), scratch);
}

LawFitQuality assessLawFit(const CompiledLaw& law, const LawData& data, std::span<const double> params) {
    LawFitQuality q;
    q.n = data.size();
    for (std::size_t j = 0; j < law.parameterCount(); ++j) q.k += law.lower[j] < law.upper[j] ? 1 : 0;
    const auto predicted = predictLaw(law, data, params);
    double mean = 0;
    for (double y : data.target) mean += y / static_cast<double>(q.n);
    double ssTot = 0, ssRes = 0;
    for (std::size_t i = 0; i < q.n; ++i) {
        const double r = residual(law, data.target[i], predicted[i]);
        q.rss += r * r;
        ssRes += (data.target[i] - predicted[i]) * (data.target[i] - predicted[i]);
        ssTot += (data.target[i] - mean) * (data.target[i] - mean);
    }
    const double n = static_cast<double>(q.n);
    // Akaike (1974) and Schwarz (1978) for least squares with Gaussian errors: n ln(RSS/n) + penalty.
    const double fit = n * std::log(std::max(q.rss, 1e-300) / n);
    q.aic = fit + 2.0 * static_cast<double>(q.k);
    q.bic = fit + static_cast<double>(q.k) * std::log(n);
    q.r2 = ssTot > 0 ? 1 - ssRes / ssTot : std::numeric_limits<double>::quiet_NaN();
    q.rmse = q.n ? std::sqrt(ssRes / n) : 0;
    return q;
}

bool lawUsesProjection(const CompiledLaw& law, const LawFitSettings& settings) {
    return settings.projection && !law.linearTerms.empty() && law.definition.space == LawSpace::Linear &&
           law.definition.loss == LawLoss::Squared;
}

std::vector<LawFitResult> fitLawJoint(const CompiledLaw& law, std::span<const LawData> data, const std::vector<std::string>& sharedNames,
                                      const LawFitSettings& settings, const FitControl& control) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t k = law.parameterCount(), groups = data.size();
    if (groups == 0) throw std::invalid_argument("no group of runs to fit");
    if (settings.starts > 1000000) throw std::invalid_argument("at most 1000000 starts");
    std::vector<char> shared(k, 0);
    for (const auto& name : sharedNames) {
        bool found = false;
        for (std::size_t j = 0; j < k; ++j)
            if (law.parameterName(j) == name) shared[j] = 1, found = true;
        if (!found) throw std::invalid_argument("shared parameter '" + name + "' is not a parameter of the law");
    }
    const bool projected = lawUsesProjection(law, settings);
    validate(law, data, shared);
    std::vector<Prepared> prepared;
    prepared.reserve(groups);
    for (const auto& d : data) prepared.emplace_back(law, d);
    Fit fit{law, {}, shared, projected};
    for (const auto& p : prepared) fit.groups.push_back(&p);
    // Every group starts from the same point of the law's box.
    std::vector<GroupParams> points;
    for (auto& p : startingPoints(law, settings)) points.push_back(GroupParams(groups, p));

    // Rounds of `batch` starts (the declared ones in the first), each screened best first (in order
    // of their objective before any step, ties by index), until `agree` starts reach the best.
    std::vector<StartRun> runs(points.size());
    std::vector<char> ran(points.size(), 0);
    const double screenStop = std::max(settings.screenStop, settings.stopDelta);
    const std::size_t declared = points.size() - static_cast<std::size_t>(std::max(settings.starts, 0));
    const std::size_t batch = static_cast<std::size_t>(std::max(settings.batch, 1));
    const std::size_t agree = static_cast<std::size_t>(std::max(settings.agree, 1));
    std::size_t progressDone = 0;
    FitControl screening = control;
    if (control.progress)
        screening.progress = [&](std::size_t done, std::size_t) { control.progress(progressDone + done, points.size()); };
    auto byObjective = [](const StartRun* x, const StartRun* y) {
        return x->objective != y->objective ? x->objective < y->objective : x->index < y->index;
    };
    auto finished = [&] {
        std::vector<StartRun*> out;
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (ran[i]) out.push_back(&runs[i]);
        std::sort(out.begin(), out.end(), byObjective);
        return out;
    };
    // Refinement of the leaders not refined yet: to the tight stop, then (squared losses)
    // Levenberg–Marquardt, then L-BFGS once more where projection may lower it further.
    std::vector<char> refined(points.size(), 0);
    const bool polish = settings.polish && law.definition.loss == LawLoss::Squared;
    const std::size_t refineCount = static_cast<std::size_t>(std::max(settings.refineCount, 1));
    auto refineLeaders = [&] {
        if ((screenStop <= settings.stopDelta && !polish) || control.cancelled()) return;
        std::vector<StartRun*> leaders;
        for (StartRun* s : finished())
            if (leaders.size() < refineCount && std::isfinite(s->objective) && !refined[s->index]) leaders.push_back(s);
            else if (leaders.size() >= refineCount) break;
        parallelFor(leaders.size(), FitControl{control.threads, control.cancel, nullptr, nullptr}, [&](std::size_t n) {
            StartRun* s = leaders[n];
            auto keep = [&](const StartRun& better) {
                if (better.objective <= s->objective) {
                    s->params = better.params;
                    s->objective = better.objective;
                }
                s->iterations += better.iterations;
            };
            if (screenStop > settings.stopDelta) {
                StartRun tight = runFrom(fit, s->params, settings.stopDelta, settings.maxIterations);
                s->converged = s->converged && tight.converged;
                keep(tight);
            }
            if (polish && !projected) keep(polishLeastSquares(fit, s->params, settings.maxIterations));
            // Under projection the coefficients are exact for every θ: the polish (on every
            // parameter) is kept only where it finds a lower valley, not a rounding's worth lower.
            if (polish && projected) {
                StartRun lm = polishLeastSquares(fit, s->params, settings.maxIterations);
                if (lm.objective < s->objective * (1 - 1e-6)) {
                    keep(lm);
                    keep(runFrom(fit, s->params, settings.stopDelta, settings.maxIterations));
                }
            }
        });
        for (StartRun* s : leaders) refined[s->index] = 1;
    };
    // One round: the starts [begin, end) screened best first (in order of their objective before
    // any step, ties by index), then the leaders refined; the best objective after it.
    auto round = [&](std::size_t begin, std::size_t end) {
        std::vector<double> initial(end - begin, kInf);
        parallelFor(end - begin, FitControl{control.threads, control.cancel, nullptr, nullptr}, [&](std::size_t n) {
            Problem problem(law, fit.groups, shared, projected);
            GroupParams base = points[begin + n];
            for (auto& pg : base)
                for (std::size_t j = 0; j < k; ++j) pg[j] = std::clamp(pg[j], law.lower[j], law.upper[j]);
            initial[n] = problem.evaluate(problem.at(base), base, nullptr);
        });
        std::vector<std::size_t> order(end - begin);
        std::iota(order.begin(), order.end(), begin);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return initial[a - begin] < initial[b - begin]; });
        parallelFor(order.size(), screening, [&](std::size_t n) {
            const std::size_t i = order[n];
            runs[i] = runFrom(fit, points[i], screenStop, std::max(1, settings.maxIterations / 4));
            // Squared residuals searched on every parameter: each start also polished by
            // Levenberg–Marquardt (a basin L-BFGS crawls through, Gauss–Newton crosses in a few steps).
            if (polish && !projected && std::isfinite(runs[i].objective)) {
                StartRun lm = polishLeastSquares(fit, runs[i].params, settings.maxIterations);
                if (lm.objective < runs[i].objective) runs[i].params = lm.params, runs[i].objective = lm.objective;
            }
            runs[i].index = i;
            ran[i] = 1;
        });
        progressDone += end - begin;
        refineLeaders();
        double best = kInf;
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (ran[i]) best = std::min(best, runs[i].objective);
        return best;
    };
    std::size_t used = 0;  // space-filling starts run
    for (std::size_t begin = 0; begin < points.size() && !control.cancelled();) {
        const std::size_t end = begin == 0 ? std::min(points.size(), declared + batch) : std::min(points.size(), begin + batch);
        const double best = round(begin, end);
        used += end - std::max(begin, declared);
        begin = end;
        std::size_t reached = 0;
        for (std::size_t i = 0; i < end; ++i)
            if (ran[i] && std::isfinite(best) && runs[i].objective <= best * (1 + settings.spreadTolerance) + 1e-300) ++reached;
        if (reached >= agree) break;
    }
    // Parameters the runs do not determine at the best optimum (a saturated branch: a min/max at its
    // constant, a softplus far below zero, which zeroes their derivatives) stay where their start
    // put them, so that starts agree on an optimum that leaves a term of the law unused. While the
    // budget lasts, a round of starts keeps the determined values of the best and draws the others
    // afresh from the sequence (Halton points past the budget's), as long as such a round lowers the best.
    int drawn = std::max(settings.starts, 0);
    for (double previous = kInf; used < static_cast<std::size_t>(std::max(settings.starts, 0)) && !control.cancelled();) {
        const std::vector<StartRun*> sofar = finished();
        if (sofar.empty() || !std::isfinite(sofar.front()->objective)) break;
        const double best = sofar.front()->objective;
        if (!(best < previous * (1 - settings.spreadTolerance))) break;
        previous = best;
        const GroupParams optimum = sofar.front()->params;
        const std::vector<char> loose = undetermined(fit, optimum);
        if (std::find(loose.begin(), loose.end(), 1) == loose.end()) break;
        const int count = static_cast<int>(std::min(batch, static_cast<std::size_t>(settings.starts) - used));
        Problem problem(law, fit.groups, shared, false);
        const auto& slots = problem.slots();
        const std::size_t begin = points.size();
        for (const auto& fresh : haltonPoints(law, settings.seed, drawn + 1, count)) {
            GroupParams p = optimum;
            for (std::size_t m = 0; m < slots.size(); ++m) {
                if (!loose[m]) continue;
                for (std::size_t g = 0; g < p.size(); ++g)
                    if (slots[m].group < 0 || static_cast<std::size_t>(slots[m].group) == g) p[g][slots[m].parameter] = fresh[slots[m].parameter];
            }
            points.push_back(std::move(p));
        }
        drawn += count;
        used += static_cast<std::size_t>(count);
        runs.resize(points.size());
        ran.resize(points.size(), 0);
        refined.resize(points.size(), 0);
        round(begin, points.size());
    }
    std::vector<StartRun*> done = finished();

    LawFitResult common;
    common.projected = projected;
    if (projected)
        for (const auto& t : law.linearTerms)
            if (!shared[static_cast<std::size_t>(t.parameter)]) common.linearCoefficients.push_back(law.parameterName(static_cast<std::size_t>(t.parameter)));
    common.sharedParameters = sharedNames;
    common.cancelled = control.cancelled();
    common.nStarts = done.size();
    for (const auto* s : done) common.nConverged += s->converged ? 1 : 0;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<LawFitResult> results(groups, common);
    if (done.empty() || !std::isfinite(done.front()->objective)) {
        for (auto& r : results) {
            r.objective = kInf;
            r.jointObjective = kInf;
            r.params.assign(k, std::numeric_limits<double>::quiet_NaN());
            r.warnings.push_back(done.empty() ? "cancelled before any start finished"
                                              : "no start reached a finite objective (the law cannot be evaluated at these runs "
                                                "inside its bounds, or gives non-positive values in log space)");
            r.seconds = seconds;
        }
        return results;
    }
    const StartRun& best = *done.front();
    std::size_t nearBest = 0;
    for (const auto* s : done)
        if (s->objective <= best.objective * (1 + settings.spreadTolerance) + 1e-300) ++nearBest;
    for (std::size_t g = 0; g < groups; ++g) {
        LawFitResult& r = results[g];
        r.params = best.params[g];
        r.objective = groups == 1 ? best.objective : lawObjective(law, data[g], r.params);
        r.jointObjective = best.objective;
        r.iterations = best.iterations;
        r.nNearBest = nearBest;
        r.seconds = seconds;
        for (std::size_t n = 0; n < refineCount && n < done.size(); ++n)
            if (std::isfinite(done[n]->objective))
                r.optima.push_back({done[n]->params[g], groups == 1 ? done[n]->objective : lawObjective(law, data[g], done[n]->params[g])});
        if (r.cancelled) r.warnings.push_back("cancelled: " + std::to_string(r.nStarts) + " of " + std::to_string(points.size()) + " starts ran");
        std::vector<std::string> atBound;
        if (!best.converged) r.warnings.push_back("the best start did not converge within the iteration limit");
        for (std::size_t j = 0; j < k; ++j) {
            const double lo = law.lower[j], hi = law.upper[j], v = r.params[j];
            if (!(lo < hi)) continue;
            const double tol = 1e-6 * std::max({1.0, std::abs(lo), std::abs(hi)});
            if (v <= lo + tol || v >= hi - tol) {
                r.warnings.push_back(law.parameterName(j) + " = " + std::to_string(v) + " is at a bound of its range");
                atBound.push_back(law.parameterName(j));
            }
        }
        r.doubt = optimumDoubt(nearBest, done.size(), atBound);
        if (!r.doubt.empty()) r.warnings.push_back(r.doubt);
    }
    return results;
}

LawFitResult fitLaw(const CompiledLaw& law, const LawData& data, const LawFitSettings& settings, const FitControl& control) {
    return fitLawJoint(law, std::span<const LawData>(&data, 1), {}, settings, control).front();
}

LawFitResult fitLawFrom(const CompiledLaw& law, const LawData& data, std::span<const double> start, const LawFitSettings& settings) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool projected = lawUsesProjection(law, settings);
    const std::vector<char> none(law.parameterCount(), 0);
    validate(law, std::span<const LawData>(&data, 1), none);
    const Prepared prepared(law, data);
    const Fit fit{law, {&prepared}, none, projected};
    const StartRun run = runFrom(fit, GroupParams(1, std::vector<double>(start.begin(), start.end())), settings.stopDelta, settings.maxIterations);
    LawFitResult r;
    r.params = run.params.front();
    r.objective = run.objective;
    r.jointObjective = run.objective;
    r.projected = projected;
    r.nStarts = 1;
    r.nConverged = run.converged ? 1 : 0;
    r.nNearBest = 1;
    r.iterations = run.iterations;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

HeldOutScore scoreHeldOut(std::span<const double> observed, std::span<const double> predicted) {
    HeldOutScore s;
    s.n = observed.size();
    if (s.n == 0) return s;
    double mean = 0;
    for (double y : observed) mean += y / static_cast<double>(s.n);
    double ssRes = 0, ssTot = 0;
    for (std::size_t i = 0; i < s.n; ++i) {
        const double rel = std::abs(predicted[i] - observed[i]) / std::abs(observed[i]);
        s.mape += rel / static_cast<double>(s.n);
        s.maxRelError = std::max(s.maxRelError, rel);
        ssRes += (observed[i] - predicted[i]) * (observed[i] - predicted[i]);
        ssTot += (observed[i] - mean) * (observed[i] - mean);
    }
    s.r2 = ssTot > 0 ? 1 - ssRes / ssTot : std::numeric_limits<double>::quiet_NaN();
    return s;
}

std::vector<std::vector<double>> bootstrapLawFits(const CompiledLaw& law, const LawData& train, std::span<const double> best, int resamples,
                                                  std::uint64_t seed, const LawFitSettings& settings, const FitControl& control) {
    const std::size_t n = train.size();
    std::vector<std::vector<double>> fits(static_cast<std::size_t>(std::max(resamples, 0)));
    if (n == 0) return fits;
    parallelFor(fits.size(), control, [&](std::size_t b) {
        SplitMix64 rng = SplitMix64::stream(seed, b);
        std::vector<std::size_t> rows(n);
        for (auto& r : rows) r = rng.below(n);
        try {
            const LawFitResult refit = fitLawFrom(law, train.subset(rows), best, settings);
            if (std::isfinite(refit.objective)) fits[b] = refit.params;
        } catch (const std::invalid_argument&) {
            // a replicate with too few distinct runs: left out
        }
    });
    return fits;
}

LawIntervals lawPredictionIntervals(const CompiledLaw& law, const LawData& train, std::span<const double> best, const LawData& at,
                                    int resamples, std::uint64_t seed, double level, const LawFitSettings& settings,
                                    const FitControl& control) {
    LawIntervals out;
    const std::size_t m = at.size(), n = train.size();
    out.lower.assign(m, std::numeric_limits<double>::quiet_NaN());
    out.upper.assign(m, std::numeric_limits<double>::quiet_NaN());
    if (resamples <= 0 || n == 0 || m == 0) return out;
    // The full fit's residuals in its space: the noise a new run adds to the law's prediction.
    const auto fitted = predictLaw(law, train, best);
    std::vector<double> residuals;
    for (std::size_t i = 0; i < n; ++i)
        if (const double r = residual(law, train.target[i], fitted[i]); std::isfinite(r)) residuals.push_back(r);
    if (residuals.empty()) return out;
    const auto fits = bootstrapLawFits(law, train, best, resamples, seed, settings, control);
    std::vector<std::vector<double>> draws(fits.size());
    std::vector<char> ok(fits.size(), 0);
    for (std::size_t b = 0; b < fits.size(); ++b) {
        if (fits[b].empty()) continue;
        // Its own stream for the residuals, apart from the one that drew the rows.
        SplitMix64 rng = SplitMix64::stream(~seed, b);
        auto p = predictLaw(law, at, fits[b]);
        for (auto& v : p) {
            const double r = residuals[rng.below(residuals.size())];
            v = logSpace(law) ? v * std::exp(r) : v + r;
        }
        draws[b] = std::move(p);
        ok[b] = 1;
    }
    const double tail = (1 - level) / 2;
    std::vector<double> column;
    for (std::size_t i = 0; i < m; ++i) {
        column.clear();
        for (std::size_t b = 0; b < draws.size(); ++b)
            if (ok[b] && std::isfinite(draws[b][i])) column.push_back(draws[b][i]);
        if (column.empty()) continue;
        std::sort(column.begin(), column.end());
        auto quantile = [&](double q) {
            const double pos = q * static_cast<double>(column.size() - 1);
            const auto lo = static_cast<std::size_t>(std::floor(pos));
            const auto hi = std::min(lo + 1, column.size() - 1);
            return column[lo] + (pos - static_cast<double>(lo)) * (column[hi] - column[lo]);
        };
        out.lower[i] = quantile(tail);
        out.upper[i] = quantile(1 - tail);
    }
    out.resamples = static_cast<int>(std::count(ok.begin(), ok.end(), 1));
    return out;
}

}  // namespace scalex::fit
