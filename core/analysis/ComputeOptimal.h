#pragma once
// Compute-optimal questions a user asks of a study, answered one way for the window, the verbs
// and the lessons:
//  - the optimum N*, D* for a budget H, a model size N or a target loss, by either of the paper's
//    two methods: the loss surface L̂(N,D) with the training compute per token c(N) (Hoffmann et
//    al.'s third approach), or the IsoFLOP power laws N* = A'·H^a, D* = B'·H^b (their second
//    approach), whose loss is read off the surface; for each series of the study from its own
//    runs (OptimalInputs.h), and for the paper's models from its tables;
//  - why the two methods give different N*: their local exponents, the budget where they agree,
//    and the tokens per parameter each implies;
//  - the lifetime optimum: counting inference, the model that reaches the same loss with the least
//    training plus inference compute (a smaller model trained on more tokens).
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/accounting/Family.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelLadder.h"
#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/ComputeOptimal.h"
#include "core/fit/FitControl.h"
#include "core/fit/IsoFlop.h"

namespace scalex::analysis {

enum class OptimalGiven { Budget, ModelSize, TargetLoss };

// N* = coefN·H^exponentN, D* = coefD·H^exponentD.
struct OptimalPowerLaws {
    double coefN = 0, exponentN = 0, coefD = 0, exponentD = 0;
};

// One method of finding the optimum. Without `laws` it is the loss-surface method; with them the
// IsoFLOP-law method (the surface then only gives the loss at the optimum: NaN without one).
struct OptimalMethod {
    std::optional<fit::LossSurfaceParams> surface;
    fit::ComputePerToken computePerToken;  // training FLOPs per token of a model of N parameters at T
    std::optional<OptimalPowerLaws> laws;

