#pragma once
// Laws of a run's loss curve under its learning-rate schedule (DESIGN.md "Law": schedule-aware
// laws), evaluated from prefix sums of the schedule, and their fit to the curves of one model.
//
// - Multi-Power Law (Luo et al., ICLR 2025, arXiv:2503.12811, Eq. (1); the authors' repository,
//   src/models.py MPL.forward): L(t) = L0 + A·(S1(t)+S_W)^(−α) − LD(t),
//   LD(t) = B·Σ_{k=1..t} (η_{k−1} − η_k)·G(η_k^(−γ)·S_k(t)), G(x) = 1 − (C·x + 1)^(−β),
//   S1(t) = Σ_{τ=1..t} η_τ, S_k(t) = Σ_{τ=k..t} η_τ, with t counted after the warm-up, whose
//   area is S_W (so S1(t)+S_W is the schedule's whole area up to t, and η_0 is the rate at the end
//   of the warm-up).
// - LR-annealing law (Tissue et al. 2024, arXiv:2408.11029, Eq. (1)):
//   L(s) = L0 + A·S1^(−α) − C·S2, S1 = Σ_{i≤s} η_i, S2 = Σ_{i≤s} m_i,
//   m_i = λ·m_{i−1} + (η_{i−1} − η_i), λ = 0.999 by default (their Sec. 3).
// - Plain power law in tokens: L(D) = L0 + A·D^(−α), D = step·tokens per step (Kaplan et al. 2020).
//
// LD(t) costs O(t) per step if summed term by term. Here the drops (η_{k−1} − η_k) are merged into
// blocks of `blockSteps` steps (drop-weighted means of ln η_k and S1(k−1)), and only the last one
// or two blocks before t are summed step by step: O(T/b + 2b) per evaluated step, exact for
// schedules that are constant inside a block and a midpoint rule elsewhere.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/fit/FitControl.h"
#include "core/fit/Schedule.h"

namespace scalex::fit {

enum class CurveLaw { MultiPower, LrAnnealing, PowerLaw };

std::string curveLawName(CurveLaw law);  // "mpl", "lra", "power"
std::optional<CurveLaw> parseCurveLaw(std::string_view name);
// The law's parameters in order: mpl L0 A alpha B C beta gamma; lra L0 A alpha C; power L0 A alpha.
std::vector<std::string> curveLawParameterNames(CurveLaw law);

struct CurveLawOptions {
    double lraDecay = 0.999;     // λ of the LR-annealing law's momentum
    double tokensPerStep = 1;    // the power law's D = step · tokensPerStep
    long blockSteps = 0;         // 0: about sqrt(T/4), at least 1 (1 is the exact sum)
};

// The sums of one schedule that every evaluation of a law on it reuses.
class PreparedSchedule {
public:
    PreparedSchedule() = default;
    PreparedSchedule(Schedule schedule, const CurveLawOptions& options = {});

    const Schedule& schedule() const { return schedule_; }
    const CurveLawOptions& options() const { return options_; }
    long blockSteps() const { return block_; }

    // The law's loss at step t (1 ≤ t ≤ T) for parameters in curveLawParameterNames order; with a
    // non-empty `gradient` (same size) also ∂L/∂θ. NaN where the law is undefined (t outside).
    double loss(CurveLaw law, std::span<const double> params, long t, std::span<double> gradient = {}) const;

private:
    double multiPower(std::span<const double> p, long t, std::span<double> g) const;

