#include "core/analysis/SeriesAnalyses.h"

#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "core/accounting/SpecAccounting.h"
#include "core/analysis/KeptRuns.h"
#include "core/analysis/ResultCache.h"
#include "core/data/RunDerivation.h"
#include "core/fit/ComputeOptimal.h"
#include "core/fit/FitControl.h"
#include "core/data/Series.h"

namespace scalex::analysis {

namespace {

// ---- the keys of the results kept in ResultCache (KeptRuns.h) ------------------------------

QJsonArray keyNumbers(const std::vector<double>& values) {
    QJsonArray out;
    for (double v : values) out.append(keyNumber(v));
    return out;
}

QJsonObject keyJson(const fit::IsoFlopSettings& s) {
    return {{"budgets", keyNumbers(s.budgets)}, {"tolerance", keyNumber(s.tolerance)}, {"fit_min", keyNumber(s.fitMin)},
            {"fit_max", keyNumber(s.fitMax)}, {"min_runs", s.minRunsPerProfile}, {"kept_budgets", keyNumbers(s.keptBudgets)}};
}

QJsonObject keyJson(const fit::SlopeSettings& s) {
    return {{"ratios", keyNumbers(s.ratios)}, {"tolerance", keyNumber(s.tolerance)}, {"min_runs", s.minRuns}};
}

QJsonObject keyJson(const fit::BootstrapSettings& b) {
    return {{"resamples", b.resamples}, {"seed", QString::number(b.seed)}, {"level", keyNumber(b.level)}, {"refit_from_grid", b.refitFromGrid}};
}

// The key of a result read from the runs of `filter` in `table`.
ResultKey runsKey(const char* analysis, const std::string& scope, const data::RunTable& table, const RunFilter& filter,
                  const QJsonObject& options) {
    return {analysis, scope, canonicalJson(options), selectionRevision(table, filter)};
}

}  // namespace

QJsonObject lossSurfaceSettingsJson(const fit::LossSurfaceSettings& s) {
    QJsonObject grid;
    grid["logA"] = keyNumbers(s.grid.logA);
    grid["logB"] = keyNumbers(s.grid.logB);
    grid["logE"] = keyNumbers(s.grid.logE);
    grid["alpha"] = keyNumbers(s.grid.alpha);
    grid["beta"] = keyNumbers(s.grid.beta);
    grid["gamma"] = keyNumbers(s.grid.gamma);
    const auto lower = s.bounds.lower.asArray(), upper = s.bounds.upper.asArray();
    return {{"huber_delta", s.huberDelta},
            {"fit_gamma", s.fitGamma},
            {"stop_delta", s.stopDelta},
            {"screen_stop_delta", s.screenStopDelta},
            {"refine_count", static_cast<double>(s.refineCount)},
            {"screen_points", static_cast<double>(s.screenPoints)},
            {"basin_tolerance", s.basinTolerance},
            {"basin_refine_count", static_cast<double>(s.basinRefineCount)},
            {"max_iterations", static_cast<double>(s.maxIterations)},
            {"keep_best", static_cast<double>(s.keepBest)},
            {"spread_tolerance", s.spreadTolerance},
            {"grid", grid},
            {"lower", keyNumbers({lower.begin(), lower.end()})},
            {"upper", keyNumbers({upper.begin(), upper.end()})}};
}

namespace {

// The runs fitted, those left out as outliers, and those their sweep's best stands for.
template <class Analysis>
void visitFittedAndLeftOut(Analysis& a, const RunVisitor& visit) {
    for (auto& r : a.runs) visit(r);
    for (auto& f : a.outliers) visit(f.run);
    for (auto& r : a.notBestOfSweep) visit(r);
}

}  // namespace

void visitRuns(LossSurfaceAnalysis& a, const RunVisitor& visit) { visitFittedAndLeftOut(a, visit); }
void visitRuns(IsoFlopAnalysis& a, const RunVisitor& visit) { visitFittedAndLeftOut(a, visit); }
void visitRuns(SlopeAnalysis& a, const RunVisitor& visit) { visitFittedAndLeftOut(a, visit); }

void visitRuns(ParetoAnalysis& a, const RunVisitor& visit) {
    for (auto& r : a.runs) visit(r);
    for (auto& r : a.notBestOfSweep) visit(r);
}

using data::known;

std::string SeriesGroup::label() const {
    std::string s = data::seriesLabel(series);
    if (known(context)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", context);
        s += ", T = " + std::string(buf);
    }
    return s;
}

std::vector<SeriesGroup> seriesGroups(const data::RunTable& table, const AnalysisSettings& settings,
                                      std::optional<data::ExperimentSet> set) {
    RunFilter any = settings.scope.filter();
    if (set && !any.experimentSet) any.experimentSet = set;
    std::vector<std::string> order;
    std::map<std::string, std::set<double>> contexts;
    std::map<std::string, bool> unknownContext;
    for (const auto& run : table.runs) {
        if (!settings.scope.containsSeries(run.series) || !passes(run, any)) continue;
        if (!contexts.count(run.series) && !unknownContext.count(run.series)) order.push_back(run.series);
        if (known(run.context)) contexts[run.series].insert(run.context);
        else unknownContext[run.series] = true;
    }
    std::vector<SeriesGroup> out;
    for (const auto& s : order) {
        for (double c : contexts[s]) {
            SeriesGroup g{s, c, any};
            g.filter.series = s;
            g.filter.context = c;
            out.push_back(std::move(g));
        }
        if (unknownContext[s]) {
            SeriesGroup g{s, data::kUnknown, any};
            g.filter.series = s;
            g.filter.context = data::kUnknown;  // runs without a context
            out.push_back(std::move(g));
        }
    }
    return out;
}

// ---- outliers -------------------------------------------------------------------------------

namespace {

// Takes the runs a check flagged out of `points` and `runs` (parallel), except those the user
// ticked back in, and returns them with their reasons.
template <class Point>
std::vector<FlaggedRun> leaveOutFlagged(const fit::OutlierCheck& check, std::vector<Point>& points,
                                        std::vector<const data::Run*>& runs) {
    std::vector<FlaggedRun> flagged;
    std::vector<bool> drop(points.size(), false);
    for (const auto& o : check.outliers) {
        const data::Run* run = runs[o.index];
        if (run->userIncluded.value_or(false)) continue;
        drop[o.index] = true;
        flagged.push_back({run, o});
    }
    if (flagged.empty()) return flagged;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (!drop[i]) {
            points[kept] = points[i];
            runs[kept] = runs[i];
            ++kept;
        }
    points.resize(kept);
    runs.resize(kept);
    return flagged;
}

}  // namespace

// ---- IsoFLOP --------------------------------------------------------------------------------

RunFilter studySet(const data::RunTable& table, RunFilter filter, data::ExperimentSet set) {
    if (filter.experimentSet) return filter;
    for (const auto& run : table.runs)
        if (run.experimentSet == set && passes(run, filter)) {
            filter.experimentSet = set;
            break;
        }
    return filter;
}


SeriesGroup studySet(const data::RunTable& table, SeriesGroup group, data::ExperimentSet set) {
    group.filter = studySet(table, group.filter, set);
    return group;
}

fit::IsoFlopSettings isoFlopSettingsFor(const std::vector<const data::Run*>& runs, const AnalysisSettings& settings,
                                        const fit::IsoFlopSettings& base, bool budgetsGiven) {
    fit::IsoFlopSettings s = base;
    if (settings.budgetRange) {
        s.fitMin = settings.budgetRange->first;
        s.fitMax = settings.budgetRange->second;
    }
    s.keptBudgets = settings.keptBudgets;
    if (budgetsGiven) return s;
    std::set<double> budgets;
    double widest = 0;
    for (const auto* r : runs)
        if (known(r->budget) && r->budget > 0) {
            budgets.insert(r->budget);
            if (r->flops > 0) widest = std::max(widest, std::abs(r->flops - r->budget) / r->budget);
        }
    // The budgets are the study's (its column, the run names or clusters of C: analysis/StudyReading.h),
    // never fixed levels: runs that carry none are in no budget.
    s.budgets.assign(budgets.begin(), budgets.end());
    if (budgets.empty()) return s;
    if (widest >= s.tolerance) s.tolerance = std::min(0.5, widest * 1.0001);
    return s;
}

IsoFlopAnalysis isoFlopAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                const fit::IsoFlopSettings& base, bool budgetsGiven) {
    const QJsonObject options{{"settings", settings.toJson()}, {"isoflop", keyJson(base)}, {"budgets_given", budgetsGiven}};
    return cachedWithRuns<IsoFlopAnalysis>(runsKey("isoflop", group.label(), table, group.filter, options), table,
                                           [&] { return computeIsoFlopAnalysis(table, settings, group, base, budgetsGiven); });
}

