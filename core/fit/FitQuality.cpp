#include "core/fit/FitQuality.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scalex::fit {

FitQuality assessFit(std::span<const double> observed, std::span<const double> predicted) {
    FitQuality q;
    const std::size_t n = std::min(observed.size(), predicted.size());
    if (n == 0) return q;
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += observed[i];
    mean /= static_cast<double>(n);
    double ssRes = 0, ssTot = 0, ssLog = 0;
    bool logOk = true;
    q.residuals.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double r = observed[i] - predicted[i];
        q.residuals[i] = r;
        ssRes += r * r;
        ssTot += (observed[i] - mean) * (observed[i] - mean);
        q.maxAbsResidual = std::max(q.maxAbsResidual, std::abs(r));
        if (observed[i] > 0 && predicted[i] > 0) {
            const double l = std::log(observed[i]) - std::log(predicted[i]);
            ssLog += l * l;
        } else {
            logOk = false;
        }
    }
    q.r2 = ssTot > 0 ? 1.0 - ssRes / ssTot : (ssRes == 0 ? 1.0 : 0.0);
    q.rmse = std::sqrt(ssRes / static_cast<double>(n));
    q.rmseLog = logOk ? std::sqrt(ssLog / static_cast<double>(n)) : std::numeric_limits<double>::quiet_NaN();
    return q;
}

}  // namespace scalex::fit
