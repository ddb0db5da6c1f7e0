#include "core/analysis/ExportTables.h"

#include "core/analysis/RunSelection.h"
#include "core/analysis/Study.h"
#include "core/data/ColumnMapping.h"
#include "core/data/Series.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/OvertrainingSlopes.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <map>
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

std::optional<data::ExportTable> lossSurfaceParameterTable(const data::RunTable& table, const AnalysisSettings& settings,
                                                           const std::vector<SeriesGroup>& groups, const LossSurfaceAnalysis& known,
                                                           const fit::LossSurfaceSettings& fitSettings,
                                                           const fit::BootstrapSettings& bootstrap, const fit::FitControl& control) {
    std::vector<LossSurfaceAnalysis> others;
    others.reserve(groups.size());  // the pointers below stay valid
    std::vector<SurfaceWithIntervals> fits;
    for (const SeriesGroup& g : groups) {
        if (control.cancelled()) return std::nullopt;
        const bool isKnown = g.series == known.group.series && !known.error;
        if (!isKnown) others.push_back(lossSurfaceAnalysis(table, settings, g, fitSettings, control));
        const LossSurfaceAnalysis& a = isKnown ? known : others.back();
        if (a.error) continue;
        fits.push_back({&a, surfaceIntervals(a, fitSettings, bootstrap, control)});
    }
    if (control.cancelled()) return std::nullopt;
    return lossSurfaceParameterTable(fits, fitSettings, bootstrap);
}

data::ExportTable slopeTable(const std::vector<SlopesWithIntervals>& slopes) {
    data::ExportTable t;
    t.caption = "Power laws $L(C) = \\lambda C^{-\\eta}$ per tokens-to-parameter ratio $M$, with 95\\% bootstrap intervals "
                "of $\\eta$ (runs resampled within each ratio).";
    t.label = "tab:tokenparam_slopes";
    t.columns = {{"model", "Model", data::CellStyle::Text},        {"tokens_per_param", "$M$", data::CellStyle::Integer},
                 {"runs", "Runs", data::CellStyle::Integer},        {"eta", "$\\eta$", data::CellStyle::Fixed3},
                 {"eta_lower", "95\\% low", data::CellStyle::Fixed3}, {"eta_upper", "95\\% high", data::CellStyle::Fixed3},
                 {"lambda", "$\\lambda$", data::CellStyle::Fixed2},  {"r2", "$R^2$", data::CellStyle::Fixed3}};
    for (const SlopesWithIntervals& s : slopes) {
        if (!s.analysis) continue;
        for (const auto& g : s.analysis->result.groups) {
            if (!g.fitted) continue;
            data::ExportCell lo, hi;
            std::ostringstream name;
            name << "eta(" << g.ratio << ')';  // the name of its interval
            if (const auto* in = s.intervals.find(name.str()); in && in->nValid > 0) lo = in->lower, hi = in->upper;
            t.rows.push_back({data::seriesLabel(s.analysis->group.series), g.ratio, static_cast<double>(g.runs.size()), g.eta, lo, hi,
                              g.lambda, g.quality.r2});
        }
    }
    return t;
}

namespace {

const char* lawName(bool overTokens) { return overTokens ? "D*(H)" : "N*(H)"; }

data::ExportCell contextCell(double context) { return context > 0 ? data::ExportCell(context) : data::ExportCell{}; }

}  // namespace