IsoFlopAnalysis computeIsoFlopAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                       const fit::IsoFlopSettings& base, bool budgetsGiven) {
    IsoFlopAnalysis a;
    a.group = group;
    auto sel = isoFlopRuns(table, group.filter);
    a.skipped = std::move(sel.skipped);
    a.notBestOfSweep = std::move(sel.notBestOfSweep);
    a.settings = isoFlopSettingsFor(sel.runs, settings, base, budgetsGiven);
    if (!settings.keepOutliers)
        a.outliers = leaveOutFlagged(fit::findIsoFlopOutliers(sel.points, a.settings), sel.points, sel.runs);
    std::vector<fit::IsoFlopRun> points = std::move(sel.points);
    a.runs = std::move(sel.runs);
    a.result = fit::fitIsoFlop(points, a.settings);
    for (const auto& s : a.skipped) a.result.warnings.push_back("left out " + s);
    for (const auto* r : a.notBestOfSweep) a.result.warnings.push_back("left out " + describeRun(*r, r->sweepLeftOut));
    if (a.settings.budgets.empty() && !a.runs.empty())
        a.result.warnings.push_back("no budgets: the runs carry none and their compute forms none (three model sizes or more "
                                    "within a factor 1.5); `scalex check` shows how the study was read");
    else
    for (std::size_t i : a.result.unassigned)
        if (i < a.runs.size()) {
            const data::Run& r = *a.runs[i];
            char c[32];
            std::snprintf(c, sizeof c, "%.3g", r.flops);
            a.result.warnings.push_back("left out " + describeRun(r, std::string("in no budget: its compute ") + c +
                                                                         " lies at none of the study's budgets"));
        }
    a.extrapolation = fit::extrapolateIsoFlop(a.result);
    return a;
}

