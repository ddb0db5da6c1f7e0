#pragma once
// A study of other labs' runs for the compute-optimal tests: IsoFLOP profiles of two series with
// names the paper does not use ("lab-a", "lab-b"), their optima drawn from known power laws
// N*(H) = A'·H^a at five budgets, and optionally a third series ("lab-c") with one budget only,
// which has a profile but no law. Each profile is the parabola L = L*(H) + k·(log10 N − log10 N*)²
// (the IsoFLOP analysis' own model) at nine sizes ±0.8 decades around N*, D = H/(6N), with
// Gaussian noise of 0.003 on the loss, which moves each profile's minimum by a few percent.
// Deterministic: SplitMix64 and Box–Muller, the same on every platform.
#include <cmath>
#include <cstdio>
#include <string>

#include "core/fit/SplitMix64.h"

namespace scalex::test {

struct LabSeries {
    const char* name;
    double coefficient, exponent;  // N*(H) = coefficient·H^exponent
};
// N* of 9.1e8 (lab-a) and 5.0e8 (lab-b) at 1e20 FLOPs: a = 0.50 gives 20 tokens per parameter at
// every budget, a = 0.45 more tokens per parameter as budgets grow.
inline constexpr LabSeries kLabSeries[] = {{"lab-a", 0.0913, 0.50}, {"lab-b", 0.5, 0.45}};
inline constexpr double kLabBudgets[] = {1e18, 3e18, 1e19, 3e19, 1e20};

inline std::string labStudyCsv(bool withOneBudgetSeries = false, std::uint64_t seed = 7) {
    fit::SplitMix64 rng{seed};
    auto gaussian = [&rng] {
        const double u = 1.0 - rng.uniform(), v = rng.uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
    };
    std::string csv = "model,params,tokens,compute_budget,loss\n";
    auto profile = [&](const char* name, double coefficient, double exponent, double budget) {
        const double nOpt = coefficient * std::pow(budget, exponent);
        const double lossAtOpt = 1.8 + 1.2 * std::pow(budget / 1e18, -0.15);
        for (int k = -4; k <= 4; ++k) {
            const double x = 0.2 * k;  // log10 N − log10 N*
            const double n = nOpt * std::pow(10.0, x), d = budget / (6 * n);
            const double loss = lossAtOpt + 0.08 * x * x + 0.003 * gaussian();
            char line[160];
            std::snprintf(line, sizeof line, "%s,%.6g,%.6g,%.6g,%.6f\n", name, n, d, budget, loss);
            csv += line;
        }
    };
    for (const LabSeries& s : kLabSeries)
        for (double h : kLabBudgets) profile(s.name, s.coefficient, s.exponent, h);
    if (withOneBudgetSeries) profile("lab-c", 0.2, 0.48, 1e19);
    return csv;
}

}  // namespace scalex::test
