// Non-negative least squares (core/fit/Nnls, Lawson & Hanson 1974 Ch. 23) on the matrices a law's
// variable projection builds: columns apart by 1e21 and equal ones (exponentials clamped at ±50, as
// the scalebench vocabulary law sl_8 has them). The solution must be the best of every passive set
// (the enumeration Lawson–Hanson's theorem 23.4 rests on), never a crash: the matrix below emptied
// the passive set and sent Eigen's QR onto a matrix with no columns (SIGSEGV in a release build).
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <vector>

#include "core/fit/Nnls.h"
#include "core/fit/SplitMix64.h"

using scalex::fit::solveNnls;

namespace {

// min ‖Ax − b‖ over x ≥ 0 by trying every set of free columns (small n only).
double bruteForceResidual(const Eigen::MatrixXd& A, const Eigen::VectorXd& b) {
    const auto n = A.cols();
    double best = b.norm();
    for (int mask = 1; mask < (1 << n); ++mask) {
        std::vector<Eigen::Index> cols;
        for (Eigen::Index j = 0; j < n; ++j)
            if (mask >> j & 1) cols.push_back(j);
        Eigen::MatrixXd Ap(A.rows(), static_cast<Eigen::Index>(cols.size()));
        for (std::size_t k = 0; k < cols.size(); ++k) Ap.col(static_cast<Eigen::Index>(k)) = A.col(cols[k]);
        const Eigen::VectorXd z = Ap.colPivHouseholderQr().solve(b);
        if ((z.array() < 0).any()) continue;
        Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
        for (std::size_t k = 0; k < cols.size(); ++k) x(cols[k]) = z(static_cast<Eigen::Index>(k));
        best = std::min(best, (A * x - b).norm());
    }
    return best;
}

TEST(Nnls, ColumnsApartBy1e21GiveTheBestPassiveSet) {
    const double e = std::exp(50.0);
    Eigen::MatrixXd A(4, 3);
    A << e, 1, 3, 3, 1, 3, e, -1, e, e, 1, -1;
    Eigen::VectorXd b(4);
    b << -2, 1, e, 1;
    const auto r = solveNnls(A, b);
    EXPECT_TRUE(r.converged);
    ASSERT_EQ(r.x.size(), 3);
    EXPECT_GE(r.x.minCoeff(), 0.0);
    // The third column alone, at 1, leaves 5.74; the first alone (the old answer) 4.2e21.
    EXPECT_NEAR((A * r.x - b).norm(), bruteForceResidual(A, b), 1e-9);
    EXPECT_NEAR(r.x(2), 1.0, 1e-12);
}

TEST(Nnls, EveryPassiveSetIsNoBetterOnRandomAndClampedMatrices) {
    scalex::fit::SplitMix64 rng{41};
    const double values[] = {1.0, 2.0, 3.0, std::exp(50.0), std::exp(-50.0), -1.0};
    for (int trial = 0; trial < 20000; ++trial) {
        const auto rows = static_cast<Eigen::Index>(2 + rng.below(5)), cols = static_cast<Eigen::Index>(1 + rng.below(4));
        const bool clamped = trial % 2 == 1;
        Eigen::MatrixXd A(rows, cols);
        Eigen::VectorXd b(rows);
        for (Eigen::Index i = 0; i < rows; ++i) {
            for (Eigen::Index j = 0; j < cols; ++j) A(i, j) = clamped ? values[rng.below(6)] : rng.normal();
            b(i) = clamped ? values[rng.below(6)] * (rng.below(2) ? 1 : -1) : rng.normal();
        }
        const auto r = solveNnls(A, b);
        ASSERT_GE(r.x.minCoeff(), 0.0) << "trial " << trial;
        const double best = bruteForceResidual(A, b);
        ASSERT_LE((A * r.x - b).norm(), best * (1 + 1e-6) + 1e-12 * std::max(1.0, b.norm())) << "trial " << trial;
    }
}

TEST(Nnls, EmptyAndNonFiniteInputsGiveZeroNotACrash) {
    EXPECT_EQ(solveNnls(Eigen::MatrixXd(0, 2), Eigen::VectorXd(0)).x.size(), 2);
    EXPECT_EQ(solveNnls(Eigen::MatrixXd(3, 0), Eigen::VectorXd::Ones(3)).x.size(), 0);
    Eigen::MatrixXd A = Eigen::MatrixXd::Ones(3, 2);
    A(1, 1) = std::numeric_limits<double>::infinity();
    const auto r = solveNnls(A, Eigen::VectorXd::Ones(3));
    EXPECT_FALSE(r.converged);
    EXPECT_EQ(r.x, Eigen::VectorXd::Zero(2));
    // A zero column stays at zero.
    Eigen::MatrixXd Z(3, 2);
    Z << 1, 0, 2, 0, 3, 0;
    const auto z = solveNnls(Z, Eigen::Vector3d(1, 2, 3));
    EXPECT_NEAR(z.x(0), 1.0, 1e-12);
    EXPECT_EQ(z.x(1), 0.0);
}

}  // namespace