std::vector<IsoFlopAnalysis> isoFlopAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                             const fit::IsoFlopSettings& base, bool budgetsGiven) {
    std::vector<IsoFlopAnalysis> out;
    for (const auto& g : seriesGroups(table, settings))
        out.push_back(isoFlopAnalysis(table, settings, studySet(table, g, data::ExperimentSet::IsoFlop), base, budgetsGiven));
    return out;
}

// ---- L(N,D) ---------------------------------------------------------------------------------

namespace {

// Why the runs cannot determine the surface's parameters, before any fit: A and α need three model
// sizes or more (two sizes leave A/N^α two values, which E absorbs), B and β three token counts.
std::optional<std::string> undeterminedBy(const std::vector<fit::LossPoint>& points) {
    std::set<long long> sizes, tokens;
    for (const auto& p : points) {
        sizes.insert(std::llround(std::log(p.params) * 1e6));
        tokens.insert(std::llround(std::log(p.tokens) * 1e6));
    }
    auto count = [](std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    if (sizes.size() < 3)
        return "the runs have " + count(sizes.size(), "model size") + "; A and alpha of L(N,D) need three or more: no law";
    if (tokens.size() < 3)
        return "the runs have " + count(tokens.size(), "token count") + "; B and beta of L(N,D) need three or more: no law";
    // Runs along one line in (log N, log D), as the runs of one IsoFLOP budget are (N·D fixed):
    // N and D move together, and no fit can tell their effects apart.
    double mx = 0, my = 0;
    for (const auto& p : points) mx += std::log(p.params), my += std::log(p.tokens);
    mx /= static_cast<double>(points.size());
    my /= static_cast<double>(points.size());
    double sxx = 0, syy = 0, sxy = 0;
    for (const auto& p : points) {
        const double x = std::log(p.params) - mx, y = std::log(p.tokens) - my;
        sxx += x * x, syy += y * y, sxy += x * y;
    }
    // r² of log D on log N: 0.99 and more for the runs of one IsoFLOP budget (C within ±10 % of
    // it), 0.06 for the study's four budgets together; a fixed tokens-per-parameter ladder gives 1.
    constexpr double kOneLine = 0.98;
    if (sxx > 0 && syy > 0 && sxy * sxy >= kOneLine * sxx * syy) {
        char r2[32];
        std::snprintf(r2, sizeof r2, "%.4f", sxy * sxy / (sxx * syy));
        return std::string("the runs lie on one line in (N, D) (r² of log D on log N ") + r2 +
               ": one budget, or one tokens-per-parameter ratio): N and D move together and L(N,D) cannot tell their "
               "effects apart: no law";
    }
    return std::nullopt;
}

// A parameter of the best fit on a side of the box: the runs do not pin it down (the box is wide
// on purpose, so a value there is the optimiser running out of room, not an estimate).
std::optional<std::string> parameterAtEdge(const fit::LossSurfaceFit& fit, const fit::LossSurfaceSettings& settings) {
    static const char* names[] = {"log A", "log B", "log E", "alpha", "beta", "gamma"};
    const auto value = fit.best.asArray(), lo = settings.bounds.lower.asArray(), hi = settings.bounds.upper.asArray();
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (i == 5 && !settings.fitGamma) continue;
        const double margin = 1e-3 * (hi[i] - lo[i]);
        if (value[i] - lo[i] < margin || hi[i] - value[i] < margin) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "the runs cannot determine %s: the best fit sits at the edge of its range (%g, range %g to %g): no law",
                          names[i], value[i], lo[i], hi[i]);
            return std::string(buf);
        }
    }
    return std::nullopt;
}

}  // namespace

fit::LossSurfaceSettings lossSurfaceSettings(const AnalysisSettings& settings, fit::LossSurfaceSettings base) {
    base.huberDelta = settings.huberDelta;
    base.fitGamma = settings.fitGamma;
    return base;
}

fit::LossSurfaceSettings lossSurfaceSettings(const AnalysisSettings& settings) { return lossSurfaceSettings(settings, {}); }

LossSurfaceAnalysis lossSurfaceAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                        const fit::LossSurfaceSettings& fitSettings, const fit::FitControl& control) {
    const QJsonObject options{{"settings", settings.toJson()}, {"fit", lossSurfaceSettingsJson(fitSettings)}};
    return cachedWithRuns<LossSurfaceAnalysis>(
        runsKey("loss-surface-analysis", group.label(), table, group.filter, options), table,
        [&] { return computeLossSurfaceAnalysis(table, settings, group, fitSettings, control); }, control,
        [&] {
            LossSurfaceAnalysis a;  // cancelled while another thread fitted the same runs
            a.group = group;
            a.fit.cancelled = true;
            return a;
        });
}

