#pragma once
// Which run to train next: the V-optimal criterion of experimental design (Kiefer & Wolfowitz
// 1959; Atkinson, Donev & Tobias 2007, ch. 10) on the law's linearisation at its fit.
//
// Why a linearisation and not the bootstrap: the planner scores every candidate at every step;
// the Gauss-Newton approximation gives the exact change of the posterior covariance when one run
// is added in closed form (Sherman-Morrison), with the law's exact gradient, so a step costs one
// p×p inverse plus a matrix product per candidate instead of hundreds of refits. Near the optimum
// of a least-squares fit it is the curvature the bootstrap estimates.
//
// With J the runs' Jacobian (∂ prediction / ∂ parameter, in the law's space: ∂ ln ŷ in log space)
// and σ² the residual variance, the parameters' covariance is Σ = σ² (JᵀJ)⁻¹ and the target's
// predictive variance V = trace(J_t Σ J_tᵀ) over the target's points. Adding a run with gradient
// j lowers it by σ² ‖J_t A j‖² / (1 + jᵀ A j), A = (JᵀJ)⁻¹. The ranking divides that by the run's
// cost. JᵀJ is scaled to unit diagonal and given a small ridge (1e-6), so parameters the runs do
// not yet determine count as very uncertain rather than making the inverse fail.
#include <cstddef>
#include <span>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"

namespace scalex::fit {

struct DesignScores {
    double sigma2 = 0;          // residual variance in the law's space (RSS / (n − k), floored)
    double targetVariance = 0;  // Σ over the target's points of the prediction's variance, now
    // Per candidate: how much a run there would lower targetVariance, and per unit of its cost.
    std::vector<double> reduction, perCost;
    // Per target point: the prediction's standard deviation now (in the law's space).
    std::vector<double> targetSd;
};

// The scores of `candidates` (their targets are not read) for lowering the predictive variance of
// the law at `targets` (targets not read either), with the law fitted to `fitted` at `params`.
// `costs` has one positive cost per candidate. Parameters with lower == upper are held.
DesignScores scoreCandidates(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                             std::span<const double> costs, const LawData& targets);

// The same after adding the runs `picked` (indices into candidates) to the fitted runs: what a
// batch leaves (the predictive variance and each target's standard deviation after it). With
// `costs`, also every candidate's score on top of the batch (the next greedy pick).
DesignScores scoreAfter(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                        std::span<const std::size_t> picked, const LawData& targets, std::span<const double> costs = {});

}  // namespace scalex::fit
