#include "core/fit/RunDesign.h"

#include "core/fit/LawCurvature.h"

#include <stdexcept>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace scalex::fit {

namespace {

// Where the runs lie for the misfit's correlation: each variable in decades (log10) where all its
// values are positive, else as it is.
struct Coordinates {
    std::vector<char> logScale;
    explicit Coordinates(std::initializer_list<const LawData*> sets) {
        std::size_t v = 0;
        for (const LawData* d : sets) v = std::max(v, d->variableCount);
        logScale.assign(v, 1);
        for (const LawData* d : sets)
            for (std::size_t i = 0; i < d->size(); ++i)
                for (std::size_t k = 0; k < d->variableCount; ++k)
                    if (!(d->row(i)[k] > 0)) logScale[k] = 0;
    }
    Eigen::MatrixXd of(const LawData& d) const {
        Eigen::MatrixXd z(static_cast<Eigen::Index>(d.size()), static_cast<Eigen::Index>(logScale.size()));
        for (std::size_t i = 0; i < d.size(); ++i)
            for (std::size_t k = 0; k < logScale.size(); ++k) {
                const double x = k < d.variableCount ? d.row(i)[k] : 0.0;
                z(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = logScale[k] ? std::log10(x) : x;
            }
        return z;
    }
};

// The misfit's correlation between runs a and b: exp(−‖a − b‖² / 2ℓ²).
Eigen::MatrixXd correlation(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double length) {
    Eigen::MatrixXd k(a.rows(), b.rows());
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < b.rows(); ++j) k(i, j) = std::exp(-(a.row(i) - b.row(j)).squaredNorm() / (2 * length * length));
    return k;
}

// Per target, the expected squared error of the law's least-squares prediction, in units of σ², given
// runs at J (gradients) and Z (where): y = Jθ + δ + ε, θ̂ = A Jᵀ y with A = (JᵀJ)⁻¹, so the error at
// t is hₜᵀ(δ + ε) − δₜ with hₜ = J A jₜ, and its mean square hₜᵀ(τ²C + σ²I)hₜ − 2τ² hₜᵀcₜ + τ²
// (C, cₜ the misfit's correlations among the runs and with t). With no misfit (τ = 0) it is the
// linearisation's variance jₜᵀ A jₜ; with one, a run far from the target can add more misfit than
// it removes noise, and a cluster of runs counts as one. The parameters' bounds are a prior
// (uniform: variance (hi − lo)²/12; `prior` its precision in units of 1/σ², added to JᵀJ, and its
// share jₜᵀAΛAjₜ of the error), so a parameter the runs leave undetermined counts as uncertain
// as its range, not as infinitely so.
Eigen::VectorXd predictiveVariance(const Eigen::MatrixXd& J, const Eigen::MatrixXd& Z, const Eigen::MatrixXd& Jt, const Eigen::MatrixXd& Zt,
                                   const Eigen::VectorXd& prior, const DesignModel& model) {
    const double r2 = model.misfit.value_or(0) * model.misfit.value_or(0);
    const Eigen::MatrixXd A = inverseLawInformation(J.transpose() * J + Eigen::MatrixXd(prior.asDiagonal()));
    const Eigen::MatrixXd AJt = A * Jt.transpose();
    const Eigen::MatrixXd H = J * AJt;  // runs × targets
    Eigen::VectorXd v = H.colwise().squaredNorm().transpose() + (AJt.array().square().colwise() * prior.array()).colwise().sum().transpose().matrix();
    if (r2 > 0) {
        const Eigen::MatrixXd C = correlation(Z, Z, model.lengthScale), Ct = correlation(Z, Zt, model.lengthScale);
        const Eigen::MatrixXd CH = C * H;
        for (Eigen::Index t = 0; t < Jt.rows(); ++t) v(t) += r2 * (H.col(t).dot(CH.col(t)) - 2 * H.col(t).dot(Ct.col(t)) + 1);
    }
    return v.cwiseMax(0.0);
}

// The bounds as a uniform prior on the free parameters: precision 12σ²/(hi − lo)² in units of 1/σ².
Eigen::VectorXd boundsPrior(const CompiledLaw& law, const std::vector<std::size_t>& free, double sigma2) {
    Eigen::VectorXd prior(static_cast<Eigen::Index>(free.size()));
    for (std::size_t k = 0; k < free.size(); ++k) {
        const double range = law.upper[free[k]] - law.lower[free[k]];
        prior(static_cast<Eigen::Index>(k)) = std::isfinite(range) && range > 0 ? 12 * sigma2 / (range * range) : 0.0;
    }
    return prior;
}

// The law's residuals in its own space (log or linear), non-finite ones as 0.
Eigen::VectorXd lawResiduals(const CompiledLaw& law, const LawData& data, std::span<const double> params) {
    const std::vector<double> predicted = predictLaw(law, data, params);
    const bool log = law.definition.space == LawSpace::Log;
    Eigen::VectorXd e(static_cast<Eigen::Index>(data.size()));
    for (std::size_t i = 0; i < data.size(); ++i) {
        const double r = log ? std::log(data.target[i]) - std::log(predicted[i]) : data.target[i] - predicted[i];
        e(static_cast<Eigen::Index>(i)) = std::isfinite(r) ? r : 0.0;
    }
    return e;
}

}  // namespace