LossSurfaceAnalysis computeLossSurfaceAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                               const fit::LossSurfaceSettings& fitSettings, const fit::FitControl& control) {
    LossSurfaceAnalysis a;
    a.group = group;
    auto sel = lossSurfacePoints(table, group.filter);
    a.points = std::move(sel.points);
    a.runs = std::move(sel.runs);
    a.skipped = std::move(sel.skipped);
    a.notBestOfSweep = std::move(sel.notBestOfSweep);
    const std::size_t needed = fitSettings.fitGamma ? 6 : 5;
    if (a.points.size() < needed) {
        a.error = group.label() + ": " + std::to_string(a.points.size()) + " runs with N, D and loss; the L(N,D) fit needs at least " +
                  std::to_string(needed);
        return a;
    }
    if (auto why = undeterminedBy(a.points)) {
        a.error = group.label() + ": " + *why;
        return a;
    }
    a.fit = fit::fitLossSurface(a.points, fitSettings, control);
    if (!settings.keepOutliers && !a.fit.cancelled) {
        // Runs far from the surface fitted to every run (its Huber loss bounds a spike's pull)
        // are left out and the surface refitted without them.
        a.outliers = leaveOutFlagged(fit::findLossSurfaceOutliers(a.points, a.fit.best), a.points, a.runs);
        if (!a.outliers.empty()) a.fit = fit::refitLossSurface(a.points, a.fit, fitSettings, control);
    }
    for (const auto& s : a.skipped) a.fit.warnings.push_back("left out " + s);
    for (const auto* r : a.notBestOfSweep) a.fit.warnings.push_back("left out " + describeRun(*r, r->sweepLeftOut));
    if (auto edge = parameterAtEdge(a.fit, fitSettings); edge && !a.fit.cancelled) a.error = group.label() + ": " + *edge;
    return a;
}

void checkExtrapolation(LossSurfaceAnalysis& analysis, const fit::LossSurfaceSettings& fitSettings, const fit::FitControl& control) {
    if (analysis.error || analysis.fit.cancelled) return;
    analysis.extrapolation = fit::extrapolateLossSurface(analysis.points, fitSettings, {}, control, &analysis.fit);
}

SurfaceRunPoints surfaceRunPoints(const data::RunTable& runs, const RunFilter& filter, const std::vector<int>& leftOut) {
    SurfaceRunPoints out;
    const std::set<int> flagged(leftOut.begin(), leftOut.end());
    const double inf = std::numeric_limits<double>::infinity();
    double nLo = inf, nHi = -inf, dLo = inf, dHi = -inf;
    for (int i = 0; i < static_cast<int>(runs.runs.size()); ++i) {
        const data::Run& r = runs.runs[static_cast<std::size_t>(i)];
        if (!(r.params > 0) || !(r.tokens > 0) || !std::isfinite(r.params) || !std::isfinite(r.tokens)) continue;
        if (!std::isfinite(r.loss())) {
            // Planned: no loss yet; it belongs to the series (a planned run has no context or set).
            if (filter.series && r.series != *filter.series) continue;
            out.planned.push_back(i);
        } else if (passes(r, filter)) {
            (flagged.count(i) ? out.leftOut : out.fitted).push_back(i);
        } else {
            continue;
        }
        nLo = std::min(nLo, r.params), nHi = std::max(nHi, r.params);
        dLo = std::min(dLo, r.tokens), dHi = std::max(dHi, r.tokens);
    }
    if (nLo <= nHi) out.nLo = nLo / 2, out.nHi = nHi * 2, out.dLo = dLo / 2, out.dHi = dHi * 2;
    return out;
}

LossGrid lossGrid(const fit::LossSurfaceParams& p, double nLo, double nHi, double dLo, double dHi, int width, int height) {
    LossGrid g;
    if (width <= 0 || height <= 0) return g;
    g.width = width, g.height = height;
    g.values.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    // The surface is separable inside its bracket: A N^-alpha per column and B D^-beta per row, so a
    // cell costs one power instead of two logarithms, two powers and two log-sum-exps.
    std::vector<double> n(static_cast<std::size_t>(width)), d(static_cast<std::size_t>(height));
    std::vector<double> termN(n.size()), termD(d.size());
    const double lnN = std::log(nHi / nLo), lnD = std::log(dHi / dLo);
    for (int x = 0; x < width; ++x) {
        n[static_cast<std::size_t>(x)] = nLo * std::exp(lnN * (x + 0.5) / width);
        termN[static_cast<std::size_t>(x)] = std::exp(p.logA - p.alpha * std::log(n[static_cast<std::size_t>(x)]));
    }
    for (int y = 0; y < height; ++y) {
        d[static_cast<std::size_t>(y)] = dHi * std::exp(-lnD * (y + 0.5) / height);
        termD[static_cast<std::size_t>(y)] = std::exp(p.logB - p.beta * std::log(d[static_cast<std::size_t>(y)]));
    }
    const double e = std::exp(p.logE);
    // Rows in parallel for a plot-sized map (each row's own lowest and highest value, then theirs).
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> rowLo(d.size(), inf), rowHi(d.size(), -inf);
    auto row = [&](std::size_t y) {
        double* out = g.values.data() + y * static_cast<std::size_t>(width);
        for (std::size_t x = 0; x < n.size(); ++x) {
            const double bracket = termN[x] + termD[y];
            double l = e + std::pow(bracket, p.gamma);
            // Terms beyond double range: the same value in logarithms.
            if (!std::isfinite(l) || !std::isfinite(bracket)) l = p.loss(n[x], d[y]);
            out[x] = l;
            if (std::isfinite(l)) rowLo[y] = std::min(rowLo[y], l), rowHi[y] = std::max(rowHi[y], l);
        }
    };
    fit::FitControl control;
    if (g.values.size() < 100000) control.threads = 1;
    fit::parallelFor(d.size(), control, row);
    g.lo = *std::min_element(rowLo.begin(), rowLo.end());
    g.hi = *std::max_element(rowHi.begin(), rowHi.end());
    if (!(g.lo <= g.hi)) g.lo = g.hi = 0;
    return g;
}

