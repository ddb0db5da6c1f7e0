#include "core/fit/PowerLaw.h"

#include <Eigen/Dense>
#include <cmath>

namespace scalex::fit {

double PowerLaw::operator()(double x) const { return coefficient * std::pow(x, exponent); }
double PowerLaw::inverse(double y) const { return std::pow(y / coefficient, 1.0 / exponent); }

std::optional<PowerLaw> fitPowerLaw(std::span<const double> x, std::span<const double> y, std::string* error) {
    auto fail = [&](const char* why) -> std::optional<PowerLaw> {
        if (error) *error = why;
        return std::nullopt;
    };
    if (x.size() != y.size()) return fail("x and y differ in length");
    if (x.size() < 2) return fail("a power law needs at least two points");
    const Eigen::Index n = static_cast<Eigen::Index>(x.size());
    Eigen::MatrixXd design(n, 2);
    Eigen::VectorXd target(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        if (!(x[i] > 0) || !(y[i] > 0) || !std::isfinite(x[i]) || !std::isfinite(y[i]))
            return fail("power-law points must be positive and finite");
        design(i, 0) = 1.0;
        design(i, 1) = std::log(x[i]);
        target(i) = std::log(y[i]);
    }
    if ((design.col(1).array() - design(0, 1)).abs().maxCoeff() == 0) return fail("all x are equal");
    const Eigen::Vector2d beta = design.colPivHouseholderQr().solve(target);
    const Eigen::VectorXd residual = target - design * beta;
    const double ssRes = residual.squaredNorm();
    const double ssTot = (target.array() - target.mean()).square().sum();
    PowerLaw law;
    law.coefficient = std::exp(beta(0));
    law.exponent = beta(1);
    law.r2 = ssTot > 0 ? 1.0 - ssRes / ssTot : 1.0;
    law.rmseLog = std::sqrt(ssRes / static_cast<double>(n));
    law.nPoints = static_cast<int>(n);
    return law;
}

}  // namespace scalex::fit