// The held-out runs' errors e against what the model expects of them: E[eᵀe] = σ²Σᵢ(1 + vᵢ) + τ²Σᵢmᵢ,
// vᵢ the linearisation's variance at run i from the others' fit and mᵢ the misfit's share of its
// error per unit τ² (predictiveVariance with τ = 1 less without), so τ² = (eᵀe/σ² − Σ(1 + vᵢ)) / Σmᵢ.
double extrapolationMisfit(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& targets,
                           double lengthScale, double noise) {
    const auto free = freeLawParameters(law);
    const std::size_t n = fitted.size(), k = free.size();
    const std::size_t heldOut = std::min(std::max<std::size_t>(n / kExtrapolationShare, 1), n > k + 1 ? n - (k + 1) : 0);
    if (heldOut == 0 || targets.size() == 0) return 0;
    const Coordinates where{&fitted, &targets};
    const Eigen::MatrixXd Z = where.of(fitted), Zt = where.of(targets);
    std::vector<double> distance(n);
    for (std::size_t i = 0; i < n; ++i)
        distance[i] = (Zt.rowwise() - Z.row(static_cast<Eigen::Index>(i))).rowwise().squaredNorm().minCoeff();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return distance[a] > distance[b]; });
    const double sigma2 = lawResidualVariance(law, fitted, params, k);
    if (!(sigma2 > 0)) return 0;
    const Eigen::VectorXd prior = boundsPrior(law, free, sigma2);
    // Each held-out run is predicted from the runs farther from the target than it (a rolling origin:
    // the law fitted up to a distance extrapolates one step closer). A step holds out one run, or a
    // block of neighbours in distance where more than kExtrapolationSteps runs are held out (so the
    // check costs at most that many refits however many runs there are).
    const std::size_t steps = std::min(heldOut, kExtrapolationSteps);
    double excess = 0, share = 0;
    for (std::size_t s = 0; s < steps; ++s) {
        const std::size_t begin = n - heldOut + heldOut * s / steps, end = n - heldOut + heldOut * (s + 1) / steps;
        const std::vector<std::size_t> trainRows(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(begin));
        const std::vector<std::size_t> heldRows(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(end));
        const LawData train = fitted.subset(trainRows), held = fitted.subset(heldRows);
        LawFitResult f;
        try {
            f = fitLawFrom(law, train, params);
        } catch (const std::invalid_argument&) {
            return 0;
        }
        if (!std::isfinite(f.objective)) return 0;
        const Eigen::VectorXd e = lawResiduals(law, held, f.params);
        const Eigen::MatrixXd J = lawJacobian(law, train, f.params, free), Jh = lawJacobian(law, held, f.params, free);
        const Eigen::MatrixXd Zr = where.of(train), Zh = where.of(held);
        const Eigen::VectorXd variance = predictiveVariance(J, Zr, Jh, Zh, prior, DesignModel{.misfit = 0});
        const Eigen::VectorXd withMisfit = predictiveVariance(J, Zr, Jh, Zh, prior, DesignModel{.misfit = 1, .lengthScale = lengthScale});
        excess += e.squaredNorm() / sigma2 - noise * (variance.sum() + static_cast<double>(held.size()));
        share += (withMisfit - variance).sum();
    }
    if (!(excess > 0) || !(share > 0)) return 0;
    return std::min(std::sqrt(excess / share), kMaxMisfit);
}

