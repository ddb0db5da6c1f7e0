// Lawson & Hanson (1974), Ch. 23: grow a passive set P by the column with the largest gradient
// w = Aᵀ(b − Ax); solve least squares on P; while that leaves a non-positive entry, step back along
// the segment to the boundary and drop the columns that reached zero.
// Floating point, as a law's clamped exponentials bring it (columns apart by 1e40 in scale, or
// equal): the columns are scaled to unit norm first (x ≥ 0 is kept under a positive scaling; the
// book's §25 on scaling), the gradient's tolerance is relative to ‖b‖, and a variable leaves P when
// it reaches zero (the one that set the step exactly, the others below a tolerance relative to x),
// never by the gradient's tolerance. A column added that comes back non-positive is barred until
// the solution moves (scipy's nnls zeroes its w alike), and a solve on no columns is the zero
// vector, never a QR of an empty matrix (Eigen reads past its end there).
#include "core/fit/Nnls.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace scalex::fit {

NnlsResult solveNnls(const Eigen::MatrixXd& A0, const Eigen::VectorXd& b, int maxIterations) {
    const Eigen::Index n = A0.cols();
    NnlsResult r;
    r.x = Eigen::VectorXd::Zero(n);
    if (n == 0 || A0.rows() == 0) return r;
    if (!A0.allFinite() || !b.allFinite()) {
        r.converged = false;
        return r;
    }
    if (maxIterations <= 0) maxIterations = static_cast<int>(3 * n + 10);
    Eigen::VectorXd scale = A0.colwise().norm().transpose();
    for (auto& s : scale)
        if (!(s > 0) || !std::isfinite(s)) s = 1;
    const Eigen::MatrixXd A = A0 * scale.cwiseInverse().asDiagonal();
    constexpr double eps = std::numeric_limits<double>::epsilon();
    // The book's "w_j ≤ 0" in floating point: unit columns give |w_j| ≤ ‖b − Ax‖ ≤ ‖b‖.
    const double tol = 10 * eps * static_cast<double>(std::max<Eigen::Index>(A.rows(), n)) * std::max(1.0, b.norm());
    std::vector<char> passive(static_cast<std::size_t>(n), 0), barred(static_cast<std::size_t>(n), 0);
    auto solveOnPassive = [&](Eigen::VectorXd& z) {
        std::vector<Eigen::Index> cols;
        for (Eigen::Index j = 0; j < n; ++j)
            if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
        z.setZero(n);
        if (cols.empty()) return;
        Eigen::MatrixXd Ap(A.rows(), static_cast<Eigen::Index>(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) Ap.col(static_cast<Eigen::Index>(k)) = A.col(cols[k]);
        const Eigen::VectorXd zp = Ap.colPivHouseholderQr().solve(b);
        for (std::size_t k = 0; k < cols.size(); ++k) z(cols[k]) = zp(static_cast<Eigen::Index>(k));
    };
    auto finish = [&](bool converged) {
        r.x = r.x.cwiseQuotient(scale);
        r.converged = converged;
        return r;
    };
    Eigen::VectorXd w = A.transpose() * (b - A * r.x), z(n);
    while (r.iterations < maxIterations) {
        Eigen::Index t = -1;
        double best = tol;
        for (Eigen::Index j = 0; j < n; ++j)
            if (!passive[static_cast<std::size_t>(j)] && !barred[static_cast<std::size_t>(j)] && w(j) > best) best = w(j), t = j;
        if (t < 0) return finish(true);  // Kuhn–Tucker conditions hold (up to the barred columns)
        passive[static_cast<std::size_t>(t)] = 1;
        const Eigen::VectorXd before = r.x;
        for (;;) {
            ++r.iterations;
            solveOnPassive(z);
            if (!z.allFinite()) z.setZero();
            bool feasible = true;
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) feasible = false;
            if (feasible) {
                r.x = z;
                break;
            }
            double alpha = 1;
            Eigen::Index blocking = -1;
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) {
                    const double a = r.x(j) > z(j) ? r.x(j) / (r.x(j) - z(j)) : 0.0;
                    if (blocking < 0 || a < alpha) alpha = a, blocking = j;
                }
            r.x += alpha * (z - r.x);
            const double small = 10 * eps * std::max(1.0, r.x.cwiseAbs().maxCoeff());
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && (j == blocking || r.x(j) <= small))
                    passive[static_cast<std::size_t>(j)] = 0, r.x(j) = 0;
            if (r.iterations >= maxIterations) break;
        }
        if (r.x == before) barred[static_cast<std::size_t>(t)] = 1;
        else std::fill(barred.begin(), barred.end(), 0);
        w = A.transpose() * (b - A * r.x);
    }
    return finish(false);
}

}  // namespace scalex::fit
