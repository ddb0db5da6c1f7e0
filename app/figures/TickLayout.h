#pragma once
// Which tick labels an axis shows at the size it is drawn: logTicks() picks the ticks before the
// chart's size and fonts are known, so labels that would run into a neighbour are dropped here,
// the least round first.
#include <vector>

namespace scalex::figures {

struct PlacedLabel {
    double position;  // along the axis in plotted units: log10 of the value on a log axis
    double centre;    // in pixels along the axis
    double extent;    // the label's width (horizontal axis) or height (vertical axis) in pixels
};

// The indices, in `labels`' order, of the labels kept: those that fit in [0, room] with `gap`
// pixels at least between neighbours. On a log axis the decades come first, at the smallest
// even stride that fits (10¹⁶, 10¹⁸, 10²⁰ rather than none), then, with every decade in, the 2s
// and 5s, then the other whole mantissas (3, 4, 6), then the rest, each where it fits. With no
// decade on the axis the first of those groups that has labels takes the decades' place. A linear
// axis keeps all its labels at the smallest even stride that fits.
std::vector<int> keptTickLabels(const std::vector<PlacedLabel>& labels, bool log, double gap, double room);

}  // namespace scalex::figures
