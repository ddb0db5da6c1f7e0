#pragma once
// Readable ticks for logarithmic axes. Qt's QLogValueAxis labels only powers of its base,
// so a loss axis from 2.6 to 3.4 would carry no label at all; these ticks are placed on a
// linear axis over log10 of the data instead.
#include <QString>
#include <vector>

namespace scalex::figures {

struct Tick {
    double value;  // in data units (not log10)
    QString label;
    bool major;    // majors get labels and grid lines; minors only grid lines
};

// Ticks between lo and hi (both > 0). Wide ranges get decades (1, 10, 100, ...) with 2 and 5
// where they fit; narrow ranges (less than a decade) get evenly spaced "nice" values
// (e.g. 2.6, 2.8, 3.0 for a loss axis). Aims at roughly `target` labelled ticks.
std::vector<Tick> logTicks(double lo, double hi, int target = 6);

// Compact number labels as the paper writes them: 1e18 -> "10¹⁸", 3e19 -> "3×10¹⁹",
// 1.2e9 -> "1.2B" style for counts when `siSuffix`, 2.75 -> "2.75".
QString formatTickValue(double v, bool siSuffix = false);

// "22.8B", "406M", "1.78e20" style for tables and tooltips.
QString formatCount(double v);
QString formatFlops(double v);

// `n` values from `lo` to `hi` (both included), evenly spaced on a logarithmic axis: the points
// a curve is drawn through.
std::vector<double> logGrid(double lo, double hi, int n);

}  // namespace scalex::figures
