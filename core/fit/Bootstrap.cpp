#include "core/fit/Bootstrap.h"
#include "core/fit/SplitMix64.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace scalex::fit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();


std::string label(const char* name, double value) {
    std::ostringstream s;
    s << name << '(' << value << ')';
    return s.str();
}

std::string label2(const char* name, double a, double b) {
    std::ostringstream s;
    s << name << '(' << a << ',' << b << ')';
    return s.str();
}

}  // namespace

const BootstrapInterval* BootstrapResult::find(const std::string& name) const {
    for (const auto& i : intervals)
        if (i.name == name) return &i;
    return nullptr;
}

std::vector<std::size_t> resampleIndices(std::size_t n, std::span<const int> strata, std::uint64_t seed, std::uint64_t replicate) {
    // One independent stream per replicate (a state offset by the generator's own increment would
    // make replicate r replicate 0's draws shifted by r: near-identical resamples, too narrow intervals).
    SplitMix64 rng = SplitMix64::stream(seed, replicate);
    std::vector<std::size_t> out(n);
    if (n == 0) return out;
    if (strata.empty()) {
        for (auto& i : out) i = rng.below(n);
        return out;
    }
    std::map<int, std::vector<std::size_t>> members;
    for (std::size_t i = 0; i < n; ++i) members[strata[i]].push_back(i);
    std::size_t k = 0;
    for (const auto& [stratum, items] : members)
        for (std::size_t j = 0; j < items.size(); ++j) out[k++] = items[rng.below(items.size())];
    return out;
}

double percentile(std::span<const double> sorted, double q) {
    if (sorted.empty()) return kNaN;
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double finitePercentile(std::vector<double> values, double q) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
    std::sort(values.begin(), values.end());
    return percentile(values, q);
}

BootstrapResult bootstrap(std::size_t nItems, std::span<const int> strata, const std::vector<std::string>& names,
                          const std::vector<double>& estimate, const BootstrapStatistic& statistic,
                          const BootstrapSettings& settings, const FitControl& control) {
    BootstrapResult result;
    const std::size_t reps = static_cast<std::size_t>(std::max(settings.resamples, 0));
    std::vector<std::vector<double>> values(reps);
    std::vector<char> ran(reps, 0);
    parallelFor(reps, control, [&](std::size_t r) {
        const auto idx = resampleIndices(nItems, strata, settings.seed, r);
        values[r] = statistic(idx);
        values[r].resize(names.size(), kNaN);
        ran[r] = 1;
    });
    result.cancelled = control.cancelled();
    for (char c : ran) result.nResamples += c ? 1 : 0;
    const double tail = (1.0 - settings.level) / 2.0;
    for (std::size_t k = 0; k < names.size(); ++k) {
        BootstrapInterval in;
        in.name = names[k];
        in.estimate = k < estimate.size() ? estimate[k] : kNaN;
        std::vector<double> v;
        for (std::size_t r = 0; r < reps; ++r)
            if (ran[r] && std::isfinite(values[r][k])) v.push_back(values[r][k]);
        std::sort(v.begin(), v.end());
        in.nValid = static_cast<int>(v.size());
        in.lower = percentile(v, tail);
        in.upper = percentile(v, 1.0 - tail);
        in.median = percentile(v, 0.5);
        result.intervals.push_back(in);
    }
    return result;
}

BootstrapResult bootstrapLossSurface(std::span<const LossPoint> points, const LossSurfaceFit& full,
                                     const LossSurfaceSettings& settings, std::span<const SurfaceQuery> queries,
                                     const BootstrapSettings& boot, const FitControl& control) {
    std::vector<std::string> names{"logA", "logB", "logE", "alpha", "beta", "gamma"};
    for (const auto& q : queries) names.push_back(label2("loss", q.params, q.tokens));
    auto stats = [&](const LossSurfaceParams& p) {
        const auto a = p.asArray();
        std::vector<double> v(a.begin(), a.end());
        for (const auto& q : queries) v.push_back(p.loss(q.params, q.tokens));
        return v;
    };
    // The distinct optima, then the best starts (several points of the best basin reach a
    // resample's optimum more surely than one).
    const std::vector<LossSurfaceParams> starts = optimaOf(full);
    const std::size_t needed = settings.fitGamma ? 6 : 5;
    FitControl inner;  // the replicates run in parallel; each grid fit runs on one thread
    inner.threads = 1;
    auto statistic = [&](std::span<const std::size_t> idx) -> std::vector<double> {
        std::vector<LossPoint> sample;
        sample.reserve(idx.size());
        for (std::size_t i : idx) sample.push_back(points[i]);
        if (sample.size() < needed) return {};
        if (boot.refitFromGrid) {
            const LossSurfaceFit f = fitLossSurface(sample, settings, inner);
            if (!std::isfinite(f.objective)) return {};
            return stats(f.best);
        }
        LossSurfaceStart best;
        best.objective = std::numeric_limits<double>::infinity();
        for (const auto& s : starts) {
            auto r = fitLossSurfaceFrom(sample, s, settings);
            if (r.objective < best.objective) best = r;
        }
        if (!std::isfinite(best.objective)) return {};
        return stats(best.fitted);
    };
    return bootstrap(points.size(), {}, names, stats(full.best), statistic, boot, control);
}

