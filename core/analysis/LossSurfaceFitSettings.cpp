#include "core/analysis/LossSurfaceFitSettings.h"

#include "core/analysis/SeriesAnalyses.h"

namespace scalex::analysis {

std::optional<fit::LossSurfaceSettings> lossSurfaceFitSettings(const AnalysisSettings& settings,
                                                               const LossSurfaceFitRequest& request, std::string* error) {
    fit::LossSurfaceSettings s = lossSurfaceSettings(settings);
    if (request.gridText) {
        std::string why;
        const auto parsed = fit::parseInitGrid(*request.gridText, &why);
        if (!parsed) {
            if (error) *error = request.gridName + ", " + why;
            return std::nullopt;
        }
        if (parsed->size(s.fitGamma) == 0) {
            if (error) *error = request.gridName + ": the grid has no starts";
            return std::nullopt;
        }
        s.grid = *parsed;
    }
    if (request.exhaustive) s.screenStopDelta = s.stopDelta;
    return s;
}

}  // namespace scalex::analysis
