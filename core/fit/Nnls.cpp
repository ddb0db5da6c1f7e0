// Lawson & Hanson (1974), Ch. 23: grow a passive set P by the column with the largest gradient
// w = Aᵀ(b − Ax); solve least squares on P; while that leaves a negative entry, step back along
// the segment to the boundary and drop the columns that reached zero.
#include "core/fit/Nnls.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace scalex::fit {

NnlsResult solveNnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, int maxIterations) {
    const Eigen::Index n = A.cols();
    NnlsResult r;
    r.x = Eigen::VectorXd::Zero(n);
    if (n == 0) return r;
    if (maxIterations <= 0) maxIterations = static_cast<int>(3 * n + 10);
    std::vector<char> passive(static_cast<std::size_t>(n), 0);
    // Tolerance on the gradient relative to the problem's scale (the book's "w_j ≤ 0" in floating point).
    const double tol = 10 * std::numeric_limits<double>::epsilon() * A.cwiseAbs().maxCoeff() * std::max<double>(A.rows(), n) *
                       std::max(1.0, b.cwiseAbs().maxCoeff());
    auto solveOnPassive = [&](Eigen::VectorXd& z) {
        std::vector<Eigen::Index> cols;
        for (Eigen::Index j = 0; j < n; ++j)
            if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
        Eigen::MatrixXd Ap(A.rows(), static_cast<Eigen::Index>(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) Ap.col(static_cast<Eigen::Index>(k)) = A.col(cols[k]);
        const Eigen::VectorXd zp = Ap.colPivHouseholderQr().solve(b);
        z.setZero(n);
        for (std::size_t k = 0; k < cols.size(); ++k) z(cols[k]) = zp(static_cast<Eigen::Index>(k));
    };
    Eigen::VectorXd w = A.transpose() * (b - A * r.x), z(n);
    while (r.iterations < maxIterations) {
        Eigen::Index t = -1;
        double best = tol;
        for (Eigen::Index j = 0; j < n; ++j)
            if (!passive[static_cast<std::size_t>(j)] && w(j) > best) best = w(j), t = j;
        if (t < 0) return r;  // Kuhn–Tucker conditions hold
        passive[static_cast<std::size_t>(t)] = 1;
        for (;;) {
            ++r.iterations;
            solveOnPassive(z);
            bool feasible = true;
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) feasible = false;
            if (feasible) {
                r.x = z;
                break;
            }
            double alpha = 1;
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) alpha = std::min(alpha, r.x(j) / (r.x(j) - z(j)));
            r.x += alpha * (z - r.x);
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[static_cast<std::size_t>(j)] && r.x(j) <= tol) passive[static_cast<std::size_t>(j)] = 0, r.x(j) = 0;
            if (r.iterations >= maxIterations) break;
        }
        w = A.transpose() * (b - A * r.x);
    }
    r.converged = false;
    return r;
}

}  // namespace scalex::fit
