#pragma once
// Queries on a law fitted by fitLawAnalysis, as a user states them by name: the loss at a point
// ("N=7e9,D=2e12"), N*(C) and D*(C) under C = 6ND, the budget at which the optimum reaches a
// loss; each answered per group with an interval by the bootstrap or the curvature (fit/LawQuery.h).
#include <QJsonObject>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawQuery.h"

namespace scalex::analysis {

// The kinds and interval methods of fit/LawQuery.h under the names the apps use.
using LawQueryKind = fit::LawQueryKind;
using LawIntervalMethod = fit::LawIntervalMethod;
std::string intervalMethodName(LawIntervalMethod method);  // "bootstrap", "curvature"

struct LawQuerySpec {
    LawQueryKind kind = LawQueryKind::At;
    std::vector<std::pair<std::string, double>> given;  // At: each variable by name
    double value = 0;                                   // OptimalAt: C; BudgetForLoss: the target loss
};

// "N=7e9,D=2e12" as the point of an At query (the names are checked against a law later).
std::variant<LawQuerySpec, std::string> parseLawPoint(const std::string& text);

// The query in the law's terms, or why the law cannot answer it (a variable it lacks or one left
// out, N*(C) on a law not in N and D, a value that is not positive).
std::variant<fit::LawQuery, std::string> resolveLawQuery(const fit::CompiledLaw& law, const LawQuerySpec& spec);

// One query's answer for one group: the outputs (fit::lawQueryOutputs), their values and intervals.
struct LawQueryAnswer {
    LawQuerySpec spec;
    std::vector<std::string> outputs;
    std::vector<double> values, lower, upper;
};

// "loss at N=7e+09, D=2e+12", "optimum at C=1e+24", "budget for loss 1.9"
std::string describeLawQuery(const LawQuerySpec& spec);
// {kind, given{...}, value, lower, upper} for a loss; {kind, given{C} | {loss}, compute: "6ND",
// values{N: {value, lower, upper}, ...}} for the others; with interval, resamples and level.
QJsonObject lawQueryJson(const LawQueryAnswer& answer, fit::LawIntervalMethod method, int resamples, double level);

}  // namespace scalex::analysis