SurfaceGuides surfaceGuides(const fit::LossSurfaceParams& surface, const fit::PowerLaw& computePerToken,
                            std::span<const double> budgets, double nLo, double nHi, double dLo, double dHi) {
    SurfaceGuides out;
    if (!(nLo > 0 && nHi > nLo && dLo > 0 && dHi > dLo)) return out;
    constexpr int kLineSteps = 60, kPathSteps = 80;
    for (const double h : budgets) {
        SurfaceGuides::Line line{h, {}};
        for (int k = 0; k <= kLineSteps; ++k) {
            const double n = nLo * std::pow(nHi / nLo, k / static_cast<double>(kLineSteps));
            const double d = h / computePerToken(n);
            if (d >= dLo && d <= dHi) line.points.push_back({n, d});
        }
        if (line.points.size() > 1) out.isoFlopLines.push_back(std::move(line));
    }
    // The path over the budgets of the box's corners; optima at the box's N edge are the search's bound, not an optimum.
    const double hLo = computePerToken(nLo) * dLo, hHi = computePerToken(nHi) * dHi;
    const auto c = [&computePerToken](double n) { return computePerToken(n); };
    for (int k = 0; k <= kPathSteps; ++k) {
        const double h = hLo * std::pow(hHi / hLo, k / static_cast<double>(kPathSteps));
        const fit::OptimalPoint o = fit::computeOptimal(surface, c, h, nLo, nHi);
        if (o.params > nLo * 1.01 && o.params < nHi / 1.01 && o.tokens >= dLo && o.tokens <= dHi)
            out.optimalPath.push_back({o.params, o.tokens});
    }
    return out;
}

std::vector<LossSurfaceAnalysis> lossSurfaceAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                                     const fit::LossSurfaceSettings& fitSettings, const fit::FitControl& control) {
    std::vector<LossSurfaceAnalysis> out;
    for (const auto& g : seriesGroups(table, settings))
        out.push_back(lossSurfaceAnalysis(table, settings, studySet(table, g, data::ExperimentSet::TokenParam), fitSettings, control));
    return out;
}

std::vector<RecountableProfile> recountableProfiles(const data::RunTable& table, const AnalysisSettings& settings,
                                                    const SeriesGroup& group) {
    const IsoFlopAnalysis a = isoFlopAnalysis(table, settings, group);
    std::vector<RecountableProfile> out;
    for (const auto& prof : a.result.profiles) {
        if (!prof.fitted) continue;
        RecountableProfile p;
        p.nOpt = prof.nOpt;
        for (std::size_t i : prof.runs) {
            const data::Run& run = *a.runs[i];
            if (run.spec)
                p.runs.push_back({*run.spec, run.tokens});
            else if (auto cfg = data::runArchitecture(run))
                p.runs.push_back({accounting::fromPaperConfig(*cfg), run.tokens});
        }
        if (!p.runs.empty()) out.push_back(std::move(p));
    }
    return out;
}

RecountedLaw recountAtContext(const std::vector<RecountableProfile>& profiles, double context,
                              const accounting::FlopConvention& convention) {
    RecountedLaw out;
    for (const auto& p : profiles) {
        double sum = 0;
        for (const auto& [spec, tokens] : p.runs) sum += accounting::trainingFlopsPerToken(spec, context, convention) * tokens;
        out.budgets.push_back(sum / static_cast<double>(p.runs.size()));
        out.optima.push_back(p.nOpt);
    }
    if (profiles.size() >= 2) out.law = fit::fitPowerLaw(out.budgets, out.optima);
    return out;
}

std::optional<fit::PowerLaw> sharedMinimaLaw(const std::vector<const fit::IsoFlopResult*>& results, bool overTokens) {
    std::vector<double> x, loss;
    for (const auto* r : results)
        for (const auto& prof : r->profiles)
            if (prof.fitted) {
                x.push_back(overTokens ? prof.dOpt : prof.nOpt);
                loss.push_back(overTokens ? prof.lossAtDOpt : prof.lossAtNOpt);
            }
    if (x.size() < 3) return std::nullopt;
    return fit::fitPowerLaw(x, loss);
}