    Schedule schedule_;
    CurveLawOptions options_;
    long block_ = 1;
    // Per step k (index k−1) after the warm-up: the drop η_{k−1} − η_k, ln η_k, S1(k−1).
    std::vector<double> drop_, logRate_, areaBefore_;
    // Merged blocks with a non-zero drop: first and last step, the summed drop, drop-weighted ln η
    // and S1(k−1).
    struct Block {
        long first = 0, last = 0;
        double drop = 0, logRate = 0, areaBefore = 0;
    };
    std::vector<Block> blocks_;
    std::vector<double> momentumArea_;  // LR-annealing S2 prefix sums, index t
};

// One logged point of a curve.
struct CurveObservation {
    long step = 0;
    double loss = 0;
};

// A curve to fit or score: its name, its schedule and its logged losses.
struct FitCurve {
    std::string name;
    const PreparedSchedule* schedule = nullptr;
    std::vector<CurveObservation> points;
};

struct CurveFitSettings {
    CurveLaw law = CurveLaw::MultiPower;
    double huberDelta = 1e-3;     // Huber on ln L − ln L̂, as MPL's authors fit
    int maxPointsPerCurve = 120;  // the fit sees at most this many points of each curve, evenly spaced
    int refineCount = 4;          // starts refined to stopDelta after the screening
    double screenStop = 1e-5;     // relative change of the objective that ends a start's screening
    double stopDelta = 1e-11;     // ... and its refinement
    int maxIterations = 1000;
    double level = 0.95;          // of the parameter and prediction intervals
    // Non-empty: the only start, in curveLawParameterNames order (a refit near a known optimum, as
    // a leave-one-curve-out refit starts from the full fit's).
    std::vector<double> start;
};

struct ParameterEstimate {
    std::string name;
    double value = 0, lower = 0, upper = 0;  // interval at CurveFitSettings::level
};

// R², MAE, RMSE in loss; mean and worst relative error |L − L̂|/L (the MPL authors' PredE, WorstE).
struct CurveScore {
    std::string name;
    int points = 0;
    double r2 = 0, mae = 0, rmse = 0, predE = 0, worstE = 0;
    long finalStep = 0;
    double finalObserved = 0, finalPredicted = 0, finalLower = 0, finalUpper = 0;
};

struct CurveFitResult {
    CurveLaw law = CurveLaw::MultiPower;
    std::vector<double> params;  // curveLawParameterNames order
    std::vector<ParameterEstimate> estimates;
    // Covariance of the search coordinates (ln of A, B, C; the others as they are), row-major,
    // from the Gauss–Newton approximation at the optimum with σ² from the residuals, inflated for
    // their lag-1 autocorrelation along each curve. It knows nothing of the law's own misfit.
    std::vector<double> covariance;
    double residualAutocorrelation = 0;  // ρ of the inflation (1+ρ)/(1−ρ)
    // The law's own misfit: a standard deviation of ln L that every prediction interval adds in
    // quadrature to its delta-method one (0: none; core/analysis calibrates it on held-out curves).
    double misfitSd = 0;
    int misfitCurves = 0;  // the curves it was measured on (its quantile: Student's t, one fewer degrees of freedom)
    double objective = 0;
    double level = 0.95;
    int nPoints = 0;
    std::size_t nStarts = 0, nConverged = 0;
    int iterations = 0;
    std::vector<CurveScore> curves;  // the fitted curves, scored on all their points
    std::vector<std::string> warnings;
    double seconds = 0;
};

// Multi-start bounded L-BFGS (dlib find_min_box_constrained) of Σ Huber_δ(ln L − ln L̂) over the
// curves' points. Throws std::invalid_argument when the curves hold fewer points than the law has
// parameters, or a curve has no schedule. Deterministic.
// Cancelled (control), the result has no parameters and the warning "cancelled".
CurveFitResult fitCurveLaw(std::span<const FitCurve> curves, const CurveFitSettings& settings = {}, const FitControl& control = {});

struct CurvePrediction {
    // Interval at the fit's level: the delta method on ln L̂, with the fit's misfitSd added in
    // quadrature (at Student's t quantile).
    double loss = 0, lower = 0, upper = 0;
};

CurvePrediction predictCurveLoss(const CurveFitResult& fit, const PreparedSchedule& schedule, long step);
// Scores a fitted law on every point of a curve (a held-out curve or a fitted one).
CurveScore scoreCurve(const CurveFitResult& fit, const FitCurve& curve);

}  // namespace scalex::fit
