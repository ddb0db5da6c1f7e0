#include "core/fit/OvertrainingSlopes.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace scalex::fit {

std::optional<double> nominalRatio(double tokensPerParam, const SlopeSettings& settings) {
    if (!(tokensPerParam > 0) || !std::isfinite(tokensPerParam)) return std::nullopt;
    std::optional<double> best;
    double bestDistance = 0;
    for (double m : settings.ratios) {
        const double d = std::abs(tokensPerParam - m);
        if (!(d < settings.tolerance * m)) continue;
        if (!best || d / m < bestDistance) {
            best = m;
            bestDistance = d / m;
        }
    }
    return best;
}

SlopeResult fitOvertrainingSlopes(std::span<const ComputeLossPoint> points, const SlopeSettings& settings) {
    SlopeResult result;
    std::map<double, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        const auto m = (p.flops > 0 && p.loss > 0) ? nominalRatio(p.tokensPerParam, settings) : std::nullopt;
        if (m)
            groups[*m].push_back(i);
        else
            result.ungrouped.push_back(i);
    }
    for (auto& [ratio, members] : groups) {
        SlopeGroup g;
        g.ratio = ratio;
        g.runs = members;
        if (static_cast<int>(members.size()) < settings.minRuns) {
            g.note = std::to_string(members.size()) + " run(s); at least " + std::to_string(settings.minRuns) + " needed";
        } else {
            std::vector<double> c, l;
            for (std::size_t i : members) {
                c.push_back(points[i].flops);
                l.push_back(points[i].loss);
            }
            std::string error;
            if (const auto law = fitPowerLaw(c, l, &error)) {
                g.fitted = true;
                g.law = *law;
                g.eta = -law->exponent;
                g.lambda = law->coefficient;
                std::vector<double> predicted;
                for (double x : c) predicted.push_back((*law)(x));
                g.quality = assessFit(l, predicted);
            } else {
                g.note = error;
            }
        }
        result.groups.push_back(std::move(g));
    }
    return result;
}

}  // namespace scalex::fit
