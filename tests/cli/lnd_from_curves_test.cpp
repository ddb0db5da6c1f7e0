// `scalex fit lnd --from-curves ... --checkpoints ...` run as a user would on tracker exports of
// three models written here (a constant-rate run and two WSD runs each, losses from the Multi-Power
// Law of Luo et al., ICLR 2025, arXiv:2503.12811, Eq. 7, evaluated below): every L(N,D) point is a
// predicted checkpoint, marked in the JSON and the text, with its interval; the parameter count
// comes from the config; a model with too few curves and --checkpoints alone are named errors.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>
#include <vector>

#include "tests/cli/ScalexProcess.h"

using scalex::test::runScalex;

namespace {

constexpr double kPeak = 3e-4;
constexpr long kWarmup = 200;

// η_t of a WSD schedule: linear warm-up, then the peak, then a linear cooldown to 0 over the last
// `cooldown` fraction of `steps`.
std::vector<double> rates(long steps, double cooldown) {
    std::vector<double> eta(steps + 1, 0.0);
    const long start = steps - std::lround(cooldown * steps);
    for (long t = 1; t <= steps; ++t)
        eta[t] = t <= kWarmup ? kPeak * t / kWarmup : t <= start ? kPeak : kPeak * (steps - t) / static_cast<double>(steps - start);
    return eta;
}

// The Multi-Power Law (Luo et al., Eq. 7) with the authors' 400M parameters and L0 falling with N:
// L(t) = L0 + A·S1(t)^−α − B·Σ_k (η_{k−1} − η_k)·(1 − (C·η_k^−γ·S_k(t) + 1)^−β), S_k(t) = Σ_{τ=k..t} η_τ.
double mpl(const std::vector<double>& eta, long t, double params) {
    const double l0 = 1.9 + 300 * std::pow(params, -0.3), a = 0.654, alpha = 0.429, b = 523.425, c = 2.025, beta = 0.594, gamma = 0.635;
    std::vector<double> prefix(t + 1, 0.0);
    for (long k = 1; k <= t; ++k) prefix[k] = prefix[k - 1] + eta[k];
    double drop = 0;
    for (long k = kWarmup + 2; k <= t; ++k)
        if (eta[k - 1] != eta[k] && eta[k] > 0)
            drop += (eta[k - 1] - eta[k]) * (1 - std::pow(c * std::pow(eta[k], -gamma) * (prefix[t] - prefix[k - 1]) + 1, -beta));
    return l0 + a * std::pow(prefix[t], -alpha) - b * drop;
}

std::string writeRun(const QDir& dir, const QString& name, double params, long steps, double cooldown) {
    const auto eta = rates(steps, cooldown);
    QJsonArray iters, losses;
    // Logged from step 0 (the initial loss), as a run that is no cooldown branch.
    for (long t = 0; t <= steps; t += 50) {
        iters.append(static_cast<double>(t));
        // A deterministic wobble of ±0.1 % stands in for evaluation noise.
        losses.append(t == 0 ? 10.8 : mpl(eta, t, params) * (1 + 0.001 * std::sin(0.7 * static_cast<double>(t) + params * 1e-7)));
    }
    const QJsonObject config{{"lr", kPeak},        {"iterations", static_cast<double>(steps)}, {"warmup_steps", static_cast<double>(kWarmup)},
                             {"scheduler", "wsd"}, {"wsd_fract_decay", cooldown},              {"decay_type", "linear"},
                             {"batch_size", 64},   {"sequence_length", 1024},                  {"n_params", params}};
    const QJsonObject root{{"name", name}, {"config", config}, {"history", QJsonObject{{"val", QJsonObject{{"iter", iters}, {"val_loss", losses}}}}}};
    QFile f(dir.filePath(name + ".json"));
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(root).toJson(QJsonDocument::Compact));
    return f.fileName().toStdString();
}

// One --from-curves value per model: its three runs, comma-separated.
QStringList models(const QDir& dir) {
    QStringList args;
    for (double n : {1e8, 3e8, 9e8}) {
        const QString m = QString("m%1").arg(static_cast<long>(n / 1e6));
        args << "--from-curves"
             << QString::fromStdString(writeRun(dir, m + "-constant", n, 6000, 0) + "," + writeRun(dir, m + "-wsd20", n, 2500, 0.2) + "," +
                                       writeRun(dir, m + "-wsd50", n, 4000, 0.5));
    }
    return args;
}

