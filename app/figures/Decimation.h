#pragma once
// Fewer points for a line that has more than a view can show (issue "Millions of rows"): the
// largest-triangle-three-buckets method (Steinarsson 2013, "Downsampling Time Series for Visual
// Representation", ch. 4) keeps the points that shape the line. The first and last points are
// always kept, and so are the lowest and highest: a loss curve's minimum must not vanish.
#include <cstddef>
#include <utility>
#include <vector>

namespace scalex::figures {

// Indices (ascending) of at most `threshold` points of `points` (x ascending, in the coordinates
// the view draws them, e.g. logarithms on a log axis) to draw; every index when there are no more
// than `threshold` points or threshold < 3.
std::vector<std::size_t> largestTriangleThreeBuckets(const std::vector<std::pair<double, double>>& points,
                                                     std::size_t threshold);

}  // namespace scalex::figures