data::ExportTable isoFlopLawTable(const std::vector<IsoFlopShown>& fits) {
    data::ExportTable laws;
    laws.caption = "IsoFLOP power laws $N^*(H) = A' H^a$ and $D^*(H) = B' H^b$ with 95\\% bootstrap intervals (200 "
                   "resamples of the runs within each budget); Paper: the paper's exponent for the same family and context, where it has one.";
    laws.label = "tab:isoflop_powerlaws";
    laws.columns = {{"model", "Model", data::CellStyle::Text},
                    {"context", "$T$", data::CellStyle::Integer},
                    {"law", "Law", data::CellStyle::Symbol},
                    {"coefficient", "Coefficient", data::CellStyle::Scientific},
                    {"coefficient_lower", "95\\% low", data::CellStyle::Scientific},
                    {"coefficient_upper", "95\\% high", data::CellStyle::Scientific},
                    {"exponent", "Exponent", data::CellStyle::Fixed3},
                    {"exponent_lower", "95\\% low", data::CellStyle::Fixed3},
                    {"exponent_upper", "95\\% high", data::CellStyle::Fixed3},
                    {"budgets", "Budgets", data::CellStyle::Integer},
                    {"r2", "$R^2$", data::CellStyle::Fixed3},
                    {"paper_exponent", "Paper", data::CellStyle::Fixed3}};
    for (const IsoFlopShown& f : fits) {
        if (!f.result) continue;
        for (const bool d : {false, true}) {
            const auto& law = d ? f.result->dOptLaw : f.result->nOptLaw;
            if (!law) continue;
            auto interval = [&](const char* name, data::ExportCell* lo, data::ExportCell* hi) {
                const fit::BootstrapInterval* in = f.intervals ? f.intervals->find(name) : nullptr;
                if (in && in->nValid > 0) *lo = in->lower, *hi = in->upper;
            };
            data::ExportCell cLo, cHi, eLo, eHi;
            interval(d ? "B" : "A", &cLo, &cHi);
            interval(d ? "b" : "a", &eLo, &eHi);
            const data::ExportCell paper = f.paper ? data::ExportCell(d ? f.paper->exponentD : f.paper->exponentN) : data::ExportCell{};
            laws.rows.push_back({data::seriesLabel(f.series), contextCell(f.context), std::string(lawName(d)), law->coefficient, cLo, cHi,
                                 law->exponent, eLo, eHi, static_cast<double>(law->nPoints), law->r2, paper});
        }
    }
    return laws;
}

data::ExportTable isoFlopOptimaTable(const std::vector<IsoFlopShown>& fits) {
    data::ExportTable optima;
    optima.caption = "Minima of the IsoFLOP parabolas: the compute-optimal model size $N^*$ and token count $D^*$ per budget.";
    optima.label = "tab:isoflop_optima";
    optima.columns = {{"model", "Model", data::CellStyle::Text},
                      {"budget", "Budget $H$", data::CellStyle::Scientific},
                      {"flops_mean", "Mean $C$", data::CellStyle::Scientific},
                      {"runs", "Runs", data::CellStyle::Integer},
                      {"n_opt", "$N^*$", data::CellStyle::Count},
                      {"d_opt", "$D^*$", data::CellStyle::Count},
                      {"loss_at_n_opt", "$\\hat L(N^*)$", data::CellStyle::Fixed3},
                      {"in_power_law", "In law", data::CellStyle::Text}};
    for (const IsoFlopShown& f : fits) {
        if (!f.result) continue;
        for (const auto& p : f.result->profiles) {
            if (!p.fitted) continue;
            optima.rows.push_back({data::seriesLabel(f.series), p.budget, p.flopsMean, static_cast<double>(p.nRuns), p.nOpt, p.dOpt,
                                   p.lossAtNOpt, std::string(p.inPowerLaw ? "yes" : "no")});
        }
    }
    return optima;
}

