#include "core/analysis/RunSelection.h"

#include "core/data/Series.h"

#include <algorithm>
#include <cmath>

namespace scalex::analysis {

using data::known;
using data::kUnknown;

namespace {

bool positive(double v) { return known(v) && v > 0 && std::isfinite(v); }

}  // namespace

bool passes(const Run& run, const RunFilter& filter) {
    // The user's toggle wins; else runs with problems are out, and so are the runs a sweep's best
    // beat unless the scope takes every sweep run.
    if (run.userIncluded) {
        if (!*run.userIncluded) return false;
    } else if (run.hasProblems() || (!run.sweepLeftOut.empty() && !filter.allSweepRuns)) {
        return false;
    }
    if (run.intermediateCheckpoint && !filter.includeCheckpoints) return false;
    if (filter.series && run.series != *filter.series) return false;
    if (filter.family && run.family != *filter.family) return false;
    // A NaN context selects the runs that give none.
    if (filter.context && (std::isnan(*filter.context) ? known(run.context) : !(known(run.context) && run.context == *filter.context)))
        return false;
    if (filter.experimentSet && run.experimentSet != *filter.experimentSet) return false;
    // Runs of sets the study never filtered carry no flag: the selection leaves them in.
    if (filter.selectedOnly && !run.selectedInPaper.value_or(true)) return false;
    for (const auto& c : filter.where)
        if (!meets(run, c)) return false;
    return true;
}

bool leftOutBySweep(const Run& run, const RunFilter& filter) {
    if (run.sweepLeftOut.empty() || run.userIncluded || filter.allSweepRuns) return false;
    RunFilter all = filter;
    all.allSweepRuns = true;
    return passes(run, all);
}

std::string describeRun(const Run& run, const std::string& why) {
    if (run.runId.empty() && run.name.empty()) return "run at " + data::runLabel(run) + ": " + why;
    std::string s = "run " + data::runLabel(run);
    if (run.sourceLine > 0) s += " (line " + std::to_string(run.sourceLine) + ")";
    return s + ": " + why;
}

std::optional<std::string> missingScaleColumns(const RunTable& table, const RunFilter& filter, ScaleNeed need) {
    bool noN = false, noD = false;
    for (const auto& run : table.runs) {
        if (!passes(run, filter)) continue;
        if (need == ScaleNeed::Compute ? positive(run.flops) : positive(run.params) && positive(run.tokens)) return std::nullopt;
        noN = noN || run.paramsSource == data::Provenance::NoColumn;
        noD = noD || run.tokensSource == data::Provenance::NoColumn;
    }
    if (!noN && !noD) return std::nullopt;
    const std::string which = noN && noD ? "no N column (the parameter count) and no D column (the training tokens)"
                              : noN      ? "no N column (the parameter count)"
                                         : "no D column (the training tokens)";
    const std::string needs = need == ScaleNeed::Compute
                                  ? " and no compute column: the Pareto front needs compute C (a compute column, or N and D)"
                                  : ": L(N,D), IsoFLOP, over-training slopes, Pareto, context and compute-optimal analyses need N and D";
    return "the study has " + which + needs + "; a law over the file's own columns can be fitted (scalex fit law --formula)";
}

Selection<fit::LossPoint> lossSurfacePoints(const RunTable& table, const RunFilter& filter) {
    Selection<fit::LossPoint> out;
    for (const auto& run : table.runs) {
        if (!passes(run, filter)) {
            if (leftOutBySweep(run, filter)) out.notBestOfSweep.push_back(&run);
            continue;
        }
        if (!positive(run.params) || !positive(run.tokens) || !positive(run.loss())) {
            out.skipped.push_back(describeRun(run, "needs positive N, D and loss"));
            continue;
        }
        out.points.push_back({run.params, run.tokens, run.loss()});
        out.runs.push_back(&run);
    }
    return out;
}

Selection<fit::IsoFlopRun> isoFlopRuns(const RunTable& table, const RunFilter& filter) {
    Selection<fit::IsoFlopRun> out;
    for (const auto& run : table.runs) {
        if (!passes(run, filter)) {
            if (leftOutBySweep(run, filter)) out.notBestOfSweep.push_back(&run);
            continue;
        }
        if (!positive(run.params) || !positive(run.tokens) || !positive(run.flops) || !positive(run.loss())) {
            out.skipped.push_back(describeRun(run, "needs positive N, D, C and loss"));
            continue;
        }
        out.points.push_back({run.params, run.tokens, run.flops, run.loss()});
        out.runs.push_back(&run);
    }
    return out;
}

Selection<fit::ComputeLossPoint> computeLossPoints(const RunTable& table, const RunFilter& filter) {
    Selection<fit::ComputeLossPoint> out;
    for (const auto& run : table.runs) {
        if (!passes(run, filter)) {
            if (leftOutBySweep(run, filter)) out.notBestOfSweep.push_back(&run);
            continue;
        }
        if (!positive(run.flops) || !positive(run.loss())) {
            out.skipped.push_back(describeRun(run, "needs positive C and loss"));
            continue;
        }
        const double m = positive(run.params) && positive(run.tokens) ? run.tokensPerParam() : kUnknown;
        out.points.push_back({run.flops, run.loss(), m});
        out.runs.push_back(&run);
    }
    return out;
}

fit::LossSurfaceFit fitLossSurface(const RunTable& table, const RunFilter& filter, const fit::LossSurfaceSettings& settings,
                                   const fit::FitControl& control) {
    const auto sel = lossSurfacePoints(table, filter);
    auto fit = fit::fitLossSurface(sel.points, settings, control);
    for (const auto& s : sel.skipped) fit.warnings.push_back("left out " + s);
    return fit;
}

fit::IsoFlopResult fitIsoFlop(const RunTable& table, const RunFilter& filter, const fit::IsoFlopSettings& settings) {
    const auto sel = isoFlopRuns(table, filter);
    auto result = fit::fitIsoFlop(sel.points, settings);
    for (const auto& s : sel.skipped) result.warnings.push_back("left out " + s);
    return result;
}

fit::SlopeResult fitOvertrainingSlopes(const RunTable& table, const RunFilter& filter, const fit::SlopeSettings& settings) {
    return fit::fitOvertrainingSlopes(computeLossPoints(table, filter).points, settings);
}

std::vector<double> contextLengths(const RunTable& table, const RunFilter& filter) {
    std::vector<double> out;
    RunFilter any = filter;
    any.context.reset();
    for (const auto& run : table.runs)
        if (passes(run, any) && known(run.context)) out.push_back(run.context);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::optional<accounting::Family> sharedFamily(const std::vector<const Run*>& runs) {
    if (runs.empty() || !runs.front()->family) return std::nullopt;
    for (const Run* r : runs)
        if (r->family != runs.front()->family) return std::nullopt;
    return runs.front()->family;
}

std::optional<double> preferredContext(const RunTable& table, const RunFilter& filter) {
    constexpr double kStudyContext = 8192;
    const std::vector<double> contexts = contextLengths(table, filter);
    if (contexts.empty()) return std::nullopt;
    if (std::find(contexts.begin(), contexts.end(), kStudyContext) != contexts.end()) return kStudyContext;
    double best = contexts.front();
    std::size_t most = 0;
    for (const double c : contexts) {
        RunFilter one = filter;
        one.context = c;
        const std::size_t n = isoFlopRuns(table, one).points.size();
        if (n > most) best = c, most = n;
    }
    return best;
}

}  // namespace scalex::analysis
