#include "core/fit/Pareto.h"

#include <algorithm>
#include <cmath>

namespace scalex::fit {

std::vector<FrontierPoint> paretoFrontier(std::span<const ComputeLossPoint> points) {
    std::vector<FrontierPoint> all;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (p.flops > 0 && p.loss > 0 && std::isfinite(p.flops) && std::isfinite(p.loss)) all.push_back({p.flops, p.loss, i});
    }
    // Ascending compute, then ascending loss: a run joins when it beats every cheaper run's loss.
    std::sort(all.begin(), all.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
        if (a.flops != b.flops) return a.flops < b.flops;
        if (a.loss != b.loss) return a.loss < b.loss;
        return a.index < b.index;
    });
    std::vector<FrontierPoint> frontier;
    for (const auto& p : all)
        if (frontier.empty() || p.loss < frontier.back().loss) frontier.push_back(p);
    return frontier;
}

std::optional<double> frontierLossAt(std::span<const FrontierPoint> f, double flops) {
    if (f.empty() || !(flops > 0)) return std::nullopt;
    if (flops < f.front().flops || flops > f.back().flops) return std::nullopt;
    if (f.size() == 1) return f.front().loss;
    for (std::size_t k = 1; k < f.size(); ++k) {
        if (flops > f[k].flops) continue;
        const double t = (std::log(flops) - std::log(f[k - 1].flops)) / (std::log(f[k].flops) - std::log(f[k - 1].flops));
        return std::exp(std::log(f[k - 1].loss) + t * (std::log(f[k].loss) - std::log(f[k - 1].loss)));
    }
    return f.back().loss;
}

std::optional<double> frontierComputeAt(std::span<const FrontierPoint> f, double loss) {
    if (f.empty() || !(loss > 0)) return std::nullopt;
    // Loss descends along the frontier.
    if (loss > f.front().loss || loss < f.back().loss) return std::nullopt;
    if (f.size() == 1) return f.front().flops;
    for (std::size_t k = 1; k < f.size(); ++k) {
        if (loss < f[k].loss) continue;
        const double t = (std::log(loss) - std::log(f[k - 1].loss)) / (std::log(f[k].loss) - std::log(f[k - 1].loss));
        return std::exp(std::log(f[k - 1].flops) + t * (std::log(f[k].flops) - std::log(f[k - 1].flops)));
    }
    return f.back().flops;
}

FrontierComparison compareFrontiers(std::span<const FrontierPoint> a, std::span<const FrontierPoint> b, int samples) {
    FrontierComparison cmp;
    if (a.empty() || b.empty() || samples < 2) return cmp;
    const double cLo = std::max(a.front().flops, b.front().flops), cHi = std::min(a.back().flops, b.back().flops);
    const double lHi = std::min(a.front().loss, b.front().loss), lLo = std::max(a.back().loss, b.back().loss);
    cmp.overlap = cLo < cHi && lLo < lHi;
    if (!cmp.overlap) return cmp;
    cmp.aDominates = true;
    cmp.minLossGap = INFINITY;
    cmp.maxLossGap = -INFINITY;
    for (int i = 0; i < samples; ++i) {
        const double t = static_cast<double>(i) / (samples - 1);
        const double c = std::exp(std::log(cLo) + t * (std::log(cHi) - std::log(cLo)));
        const auto la = frontierLossAt(a, c), lb = frontierLossAt(b, c);
        if (!la || !lb) continue;
        FrontierSample s;
        s.flops = c;
        s.lossA = *la;
        s.lossB = *lb;
        cmp.atEqualCompute.push_back(s);
        cmp.minLossGap = std::min(cmp.minLossGap, *lb - *la);
        cmp.maxLossGap = std::max(cmp.maxLossGap, *lb - *la);
        if (!(*la < *lb)) cmp.aDominates = false;
    }
    cmp.minComputeRatio = INFINITY;
    cmp.maxComputeRatio = -INFINITY;
    double sumLog = 0;
    for (int i = 0; i < samples; ++i) {
        const double t = static_cast<double>(i) / (samples - 1);
        const double l = std::exp(std::log(lLo) + t * (std::log(lHi) - std::log(lLo)));
        const auto ca = frontierComputeAt(a, l), cb = frontierComputeAt(b, l);
        if (!ca || !cb) continue;
        FrontierSample s;
        s.loss = l;
        s.computeA = *ca;
        s.computeB = *cb;
        cmp.atEqualLoss.push_back(s);
        const double r = *cb / *ca;
        cmp.minComputeRatio = std::min(cmp.minComputeRatio, r);
        cmp.maxComputeRatio = std::max(cmp.maxComputeRatio, r);
        sumLog += std::log(r);
    }
    if (!cmp.atEqualLoss.empty()) cmp.geomeanComputeRatio = std::exp(sumLog / static_cast<double>(cmp.atEqualLoss.size()));
    return cmp;
}

}  // namespace scalex::fit