data::ExportTable isoFlopContextTable(const std::vector<IsoFlopShown>& fits) {
    data::ExportTable contexts;
    contexts.caption = "IsoFLOP power laws $N^*(H) = A' H^a$ and $D^*(H) = B' H^b$ fitted separately at every context length $T$.";
    contexts.label = "tab:isoflop_powerlaws_context";
    contexts.columns = {{"model", "Model", data::CellStyle::Text},
                        {"context", "$T$", data::CellStyle::Integer},
                        {"law", "Law", data::CellStyle::Symbol},
                        {"coefficient", "Coefficient", data::CellStyle::Scientific},
                        {"exponent", "Exponent", data::CellStyle::Fixed3},
                        {"budgets", "Budgets", data::CellStyle::Integer},
                        {"r2", "$R^2$", data::CellStyle::Fixed3}};
    for (const IsoFlopShown& f : fits) {
        if (!f.result) continue;
        for (const bool d : {false, true}) {
            const auto& law = d ? f.result->dOptLaw : f.result->nOptLaw;
            if (!law) continue;
            contexts.rows.push_back({data::seriesLabel(f.series), contextCell(f.context), std::string(lawName(d)), law->coefficient,
                                     law->exponent, static_cast<double>(law->nPoints), law->r2});
        }
    }
    return contexts;
}

