#include "app/figures/Decimation.h"

#include <algorithm>
#include <cmath>

namespace scalex::figures {

std::vector<std::size_t> largestTriangleThreeBuckets(const std::vector<std::pair<double, double>>& points,
                                                     std::size_t threshold) {
    const std::size_t n = points.size();
    std::vector<std::size_t> out;
    if (threshold < 3 || n <= threshold) {
        out.resize(n);
        for (std::size_t i = 0; i < n; ++i) out[i] = i;
        return out;
    }
    std::size_t lowest = 0, highest = 0;
    for (std::size_t i = 1; i < n; ++i) {
        if (points[i].second < points[lowest].second) lowest = i;
        if (points[i].second > points[highest].second) highest = i;
    }
    // The points between the first and the last fall into threshold - 2 buckets; each gives the
    // point that makes the largest triangle with the point kept before it and the mean of the next bucket.
    const std::size_t buckets = threshold - 2;
    const double width = static_cast<double>(n - 2) / static_cast<double>(buckets);
    auto bucketBegin = [&](std::size_t b) { return 1 + static_cast<std::size_t>(std::floor(static_cast<double>(b) * width)); };
    out.reserve(threshold);
    out.push_back(0);
    std::size_t kept = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::size_t begin = bucketBegin(b), end = std::min(bucketBegin(b + 1), n - 1);
        const std::size_t nextBegin = end, nextEnd = b + 1 < buckets ? std::min(bucketBegin(b + 2), n - 1) : n;
        double mx = 0, my = 0;
        for (std::size_t i = nextBegin; i < nextEnd; ++i) mx += points[i].first, my += points[i].second;
        const double count = static_cast<double>(std::max<std::size_t>(nextEnd - nextBegin, 1));
        mx /= count, my /= count;
        const auto [ax, ay] = points[kept];
        std::size_t best = begin;
        double bestArea = -1;
        for (std::size_t i = begin; i < end; ++i) {
            if (i == lowest || i == highest) {  // the extremes win their bucket
                best = i;
                break;
            }
            const double area = std::abs((ax - mx) * (points[i].second - ay) - (ax - points[i].first) * (my - ay));
            if (area > bestArea) bestArea = area, best = i;
        }
        out.push_back(best);
        kept = best;
    }
    out.push_back(n - 1);
    return out;
}

}  // namespace scalex::figures
