#include "core/fit/Extrapolation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace scalex::fit {

IsoFlopExtrapolation extrapolateIsoFlop(const IsoFlopResult& result, int holdOut) {
    IsoFlopExtrapolation out;
    std::vector<const IsoFlopProfile*> used;
    for (const auto& p : result.profiles)
        if (p.inPowerLaw) used.push_back(&p);
    std::sort(used.begin(), used.end(), [](const IsoFlopProfile* a, const IsoFlopProfile* b) { return a->flopsMean < b->flopsMean; });
    const std::size_t held = static_cast<std::size_t>(std::max(holdOut, 1));
    if (used.size() < held + 2) {
        out.note = "the power laws have " + std::to_string(used.size()) + " budgets; holding out " + std::to_string(held) +
                   " needs at least " + std::to_string(held + 2);
        return out;
    }
    const std::size_t fitted = used.size() - held;
    std::vector<double> c, n, d;
    for (std::size_t k = 0; k < fitted; ++k) {
        c.push_back(used[k]->flopsMean);
        n.push_back(used[k]->nOpt);
        d.push_back(used[k]->dOpt);
    }
    out.nOptLaw = fitPowerLaw(c, n);
    out.dOptLaw = fitPowerLaw(c, d);
    out.nBudgetsFitted = static_cast<int>(fitted);
    if (!out.nOptLaw || !out.dOptLaw) {
        out.note = "the power laws cannot be fitted without the largest budgets";
        return out;
    }
    for (std::size_t k = fitted; k < used.size(); ++k) {
        BudgetPrediction p;
        p.budget = used[k]->budget;
        p.flopsMean = used[k]->flopsMean;
        p.nOptObserved = used[k]->nOpt;
        p.dOptObserved = used[k]->dOpt;
        p.nOptPredicted = (*out.nOptLaw)(p.flopsMean);
        p.dOptPredicted = (*out.dOptLaw)(p.flopsMean);
        p.nOptError = p.nOptPredicted / p.nOptObserved - 1;
        p.dOptError = p.dOptPredicted / p.dOptObserved - 1;
        out.heldOut.push_back(p);
    }
    return out;
}

LossSurfaceExtrapolation extrapolateLossSurface(std::span<const LossPoint> points, const LossSurfaceSettings& settings,
                                                const LossSurfaceHoldOut& holdOut, const FitControl& control,
                                                const LossSurfaceFit* fitOnEvery) {
    LossSurfaceExtrapolation out;
    const std::size_t n = points.size();
    std::vector<double> key(n);
    for (std::size_t i = 0; i < n; ++i)
        key[i] = holdOut.by == LossSurfaceHoldOut::By::Params ? points[i].params : points[i].params * points[i].tokens;
    std::vector<bool> held(n, false);
    if (n > 0) {
        if (holdOut.fraction > 0) {
            std::vector<std::size_t> order(n);
            std::iota(order.begin(), order.end(), std::size_t{0});
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] > key[b]; });
            const auto count = static_cast<std::size_t>(std::ceil(std::min(holdOut.fraction, 1.0) * static_cast<double>(n)));
            for (std::size_t k = 0; k < count; ++k) held[order[k]] = true;
        } else {
            const double top = *std::max_element(key.begin(), key.end());
            for (std::size_t i = 0; i < n; ++i) held[i] = key[i] >= top * (1 - holdOut.sameSize);
        }
    }
    std::vector<LossPoint> kept;
    std::vector<std::size_t> heldIdx;
    for (std::size_t i = 0; i < n; ++i) {
        if (held[i]) heldIdx.push_back(i);
        else kept.push_back(points[i]);
    }
    const std::size_t needed = settings.fitGamma ? 6 : 5;
    if (heldIdx.empty() || kept.size() < needed) {
        out.note = "holding out " + std::to_string(heldIdx.size()) + " of " + std::to_string(n) + " runs leaves " +
                   std::to_string(kept.size()) + "; the fit needs " + std::to_string(needed) + " and at least one held out";
        return out;
    }
    out.fit = fitOnEvery ? refitLossSurface(kept, *fitOnEvery, settings, control) : fitLossSurface(kept, settings, control);
    double sum = 0, sumAbs = 0;
    for (std::size_t i : heldIdx) {
        RunPrediction p;
        p.index = i;
        p.params = points[i].params;
        p.tokens = points[i].tokens;
        p.observed = points[i].loss;
        p.predicted = out.fit.best.loss(p.params, p.tokens);
        p.error = p.predicted / p.observed - 1;
        sum += p.error;
        sumAbs += std::abs(p.error);
        out.maxAbsError = std::max(out.maxAbsError, std::abs(p.error));
        out.heldOut.push_back(p);
    }
    out.meanError = sum / static_cast<double>(heldIdx.size());
    out.meanAbsError = sumAbs / static_cast<double>(heldIdx.size());
    return out;
}

std::vector<SlopePrediction> extrapolateSlopes(std::span<const ComputeLossPoint> points, const SlopeSettings& settings) {
    std::vector<SlopePrediction> out;
    const SlopeResult all = fitOvertrainingSlopes(points, settings);
    for (const auto& g : all.groups) {
        if (g.runs.size() < static_cast<std::size_t>(std::max(settings.minRuns, 2)) + 1) continue;
        std::size_t last = g.runs.front();
        for (std::size_t i : g.runs)
            if (points[i].flops > points[last].flops) last = i;
        std::vector<double> c, l;
        for (std::size_t i : g.runs)
            if (i != last) {
                c.push_back(points[i].flops);
                l.push_back(points[i].loss);
            }
        const auto law = fitPowerLaw(c, l);  // L = λ·C^(−η), the slopes' own fit
        if (!law) continue;
        SlopePrediction p;
        p.ratio = g.ratio;
        p.index = last;
        p.flops = points[last].flops;
        p.observed = points[last].loss;
        p.predicted = (*law)(p.flops);
        p.error = p.predicted / p.observed - 1;
        p.law = *law;
        out.push_back(p);
    }
    return out;
}

}  // namespace scalex::fit