std::vector<std::pair<std::string, data::ExportTable>> paperAppendixTables(const data::RunTable& runs) {
    using accounting::Family;
    std::vector<std::pair<std::string, data::ExportTable>> out;
    auto filter = [](Family f, data::ExperimentSet set) {
        analysis::RunFilter r;
        r.family = f;
        r.experimentSet = set;
        r.context = 8192;
        r.selectedOnly = true;
        return r;
    };
    // Tab. lnd_fit_params (delta 1e-3, gamma free).
    data::ExportTable lnd;
    lnd.caption = "Fit parameters of the loss surface $L(N,D)$ (Huber $\\delta = 10^{-3}$, $\\gamma$ fitted), from the token/param runs at context length 8192.";
    lnd.label = "tab:lnd_fit_params";
    lnd.columns = {{"family", "Model", data::CellStyle::Text},   {"log_a", "$\\log A$", data::CellStyle::Fixed2},
                   {"log_b", "$\\log B$", data::CellStyle::Fixed2}, {"log_e", "$\\log E$", data::CellStyle::Fixed2},
                   {"alpha", "$\\alpha$", data::CellStyle::Fixed2}, {"beta", "$\\beta$", data::CellStyle::Fixed2},
                   {"gamma", "$\\gamma$", data::CellStyle::Fixed2}};
    // Tab. tokenparam_slopes.
    data::ExportTable eta;
    eta.caption = "Power-law exponents $\\eta$ of $L(C) = \\lambda C^{-\\eta}$ per tokens-to-parameter ratio $M$.";
    eta.label = "tab:tokenparam_slopes";
    eta.columns = {{"tokens_per_param", "$M$", data::CellStyle::Integer},
                   {"eta_transformer", "Transformer $\\eta$", data::CellStyle::Fixed3},
                   {"eta_xlstm", "xLSTM $\\eta$", data::CellStyle::Fixed3}};
    // Tab. estimated_optimal_flops_tokens_powerlaw and its per-context counterparts: a row per
    // model size of the paper.
    const std::vector<double> sizes{1e8, 4e8, 1e9, 2e9, 4e9, 8e9, 1e10, 1.4e10, 3.2e10, 6.7e10, 1.75e11};
    auto sizesTable = [&](std::string caption, std::string label) {
        data::ExportTable t;
        t.caption = std::move(caption);
        t.label = std::move(label);
        t.columns = {{"params", "Params", data::CellStyle::Count}};
        for (double n : sizes) t.rows.push_back({n});
        return t;
    };
    // Appends the compute-optimal budget, tokens and tokens per parameter of every size under the
    // laws of `result`: H = N*^-1(N), D = D*(H). Empty cells without both laws.
    auto appendOptimal = [&](data::ExportTable& t, const fit::IsoFlopResult& result, const std::string& prefix,
                             const std::string& flopsTitle) {
        t.columns.push_back({prefix + "_flops", flopsTitle, data::CellStyle::Scientific});
        t.columns.push_back({prefix + "_tokens", "Tokens", data::CellStyle::Count});
        t.columns.push_back({prefix + "_tokens_per_param", "Tok/Param", data::CellStyle::Fixed1});
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (!result.nOptLaw || !result.dOptLaw) {
                t.rows[i].insert(t.rows[i].end(), 3, data::ExportCell{});
                continue;
            }
            const double H = result.nOptLaw->inverse(sizes[i]);
            const double D = (*result.dOptLaw)(H);
            t.rows[i].insert(t.rows[i].end(), {H, D, D / sizes[i]});
        }
    };
    data::ExportTable opt = sizesTable("Compute-optimal training FLOPs, tokens and tokens per parameter from the IsoFLOP power laws (context 8192).",
                                       "tab:estimated_optimal_flops_tokens_powerlaw");
    // Per context: budgets 5e18 to 5e19, as the paper's context-specific fits.
    std::array<data::ExportTable, 2> byContext;
    std::map<double, std::array<data::ExportCell, 2>> etas;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const int k = f == Family::Xlstm;
        const std::string family(accounting::familyLabel(f));
        fit::LossSurfaceSettings settings;
        const auto points = analysis::lossSurfacePoints(runs, filter(f, data::ExperimentSet::TokenParam)).points;
        if (points.size() >= 6) {
            const auto fitted = fit::fitLossSurface(points, settings);
            const auto& b = fitted.best;
            lnd.rows.push_back({family, b.logA, b.logB, b.logE, b.alpha, b.beta, b.gamma});
        }
        const auto slopes = analysis::fitOvertrainingSlopes(runs, filter(f, data::ExperimentSet::TokenParam), fit::SlopeSettings{});
        for (const auto& g : slopes.groups)
            if (g.fitted) etas[g.ratio][static_cast<std::size_t>(k)] = g.eta;
        fit::IsoFlopSettings iso;
        iso.fitMin = 5e18;
        iso.fitMax = 2e20;
        const std::string prefix = k ? "xlstm" : "transformer";
        appendOptimal(opt, analysis::fitIsoFlop(runs, filter(f, data::ExperimentSet::IsoFlop), iso), prefix, family + " FLOPs");

        data::ExportTable& ctx = byContext[static_cast<std::size_t>(k)];
        ctx = sizesTable("Compute-optimal training FLOPs, tokens and tokens per parameter of " + family +
                             " models across context lengths, from IsoFLOP power laws fitted at each context length (budgets $5 \\cdot 10^{18}$ to $5 \\cdot 10^{19}$).",
                         "tab:estimated_optimal_flops_tokens_powerlaw_context_" + prefix);
        analysis::RunFilter any = filter(f, data::ExperimentSet::IsoFlop);
        any.context.reset();
        iso.fitMax = 5e19;
        for (double T : analysis::contextLengths(runs, any)) {
            analysis::RunFilter at = any;
            at.context = T;
            const std::string t = std::to_string(static_cast<long long>(T));
            appendOptimal(ctx, analysis::fitIsoFlop(runs, at, iso), "ctx" + t, "$T = " + t + "$ FLOPs");
        }
    }
    for (const auto& [m, values] : etas) eta.rows.push_back({m, values[0], values[1]});
    out.push_back({"tab_lnd_fit_params", lnd});
    out.push_back({"tab_tokenparam_slopes", eta});
    out.push_back({"tab_estimated_optimal_flops_tokens_powerlaw", opt});
    out.push_back({"tab_estimated_optimal_flops_tokens_powerlaw_context_transformer", byContext[0]});
    out.push_back({"tab_estimated_optimal_flops_tokens_powerlaw_context_xlstm", byContext[1]});
    return out;
}


