#include "core/analysis/BootstrapAnalysis.h"

#include "core/analysis/SeriesAnalyses.h"

namespace scalex::analysis {

std::optional<fit::BootstrapResult> lossSurfaceBootstrap(const data::RunTable& table, const RunFilter& group,
                                                         const fit::LossSurfaceSettings& settings,
                                                         std::span<const fit::SurfaceQuery> queries,
                                                         const fit::BootstrapSettings& bootstrap,
                                                         const fit::FitControl& control) {
    const auto sel = lossSurfacePoints(table, studySet(table, group, data::ExperimentSet::TokenParam));
    if (sel.points.empty()) return std::nullopt;
    const auto full = fit::fitLossSurface(sel.points, settings, control);
    return fit::bootstrapLossSurface(sel.points, full, settings, queries, bootstrap, control);
}

std::optional<fit::BootstrapResult> isoFlopBootstrap(const data::RunTable& table, const AnalysisSettings& settings,
                                                     const RunFilter& group, std::span<const double> queryBudgets,
                                                     const fit::BootstrapSettings& bootstrap,
                                                     const fit::FitControl& control) {
    const auto sel = isoFlopRuns(table, studySet(table, group, data::ExperimentSet::IsoFlop));
    if (sel.points.empty()) return std::nullopt;
    const fit::IsoFlopSettings s = isoFlopSettingsFor(sel.runs, settings);
    return fit::bootstrapIsoFlop(sel.points, s, queryBudgets, bootstrap, control);
}

std::optional<fit::BootstrapResult> slopeBootstrap(const data::RunTable& table, const RunFilter& group,
                                                   const fit::SlopeSettings& settings,
                                                   const fit::BootstrapSettings& bootstrap,
                                                   const fit::FitControl& control) {
    const auto sel = computeLossPoints(table, studySet(table, group, data::ExperimentSet::TokenParam));
    if (sel.points.empty()) return std::nullopt;
    return fit::bootstrapSlopes(sel.points, settings, bootstrap, control);
}

}  // namespace scalex::analysis
