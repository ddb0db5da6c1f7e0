#pragma once
// Tracker JSON exports of runs whose validation losses follow the Multi-Power Law (Luo et al.,
// ICLR 2025, arXiv:2503.12811, Eq. 7) with the authors' 400M parameters and L0 falling with N,
// under a WSD schedule (linear warm-up, the peak, a linear cooldown to 0), logged every 50 steps
// with a deterministic ±0.1 % wobble standing in for evaluation noise; config n_params gives N.
// Three models (N = 1e8, 3e8, 9e8), each a constant-rate run and two WSD runs: the curves that
// `fit lnd|isoflop --from-curves` and the window's predicted checkpoints read.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <cmath>
#include <string>
#include <vector>

namespace scalex::test {

inline constexpr double kMplPeak = 3e-4;
inline constexpr long kMplWarmup = 200;

// η_t of a WSD schedule: linear warm-up, then the peak, then a linear cooldown to 0 over the last
// `cooldown` fraction of `steps`.
inline std::vector<double> mplRates(long steps, double cooldown) {
    std::vector<double> eta(steps + 1, 0.0);
    const long start = steps - std::lround(cooldown * steps);
    for (long t = 1; t <= steps; ++t)
        eta[t] = t <= kMplWarmup ? kMplPeak * t / kMplWarmup : t <= start ? kMplPeak : kMplPeak * (steps - t) / static_cast<double>(steps - start);
    return eta;
}

// L(t) = L0 + A·S1(t)^−α − B·Σ_k (η_{k−1} − η_k)·(1 − (C·η_k^−γ·S_k(t) + 1)^−β), S_k(t) = Σ_{τ=k..t} η_τ (Eq. 7).
inline double mplLoss(const std::vector<double>& eta, long t, double params) {
    const double l0 = 1.9 + 300 * std::pow(params, -0.3), a = 0.654, alpha = 0.429, b = 523.425, c = 2.025, beta = 0.594, gamma = 0.635;
    std::vector<double> prefix(t + 1, 0.0);
    for (long k = 1; k <= t; ++k) prefix[k] = prefix[k - 1] + eta[k];
    double drop = 0;
    for (long k = kMplWarmup + 2; k <= t; ++k)
        if (eta[k - 1] != eta[k] && eta[k] > 0)
            drop += (eta[k - 1] - eta[k]) * (1 - std::pow(c * std::pow(eta[k], -gamma) * (prefix[t] - prefix[k - 1]) + 1, -beta));
    return l0 + a * std::pow(prefix[t], -alpha) - b * drop;
}

// Writes `name`.json into `dir` (64 sequences of 1024 tokens a step) and returns its path.
inline std::string writeMplRun(const QDir& dir, const QString& name, double params, long steps, double cooldown) {
    const auto eta = mplRates(steps, cooldown);
    QJsonArray iters, losses;
    // Logged from step 0 (the initial loss), as a run that is no cooldown branch.
    for (long t = 0; t <= steps; t += 50) {
        iters.append(static_cast<double>(t));
        losses.append(t == 0 ? 10.8 : mplLoss(eta, t, params) * (1 + 0.001 * std::sin(0.7 * static_cast<double>(t) + params * 1e-7)));
    }
    const QJsonObject config{{"lr", kMplPeak},     {"iterations", static_cast<double>(steps)}, {"warmup_steps", static_cast<double>(kMplWarmup)},
                             {"scheduler", "wsd"}, {"wsd_fract_decay", cooldown},              {"decay_type", "linear"},
                             {"batch_size", 64},   {"sequence_length", 1024},                  {"n_params", params}};
    const QJsonObject root{{"name", name}, {"config", config}, {"history", QJsonObject{{"val", QJsonObject{{"iter", iters}, {"val_loss", losses}}}}}};
    QFile f(dir.filePath(name + ".json"));
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(root).toJson(QJsonDocument::Compact));
    return f.fileName().toStdString();
}

// The three models' runs: per model its files (constant 6,000 steps, WSD 20 % of 2,500, WSD 50 % of 4,000).
inline std::vector<QStringList> writeMplModels(const QDir& dir) {
    std::vector<QStringList> models;
    for (double n : {1e8, 3e8, 9e8}) {
        const QString m = QString("m%1").arg(static_cast<long>(n / 1e6));
        models.push_back({QString::fromStdString(writeMplRun(dir, m + "-constant", n, 6000, 0)),
                          QString::fromStdString(writeMplRun(dir, m + "-wsd20", n, 2500, 0.2)),
                          QString::fromStdString(writeMplRun(dir, m + "-wsd50", n, 4000, 0.5))});
    }
    return models;
}

}  // namespace scalex::test
