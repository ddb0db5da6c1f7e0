#include "core/fit/RunDesign.h"

#include "core/fit/LawCurvature.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace scalex::fit {

namespace {

DesignScores scoreWith(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                       std::span<const double> costs, std::span<const std::size_t> picked, const LawData& targets) {
    const auto free = freeLawParameters(law);
    DesignScores out;
    out.sigma2 = lawResidualVariance(law, fitted, params, free.size());
    const Eigen::MatrixXd J = lawJacobian(law, fitted, params, free);
    const Eigen::MatrixXd Jc = lawJacobian(law, candidates, params, free);
    const Eigen::MatrixXd Jt = lawJacobian(law, targets, params, free);
    Eigen::MatrixXd info = J.transpose() * J;
    for (std::size_t i : picked) info += Jc.row(static_cast<Eigen::Index>(i)).transpose() * Jc.row(static_cast<Eigen::Index>(i));
    const Eigen::MatrixXd A = inverseLawInformation(info);
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