namespace {
bool anyPaperModel(const OptimalAnswer& answer) {
    return std::any_of(answer.series.begin(), answer.series.end(), [](const OptimalSeriesAnswer& a) { return a.paper; });
}
std::string contextText(double context) { return std::to_string(static_cast<long long>(context)); }
std::string optimalMethodName(const OptimalAnswer& answer) {
    if (answer.query.useLaws) return "the IsoFLOP power laws";
    return anyPaperModel(answer) || answer.series.empty() ? "the loss surface with the FLOP count at $T$" : "the loss surface of each series";
}
// "context length 8192, from ...", the context where the paper's models count FLOPs at it.
std::string optimalSource(const OptimalAnswer& answer) {
    const std::string from = "from " + optimalMethodName(answer);
    return anyPaperModel(answer) || answer.series.empty() ? "context length " + contextText(answer.query.context) + ", " + from : from;
}
// " No values for lab-b: why." for each series without an optimum (its reason names it, or is
// named by it).
std::string unansweredText(const OptimalAnswer& answer) {
    std::string out;
    for (const auto& a : answer.series)
        if (!a.answered())
            out += " No values for " + data::latexEscape(a.problem.rfind(a.name, 0) == 0 ? a.problem : a.name + ": " + a.problem);
    return out;
}
data::ExportCell numberCell(double v) { return std::isfinite(v) ? data::ExportCell{v} : data::ExportCell{}; }
}  // namespace

data::ExportTable optimalSizesTable(const OptimalAnswer& answer, const std::string& problem) {
    data::ExportTable sizes;
    sizes.caption = "Estimated compute-optimal training FLOPs, tokens and token/param ratio for varying model sizes (" +
                    optimalSource(answer) + ").";
    sizes.label = "tab:estimated_optimal_flops_tokens";
    sizes.columns = {{"params", "\\#Params", data::CellStyle::Count}};
    for (const auto& a : answer.series) {
        const std::string key = data::normalizeColumnName(a.name);
        sizes.columns.push_back({key + "_flops", data::latexEscape(a.name) + " \\#FLOPs", data::CellStyle::Scientific});
        sizes.columns.push_back({key + "_tokens", "\\#Tokens", data::CellStyle::Count});
        sizes.columns.push_back({key + "_tokens_per_param", "Token/Param", data::CellStyle::Fixed1});
    }
    if (problem.empty()) {
        for (std::size_t r = 0; r < answer.query.sizes.size(); ++r) {
            std::vector<data::ExportCell> row{answer.query.sizes[r]};
            for (const auto& a : answer.series) {
                const auto& o = a.sizes.size() > r ? a.sizes[r] : std::nullopt;
                if (o) row.insert(row.end(), {o->budget, o->tokens, o->tokens / o->params});
                else row.insert(row.end(), {data::ExportCell{}, data::ExportCell{}, data::ExportCell{}});
            }
            sizes.rows.push_back(std::move(row));
        }
        sizes.caption += unansweredText(answer);
    } else {
        sizes.caption += " No values: " + data::latexEscape(problem);
    }
    return sizes;
}

