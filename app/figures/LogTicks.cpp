#include "app/figures/LogTicks.h"

#include <algorithm>
#include <cmath>

namespace scalex::figures {

namespace {

QString superscript(int exponent) {
    static const QChar digits[] = {QChar(0x2070), QChar(0x00B9), QChar(0x00B2), QChar(0x00B3), QChar(0x2074),
                                   QChar(0x2075), QChar(0x2076), QChar(0x2077), QChar(0x2078), QChar(0x2079)};
    QString out;
    if (exponent < 0) out += QChar(0x207B);
    for (QChar c : QString::number(std::abs(exponent))) out += digits[c.digitValue()];
    return out;
}

constexpr double kNiceMantissas[] = {1.0, 2.0, 2.5, 5.0};

// Step of a "nice" linear grid with about `target` intervals over `span`.
double niceStep(double span, int target) {
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : kNiceMantissas)
        if (m * mag >= raw * (1 - 1e-12)) return m * mag;
    return 10 * mag;
}

// The next finer nice step: 0.5 -> 0.25 -> 0.2 -> 0.1 -> 0.05.
double finerStep(double step) {
    const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double m = step / mag;
    for (auto it = std::rbegin(kNiceMantissas); it != std::rend(kNiceMantissas); ++it)
        if (*it < m * (1 - 1e-9)) return *it * mag;
    return 0.5 * mag;
}

// How many multiples of `step` lie in [lo, hi].
int multiplesWithin(double lo, double hi, double step) {
    return static_cast<int>(std::floor(hi / step + 1e-9) - std::ceil(lo / step - 1e-9)) + 1;
}

}  // namespace

namespace {

// 1e-3 -> "10⁻³", 2e19 -> "2×10¹⁹".
QString powerOfTen(double v) {
    const int e = static_cast<int>(std::floor(std::log10(v) + 1e-9));
    const double mantissa = v / std::pow(10.0, e);
    if (std::fabs(mantissa - 1.0) < 1e-6) return QStringLiteral("10") + superscript(e);
    return QString::number(mantissa, 'g', 3) + QChar(0x00D7) + QStringLiteral("10") + superscript(e);
}

// One notation per axis: where one label needs a power of ten, all are written so
// ("10⁻³, 10⁻²", not "10⁻³, 0.01"). Plain numbers are those from 0.01 to 9999.
void writeAsPowersWhereNeeded(std::vector<Tick>& ticks) {
    const bool anyPower = std::any_of(ticks.begin(), ticks.end(), [](const Tick& t) {
        const int e = static_cast<int>(std::floor(std::log10(t.value) + 1e-9));
        return t.major && (e < -2 || e > 3);
    });
    if (anyPower)
        for (Tick& t : ticks)
            if (t.major) t.label = powerOfTen(t.value);
}

}  // namespace

QString formatTickValue(double v, bool siSuffix) {
    if (!(v > 0)) return QString::number(v);
    const int e = static_cast<int>(std::floor(std::log10(v) + 1e-9));
    if (siSuffix) return formatCount(v);
    if (e >= -2 && e <= 3) return QString::number(v, 'g', 4);
    return powerOfTen(v);
}

QString formatCount(double v) {
    const double a = std::fabs(v);
    auto trim = [](double x) {
        QString s = QString::number(x, 'f', x < 10 ? 2 : (x < 100 ? 1 : 0));
        if (s.contains('.')) {  // "2.50" -> "2.5", "3.00" -> "3" (no regular expression: tables format thousands of these)
            while (s.endsWith('0')) s.chop(1);
            if (s.endsWith('.')) s.chop(1);
        }
        return s;
    };
    // The unit is chosen by the value as shown: 999,999,999 is "1B", not "1000M".
    for (const auto& [unit, suffix] : {std::pair{1e12, 'T'}, {1e9, 'B'}, {1e6, 'M'}, {1e3, 'k'}})
        if (std::round(a / unit * 100) >= 100) return trim(v / unit) + suffix;
    return QString::number(v, 'g', 4);
}

QString formatFlops(double v) {
    if (!(v > 0)) return QString::number(v);
    int e = static_cast<int>(std::floor(std::log10(v)));
    double m = v / std::pow(10.0, e);
    if (std::round(m * 100) >= 1000) m /= 10, ++e;  // 9.999e20 is "1.00e21", not "10.00e20"
    return QString::number(m, 'f', 2) + 'e' + QString::number(e);
}

std::vector<Tick> logTicks(double lo, double hi, int target) {
    std::vector<Tick> ticks;
    if (!(lo > 0) || !(hi > 0)) return ticks;
    if (hi < lo) std::swap(lo, hi);
    if (hi == lo) {
        lo *= 0.9;
        hi *= 1.1;
    }
    const double decades = std::log10(hi) - std::log10(lo);
    if (decades < 1.0) {
        // Less than a decade: a nice linear grid reads best (2.6, 2.8, 3.0 ...), with at least
        // three labels (a step of 0.5 over 2.55..3.4 would label 3 alone).
        double step = niceStep(hi - lo, target);
        while (multiplesWithin(lo, hi, step) < std::min(3, std::max(target, 2))) step = finerStep(step);
        for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi * (1 + 1e-12); v += step) {
            const double rounded = std::round(v / step) * step;
            ticks.push_back({rounded, QString::number(rounded, 'g', 6), true});
        }
        // The power of ten in the range is a tick whatever the step (8e16..6.5e17 in steps of 2e17
        // would leave 10¹⁷ out): the one label the thinning of a narrow chart keeps first (TickLayout.h).
        const double decade = std::pow(10.0, std::ceil(std::log10(lo) - 1e-9));
        if (decade <= hi * (1 + 1e-12) && std::none_of(ticks.begin(), ticks.end(), [&](const Tick& t) {
                return std::fabs(t.value - decade) < 1e-9 * decade;
            })) {
            ticks.push_back({decade, QString::number(decade, 'g', 6), true});
            std::sort(ticks.begin(), ticks.end(), [](const Tick& a, const Tick& b) { return a.value < b.value; });
        }
        // Halfway minors for grid density.
        const std::size_t majors = ticks.size();
        for (std::size_t i = 0; i + 1 < majors; ++i) ticks.push_back({(ticks[i].value + ticks[i + 1].value) / 2, {}, false});
        // A budget axis of less than a decade (8e16 to 6.5e17) reads "10¹⁷, 2×10¹⁷", as its legend does.
        writeAsPowersWhereNeeded(ticks);
        return ticks;
    }
    // Decades, with 2 and 5 (or every integer mantissa) labelled when there is room.
    const int e0 = static_cast<int>(std::floor(std::log10(lo)));
    const int e1 = static_cast<int>(std::ceil(std::log10(hi)));
    const int decadeStride = std::max(1, static_cast<int>(std::ceil(decades / target)));
    const bool labelTwoFive = decades * 3 <= target + 1;
    for (int e = e0; e <= e1; ++e) {
        const double base = std::pow(10.0, e);
        for (int m = 1; m <= 9; ++m) {
            const double v = m * base;
            if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
            const bool decade = m == 1 && ((e - e0) % decadeStride == 0);
            const bool labelled = decade || (labelTwoFive && (m == 2 || m == 5));
            ticks.push_back({v, labelled ? formatTickValue(v) : QString(), labelled});
        }
    }
    writeAsPowersWhereNeeded(ticks);
    return ticks;
}

std::vector<double> logGrid(double lo, double hi, int n) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
    return out;
}

}  // namespace scalex::figures