std::optional<BudgetProfile> profileAtBudget(const fit::IsoFlopResult& result, double budget, bool overTokens) {
    if (!result.nOptLaw || !result.dOptLaw || !(budget > 0)) return std::nullopt;
    std::vector<std::pair<double, const fit::IsoFlopProfile*>> fitted;  // by log10 of the mean compute
    std::vector<double> flops, minLoss;
    for (const auto& prof : result.profiles)
        if (prof.fitted && prof.flopsMean > 0) {
            fitted.push_back({std::log10(prof.flopsMean), &prof});
            flops.push_back(prof.flopsMean);
            minLoss.push_back(overTokens ? prof.lossAtDOpt : prof.lossAtNOpt);
        }
    if (fitted.size() < 2) return std::nullopt;
    std::sort(fitted.begin(), fitted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const double x = std::log10(budget);
    auto curvature = [&](const fit::IsoFlopProfile* p) { return (overTokens ? p->inD : p->inN).a; };
    double a = curvature(fitted.front().second);
    if (x >= fitted.back().first) a = curvature(fitted.back().second);
    else
        for (std::size_t i = 0; i + 1 < fitted.size(); ++i)
            if (x >= fitted[i].first && x < fitted[i + 1].first) {
                const double t = (x - fitted[i].first) / (fitted[i + 1].first - fitted[i].first);
                a = (1 - t) * curvature(fitted[i].second) + t * curvature(fitted[i + 1].second);
            }
    BudgetProfile out;
    out.budget = budget;
    out.nOpt = (*result.nOptLaw)(budget);
    out.dOpt = (*result.dOptLaw)(budget);
    const auto lossLaw = fit::fitPowerLaw(flops, minLoss);
    if (!lossLaw) return std::nullopt;
    out.lossAtOpt = (*lossLaw)(budget);
    const double vertex = std::log10(overTokens ? out.dOpt : out.nOpt);
    out.parabola = {a, -2 * a * vertex, a * vertex * vertex + out.lossAtOpt};
    return out;
}

namespace {
bool isPlanned(const data::Run& r) {
    return r.params > 0 && r.tokens > 0 && std::isfinite(r.params) && std::isfinite(r.tokens) && !std::isfinite(r.loss());
}
}  // namespace

std::vector<int> plannedRuns(const data::RunTable& runs, const std::string& series) {
    std::vector<int> out;
    for (int i = 0; i < static_cast<int>(runs.runs.size()); ++i) {
        const data::Run& r = runs.runs[static_cast<std::size_t>(i)];
        if (isPlanned(r) && r.series == series) out.push_back(i);
    }
    return out;
}

std::vector<PlannedProfilePoint> plannedOnProfiles(const data::RunTable& runs, const std::string& series, const fit::IsoFlopResult& result,
                                                   bool overTokens) {
    std::vector<PlannedProfilePoint> out;
    for (const int i : plannedRuns(runs, series)) {
        const data::Run& r = runs.runs[static_cast<std::size_t>(i)];
        PlannedProfilePoint p{i, r.flops > 0 && std::isfinite(r.flops) ? r.flops : 6 * r.params * r.tokens, r.params, r.tokens};
        if (const auto profile = profileAtBudget(result, p.budget, overTokens)) p.loss = profile->parabola(std::log10(overTokens ? p.d : p.n));
        out.push_back(p);
    }
    return out;
}

fit::BootstrapResult isoFlopIntervals(std::span<const fit::IsoFlopRun> runs, const fit::IsoFlopSettings& settings,
                                      std::span<const double> queryBudgets, const fit::BootstrapSettings& bootstrap) {
    if (runs.empty()) return {};
    const QJsonObject options{{"isoflop", keyJson(settings)}, {"bootstrap", keyJson(bootstrap)},
                              {"query_budgets", keyNumbers({queryBudgets.begin(), queryBudgets.end()})}};
    const ResultKey key{"isoflop-intervals", "the fit's runs", canonicalJson(options), valuesRevision(runs)};
    return *ResultCache::shared().get<fit::BootstrapResult>(key, [&] {
        return std::make_shared<const fit::BootstrapResult>(fit::bootstrapIsoFlop(runs, settings, queryBudgets, bootstrap));
    });
}

fit::BootstrapResult surfaceIntervals(const LossSurfaceAnalysis& analysis, const fit::LossSurfaceSettings& fitSettings,
                                      const fit::BootstrapSettings& bootstrap, const fit::FitControl& control) {
    if (analysis.error || analysis.points.empty()) return {};
    // Kept by the fit's points, its optima (where the resamples start) and the settings.
    RevisionDigest inputs;
    inputs.add(std::span<const fit::LossPoint>(analysis.points));
    for (double p : analysis.fit.best.asArray()) inputs.add(p);
    for (const auto* starts : {&analysis.fit.basins, &analysis.fit.bestStarts})
        for (const fit::LossSurfaceStart& b : *starts) {
            inputs.add(static_cast<double>(b.index)).add(b.objective);
            for (double p : b.init.asArray()) inputs.add(p);
            for (double p : b.fitted.asArray()) inputs.add(p);
        }
    const QJsonObject options{{"fit", lossSurfaceSettingsJson(fitSettings)}, {"bootstrap", keyJson(bootstrap)}};
    return ResultCache::shared().getUnlessCancelled<fit::BootstrapResult>(
        {"surface-intervals", analysis.group.label(), canonicalJson(options), inputs.result()},
        [&] { return fit::bootstrapLossSurface(analysis.points, analysis.fit, fitSettings, {}, bootstrap, control); }, control,
        [] { return fit::BootstrapResult{}; });
}

fit::BootstrapResult slopeIntervals(const SlopeAnalysis& analysis, const fit::SlopeSettings& settings,
                                    const fit::BootstrapSettings& bootstrap) {
    if (analysis.points.empty()) return {};
    const QJsonObject options{{"slopes", keyJson(settings)}, {"bootstrap", keyJson(bootstrap)}};
    const ResultKey key{"slope-intervals", analysis.group.label(), canonicalJson(options),
                        valuesRevision(std::span<const fit::ComputeLossPoint>(analysis.points))};
    return *ResultCache::shared().get<fit::BootstrapResult>(
        key, [&] { return std::make_shared<const fit::BootstrapResult>(fit::bootstrapSlopes(analysis.points, settings, bootstrap)); });
}

fit::PowerLaw computePerTokenOfRuns(const data::RunTable& table, const RunFilter& filter) {
    std::vector<double> n, c;
    for (const auto& r : table.runs)
        if (passes(r, filter) && known(r.flops) && known(r.tokens) && r.params > 0 && r.tokens > 0 && r.flops > 0) {
            n.push_back(r.params);
            c.push_back(r.flops / r.tokens);
        }
    if (auto law = fit::fitPowerLaw(n, c)) return *law;
    fit::PowerLaw sixN;
    sixN.coefficient = 6;
    sixN.exponent = 1;
    return sixN;
}

// ---- slopes and Pareto ----------------------------------------------------------------------

std::vector<SlopeAnalysis> slopeAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                         const fit::SlopeSettings& slopeSettings) {
    const QJsonObject options{{"settings", settings.toJson()}, {"slopes", keyJson(slopeSettings)}};
    return cachedWithRuns<std::vector<SlopeAnalysis>>(runsKey("slopes", "every series", table, settings.scope.filter(), options), table,
                                                      [&] { return computeSlopeAnalyses(table, settings, slopeSettings); });
}