namespace {

// Per candidate, how much the target's summed expected squared error (predictiveVariance, in units
// of σ²) drops when one run is added at (g, z), for every candidate at once. Summed over the
// targets, predictiveVariance is a trace: with A = (JᵀJ + Λ)⁻¹ (inverseLawInformation), S = JₜᵀJₜ,
// Q = JᵀJ + Λ + r²JᵀCJ and B = JᵀCₜJₜ (r = τ/σ),
//     V = tr(A Q A S) − 2r² tr(A B) + r² T.
// A run at (g, z) changes them by low-rank terms: A' = A − aaᵀ/β (Sherman–Morrison, a = Ag,
// β = 1 + gᵀa), Q' = Q + (1 + r²)ggᵀ + r²(ugᵀ + guᵀ) with u = Jᵀc(z), B' = B + gwᵀ with
// w = Jₜᵀcₜ(z). So each candidate's V' takes O(k²) on top of a few products shared by all of them,
// instead of a new inverse and the n × n correlation products per candidate (the ridge of
// inverseLawInformation is the design's, not refreshed for the added row).
std::vector<double> candidateDrops(const Eigen::MatrixXd& J, const Eigen::MatrixXd& Z, const Eigen::MatrixXd& Jt, const Eigen::MatrixXd& Zt,
                                   const Eigen::MatrixXd& Jc, const Eigen::MatrixXd& Zc, const Eigen::VectorXd& prior, const DesignModel& model) {
    const double r2 = model.misfit.value_or(0) * model.misfit.value_or(0);
    const Eigen::Index k = J.cols();
    Eigen::MatrixXd Q = J.transpose() * J;
    Q.diagonal() += prior;
    const Eigen::MatrixXd A = inverseLawInformation(Q);
    const Eigen::MatrixXd S = Jt.transpose() * Jt;
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(k, k), U = Eigen::MatrixXd::Zero(Jc.rows(), k), W = Eigen::MatrixXd::Zero(Jc.rows(), k);
    if (r2 > 0) {
        Q += r2 * (J.transpose() * (correlation(Z, Z, model.lengthScale) * J));
        B = J.transpose() * (correlation(Z, Zt, model.lengthScale) * Jt);
        U = correlation(Zc, Z, model.lengthScale) * J;
        W = correlation(Zc, Zt, model.lengthScale) * Jt;
    }
    const Eigen::MatrixXd X = A * S * A;
    const double trQX = (Q.cwiseProduct(X)).sum(), trAB = (A.cwiseProduct(B.transpose())).sum();
    const double before = trQX - 2 * r2 * trAB + r2 * static_cast<double>(Jt.rows());
    std::vector<double> drops(static_cast<std::size_t>(Jc.rows()));
    Eigen::VectorXd g(k), a(k), x(k), Qa(k), Ba(k);
    for (Eigen::Index c = 0; c < Jc.rows(); ++c) {
        g = Jc.row(c).transpose();
        a.noalias() = A * g;
        x.noalias() = X * g;
        Qa.noalias() = Q * a;
        const double ga = g.dot(a), beta = 1 + ga, gXg = g.dot(x), shrink = gXg / (beta * beta);
        // Y = A'SA' = X − (axᵀ + xaᵀ)/β + shrink·aaᵀ; tr(Q'Y) = tr(QY) + (1 + r²)gᵀYg + 2r²uᵀYg.
        const double trQY = trQX - 2 / beta * Qa.dot(x) + shrink * a.dot(Qa);
        const double gYg = gXg - 2 / beta * ga * gXg + shrink * ga * ga;
        double after = trQY + gYg;
        if (r2 > 0) {
            const Eigen::VectorXd u = U.row(c).transpose(), w = W.row(c).transpose();
            Ba.noalias() = B * a;
            const double ua = u.dot(a), ux = u.dot(x), wa = w.dot(a);
            const double uYg = ux - (ua * gXg + ux * ga) / beta + shrink * ua * ga;
            const double trAB2 = trAB + wa - (a.dot(Ba) + ga * wa) / beta;
            after += r2 * gYg + 2 * r2 * uYg - 2 * r2 * trAB2 + r2 * static_cast<double>(Jt.rows());
        }
        drops[static_cast<std::size_t>(c)] = before - after;
    }
    return drops;
}

DesignScores scoreWith(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                       std::span<const double> costs, std::span<const std::size_t> picked, const LawData& targets, const DesignModel& model) {
    const auto free = freeLawParameters(law);
    DesignScores out;
    out.sigma2 = lawResidualVariance(law, fitted, params, free.size());
    const Coordinates where{&fitted, &candidates, &targets};
    const Eigen::MatrixXd Jc = lawJacobian(law, candidates, params, free), Zc = where.of(candidates);
    const Eigen::MatrixXd Jt = lawJacobian(law, targets, params, free), Zt = where.of(targets);
    // The design: the fitted runs and the batch so far, one spare row for the candidate scored.
    const Eigen::MatrixXd Jf = lawJacobian(law, fitted, params, free), Zf = where.of(fitted);
    const Eigen::VectorXd prior = boundsPrior(law, free, out.sigma2);
    DesignModel used = model;
    if (!used.misfit) used.misfit = misfitFor(law, fitted, params, targets, model.lengthScale);
    out.misfit = *used.misfit;
    const Eigen::Index n = Jf.rows() + static_cast<Eigen::Index>(picked.size());
    Eigen::MatrixXd J(n + 1, Jf.cols()), Z(n + 1, Zf.cols());
    J.topRows(Jf.rows()) = Jf, Z.topRows(Zf.rows()) = Zf;
    for (std::size_t k = 0; k < picked.size(); ++k) {
        const auto i = static_cast<Eigen::Index>(picked[k]);
        J.row(Jf.rows() + static_cast<Eigen::Index>(k)) = Jc.row(i), Z.row(Zf.rows() + static_cast<Eigen::Index>(k)) = Zc.row(i);
    }
    // The interval is the law's own (its linearisation); the ranking's error adds the misfit.
    const Eigen::VectorXd variance = predictiveVariance(J.topRows(n), Z.topRows(n), Jt, Zt, prior, DesignModel{.misfit = 0});
    const Eigen::VectorXd now = out.misfit > 0 ? predictiveVariance(J.topRows(n), Z.topRows(n), Jt, Zt, prior, used) : variance;
    out.targetVariance = out.sigma2 * variance.sum();
    out.targetError = out.sigma2 * now.sum();
    for (Eigen::Index t = 0; t < variance.size(); ++t) out.targetSd.push_back(std::sqrt(out.sigma2 * variance(t)));
    if (costs.empty()) return out;
    const std::vector<double> drops = candidateDrops(J.topRows(n), Z.topRows(n), Jt, Zt, Jc, Zc, prior, used);
    for (Eigen::Index c = 0; c < Jc.rows(); ++c) {
        const double drop = out.sigma2 * drops[static_cast<std::size_t>(c)];
        const double cost = costs[static_cast<std::size_t>(c)];
        out.reduction.push_back(drop);
        out.perCost.push_back(cost > 0 ? drop / cost : 0.0);
    }
    return out;
}

}  // namespace

