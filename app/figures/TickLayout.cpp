#include "app/figures/TickLayout.h"

#include <algorithm>
#include <cmath>

namespace scalex::figures {

namespace {

// How round a log axis's tick is: 0 for a decade, 1 for 2 and 5, 2 for another whole mantissa,
// 3 for the rest (2.5, 1.5): the order logTicks() labels a log axis in (LogTicks.cpp).
int roundness(double log10Value) {
    const double mantissa = std::pow(10.0, log10Value - std::floor(log10Value + 1e-9));
    const double whole = std::round(mantissa);
    if (std::fabs(mantissa - whole) > 1e-6 * whole) return 3;
    if (whole == 1 || whole == 10) return 0;
    return whole == 2 || whole == 5 ? 1 : 2;
}

}  // namespace

std::vector<int> keptTickLabels(const std::vector<PlacedLabel>& labels, bool log, double gap, double room) {
    auto fits = [&](int i, int j) {
        const PlacedLabel& a = labels[static_cast<std::size_t>(i)];
        const PlacedLabel& b = labels[static_cast<std::size_t>(j)];
        return std::fabs(b.centre - a.centre) >= (a.extent + b.extent) / 2 + gap;
    };
    // Labels that reach past the chart's edge (at the ends of an axis with no legend beside it) are cut.
    std::vector<int> groups[4];
    for (int i = 0; i < static_cast<int>(labels.size()); ++i) {
        const PlacedLabel& l = labels[static_cast<std::size_t>(i)];
        if (l.centre - l.extent / 2 < 0 || l.centre + l.extent / 2 > room) continue;
        groups[log ? roundness(l.position) : 0].push_back(i);
    }
    // The first group with labels at the smallest even stride that fits (at the least, its first label).
    std::size_t first = 0;
    while (first < 3 && groups[first].empty()) ++first;
    const std::vector<int>& lead = groups[first];
    std::vector<int> kept;
    std::size_t stride = 1;
    for (; stride <= std::max<std::size_t>(lead.size(), 1); ++stride) {
        kept.clear();
        for (std::size_t k = 0; k < lead.size(); k += stride) kept.push_back(lead[k]);
        bool clear = true;
        for (std::size_t k = 1; k < kept.size() && clear; ++k) clear = fits(kept[k - 1], kept[k]);
        if (clear) break;
    }
    if (stride > 1 || kept.empty()) return kept;
    // Then the rounder of the rest, each where it clears every label kept so far.
    for (std::size_t g = first + 1; g < 4; ++g)
        for (int i : groups[g])
            if (std::all_of(kept.begin(), kept.end(), [&](int k) { return fits(k, i); })) kept.push_back(i);
    std::sort(kept.begin(), kept.end());
    return kept;
}

}  // namespace scalex::figures
