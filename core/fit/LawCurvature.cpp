#include "core/fit/LawCurvature.h"

#include <algorithm>
#include <cmath>

namespace scalex::fit {

Eigen::MatrixXd lawJacobian(const CompiledLaw& law, const LawData& data, std::span<const double> params, const std::vector<std::size_t>& free) {
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

std::vector<std::size_t> freeLawParameters(const CompiledLaw& law) {
    std::vector<std::size_t> free;
    for (std::size_t j = 0; j < law.parameterCount(); ++j)
        if (law.lower[j] < law.upper[j]) free.push_back(j);
    return free;
}

Eigen::MatrixXd inverseLawInformation(const Eigen::MatrixXd& info) {
    const Eigen::Index p = info.rows();
    Eigen::VectorXd s(p);
    for (Eigen::Index k = 0; k < p; ++k) s(k) = info(k, k) > 0 ? 1 / std::sqrt(info(k, k)) : 1.0;
    Eigen::MatrixXd scaled = s.asDiagonal() * info * s.asDiagonal();
    scaled.diagonal().array() += 1e-6;
    const Eigen::MatrixXd inv = scaled.ldlt().solve(Eigen::MatrixXd::Identity(p, p));
    return s.asDiagonal() * inv * s.asDiagonal();
}

double lawResidualVariance(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, std::size_t k) {
    const auto q = assessLawFit(law, fitted, params);
    const double dof = q.n > k ? static_cast<double>(q.n - k) : 1.0;
    return std::max(q.rss / dof, 1e-12);
}

}  // namespace scalex::fit