// A small grid of starts (the paper's 8000 take longer than this check needs).
QString gridFile(const QDir& dir) {
    QFile f(dir.filePath("grid.txt"));
    EXPECT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Text));
    f.write("logA: 0 5 10\nlogB: 0 5 10\nlogE: -1 0 1\nalpha: 0.2 0.5\nbeta: 0.2 0.5\ngamma: 0.5 1 2\n");
    return f.fileName();
}

}  // namespace

TEST(LndFromCurves, EveryPointIsAMarkedPredictedCheckpointWithItsInterval) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QStringList args{"fit", "lnd"};
    args << models(dir) << "--checkpoints" << "1.31072e8,2.62144e8,3.93216e8" << "--grid" << gridFile(dir) << "--replicates" << "50" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject json = r.json();
    const QJsonArray points = json["fit"].toObject()["points"].toArray();
    ASSERT_EQ(points.size(), 9);
    for (const auto& v : points) {
        const QJsonObject p = v.toObject();
        EXPECT_TRUE(p["predicted"].toBool());
        EXPECT_LT(p["lower"].toDouble(), p["loss"].toDouble());
        EXPECT_GT(p["upper"].toDouble(), p["loss"].toDouble());
        EXPECT_GT(p["ln_sd"].toDouble(), 0);
        EXPECT_TRUE(p["params"].toDouble() == 1e8 || p["params"].toDouble() == 3e8 || p["params"].toDouble() == 9e8) << "N from config n_params";
        EXPECT_TRUE(p["schedule"].toString().startsWith("wsd")) << p["schedule"].toString().toStdString();
    }
    // 2,000 steps of 65,536 tokens: its loss falls with N at equal D.
    EXPECT_GT(points[0].toObject()["loss"].toDouble(), points[3].toObject()["loss"].toDouble());
    const QJsonObject alpha = json["fit"].toObject()["params"].toObject()["alpha"].toObject();
    EXPECT_LE(alpha["lower"].toDouble(), alpha["value"].toDouble());
    EXPECT_GE(alpha["upper"].toDouble(), alpha["value"].toDouble());
    EXPECT_EQ(json["fit"].toObject()["replicates"].toInt(), 50);
    // The text marks each point.
    args.removeLast();
    const auto text = runScalex(args);
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_EQ(text.out.count("\n  predicted  "), 9) << text.out.toStdString();
    EXPECT_TRUE(text.out.contains("0 measured runs and 9 predicted checkpoints")) << text.out.toStdString();
}

TEST(LndFromCurves, TooFewCurvesAndCheckpointsAloneNameTheModelAndOption) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    const std::string first = writeRun(dir, "lone-constant", 1e8, 3000, 0);
    const auto r = runScalex({"fit", "lnd", "--from-curves", QString::fromStdString(first + "," + writeRun(dir, "lone-wsd", 1e8, 2000, 0.2)),
                              "--checkpoints", "1e8"});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_TRUE(r.err.contains("'lone-constant' has 2 curves")) << r.err.toStdString();
    EXPECT_TRUE(r.err.contains(QString::fromStdString(first))) << r.err.toStdString();
    const auto alone = runScalex({"fit", "lnd", "--checkpoints", "1e8"});
    EXPECT_NE(alone.exitCode, 0);
    EXPECT_TRUE(alone.err.contains("--from-curves")) << alone.err.toStdString();
}

TEST(LndFromCurves, MeasuredRunsOfDataSitBesideThePredictedCheckpoints) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    const QDir dir(tmp.path());
    QFile csv(dir.filePath("measured.csv"));
    ASSERT_TRUE(csv.open(QIODevice::WriteOnly | QIODevice::Text));
    csv.write("run_id,params,tokens,val_loss\na,5e7,2e8,3.95\nb,5e7,4e8,3.80\nc,2e8,2e8,3.45\nd,2e8,6e8,3.20\n");
    csv.close();
    QStringList args{"fit", "lnd", "--data", csv.fileName()};
    args << models(dir) << "--checkpoints" << "1.31072e8" << "--grid" << gridFile(dir) << "--replicates" << "20" << "--json";
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray points = r.json()["fit"].toObject()["points"].toArray();
    ASSERT_EQ(points.size(), 7);
    int measured = 0;
    for (const auto& v : points) {
        const QJsonObject p = v.toObject();
        if (p["predicted"].toBool()) continue;
        ++measured;
        EXPECT_TRUE(p["params"].toDouble() == 5e7 || p["params"].toDouble() == 2e8) << "the runs of --data are the measured ones";
    }
    EXPECT_EQ(measured, 4);
}
