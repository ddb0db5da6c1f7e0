#pragma once
// The JSON forms of the analyses' results, made in core from the typed results (DESIGN.md "The
// shape"): what `scalex fit … --json` and `scalex predict … --json` print, key for key. Text
// output stays with the verbs; the numbers come from here.
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <string_view>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/accounting/ModelConfig.h"
#include "core/analysis/IsoFlopTrend.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/analysis/SeriesAnalyses.h"

namespace scalex::analysis {

QJsonArray stringsJson(const std::vector<std::string>& strings);
// Text as JSON (UTF-8), and a number or null where it is not finite (JSON has no NaN or infinity).
QString jsonText(std::string_view text);
QJsonValue jsonNumber(double value);

// ---- fits of the study's runs ---------------------------------------------------------------

// {"logA", "logB", "logE", "alpha", "beta", "gamma"}
QJsonObject toJson(const fit::LossSurfaceParams& params);
// {"exponent", "coefficient", "r2", "n"}; {} when there is no law.
QJsonObject toJson(const std::optional<fit::PowerLaw>& law);

// The runs an analysis left out as outliers, one object each: run, line, loss, expected,
// robust_sigmas, reason, and `groupKey` (what the check's group is, e.g. "budget") when given.
QJsonArray outliersJson(const std::vector<FlaggedRun>& flagged, const char* groupKey);

// The L(N,D) fit: its parameters, objective, starts and quality, and the settings it ran with.
QJsonObject toJson(const fit::LossSurfaceFit& fit, const fit::LossSurfaceSettings& settings);
// How well the surface extrapolates (checkExtrapolation): held out by model size.
QJsonObject extrapolationJson(const LossSurfaceAnalysis& analysis);

// The IsoFLOP profiles, the laws N*(H), D*(H), leave-one-budget-out and the extrapolation check.
QJsonObject toJson(const IsoFlopAnalysis& analysis);
// N*, D* at one budget over context lengths and the power laws through them.
QJsonObject toJson(const fit::ContextTrend& trend);

// The over-training exponents per tokens/param ratio.
QJsonObject toJson(const fit::SlopeResult& result);
// Each ratio group's line fitted without its largest-compute run, predicting it.
QJsonArray extrapolationJson(const SlopeAnalysis& analysis);

// One series' Pareto frontier: {"frontier": [{flops, loss, run, line}], "n_runs"}.
QJsonObject frontierJson(const ParetoAnalysis& analysis);
// The comparison of two frontiers; its bootstrap intervals with `withIntervals`.
QJsonObject toJson(const SeriesComparison& compared, const std::vector<ParetoAnalysis>& analyses, bool withIntervals);

// Percentile intervals of a bootstrap and the settings that drew them.
QJsonObject toJson(const fit::BootstrapResult& result, const fit::BootstrapSettings& settings);

// One result per series and context: {"series": [{"name", "label", "context", ...}, ...]}, and
// with exactly one result its fields at the top level too.
QJsonObject seriesJson(const std::vector<std::pair<SeriesGroup, QJsonObject>>& results);

// ---- the runtime model ----------------------------------------------------------------------

QJsonObject toJson(const inference::Accelerator& accelerator);
// The architecture and its parameter count.
QJsonObject toJson(const accounting::ModelConfig& config);
QJsonObject toJson(const inference::RuntimeRates& rates, const inference::Accelerator& accelerator);
QJsonObject toJson(const inference::Prediction& prediction);
// Per stage, the fitted model the rates were taken from; {} for the accelerator's roofs.
QJsonObject sourceJson(const SourcedRates& rates);

// One model's fit of one stage: rates, their share of the accelerator's roofs, errors; with
// `withPoints` every point's measured and modelled time.
QJsonObject toJson(const RuntimeModelFits& model, const RuntimeStageFit& stage, const inference::Accelerator& accelerator,
                   bool withPoints);
// Every fit of the analysis with the accelerator and the options they were made with.
QJsonObject toJson(const RuntimeFitAnalysis& analysis, const RuntimeFitOptions& options,
                   const inference::Accelerator& accelerator, bool withPoints);

}  // namespace scalex::analysis
