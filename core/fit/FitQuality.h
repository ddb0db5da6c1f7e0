#pragma once
// Goodness of fit shared by every analysis: residuals, R², RMSE in loss and in log-loss.
#include <span>
#include <vector>

namespace scalex::fit {

struct FitQuality {
    std::vector<double> residuals;  // observed - predicted, in the fitted quantity's own units
    double r2 = 0;                  // 1 - SS_res / SS_tot of the observed values
    double rmse = 0;                // root-mean-square of the residuals
    double rmseLog = 0;             // root-mean-square of ln(observed) - ln(predicted) (NaN if not all positive)
    double maxAbsResidual = 0;
};

FitQuality assessFit(std::span<const double> observed, std::span<const double> predicted);

}  // namespace scalex::fit
