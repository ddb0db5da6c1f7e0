#pragma once
// Which run to train next: the V-optimal criterion of experimental design (Kiefer & Wolfowitz
// 1959; Atkinson, Donev & Tobias 2007, ch. 10) on the law's linearisation at its fit.
//
// Why a linearisation and not the bootstrap: the planner scores every candidate at every step;
// the Gauss-Newton approximation gives the prediction's error with one more run in closed form,
// with the law's exact gradient, so a step costs a few small matrix products per candidate
// instead of hundreds of refits. Near the optimum of a least-squares fit it is the curvature the
// bootstrap estimates.
//
// With J the runs' Jacobian (∂ prediction / ∂ parameter, in the law's space: ∂ ln ŷ in log space)
// and σ² the residual variance, the parameters' covariance is Σ = σ² (JᵀJ)⁻¹ and the target's
// predictive variance V = trace(J_t Σ J_tᵀ) over the target's points; DesignModel below adds the
// law's misfit to it. A candidate's score is how much V drops with it among the runs, and that
// per unit of its cost. JᵀJ is scaled to unit diagonal and given a small ridge (1e-6), so parameters the runs do
// not yet determine count as very uncertain rather than making the inverse fail.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"

namespace scalex::fit {

// What the ranking assumes beyond the law: a smooth misfit δ(x) of standard deviation τ, correlated
// as exp(−‖x − x'‖² / 2ℓ²) over the law's variables in decades (Kennedy & O'Hagan 2001), on top of
// the residual noise σ. The ranking scores the expected squared error of the law's least-squares
// prediction at the target: runs close to the target (in N and D) count for more, runs clustered
// together for less, and a run far from the target can make the prediction worse (its drop is
// negative). By default τ is estimated from the fitted runs (misfitFor: how alike their residuals
// are between neighbours, bounded by how badly the law fitted away from the target predicts the runs
// nearest it); misfit = 0 is the plain V-optimal criterion of the law's linearisation.
struct DesignModel {
    std::optional<double> misfit;  // τ / σ; none: estimated from the fitted runs (misfitFor)
    double lengthScale = 1;        // ℓ in decades of each variable (its own units where it is not positive)
};

// τ / σ from the fitted runs' residuals by restricted maximum likelihood (Patterson & Thompson
// 1971): in the directions the law's gradients leave free (w = Qᵀe, QᵀJ = 0, so the fit's own
// parameters drop out), the residuals are modelled as s²Qᵀ(ρC + I)Q, C the misfit's correlation at
// `lengthScale`; s² is profiled out and ρ = τ²/s² taken from a grid (0 and 1e-2 … 1e4). A misfit
// shows there as residuals that are alike between runs close in N and D, noise as residuals that
// are not: independent scatter gives 0, a law bending away from the runs a large τ. Capped at
// kMaxMisfit; 0 with fewer than k + 2 runs.
inline constexpr double kMaxMisfit = 100;
inline constexpr int kMisfitGrid = 40;
double estimateMisfit(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, double lengthScale = DesignModel{}.lengthScale);

// τ / σ from how badly the law extrapolates toward the target: the quarter of the fitted runs
// nearest the target (in decades; at least one, leaving k + 1 runs to fit) is held out, each
// predicted by the law refitted (from `params`) on the runs farther from the target than it (a
// rolling origin; in at most kExtrapolationSteps blocks of neighbouring runs), and the held-out runs' squared errors compared with what
// noise and the refit's own uncertainty explain (the linearisation's variance there), the noise's
// variance being `noise` × σ² (σ² the fit's residual variance, which also holds whatever misfit the
// fit absorbed; misfitFor passes REML's share of it that is noise); the excess, divided by what a
// misfit of τ = σ would add to those errors under the misfit's correlation at `lengthScale`, is
// (τ/σ)². 0 when the held-out runs are predicted within the noise. Capped at kMaxMisfit.
inline constexpr std::size_t kExtrapolationShare = 4;  // 1/4 of the runs held out
inline constexpr std::size_t kExtrapolationSteps = 8;  // refits at most: beyond, the held-out runs go in blocks
double extrapolationMisfit(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& targets,
                           double lengthScale = DesignModel{}.lengthScale, double noise = 1);

// The misfit the ranking assumes by default: the smaller of the two estimates. REML sees residuals
// alike between neighbouring runs, which a misfit shows but which need not spoil the target; the
// extrapolation check sees whether the law, fitted away from the target, misses the runs nearest
// it by more than REML's noise. A misfit counts only where both see it.
double misfitFor(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& targets,
                 double lengthScale = DesignModel{}.lengthScale);

struct DesignScores {
    double misfit = 0;          // τ / σ the ranking assumed (the model's, or estimated)
    double sigma2 = 0;          // residual variance in the law's space (RSS / (n − k), floored)
    double targetVariance = 0;  // Σ over the target's points of the prediction's variance, now (the law's linearisation)
    double targetError = 0;     // Σ over the target's points of the expected squared error, with the misfit of the DesignModel
    // Per candidate: how much a run there would lower targetError, and per unit of its cost.
    std::vector<double> reduction, perCost;
    // Per target point: the prediction's standard deviation now (in the law's space; the linearisation's).
    std::vector<double> targetSd;
};

// The scores of `candidates` (their targets are not read) for lowering the predictive variance of
// the law at `targets` (targets not read either), with the law fitted to `fitted` at `params`.
// `costs` has one positive cost per candidate. Parameters with lower == upper are held.
DesignScores scoreCandidates(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                             std::span<const double> costs, const LawData& targets, const DesignModel& model = {});

// The same after adding the runs `picked` (indices into candidates) to the fitted runs: what a
// batch leaves (the predictive variance and each target's standard deviation after it). With
// `costs`, also every candidate's score on top of the batch (the next greedy pick).
DesignScores scoreAfter(const CompiledLaw& law, const LawData& fitted, std::span<const double> params, const LawData& candidates,
                        std::span<const std::size_t> picked, const LawData& targets, std::span<const double> costs = {},
                        const DesignModel& model = {});

}  // namespace scalex::fit

namespace scalex::fit {

// The cheapest runs that determine the law: taken in `order` (cheapest first), a run is kept when
// it adds a direction to the Jacobian's rows (∂ prediction / ∂ free parameter, each parameter's
// column scaled to unit norm over `runs`) at one of `draws` parameter points drawn within the bounds (log-uniform over a
// positive range, uniform otherwise; seeded), until the rows span every free parameter at every
// draw. Greedy in cost over a matroid (the rows' linear independence), so the kept set is the
// cheapest basis. Indices into `order`'s runs, in the order kept; fewer than the free parameters
// when the runs cannot determine the law.
std::vector<std::size_t> determiningRuns(const CompiledLaw& law, const LawData& runs, std::span<const std::size_t> order, int draws = 3,
                                         std::uint64_t seed = 1);

}  // namespace scalex::fit
