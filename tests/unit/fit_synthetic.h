#pragma once
// Synthetic runs drawn from the paper's Transformer L(N, D) (tab:lnd_fit_params, γ free; the
// authors' stored best fit in lnd_fit_best.csv), shared by the fit tests and the fit benchmark.
// A fixed generator (SplitMix64 and Box–Muller) gives the same runs on every platform.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "core/fit/SplitMix64.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"

namespace scalex::test {

inline fit::LossSurfaceParams paperTransformerSurface() {
    return {11.991645508166412, 13.358052366479297, 0.011886071809610684, 0.5273282897933977, 0.5081704843697762, 0.29337754245432907};
}

struct SyntheticRng : fit::SplitMix64 {
    using fit::SplitMix64::uniform;
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    double normal() {
        const double u = 1.0 - uniform(), v = uniform();
        return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
    }
};

struct SyntheticIsoFlop {
    std::vector<fit::IsoFlopRun> runs;
    std::vector<bool> spike;  // per run: a loss spike was added
};

// IsoFLOP profiles at the given budgets: 15–35 runs each, log10 N uniform within ±0.35–0.6
// decades of a centre near the surface's optimum, compute within ±5 % of the budget, D = C/6N,
// loss = L̂(N, D) plus normal noise of 0.003–0.008 nats that doubles towards the profile's edges
// (as in the study's profiles, whose edge runs are noisier). A run is a spike with probability
// `spikeRate`: its loss is raised by a log-uniform amount in [spikeMin, spikeMax].
inline SyntheticIsoFlop syntheticIsoFlop(std::uint64_t seed, const std::vector<double>& budgets, double spikeRate, double spikeMin,
                                         double spikeMax) {
    const fit::LossSurfaceParams surface = paperTransformerSurface();
    SyntheticRng rng{seed};
    SyntheticIsoFlop s;
    for (double c : budgets) {
        double best = 0, bestLoss = INFINITY;
        for (double x = 7; x < 11; x += 0.001) {
            const double n = std::pow(10.0, x), l = surface.loss(n, c / (6 * n));
            if (l < bestLoss) {
                bestLoss = l;
                best = x;
            }
        }
        const int count = 15 + static_cast<int>(rng.next() % 21);
        const double width = rng.uniform(0.35, 0.6), sigma = rng.uniform(0.003, 0.008), centre = best + rng.uniform(-0.15, 0.15);
        for (int k = 0; k < count; ++k) {
            const double x = centre + rng.uniform(-width, width), n = std::pow(10.0, x), flops = c * rng.uniform(0.95, 1.05);
            const double d = flops / (6 * n);
            double loss = surface.loss(n, d) + sigma * (1 + std::abs(x - centre) / width) * rng.normal();
            const bool spike = rng.uniform() < spikeRate;
            if (spike) loss += std::exp(rng.uniform(std::log(spikeMin), std::log(spikeMax)));
            s.runs.push_back({n, d, flops, loss});
            s.spike.push_back(spike);
        }
    }
    return s;
}

// `count` runs for the L(N, D) fit: N log-uniform in [1e8, 7e9], tokens per parameter
// log-uniform in [10, 2500] (the study's token/param runs span 160M–7B and 22–2200), loss
// L̂(N, D)·e^ε with ε normal of `noise` (relative).
inline std::vector<fit::LossPoint> syntheticSurfaceRuns(std::uint64_t seed, std::size_t count, double noise = 0.005) {
    const fit::LossSurfaceParams surface = paperTransformerSurface();
    SyntheticRng rng{seed};
    std::vector<fit::LossPoint> pts(count);
    for (auto& p : pts) {
        p.params = std::exp(rng.uniform(std::log(1e8), std::log(7e9)));
        p.tokens = p.params * std::exp(rng.uniform(std::log(10.0), std::log(2500.0)));
        p.loss = surface.loss(p.params, p.tokens) * std::exp(noise * rng.normal());
    }
    return pts;
}

}  // namespace scalex::test
