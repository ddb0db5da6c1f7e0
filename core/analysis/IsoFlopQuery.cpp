#include "core/analysis/IsoFlopQuery.h"

#include <algorithm>
#include <set>

namespace scalex::analysis {

const IsoFlopSeriesFit* IsoFlopAnswer::fitOf(const std::string& series) const {
    for (const auto& f : fits)
        if (f.series == series) return &f;
    return nullptr;
}

std::vector<fit::IsoFlopRun> IsoFlopAnswer::inputsOf(const IsoFlopSeriesFit& fit) {
    std::vector<fit::IsoFlopRun> runs;
    runs.reserve(fit.analysis.runs.size());
    for (const data::Run* r : fit.analysis.runs) runs.push_back({r->params, r->tokens, r->flops, r->loss()});
    return runs;
}

RunFilter isoFlopSeriesFilter(const IsoFlopQuery& query, bool setsNamed, const std::string& series) {
    RunFilter filter = query.scope;
    filter.series = series;
    if (setsNamed) filter.experimentSet = data::ExperimentSet::IsoFlop;
    filter.context.reset();
    return filter;
}

namespace {

IsoFlopSeriesFit fitSeries(const data::RunTable& table, const AnalysisSettings& settings, const data::PaperTables& paper,
                           const std::string& series, RunFilter filter, const fit::IsoFlopSettings& base) {
    IsoFlopSeriesFit out;
    out.series = series;
    out.context = filter.context.value_or(0.0);
    // The analysis the verbs run: the runs' budgets, outliers left out unless kept.
    out.analysis = isoFlopAnalysis(table, settings, {series, filter.context.value_or(data::kUnknown), filter}, base);
    out.paperLaw = paperOptimalLaws(paper, out.analysis.runs, out.context);
    return out;
}

}  // namespace

IsoFlopSeries isoFlopSeries(const data::RunTable& table, const IsoFlopQuery& query, const fit::FitControl& control) {
    IsoFlopSeries out;
    // The series with runs for an IsoFLOP analysis: the study's IsoFLOP set where its runs name
    // sets, else every run with compute and loss.
    RunFilter any = query.scope;
    any.context.reset();
    out.setsNamed = std::any_of(table.runs.begin(), table.runs.end(), [&](const data::Run& r) {
        return r.experimentSet != data::ExperimentSet::Other && passes(r, any);
    });
    for (const auto& name : query.series) {
        if (control.cancelled()) return out;
        if (!isoFlopRuns(table, isoFlopSeriesFilter(query, out.setsNamed, name)).points.empty()) out.withRuns.push_back(name);
    }
    const auto& names = out.withRuns;
    const auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    if (has("transformer") && has("xlstm")) {
        out.pair[0] = "transformer";
        out.pair[1] = "xlstm";
    } else {
        if (names.size() > 0) out.pair[0] = names[0];
        if (names.size() > 1) out.pair[1] = names[1];
    }
    return out;
}

IsoFlopAnswer answerIsoFlopQuery(const data::RunTable& table, const AnalysisSettings& settings, const data::PaperTables& paper,
                                 IsoFlopQuery query, const fit::FitControl& control) {
    IsoFlopAnswer answer;
    answer.query = query;
    IsoFlopSeries offered = isoFlopSeries(table, query, control);
    if (control.cancelled()) return answer.cancelled = true, answer;
    answer.setsNamed = offered.setsNamed;
    answer.seriesWithRuns = std::move(offered.withRuns);
    answer.pair[0] = std::move(offered.pair[0]);
    answer.pair[1] = std::move(offered.pair[1]);
    const auto& names = answer.seriesWithRuns;
    const auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    // The series fitted: the one shown and the other of the pair, or the pair.
    std::vector<std::string> fitted;
    if (query.both) {
        for (const auto& s : answer.pair)
            if (!s.empty()) fitted.push_back(s);
    } else if (!names.empty()) {
        const std::string& shown = has(query.shown.c_str()) ? query.shown : names.front();
        fitted.push_back(shown);
        const std::string& other = shown == answer.pair[0] ? answer.pair[1] : answer.pair[0];
        if (!other.empty()) fitted.push_back(other);
    }
    fit::IsoFlopSettings base;
    base.fitMin = query.fitMin;
    base.fitMax = query.fitMax;
    for (const auto& series : names) {
        if (control.cancelled()) return answer.cancelled = true, answer;
        RunFilter filter = isoFlopSeriesFilter(query, answer.setsNamed, series);
        // One context per fit (preferredContext).
        if (const auto context = preferredContext(table, filter)) filter.context = *context;
        answer.every.push_back(fitSeries(table, settings, paper, series, filter, base));
    }
    for (const auto& series : fitted)
        answer.fits.push_back(*std::find_if(answer.every.begin(), answer.every.end(),
                                            [&](const IsoFlopSeriesFit& f) { return f.series == series; }));
    if (!query.everyContext) return answer;
    std::set<double> contexts;
    for (const auto& series : fitted)
        for (double c : contextLengths(table, isoFlopSeriesFilter(query, answer.setsNamed, series))) contexts.insert(c);
    for (double c : contexts) {
        IsoFlopContextFits at;
        at.context = c;
        for (const auto& series : fitted) {
            if (control.cancelled()) return answer.cancelled = true, answer;
            RunFilter filter = isoFlopSeriesFilter(query, answer.setsNamed, series);
            filter.context = c;
            at.fits.push_back(fitSeries(table, settings, paper, series, filter, base));
        }
        answer.contexts.push_back(std::move(at));
    }
    return answer;
}

std::vector<IsoFlopShown> isoFlopShown(const IsoFlopAnswer& answer, const std::vector<std::optional<fit::BootstrapResult>>& bands) {
    std::vector<IsoFlopShown> shown;
    for (std::size_t k = 0; k < answer.fits.size(); ++k) {
        const auto& f = answer.fits[k];
        const fit::BootstrapResult* intervals = k < bands.size() && bands[k] ? &*bands[k] : nullptr;
        shown.push_back({f.series, f.context, &f.analysis.result, intervals, f.paperLaw});
    }
    return shown;
}

std::vector<IsoFlopShown> isoFlopShownEvery(const IsoFlopAnswer& answer, const std::vector<std::optional<fit::BootstrapResult>>& bands) {
    std::vector<IsoFlopShown> shown;
    for (std::size_t k = 0; k < answer.every.size(); ++k) {
        const auto& f = answer.every[k];
        const fit::BootstrapResult* intervals = k < bands.size() && bands[k] ? &*bands[k] : nullptr;
        shown.push_back({f.series, f.context, &f.analysis.result, intervals, f.paperLaw});
    }
    return shown;
}

std::vector<IsoFlopShown> isoFlopShownPerContext(const IsoFlopAnswer& answer) {
    // Series by series, each at every context, as the tables list them.
    std::vector<IsoFlopShown> shown;
    for (std::size_t k = 0; k < answer.fits.size(); ++k)
        for (const auto& at : answer.contexts)
            if (k < at.fits.size()) shown.push_back({at.fits[k].series, at.context, &at.fits[k].analysis.result, nullptr, {}});
    return shown;
}

}  // namespace scalex::analysis
