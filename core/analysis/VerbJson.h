#pragma once
// The one JSON object each analysing verb prints with --json (`scalex fit isoflop|lnd|slopes|
// pareto|context`), composed from the analyses' typed results and the writers of AnalysisJson.h.
// The verbs print them; the Python module (app/python) returns them as its results' .json(), so
// both give the same object for the same study and options.
#include <QJsonObject>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/ContextStudy.h"
#include "core/analysis/SeriesAnalyses.h"

namespace scalex::analysis {

// `fit isoflop`: one object per series and context (profiles, laws, outliers) and, for a series at
// several context lengths, N*, D* at `atBudget` across them ("contexts" and "context_trend" for one
// series, "context_trends" by series for several).
QJsonObject isoFlopVerbJson(const std::vector<IsoFlopAnalysis>& analyses, double atBudget);
// `fit lnd`: one series' fit, its outliers and, `withExtrapolation` (after checkExtrapolation), its extrapolation.
QJsonObject lossSurfaceVerbJson(const LossSurfaceAnalysis& analysis, const fit::LossSurfaceSettings& settings,
                                bool withExtrapolation);
// `fit slopes`: one series' exponents, outliers and extrapolation.
QJsonObject slopeVerbJson(const SlopeAnalysis& analysis);
// `fit pareto`: every frontier and, for two series, their comparison (with its intervals when
// `withIntervals`).
QJsonObject paretoVerbJson(const std::vector<ParetoAnalysis>& analyses, const std::optional<SeriesComparison>& compared,
                           bool withIntervals);
// `fit context`: N*, D* per family at the options' context and budget, the surface each used,
// and the table of optima over contexts.
QJsonObject contextVerbJson(const ContextResult& result, const ContextOptions& options);
// Why `fit context` has no answer (no family has a surface), as the verb says it; empty when it has one.
std::string contextProblem(const ContextResult& result);

// `predict optimal`: per series, each method asked's optimum (or null and why), the methods'
// comparison (method "both") and the lifetime optimum (inferenceTokens > 0). `givenName` is the
// option that set the query ("budget", "params" or "loss"); `method` "surface", "laws" or "both";
// `bySurface`/`byLaws` are the answers of the methods asked (the other's is not read).
QJsonObject optimalVerbJson(const std::vector<OptimalSeriesInput>& inputs, const OptimalQuery& query, const std::string& givenName,
                            const std::string& method, double huberDelta, const OptimalAnswer& bySurface, const OptimalAnswer& byLaws);

}  // namespace scalex::analysis