namespace {

// REML's split of the residuals into misfit and noise: τ / σ and the noise's variance s² / σ².
struct MisfitSplit {
    double misfit = 0, noise = 1;
};

MisfitSplit remlSplit(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, double lengthScale) {
    const auto free = freeLawParameters(law);
    const auto n = static_cast<Eigen::Index>(fitted.size());
    const auto k = static_cast<Eigen::Index>(free.size());
    if (n <= k + 1) return {};
    const double sigma2 = lawResidualVariance(law, fitted, params, free.size());
    const Eigen::MatrixXd J = lawJacobian(law, fitted, params, free), Z = Coordinates{&fitted}.of(fitted);
    const Eigen::VectorXd e = lawResiduals(law, fitted, params);
    // The residuals in the directions the law's gradients leave free: w = Qᵀe.
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(J);
    const Eigen::MatrixXd Q = (qr.householderQ() * Eigen::MatrixXd::Identity(n, n)).rightCols(n - k);
    const Eigen::VectorXd w = Q.transpose() * e;
    const Eigen::MatrixXd QCQ = Q.transpose() * correlation(Z, Z, lengthScale) * Q;
    const auto dof = static_cast<double>(n - k);
    // K = ρ QᵀCQ + I shares QᵀCQ's eigenvectors: with QᵀCQ = VΛVᵀ, wᵀK⁻¹w = Σ (Vᵀw)ᵢ² / (ρλᵢ + 1) and
    // log det K = Σ log(ρλᵢ + 1), so the grid costs one eigendecomposition, not a factorisation per ρ.
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(QCQ);
    if (eigen.info() != Eigen::Success) return {};
    const Eigen::ArrayXd lambda = eigen.eigenvalues().array(), projected = (eigen.eigenvectors().transpose() * w).array().square();
    double best = -std::numeric_limits<double>::infinity(), ratio = 0, scale = sigma2;
    for (int g = -1; g <= kMisfitGrid; ++g) {
        const double rho = g < 0 ? 0.0 : std::pow(10.0, -2 + 6.0 * g / kMisfitGrid);  // τ²/s², 0 and 1e-2 … 1e4
        const Eigen::ArrayXd d = rho * lambda + 1;
        if (!(d.minCoeff() > 0)) continue;  // K not positive definite (as a failed Cholesky factorisation)
        const double s2 = std::max((projected / d).sum() / dof, 1e-300);
        const double logDet = d.log().sum();
        const double likelihood = -0.5 * (dof * std::log(s2) + logDet);
        if (likelihood > best) best = likelihood, ratio = rho, scale = s2;
    }
    return {std::min(std::sqrt(ratio * scale / sigma2), kMaxMisfit), scale / sigma2};
}

}  // namespace

