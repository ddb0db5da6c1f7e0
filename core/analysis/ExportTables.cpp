#include "core/analysis/ExportTables.h"

#include <array>
#include <cmath>
#include <string>

namespace scalex::analysis {

data::ExportTable lossSurfaceParameterTable(const std::vector<SurfaceWithIntervals>& fits, const fit::LossSurfaceSettings& settings,
                                            const fit::BootstrapSettings& bootstrap) {
    data::ExportTable t;
    t.label = "tab:lnd_fit_params";
    t.columns = {{"model", "Model", data::CellStyle::Text},       {"parameter", "Parameter", data::CellStyle::Symbol},
                 {"runs", "Runs", data::CellStyle::Integer},       {"estimate", "Estimate", data::CellStyle::Fixed3},
                 {"lower", "95\\% low", data::CellStyle::Fixed3}, {"upper", "95\\% high", data::CellStyle::Fixed3}};
    const char* names[] = {"logA", "logB", "logE", "alpha", "beta", "gamma"};
    const char* shown[] = {"log A", "log B", "log E", "alpha", "beta", "gamma"};
    std::string runs;
    for (const auto& f : fits) {
        if (!f.analysis || f.analysis->error || f.analysis->fit.cancelled) continue;
        const fit::LossSurfaceFit& fit = f.analysis->fit;
        const std::string model = f.analysis->group.label();
        runs += (runs.empty() ? "" : " and ") + std::to_string(fit.nPoints) + " " + model;
        const std::array<double, 6> best = fit.best.asArray();
        for (std::size_t i = 0; i < best.size(); ++i) {
            if (i == 5 && !settings.fitGamma) continue;
            data::ExportCell lo, hi;
            if (const auto* in = f.intervals.find(names[i]); in && in->nValid > 0) lo = in->lower, hi = in->upper;
            t.rows.push_back({model, std::string(shown[i]), static_cast<double>(fit.nPoints), best[i], lo, hi});
        }
    }
    char level[16];
    std::snprintf(level, sizeof level, "%g", 100 * bootstrap.level);
    t.caption = "Fit of the loss surface $L(N,D) = E + (A N^{-\\alpha} + B D^{-\\beta})^{\\gamma}$ to " +
                (runs.empty() ? std::string("no") : runs) + " runs (Huber $\\delta = " + data::formatScientific(settings.huberDelta) + "$" +
                (settings.fitGamma ? ", $\\gamma$ fitted" : ", $\\gamma = 1$") + "), with " + level + "\\% bootstrap intervals (" +
                std::to_string(bootstrap.resamples) + " resamples of the runs).";
    return t;
}

}  // namespace scalex::analysis