BootstrapResult bootstrapIsoFlop(std::span<const IsoFlopRun> runs, const IsoFlopSettings& settings,
                                 std::span<const double> queryBudgets, const BootstrapSettings& boot, const FitControl& control) {
    std::vector<std::string> names{"a", "A", "b", "B"};
    for (double h : queryBudgets) names.push_back(label("n_opt", h));
    for (double h : queryBudgets) names.push_back(label("d_opt", h));
    auto stats = [&](const IsoFlopResult& r) {
        std::vector<double> v(names.size(), kNaN);
        if (!r.nOptLaw || !r.dOptLaw) return v;
        v[0] = r.nOptLaw->exponent;
        v[1] = r.nOptLaw->coefficient;
        v[2] = r.dOptLaw->exponent;
        v[3] = r.dOptLaw->coefficient;
        for (std::size_t k = 0; k < queryBudgets.size(); ++k) {
            v[4 + k] = (*r.nOptLaw)(queryBudgets[k]);
            v[4 + queryBudgets.size() + k] = (*r.dOptLaw)(queryBudgets[k]);
        }
        return v;
    };
    // Strata: the budget of each run (runs in none form their own stratum and never matter).
    std::vector<int> strata(runs.size(), -1);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (const auto b = assignBudget(runs[i].flops, settings))
            strata[i] = static_cast<int>(std::find(settings.budgets.begin(), settings.budgets.end(), *b) - settings.budgets.begin());
    auto statistic = [&](std::span<const std::size_t> idx) {
        std::vector<IsoFlopRun> sample;
        sample.reserve(idx.size());
        for (std::size_t i : idx) sample.push_back(runs[i]);
        return stats(fitIsoFlop(sample, settings));
    };
    return bootstrap(runs.size(), strata, names, stats(fitIsoFlop(runs, settings)), statistic, boot, control);
}

BootstrapResult bootstrapSlopes(std::span<const ComputeLossPoint> points, const SlopeSettings& settings,
                                const BootstrapSettings& boot, const FitControl& control) {
    const SlopeResult full = fitOvertrainingSlopes(points, settings);
    std::vector<std::string> names;
    std::vector<double> ratios;
    for (const auto& g : full.groups)
        if (g.fitted) {
            names.push_back(label("eta", g.ratio));
            ratios.push_back(g.ratio);
        }
    auto stats = [&](const SlopeResult& r) {
        std::vector<double> v(ratios.size(), kNaN);
        for (const auto& g : r.groups)
            for (std::size_t k = 0; k < ratios.size(); ++k)
                if (g.fitted && g.ratio == ratios[k]) v[k] = g.eta;
        return v;
    };
    std::vector<int> strata(points.size(), -1);
    for (std::size_t i = 0; i < points.size(); ++i)
        if (const auto m = nominalRatio(points[i].tokensPerParam, settings)) strata[i] = static_cast<int>(*m);
    auto statistic = [&](std::span<const std::size_t> idx) {
        std::vector<ComputeLossPoint> sample;
        for (std::size_t i : idx) sample.push_back(points[i]);
        return stats(fitOvertrainingSlopes(sample, settings));
    };
    return bootstrap(points.size(), strata, names, stats(full), statistic, boot, control);
}

BootstrapResult bootstrapParetoRatio(std::span<const ComputeLossPoint> a, std::span<const ComputeLossPoint> b,
                                     std::span<const double> queryLosses, const BootstrapSettings& boot, const FitControl& control,
                                     int samples) {
    std::vector<std::string> names{"geomean_compute_ratio", "min_compute_ratio", "max_compute_ratio", "min_loss_gap", "max_loss_gap"};
    for (double l : queryLosses) names.push_back(label("compute_ratio", l));
    // Items 0..|a|−1 are family A (stratum 0), the rest family B (stratum 1).
    std::vector<ComputeLossPoint> all(a.begin(), a.end());
    all.insert(all.end(), b.begin(), b.end());
    std::vector<int> strata(all.size(), 0);
    std::fill(strata.begin() + static_cast<std::ptrdiff_t>(a.size()), strata.end(), 1);
    auto stats = [&](std::span<const ComputeLossPoint> pa, std::span<const ComputeLossPoint> pb) {
        std::vector<double> v(names.size(), kNaN);
        const auto fa = paretoFrontier(pa), fb = paretoFrontier(pb);
        const FrontierComparison cmp = compareFrontiers(fa, fb, samples);
        if (cmp.overlap && !cmp.atEqualLoss.empty()) {
            v[0] = cmp.geomeanComputeRatio;
            v[1] = cmp.minComputeRatio;
            v[2] = cmp.maxComputeRatio;
        }
        if (cmp.overlap && !cmp.atEqualCompute.empty()) {
            v[3] = cmp.minLossGap;
            v[4] = cmp.maxLossGap;
        }
        for (std::size_t k = 0; k < queryLosses.size(); ++k) {
            const auto ca = frontierComputeAt(fa, queryLosses[k]), cb = frontierComputeAt(fb, queryLosses[k]);
            if (ca && cb) v[5 + k] = *cb / *ca;
        }
        return v;
    };
    auto statistic = [&](std::span<const std::size_t> idx) {
        std::vector<ComputeLossPoint> pa, pb;
        for (std::size_t i : idx) (i < a.size() ? pa : pb).push_back(all[i]);
        return stats(pa, pb);
    };
    return bootstrap(all.size(), strata, names, stats(a, b), statistic, boot, control);
}

}  // namespace scalex::fit