std::vector<SlopeAnalysis> computeSlopeAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                                const fit::SlopeSettings& slopeSettings) {
    std::vector<SlopeAnalysis> out;
    for (const auto& g : seriesGroups(table, settings)) {
        auto sel = computeLossPoints(table, studySet(table, g.filter, data::ExperimentSet::TokenParam));
        SlopeAnalysis a{g, {}, std::move(sel.points), std::move(sel.runs), {}, {}, std::move(sel.notBestOfSweep)};
        if (!settings.keepOutliers)
            a.outliers = leaveOutFlagged(fit::findSlopeOutliers(a.points, slopeSettings), a.points, a.runs);
        a.result = fit::fitOvertrainingSlopes(a.points, slopeSettings);
        a.extrapolation = fit::extrapolateSlopes(a.points, slopeSettings);
        out.push_back(std::move(a));
    }
    return out;
}

std::vector<ParetoAnalysis> paretoAnalyses(const data::RunTable& table, const AnalysisSettings& settings) {
    const QJsonObject options{{"settings", settings.toJson()}};
    return cachedWithRuns<std::vector<ParetoAnalysis>>(runsKey("pareto", "every series", table, settings.scope.filter(), options), table,
                                                       [&] { return computeParetoAnalyses(table, settings); });
}

std::vector<ParetoAnalysis> computeParetoAnalyses(const data::RunTable& table, const AnalysisSettings& settings) {
    std::vector<ParetoAnalysis> out;
    for (const auto& g : seriesGroups(table, settings)) {
        auto sel = computeLossPoints(table, g.filter);
        ParetoAnalysis a{g, std::move(sel.points), std::move(sel.runs), {}, std::move(sel.notBestOfSweep)};
        a.frontier = fit::paretoFrontier(a.points);
        out.push_back(std::move(a));
    }
    return out;
}

std::optional<std::pair<std::size_t, std::size_t>> comparedPair(const std::vector<ParetoAnalysis>& analyses) {
    if (analyses.size() < 2) return std::nullopt;
    auto sameContext = [&](std::size_t i, std::size_t j) {
        const double a = analyses[i].group.context, b = analyses[j].group.context;
        return (std::isnan(a) && std::isnan(b)) || a == b;
    };
    for (std::size_t i = 0; i < analyses.size(); ++i)
        for (std::size_t j = 0; j < analyses.size(); ++j)
            if (analyses[i].group.series == "xlstm" && analyses[j].group.series == "transformer" && sameContext(i, j))
                return std::pair{i, j};
    for (std::size_t i = 0; i < analyses.size(); ++i)
        for (std::size_t j = i + 1; j < analyses.size(); ++j)
            if (analyses[i].group.series != analyses[j].group.series && sameContext(i, j)) return std::pair{i, j};
    return std::nullopt;
}