    // Neither laws nor a surface: no method.
    bool usable() const { return laws || surface; }
    fit::OptimalPoint atBudget(double budget) const;
};

// The optimum for a budget H, for the budget at which a model of N parameters is optimal, or for
// the cheapest budget whose optimum reaches a target loss. Empty when the method is not usable, or
// a target loss lies at or below the surface's irreducible loss E or has no surface to be read off.
std::optional<fit::OptimalPoint> solveOptimal(const OptimalMethod& method, OptimalGiven given, double value);

// The training compute per token c_T(N) of a ladder's architecture at context length T: the exact
// FLOP count of its rungs (SpecAccounting.h) over their active parameters, smoothed over N
// (fit::smoothComputePerToken).
fit::ComputePerToken ladderComputePerToken(const accounting::ModelLadder& ladder, double context,
                                           const accounting::FlopConvention& convention);
// The study's architecture of `family` as a ladder: the study's model configurations, continued past
// its largest models by its shape rules (d/n_layer = 128, heads of 128 for attention, of d_hv 512
// for mLSTM).
accounting::ModelLadder paperLadder(const std::vector<data::PaperModelConfig>& configs, accounting::Family family);
// c_T(N) of the paper's ladder of `family`.
fit::ComputePerToken studyComputePerToken(const std::vector<data::PaperModelConfig>& configs, accounting::Family family,
                                          double context, const accounting::FlopConvention& convention);

// The paper's IsoFLOP power laws of `family` at context length T (Tab. isoflop powerlaws; the
// main table's row where the context tables repeat it). Empty where the paper has none.
std::optional<OptimalPowerLaws> paperOptimalLaws(const data::PaperTables& paper, accounting::Family family, double context);
// The same for a group of runs: the paper's laws of the family all of them share (none when the
// runs are of no known family, or of several).
std::optional<OptimalPowerLaws> paperOptimalLaws(const data::PaperTables& paper, const std::vector<const data::Run*>& runs,
                                                 double context);

// Why the two methods disagree at a budget: both optima, the local exponent d ln N*/d ln H of
// each, and the budget at which their N* agree (NaN when they do not cross in 1e15..1e27).
struct MethodComparison {
    fit::OptimalPoint surface, laws;
    double surfaceExponent = 0, lawExponent = 0;
    double agreeAtBudget = 0;
};
MethodComparison compareMethods(const OptimalMethod& surface, const OptimalMethod& laws, double budget);

// Training plus inference: the model that reaches `targetLoss` with the least
// c_T(N)·D + inferenceTokens·c_T(N)/3 (a forward pass per inference token, a third of the
// training compute per token), searched from the smallest model that can reach the loss up to
// 4 N* of the compute-optimal model reaching it.
struct LifetimeOptimum {
    fit::OptimalPoint computeOptimal;    // the compute-optimal model of that loss
    double params = 0, tokens = 0;       // the lifetime-optimal model and its training tokens
    double trainingCompute = 0, inferenceCompute = 0;
    double computeOptimalTotal = 0;      // training plus the same inference on the compute-optimal model
    double total() const { return trainingCompute + inferenceCompute; }
    double saving() const { return computeOptimalTotal > 0 ? 1 - total() / computeOptimalTotal : 0; }
};
std::optional<LifetimeOptimum> lifetimeOptimal(const OptimalMethod& method, double targetLoss, double inferenceTokens);

// Over-training on the method's surface: a model of `fraction` of N* (0 < fraction < 1) trained to
// the optimum's loss, the tokens and compute it needs. Empty when it cannot reach that loss.
std::optional<fit::OverTraining> overTrained(const OptimalMethod& method, const fit::OptimalPoint& optimum, double fraction);

// Everything the compute-optimal calculator shows for one query, computed in one call (a worker
// thread's job in the window): for each series, the optimum by the chosen method (with bootstrap
// intervals where its IsoFLOP laws were fitted to runs), the other method beside it, the
// over-trained and lifetime models, the appendix-style rows for common model sizes and the curves
// of its charts. A series that cannot answer (no IsoFLOP law, no surface, a loss out of its reach)
// says why instead of giving numbers.
struct OptimalSeriesInput {
    std::string name;                       // as shown: "lab-a", "lab-a, T = 2048", "Transformer"
    std::string series;                     // the study's series it answers for (empty: none)
    int seriesIndex = -1;                   // the series' place among the study's series (its colour); -1: none
    double context = std::numeric_limits<double>::quiet_NaN();  // of its runs (NaN: not given), or of the paper's model's count
    bool paper = false;                     // one of the paper's models (Tab. lnd_fit_params, Tab. isoflop powerlaws)
    bool ladder = false;                    // a model ladder of OptimalQuery::ladders
    std::optional<accounting::Family> family;
    std::optional<fit::LossSurfaceParams> surface;
    std::string surfaceProblem;             // why there is no surface (empty: a generic reason)
    bool surfacePending = false;            // its L(N,D) fit is still to come (fitOptimalSurfaces)
    fit::ComputePerToken computePerToken;   // c(N): the exact count at the query's context, or the runs' C/D
    fit::ComputePerToken referencePerToken; // c(N) at `OptimalQuery::referenceContext` for the compute curve (empty: none)
    std::optional<OptimalPowerLaws> laws;   // IsoFLOP laws (the paper's at the query's context, or fitted to the runs)
    std::string lawsProblem;                // why there are none (empty: a generic reason)
    // The runs and settings the laws were fitted with, for their bootstrap intervals (empty for the paper's laws).
    std::vector<fit::IsoFlopRun> isoFlopRuns;
    fit::IsoFlopSettings isoFlopSettings;
};
struct OptimalQuery {
    // Out of line: the default grid of `surfaceFit` is core/fit's, which the verbs and views reach
    // only through core/analysis (the layer check).
    OptimalQuery();
    OptimalGiven given = OptimalGiven::Budget;
    double value = 1e22;
    double context = 8192;           // the context length at which the paper's models count FLOPs
    bool useLaws = false;            // the IsoFLOP-law method, else the loss surface
    double overtrainFraction = 1;    // N as a fraction of N* (below 1: the over-trained model)
    double inferenceTokens = 0;      // above 0: the lifetime optimum
    double referenceContext = 2048;  // the second context of the compute curve
    std::vector<double> sizes{1e8, 4e8, 1e9, 3e9, 7e9, 1.5e10, 3e10, 7e10, 1.4e11};  // appendix-style rows
    std::vector<double> budgets;     // the charts' budgets (default: 1e18 to 1e25 in quarter decades)
    std::vector<double> curveSizes;  // N of the compute curve (default: 1e8 to 2e11 in tenth decades)
    // Which series answer (optimalInputs): the study's own, and the paper's Transformer and xLSTM
    // with `paperModels` (by default on for the paper's study only: Study::isPaperStudy). On the
    // paper's study (`paperStudy`) the paper's models answer for its Transformer and xLSTM series.
    bool paperModels = false;
    bool paperStudy = false;
    // Architectures of any kind as model ladders: each answers as a series with its own c_T(N) on
    // the paper's loss surface of `ladderSurface` (what the optimum would be if that surface held for
    // it: the FLOPs per token, not the loss, are the architecture's), with no IsoFLOP laws.
    std::vector<accounting::ModelLadder> ladders;
    accounting::Family ladderSurface = accounting::Family::Transformer;
    // The L(N,D) fits of the study's series: made with the inputs, or left to fitOptimalSurfaces
    // (the window answers with the IsoFLOP laws first); the grid and stops of those fits (Huber δ
    // and γ come from the analysis settings, as every L(N,D) analysis's).
    bool fitSurfaces = true;
    fit::LossSurfaceSettings surfaceFit;
    // Bootstrap intervals of IsoFLOP laws fitted to runs (0 resamples: none).
    fit::BootstrapSettings intervals{200};
};
// 95 % (level) bootstrap intervals of a series' IsoFLOP laws, the runs resampled within each budget
// (isoFlopIntervals): the exponents a and b, and N*, D* at the optimum's budget.
struct OptimalIntervals {
    fit::BootstrapInterval exponentN, exponentD, params, tokens;
    int resamples = 0;
    double level = 0.95;
};
struct OptimalSeriesAnswer {
    std::string name, series;
    int seriesIndex = -1;
    double context = std::numeric_limits<double>::quiet_NaN();
    bool paper = false;
    std::optional<accounting::Family> family;
    // Why the series has no optimum by the chosen method; empty when it has one. `pending`: its
    // L(N,D) fit is still to come (the problem, by the surface; the other method, by the laws).
    std::string problem;
    bool pending = false;
    fit::OptimalPoint optimum;                          // by the chosen method; loss NaN where no surface gives it
    std::optional<OptimalPowerLaws> laws;               // the IsoFLOP laws the series has
    std::optional<OptimalIntervals> intervals;          // of the IsoFLOP laws fitted to the series' runs
    std::optional<fit::OverTraining> overtrained;       // below 100 % of N*, where the surface reaches the loss
    std::optional<MethodComparison> comparison;         // both methods at the optimum's budget (surface and laws known)
    // Each method's optimum at the optimum's budget (at the query's budget when the chosen method
    // has none), and why a method has none.
    std::optional<fit::OptimalPoint> surfaceAtBudget, lawsAtBudget;
    std::string surfaceProblem, lawsProblem;
    std::optional<LifetimeOptimum> lifetime;            // with inference tokens
    std::vector<std::optional<fit::OptimalPoint>> sizes;  // for OptimalQuery::sizes (empty: no optimum)
    std::vector<fit::OptimalPoint> path;                // the chosen method over the budgets (empty: no optimum)
    std::vector<fit::OptimalPoint> otherPath;           // the other method over the budgets (empty: none)
    std::vector<double> computeRatio, referenceComputeRatio;  // C/6ND over the curve sizes at T and at the reference
    double optimumComputeRatio = 0;                     // C/6ND of the optimum's N at T
    bool answered() const { return problem.empty(); }
};
struct OptimalAnswer {
    // Why there are no numbers at all (every series' reason: a loss below their irreducible loss,
    // no laws at this context); empty when a series has them or waits for its fit.
    std::string problem;
    OptimalQuery query;                      // as answered, with its default grids filled in
    std::vector<OptimalSeriesAnswer> series; // in the order of the inputs
    // The first series of a family (the paper's models), or of a name.
    const OptimalSeriesAnswer* find(accounting::Family family) const;
    const OptimalSeriesAnswer* find(const std::string& name) const;
    // Some series wait for their L(N,D) fit.
    bool pending() const;
};
// Stops early (an answer with no series and no problem) when `control` is cancelled.
OptimalAnswer answerOptimalQuery(const std::vector<OptimalSeriesInput>& inputs, OptimalQuery query,
                                 const fit::FitControl& control = {});

// How the compute-optimal model of one family moves with the context length T (the paper's Fig. 5
// finding), on one loss surface, with c_T(N) recounted at every T: N*(H), D*(H) at T over
// `budgets`, the same at `referenceContext` (empty when T is it), and the optimum at one budget
// over `contexts`.
struct ContextSweep {
    std::vector<fit::OptimalPoint> atContext;    // at budgets
    std::vector<fit::OptimalPoint> atReference;  // at budgets
    std::vector<fit::OptimalPoint> trend;        // at contexts, for `budget`
    fit::OptimalPoint here;                      // at T and `budget`
};
// `computePerTokenAt(T)` gives c_T(N) (e.g. studyComputePerToken of the family).
ContextSweep contextSweep(const fit::LossSurfaceParams& surface,
                          const std::function<fit::ComputePerToken(double context)>& computePerTokenAt, double context,
                          double budget, std::span<const double> budgets, std::span<const double> contexts,
                          double referenceContext = 8192);

// The training compute of a model as the exact count c_T(N)·D over the 6ND approximation, for the
// curve "C against 6ND" over N.
double computeOver6ND(const fit::ComputePerToken& computePerToken, double params);

}  // namespace scalex::analysis
