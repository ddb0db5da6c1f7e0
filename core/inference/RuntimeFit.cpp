#include "core/inference/RuntimeFit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace scalex::inference {

FitOptions defaultFitOptions(accounting::Family family, Stage stage) {
    FitOptions o;
    o.batchTerm = family == accounting::Family::Transformer && stage == Stage::Decode;
    return o;
}

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (v.size() % 2) return *mid;
    const double upper = *mid;
    return 0.5 * (upper + *std::max_element(v.begin(), mid));
}

}  // namespace

StageFit fitRuntime(std::span<const double> work, std::span<const double> batch, std::span<const double> seconds,
                    const FitOptions& o) {
    StageFit fit;
    const std::size_t n = seconds.size();
    fit.nPoints = n;
    if (work.size() != n || batch.size() != n) {
        fit.error = "work, batch and time arrays differ in length";
        return fit;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!(seconds[i] > 0) || !std::isfinite(seconds[i]) || !(work[i] > 0) || !std::isfinite(work[i]) ||
            !(batch[i] > 0)) {
            fit.error = "point " + std::to_string(i) + " has a non-positive or non-finite time, work or batch";
            return fit;
        }
    }
    const std::size_t minPoints = 1 + (o.overhead ? 1 : 0) + (o.batchTerm ? 1 : 0);
    if (n < minPoints) {
        fit.error = "needs at least " + std::to_string(minPoints) + " points, got " + std::to_string(n);
        return fit;
    }

    // Columns W, 1, B, each scaled to max 1 so the normal equations stay well conditioned.
    Eigen::MatrixXd X(static_cast<Eigen::Index>(n), 3);
    Eigen::VectorXd y(static_cast<Eigen::Index>(n)), w(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) {
        const auto r = static_cast<Eigen::Index>(i);
        X(r, 0) = work[i];
        X(r, 1) = 1.0;
        X(r, 2) = batch[i];
        y(r) = seconds[i];
        w(r) = o.relativeWeights ? 1.0 / seconds[i] : 1.0;
    }
    const Eigen::Vector3d scale = X.cwiseAbs().colwise().maxCoeff().transpose();
    const Eigen::MatrixXd Xs = X * scale.cwiseInverse().asDiagonal();
    // Every subset of the optional terms that contains the work term; keep the best feasible one.
    auto solve = [&](const Eigen::VectorXd& rowWeights, Eigen::Vector3d& best) {
        const Eigen::MatrixXd Xw = rowWeights.asDiagonal() * Xs;
        const Eigen::VectorXd yw = rowWeights.cwiseProduct(y);
        double bestCost = std::numeric_limits<double>::infinity();
        for (int mask = 0; mask < 4; ++mask) {
            const bool useEps = mask & 1, useKappa = mask & 2;
            if ((useEps && !o.overhead) || (useKappa && !o.batchTerm)) continue;
            std::vector<Eigen::Index> cols{0};
            if (useEps) cols.push_back(1);
            if (useKappa) cols.push_back(2);
            Eigen::MatrixXd A(Xw.rows(), static_cast<Eigen::Index>(cols.size()));
            for (std::size_t k = 0; k < cols.size(); ++k) A.col(static_cast<Eigen::Index>(k)) = Xw.col(cols[k]);
            const Eigen::VectorXd beta = A.colPivHouseholderQr().solve(yw);
            if (!(beta.array() >= 0).all() || !(beta(0) > 0) || !beta.allFinite()) continue;
            const double cost = (A * beta - yw).squaredNorm();
            if (cost < bestCost) {
                bestCost = cost;
                best.setZero();
                for (std::size_t k = 0; k < cols.size(); ++k) best(cols[k]) = beta(static_cast<Eigen::Index>(k));
            }
        }
        return std::isfinite(bestCost);
    };
    Eigen::Vector3d best = Eigen::Vector3d::Zero();
    if (!solve(w, best)) {
        fit.error = "no fit with a positive rate: the times do not grow with the counted work";
        return fit;
    }
    if (o.robust) {
        // Least absolute (relative) deviations by iteratively reweighted least squares: a row's
        // squared weight is divided by its current absolute residual.
        for (int iter = 0; iter < 50; ++iter) {
            const Eigen::VectorXd r = (w.asDiagonal() * (Xs * best - y)).cwiseAbs();
            const Eigen::VectorXd rw = w.cwiseProduct(r.cwiseMax(1e-6).cwiseInverse().cwiseSqrt());
            Eigen::Vector3d next = best;
            if (!solve(rw, next)) break;
            const bool done = ((next - best).cwiseAbs().array() <= 1e-10 * (1 + best.cwiseAbs().array())).all();
            best = next;
            if (done) break;
        }
    }
    const Eigen::Vector3d coef = best.cwiseQuotient(scale);
    fit.model.rate = 1.0 / coef(0);
    fit.model.overhead = coef(1);
    fit.model.batchTerm = coef(2);

    fit.work.assign(work.begin(), work.end());
    fit.predicted.resize(n);
    std::vector<double> rel, relVariable;
    double ssRes = 0, mean = 0, ssTot = 0;
    for (std::size_t i = 0; i < n; ++i) mean += seconds[i] / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double p = fit.model.time(work[i], batch[i]);
        fit.predicted[i] = p;
        ssRes += (p - seconds[i]) * (p - seconds[i]);
        ssTot += (seconds[i] - mean) * (seconds[i] - mean);
        const double e = std::fabs(p - seconds[i]) / seconds[i];
        rel.push_back(e);
        if (fit.model.variableTime(work[i]) >= o.variableShare * p) relVariable.push_back(e);
    }
    fit.rmse = std::sqrt(ssRes / static_cast<double>(n));
    fit.r2 = ssTot > 0 ? 1.0 - ssRes / ssTot : 1.0;
    fit.medianRelError = median(rel);
    fit.nVariable = relVariable.size();
    fit.medianRelErrorVariable = median(relVariable);
    fit.ok = true;
    return fit;
}

StageFit fitStage(const accounting::ModelConfig& config, Stage stage, std::span<const RuntimeSample> samples,
                  const WorkSettings& settings, const FitOptions& options) {
    std::vector<double> work, batch, seconds;
    work.reserve(samples.size());
    for (const auto& s : samples) {
        work.push_back(stageWork(stage, config, s.batch, s.prefill, settings));
        batch.push_back(s.batch);
        seconds.push_back(s.seconds);
    }
    return fitRuntime(work, batch, seconds, options);
}

}  // namespace scalex::inference