double estimateMisfit(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, double lengthScale) {
    return remlSplit(law, fitted, params, lengthScale).misfit;
}

double misfitFor(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& targets, double lengthScale) {
    const MisfitSplit reml = remlSplit(law, fitted, params, lengthScale);
    return reml.misfit > 0 ? std::min(reml.misfit, extrapolationMisfit(law, fitted, params, targets, lengthScale, reml.noise)) : 0.0;
}

DesignScores scoreCandidates(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                             std::span<const double> costs, const LawData& targets, const DesignModel& model) {
    return scoreWith(law, fitted, params, candidates, costs, {}, targets, model);
}

DesignScores scoreAfter(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                        std::span<const std::size_t> picked, const LawData& targets, std::span<const double> costs, const DesignModel& model) {
    return scoreWith(law, fitted, params, candidates, costs, picked, targets, model);
}

}  // namespace scalex::fit

#include "core/fit/SplitMix64.h"

namespace scalex::fit {

std::vector<std::size_t> determiningRuns(const CompiledLaw& law, const LawData& runs, std::span<const std::size_t> order, int draws,
                                         std::uint64_t seed) {
    const auto free = freeLawParameters(law);
    const auto k = static_cast<Eigen::Index>(free.size());
    SplitMix64 rng{seed};
    std::vector<std::vector<double>> points;
    for (int d = 0; d < std::max(draws, 1); ++d) {
        std::vector<double> p(law.parameterCount());
        for (std::size_t j = 0; j < p.size(); ++j) {
            const double lo = law.lower[j], hi = law.upper[j], u = rng.uniform();
            p[j] = lo > 0 && hi > lo ? std::exp(std::log(lo) + u * std::log(hi / lo)) : lo + u * (hi - lo);
        }
        points.push_back(std::move(p));
    }
    // Per draw, the pool's Jacobian with each column scaled to unit norm over the pool (a term that is
    // negligible at a draw still counts by its direction), and an orthonormal basis of the kept rows
    // (Gram–Schmidt, twice for stability).
    std::vector<Eigen::MatrixXd> rows;
    for (const auto& p : points) {
        Eigen::MatrixXd J = lawJacobian(law, runs, p, free);
        for (Eigen::Index c = 0; c < k; ++c)
            if (const double norm = J.col(c).norm(); norm > 0) J.col(c) /= norm;
        rows.push_back(std::move(J));
    }
    std::vector<Eigen::MatrixXd> basis(points.size(), Eigen::MatrixXd(k, 0));
    std::vector<std::size_t> kept;
    for (std::size_t i : order) {
        bool adds = false;
        std::vector<Eigen::VectorXd> residuals(points.size());
        for (std::size_t d = 0; d < points.size(); ++d) {
            if (basis[d].cols() == k) continue;
            Eigen::VectorXd r = rows[d].row(static_cast<Eigen::Index>(i)).transpose();
            const double norm = r.norm();
            for (int pass = 0; pass < 2; ++pass) r -= basis[d] * (basis[d].transpose() * r);
            if (norm > 0 && r.norm() > 1e-6 * norm) residuals[d] = r / r.norm(), adds = true;
        }
        if (!adds) continue;
        kept.push_back(i);
        for (std::size_t d = 0; d < points.size(); ++d)
            if (residuals[d].size() > 0) {
                basis[d].conservativeResize(Eigen::NoChange, basis[d].cols() + 1);
                basis[d].col(basis[d].cols() - 1) = residuals[d];
            }
        if (std::all_of(basis.begin(), basis.end(), [&](const Eigen::MatrixXd& b) { return b.cols() == k; })) break;
    }
    return kept;
}

}  // namespace scalex::fit
