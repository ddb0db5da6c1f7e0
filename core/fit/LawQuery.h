#pragma once
// Questions asked of a fitted law, each with an interval (issue 31, "an interval on every
// prediction"):
//   - At: the loss at given values of the law's variables;
//   - OptimalAt: N*(C), D*(C) for a law in N and D under C = 6ND (Kaplan et al. 2020; Hoffmann
//     et al. 2022): the minimum of L(N, C/(6N)) over ln N;
//   - BudgetForLoss: the compute C at which that optimum reaches a target loss, with N*, D*.
// Intervals by the bootstrap over runs (replicates refitted from the best optimum, as the held-out
// prediction intervals of LawFit.h) or by the curvature at the optimum (LawCurvature.h).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/fit/FitControl.h"
#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"

namespace scalex::fit {

enum class LawQueryKind { At, OptimalAt, BudgetForLoss };
enum class LawIntervalMethod { Bootstrap, Curvature };

struct LawQuery {
    LawQueryKind kind = LawQueryKind::At;
    std::vector<double> point;  // At: a value per variable, in CompiledLaw::variables order
    double value = 0;           // OptimalAt: the compute C; BudgetForLoss: the target loss
};

// What a query answers, in order: At {loss}; OptimalAt {N, D, loss}; BudgetForLoss {C, N, D}.
std::vector<std::string> lawQueryOutputs(LawQueryKind kind);
std::string lawQueryKindName(LawQueryKind kind);        // "loss_at", "optimal_at", "budget_for_loss"
std::string lawIntervalMethodName(LawIntervalMethod m);  // "bootstrap", "curvature"

// Empty when the law can answer the query whatever its parameters; else why (the point does not
// give every variable, N*(C) on a law not in N and D alone, C or the target not positive).
std::string checkLawQuery(const CompiledLaw& law, const LawQuery& query);

struct LawQueryValue {
    std::vector<double> values;  // as lawQueryOutputs; empty with an error
    std::string error;           // e.g. the target is below the law's floor: no budget reaches it
};
LawQueryValue answerLawQuery(const CompiledLaw& law, std::span<const double> params, const LawQuery& query);

struct LawQueryIntervals {
    LawIntervalMethod method = LawIntervalMethod::Bootstrap;
    int resamples = 0;  // bootstrap replicates that gave a fit (0 for the curvature)
    // Per query, per output: the interval (NaN where there is none).
    std::vector<std::vector<double>> lower, upper;
};
// `level` central intervals of the queries' answers for the law fitted to `train` at `best`. The
// loss at a point gets a prediction interval (a new run's loss: the fit's uncertainty plus the
// residual noise); N*, D*, C and the optimum's loss get confidence intervals of the law's value.
LawQueryIntervals lawQueryIntervals(const CompiledLaw& law, const LawData& train, std::span<const double> best,
                                    std::span<const LawQuery> queries, LawIntervalMethod method, int resamples, std::uint64_t seed,
                                    double level, const LawFitSettings& settings = {}, const FitControl& control = {});

}  // namespace scalex::fit