data::ExportTable optimalQueryTable(const OptimalAnswer& answer, const std::string& asked, const std::string& problem) {
    data::ExportTable query;
    query.caption = "Compute-optimal configuration for " + asked + " (" + optimalSource(answer) + ").";
    query.columns = {{"model", "Model", data::CellStyle::Text},          {"n_opt", "$N^*$", data::CellStyle::Count},
                     {"d_opt", "$D^*$", data::CellStyle::Count},         {"tokens_per_param", "$D^*/N^*$", data::CellStyle::Fixed1},
                     {"budget", "$H$ (FLOPs)", data::CellStyle::Scientific}, {"loss", "$\\hat L$", data::CellStyle::Fixed3}};
    if (!problem.empty()) {
        query.caption += " No values: " + data::latexEscape(problem);
        return query;
    }
    // The intervals of the IsoFLOP laws fitted to runs, where they give the optima shown; a note
    // for each series without an optimum.
    const auto& series = answer.series;
    const bool intervals = answer.query.useLaws && std::any_of(series.begin(), series.end(), [](const auto& a) { return a.intervals.has_value(); });
    const bool notes = std::any_of(series.begin(), series.end(), [](const auto& a) { return !a.answered(); });
    if (intervals) {
        query.columns.insert(query.columns.end(), {{"n_opt_low", "$N^*$ low", data::CellStyle::Count},
                                                   {"n_opt_high", "$N^*$ high", data::CellStyle::Count},
                                                   {"d_opt_low", "$D^*$ low", data::CellStyle::Count},
                                                   {"d_opt_high", "$D^*$ high", data::CellStyle::Count},
                                                   {"exponent", "$a$", data::CellStyle::Fixed3},
                                                   {"exponent_low", "$a$ low", data::CellStyle::Fixed3},
                                                   {"exponent_high", "$a$ high", data::CellStyle::Fixed3}});
        const auto it = std::find_if(series.begin(), series.end(), [](const auto& a) { return a.intervals.has_value(); });
        query.caption += " Low and high: " + std::to_string(static_cast<int>(std::lround(100 * it->intervals->level))) +
                         " \\% bootstrap intervals of the IsoFLOP laws (" + std::to_string(it->intervals->resamples) +
                         " resamples of the runs within each budget).";
    }
    if (notes) query.columns.push_back({"note", "Note", data::CellStyle::Text});
    const std::size_t width = query.columns.size();
    auto row = [&](std::vector<data::ExportCell> cells) {
        cells.resize(width);
        query.rows.push_back(std::move(cells));
    };
    for (const auto& a : series) {
        if (!a.answered()) {
            std::vector<data::ExportCell> cells(width);
            cells[0] = a.name;
            cells[width - 1] = a.problem;
            row(std::move(cells));
            continue;
        }
        const auto& o = a.optimum;
        std::vector<data::ExportCell> cells{a.name, o.params, o.tokens, o.tokens / o.params, o.budget, numberCell(o.loss)};
        if (intervals) {
            if (const auto& i = a.intervals)
                cells.insert(cells.end(), {numberCell(i->params.lower), numberCell(i->params.upper), numberCell(i->tokens.lower),
                                           numberCell(i->tokens.upper), numberCell(i->exponentN.estimate),
                                           numberCell(i->exponentN.lower), numberCell(i->exponentN.upper)});
            else
                cells.resize(cells.size() + 7);
        }
        row(std::move(cells));
    }
    const long long percent = std::llround(100 * answer.query.overtrainFraction);
    for (const auto& a : series)
        if (const auto& t = a.overtrained)
            row({a.name + " at " + std::to_string(percent) + " % of N*", t->params, t->tokens, t->tokens / t->params, t->compute,
                 numberCell(a.optimum.loss)});
    for (const auto& a : series)
        if (const auto& l = a.lifetime)
            row({a.name + " serving " + data::formatScientific(answer.query.inferenceTokens) + " tokens (least training plus inference compute)",
                 l->params, l->tokens, l->tokens / l->params, l->trainingCompute, numberCell(a.optimum.loss)});
    return query;
}

