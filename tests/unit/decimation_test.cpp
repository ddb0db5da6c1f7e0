// Largest-triangle-three-buckets (app/figures/Decimation.h): at most the threshold, the ends and
// the extremes kept, every point when there are few.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "app/figures/Decimation.h"

using scalex::figures::largestTriangleThreeBuckets;

TEST(Decimation, KeepsEndpointsAndExtremesWithinTheThreshold) {
    std::vector<std::pair<double, double>> line;
    for (int i = 0; i < 10000; ++i) line.emplace_back(i, std::sin(i * 0.01) * 0.1 + 3.0 - i * 1e-4);
    line[2500].second = -50;  // a dip
    line[7301].second = 80;   // a spike
    const auto kept = largestTriangleThreeBuckets(line, 100);
    EXPECT_EQ(kept.size(), 100u);
    EXPECT_EQ(kept.front(), 0u);
    EXPECT_EQ(kept.back(), line.size() - 1);
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    EXPECT_NE(std::find(kept.begin(), kept.end(), 2500u), kept.end());
    EXPECT_NE(std::find(kept.begin(), kept.end(), 7301u), kept.end());
}

TEST(Decimation, FewPointsAreKeptWhole) {
    std::vector<std::pair<double, double>> line{{0, 1}, {1, 2}, {2, 0}};
    EXPECT_EQ(largestTriangleThreeBuckets(line, 100), (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(largestTriangleThreeBuckets(line, 2).size(), 3u);
    EXPECT_TRUE(largestTriangleThreeBuckets({}, 10).empty());
}

TEST(Decimation, AStraightLineKeepsItsShape) {
    std::vector<std::pair<double, double>> line;
    for (int i = 0; i < 1000; ++i) line.emplace_back(i, 2.0 * i);
    const auto kept = largestTriangleThreeBuckets(line, 10);
    ASSERT_EQ(kept.size(), 10u);
    for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_GT(kept[i], kept[i - 1]);
}
