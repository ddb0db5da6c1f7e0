#pragma once
// Bootstrap intervals of one series group's fit over its runs, as `scalex fit bootstrap` reports
// them: the runs of the group's study set (studySet) resampled with replacement and refitted,
// percentile intervals of the parameters and of predictions at the queried points (fit::Bootstrap).
// Each is none when the group has no usable runs; the result depends only on the seed.
#include <optional>
#include <span>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/RunSelection.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/FitControl.h"
#include "core/fit/LossSurface.h"
#include "core/fit/OvertrainingSlopes.h"

namespace scalex::analysis {

// L(N,D) on the group's token/param runs: the full fit, then each replicate refitted from its
// optima (fit::bootstrapLossSurface); intervals of logA … gamma and of the loss at `queries`.
std::optional<fit::BootstrapResult> lossSurfaceBootstrap(const data::RunTable& table, const RunFilter& group,
                                                         const fit::LossSurfaceSettings& settings,
                                                         std::span<const fit::SurfaceQuery> queries,
                                                         const fit::BootstrapSettings& bootstrap,
                                                         const fit::FitControl& control = {});

// The IsoFLOP laws on the group's IsoFLOP runs (isoFlopSettingsFor: the runs' budgets, the
// settings' budget range), resampled within each budget; intervals of a, A, b, B and of N*, D* at
// `queryBudgets` (fit::bootstrapIsoFlop).
std::optional<fit::BootstrapResult> isoFlopBootstrap(const data::RunTable& table, const AnalysisSettings& settings,
                                                     const RunFilter& group, std::span<const double> queryBudgets,
                                                     const fit::BootstrapSettings& bootstrap,
                                                     const fit::FitControl& control = {});

// The over-training exponents on the group's token/param runs, resampled within each ratio
// (fit::bootstrapSlopes).
std::optional<fit::BootstrapResult> slopeBootstrap(const data::RunTable& table, const RunFilter& group,
                                                   const fit::SlopeSettings& settings,
                                                   const fit::BootstrapSettings& bootstrap,
                                                   const fit::FitControl& control = {});

}  // namespace scalex::analysis
