#pragma once
// The curvature of a law's fit at its optimum, the Gauss-Newton linearisation: J the runs'
// Jacobian (∂ prediction / ∂ free parameter in the law's space: ∂ ln ŷ in log space), σ² the
// residual variance, the parameters' covariance σ² (JᵀJ)⁻¹. Shared by the run design (RunDesign.h)
// and the curvature intervals of queries (LawQuery.h). Internal to core/fit: it speaks Eigen.
#include <Eigen/Dense>

#include <cstddef>
#include <span>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"

namespace scalex::fit {

// The parameters with lower < upper (the others are held).
std::vector<std::size_t> freeLawParameters(const CompiledLaw& law);
// Rows of ∂ prediction / ∂ free parameter at each run of `data`; a row the law cannot take (a
// non-positive prediction in log space) is zero.
Eigen::MatrixXd lawJacobian(const CompiledLaw& law, const LawData& data, std::span<const double> params, const std::vector<std::size_t>& free);
// (JᵀJ)⁻¹ with JᵀJ scaled to unit diagonal and a ridge of 1e-6, so parameters the runs do not
// determine count as very uncertain rather than making the inverse fail.
Eigen::MatrixXd inverseLawInformation(const Eigen::MatrixXd& info);
// RSS / (n − k) in the law's space, floored at 1e-12.
double lawResidualVariance(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, std::size_t k);

}  // namespace scalex::fit
