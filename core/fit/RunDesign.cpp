#include "core/fit/RunDesign.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace scalex::fit {

namespace {

// Rows of ∂ prediction / ∂ free parameter in the law's space; `free` lists the free parameters.
Eigen::MatrixXd jacobian(const CompiledLaw& law, const LawData& data, std::span<const double> params, const std::vector<std::size_t>& free) {
    const std::size_t p = law.parameterCount();
    Eigen::MatrixXd J(static_cast<Eigen::Index>(data.size()), static_cast<Eigen::Index>(free.size()));
    std::vector<double> gradient(p), scratch;
    for (std::size_t i = 0; i < data.size(); ++i) {
        std::fill(gradient.begin(), gradient.end(), 0.0);
        const double y = lawValueAndGradient(law.expression, params, data.row(i), 1.0, gradient, scratch);
        // ∂ ln ŷ = ∂ŷ / ŷ; a non-positive prediction has no log: its row says nothing.
        const double scale = law.definition.space == LawSpace::Log ? (y > 0 ? 1 / y : 0.0) : 1.0;
        for (std::size_t k = 0; k < free.size(); ++k) {
            const double g = gradient[free[k]] * scale;
            J(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = std::isfinite(g) ? g : 0.0;
        }
    }
    return J;
}

std::vector<std::size_t> freeParameters(const CompiledLaw& law) {
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < law.parameterCount(); ++j)
        if (law.lower[j] < law.upper[j]) free.push_back(j);
    return free;
}

// A = (JᵀJ)⁻¹, with JᵀJ scaled to unit diagonal and a ridge (see the header).
Eigen::MatrixXd inverseInformation(const Eigen::MatrixXd& info) {
    const Eigen::Index p = info.rows();
    Eigen::VectorXd s(p);
    for (Eigen::Index k = 0; k < p; ++k) s(k) = info(k, k) > 0 ? 1 / std::sqrt(info(k, k)) : 1.0;
    Eigen::MatrixXd scaled = s.asDiagonal() * info * s.asDiagonal();
    scaled.diagonal().array() += 1e-6;
    const Eigen::MatrixXd inv = scaled.ldlt().solve(Eigen::MatrixXd::Identity(p, p));
    return s.asDiagonal() * inv * s.asDiagonal();
}

double residualVariance(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, std::size_t k) {
    const auto q = assessLawFit(law, fitted, params);
    const double dof = q.n > k ? static_cast<double>(q.n - k) : 1.0;
    return std::max(q.rss / dof, 1e-12);
}

DesignScores scoreWith(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                       std::span<const double> costs, std::span<const std::size_t> picked, const LawData& targets) {
    const auto free = freeParameters(law);
    DesignScores out;
    out.sigma2 = residualVariance(law, fitted, params, free.size());
    const Eigen::MatrixXd J = jacobian(law, fitted, params, free);
    const Eigen::MatrixXd Jc = jacobian(law, candidates, params, free);
    const Eigen::MatrixXd Jt = jacobian(law, targets, params, free);
    Eigen::MatrixXd info = J.transpose() * J;
    for (std::size_t i : picked) info += Jc.row(static_cast<Eigen::Index>(i)).transpose() * Jc.row(static_cast<Eigen::Index>(i));
    const Eigen::MatrixXd A = inverseInformation(info);
    const Eigen::MatrixXd JtA = Jt * A;
    out.targetVariance = out.sigma2 * (JtA.array() * Jt.array()).sum();
    for (Eigen::Index t = 0; t < Jt.rows(); ++t) out.targetSd.push_back(std::sqrt(std::max(0.0, out.sigma2 * JtA.row(t).dot(Jt.row(t)))));
    if (costs.empty()) return out;
    // Sherman-Morrison: the drop of trace(Jt A Jtᵀ) when row j joins J is ‖Jt A j‖² / (1 + jᵀ A j).
    const Eigen::MatrixXd Aj = A * Jc.transpose();  // p × candidates
    const Eigen::MatrixXd JtAj = Jt * Aj;           // targets × candidates
    for (Eigen::Index c = 0; c < Jc.rows(); ++c) {
        const double lever = Jc.row(c).dot(Aj.col(c));
        const double drop = out.sigma2 * JtAj.col(c).squaredNorm() / (1 + std::max(0.0, lever));
        const double cost = costs[static_cast<std::size_t>(c)];
        out.reduction.push_back(drop);
        out.perCost.push_back(cost > 0 ? drop / cost : 0.0);
    }
    return out;
}

}  // namespace

DesignScores scoreCandidates(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                             std::span<const double> costs, const LawData& targets) {
    return scoreWith(law, fitted, params, candidates, costs, {}, targets);
}

DesignScores scoreAfter(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                        std::span<const std::size_t> picked, const LawData& targets, std::span<const double> costs) {
    return scoreWith(law, fitted, params, candidates, costs, picked, targets);
}

}  // namespace scalex::fit