// ---- loss curves ----------------------------------------------------------------------------

std::vector<LossCurve> lossCurves(const data::RunTable& table, const AnalysisSettings& settings) {
    RunFilter filter = settings.scope.filter();
    filter.includeCheckpoints = true;
    std::vector<LossCurve> out;
    // Per curve its points with (step, is the run's last) for ordering.
    std::vector<std::vector<std::pair<std::pair<double, bool>, LossCurve::Point>>> points;
    std::map<std::pair<std::string, std::string>, std::size_t> index;
    // The curve of a run (its index in `out`), or -1 when the run has no key.
    auto curveOf = [&](const Run& run) -> std::ptrdiff_t {
        const std::string& key = !run.runId.empty() ? run.runId : run.name;
        if (key.empty()) return -1;
        auto [it, fresh] = index.try_emplace({run.series, key}, out.size());
        if (fresh) {
            out.push_back({run.series, key, {}, nullptr});
            points.emplace_back();
        }
        return static_cast<std::ptrdiff_t>(it->second);
    };
    auto add = [&](std::ptrdiff_t curve, const LossCurve::Point& p, bool intermediate) {
        if (curve >= 0) points[static_cast<std::size_t>(curve)].push_back({{p.step, !intermediate}, p});
    };
    for (const auto& run : table.runs) {
        if (!known(run.step) || !settings.scope.containsSeries(run.series) || !passes(run, filter)) continue;
        add(curveOf(run), {run.step, run.tokens, run.flops, run.loss(), &run}, run.intermediateCheckpoint);
    }
    // Compact checkpoints share everything a filter asks but their curve values with their run;
    // a condition on a column is checked on the row itself.
    data::Run row;
    for (const auto& block : table.compactCheckpoints) {
        const data::CheckpointRows& rows = *block.rows;
        const Run* lastTemplate = nullptr;  // a run's rows come together: its curve is looked up once
        std::ptrdiff_t curve = -1;
        bool templatePasses = false;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Run& templ = table.templateOf(block, i);
            if (&templ != lastTemplate) {
                lastTemplate = &templ;
                templatePasses = settings.scope.containsSeries(templ.series) && passes(templ, filter);
                curve = templatePasses || (!filter.where.empty() && settings.scope.containsSeries(templ.series)) ? curveOf(templ) : -1;
            }
            if (!known(rows.step(i)) || curve < 0) continue;
            if (filter.where.empty() ? !templatePasses : (rows.fill(i, templ, row), !passes(row, filter))) continue;
            add(curve, {rows.step(i), rows.tokens(i), rows.flops(i), rows.loss(i), nullptr}, true);
        }
    }
    for (std::size_t c = 0; c < out.size(); ++c) {
        // By step; the run's own last checkpoint last on a tie.
        auto& p = points[c];
        std::stable_sort(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        out[c].checkpoints.reserve(p.size());
        for (const auto& [order, point] : p) {
            out[c].checkpoints.push_back(point);
            if (point.row) out[c].lastRun = point.row;
        }
    }
    std::erase_if(out, [](const LossCurve& c) { return c.checkpoints.size() < 2 || !c.lastRun; });
    return out;
}

std::optional<SeriesComparison> compareSeries(const std::vector<ParetoAnalysis>& analyses, const fit::BootstrapSettings& bootstrap,
                                              int samples, const fit::FitControl& control) {
    const auto pair = comparedPair(analyses);
    if (!pair) return std::nullopt;
    // Kept by the points of the pair it compares (the comparison reads nothing else).
    const auto& A = analyses[pair->first];
    const auto& B = analyses[pair->second];
    const QJsonObject options{{"bootstrap", keyJson(bootstrap)}, {"samples", samples}};
    const ResultKey key{"pareto-comparison", A.group.label() + " / " + B.group.label(), canonicalJson(options),
                        valuesRevision(std::span<const fit::ComputeLossPoint>(A.points)) + "/" +
                            valuesRevision(std::span<const fit::ComputeLossPoint>(B.points))};
    SeriesComparison c = ResultCache::shared().getUnlessCancelled<SeriesComparison>(
        key, [&] { return compareSeriesUncached(analyses, *pair, bootstrap, samples, control); }, control,
        [] { return SeriesComparison{}; });  // cancelled while another thread compared the same
    c.a = pair->first;  // the same pair, at its places in these analyses
    c.b = pair->second;
    return c;
}

SeriesComparison compareSeriesUncached(const std::vector<ParetoAnalysis>& analyses, std::pair<std::size_t, std::size_t> pair,
                                       const fit::BootstrapSettings& bootstrap, int samples, const fit::FitControl& control) {
    SeriesComparison c;
    c.a = pair.first;
    c.b = pair.second;
    const auto& A = analyses[c.a];
    const auto& B = analyses[c.b];
    c.comparison = fit::compareFrontiers(A.frontier, B.frontier, samples);
    if (bootstrap.resamples > 0 && c.comparison.overlap)
        c.intervals = fit::bootstrapParetoRatio(A.points, B.points, {}, bootstrap, control, samples);
    return c;
}

}  // namespace scalex::analysis