data::ExportTable optimalMethodsTable(const OptimalAnswer& answer, const std::string& methodsNote) {
    data::ExportTable methods;
    methods.caption = "The optimum at the query's budget by both methods (the loss surface" +
                      (anyPaperModel(answer) ? " with the FLOP count at context length " + contextText(answer.query.context) : std::string()) +
                      ", and the IsoFLOP power laws), their local exponents $d\\ln N^*/d\\ln H$ and the budget at which they agree.";
    methods.columns = {{"model", "Model", data::CellStyle::Text},
                       {"budget", "$H$ (FLOPs)", data::CellStyle::Scientific},
                       {"n_opt_surface", "$N^*$ surface", data::CellStyle::Count},
                       {"n_opt_laws", "$N^*$ laws", data::CellStyle::Count},
                       {"exponent_surface", "$a$ surface", data::CellStyle::Fixed3},
                       {"exponent_laws", "$a$ laws", data::CellStyle::Fixed3},
                       {"agree_at", "agree at $H$", data::CellStyle::Scientific}};
    // A series with one method: its row, and why the other has none.
    const auto& series = answer.series;
    const bool single = std::any_of(series.begin(), series.end(), [](const auto& a) {
        return !a.comparison && !a.paper && (a.surfaceAtBudget || a.lawsAtBudget);
    });
    if (single) methods.columns.push_back({"note", "Note", data::CellStyle::Text});
    for (const auto& a : series) {
        if (const auto& c = a.comparison) {
            std::vector<data::ExportCell> row{a.name, c->surface.budget, c->surface.params, c->laws.params, c->surfaceExponent, c->lawExponent,
                                              std::isfinite(c->agreeAtBudget) ? data::ExportCell{c->agreeAtBudget} : data::ExportCell{}};
            if (single) row.emplace_back();
            methods.rows.push_back(std::move(row));
        } else if (!a.paper && (a.surfaceAtBudget || a.lawsAtBudget)) {
            // The paper's models without laws at T are said once, in the caption's note.
            const double budget = a.surfaceAtBudget ? a.surfaceAtBudget->budget : a.lawsAtBudget->budget;
            methods.rows.push_back({a.name, budget, a.surfaceAtBudget ? data::ExportCell{a.surfaceAtBudget->params} : data::ExportCell{},
                                    a.lawsAtBudget ? data::ExportCell{a.lawsAtBudget->params} : data::ExportCell{}, data::ExportCell{},
                                    a.laws ? data::ExportCell{a.laws->exponentN} : data::ExportCell{}, data::ExportCell{},
                                    a.surfaceAtBudget ? a.lawsProblem : a.surfaceProblem});
        }
    }
    if (methods.rows.empty()) methods.caption += " No values: " + data::latexEscape(methodsNote);
    return methods;
}

data::ExportTable runListTable(const Study& study, const std::vector<int>& rows) {
    // The columns the Runs view shows, full values in CSV and JSON.
    data::ExportTable t;
    t.columns = {{"run_id", "Run", data::CellStyle::Text},
                 {"in_analysis", "In fit", data::CellStyle::Text},
                 {"series", "Series", data::CellStyle::Text},
                 {"experiment_set", "Set", data::CellStyle::Text},
                 {"context_length", "$T$", data::CellStyle::Integer},
                 {"num_params", "$N$", data::CellStyle::Count},
                 {"num_tokens", "$D$", data::CellStyle::Count},
                 {"tokens_per_param", "$D/N$", data::CellStyle::Fixed1},
                 {"num_flops", "$C$ (FLOPs)", data::CellStyle::Scientific},
                 {"isoflop_budget", "Budget", data::CellStyle::Scientific},
                 {"loss", "Loss", data::CellStyle::Fixed4},
                 {"selected_in_paper", "Selected", data::CellStyle::Text},
                 {"problems", "Problems", data::CellStyle::Text}};
    auto number = [](double v) { return data::known(v) ? data::ExportCell(v) : data::ExportCell{}; };
    const auto& runs = study.runs().runs;
    for (int row : rows) {
        if (row < 0 || static_cast<std::size_t>(row) >= runs.size()) continue;
        const data::Run& run = runs[static_cast<std::size_t>(row)];
        std::string problems;
        for (const auto& p : run.problems) problems += (problems.empty() ? "" : "; ") + p;
        t.rows.push_back({run.runId.empty() ? run.name : run.runId, std::string(study.inAnalysis(run) ? "yes" : "no"),
                          data::seriesLabel(run.series), experimentSetName(run.experimentSet), number(run.context),
                          number(run.params), number(run.tokens),
                          data::known(run.params) && data::known(run.tokens) ? data::ExportCell(run.tokensPerParam()) : data::ExportCell{},
                          number(run.flops), number(run.budget), number(run.loss()),
                          run.selectedInPaper ? data::ExportCell(std::string(*run.selectedInPaper ? "yes" : "no")) : data::ExportCell{},
                          problems.empty() ? data::ExportCell{} : data::ExportCell(problems)});
    }
    t.caption = "Training runs (" + std::to_string(t.rows.size()) + " shown of " + std::to_string(runs.size()) + ").";
    return t;
}

}  // namespace scalex::analysis
