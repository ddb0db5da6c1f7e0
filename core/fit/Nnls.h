#pragma once
// Non-negative least squares, min ‖A x − b‖ subject to x ≥ 0, by the active-set method of Lawson &
// Hanson, "Solving Least Squares Problems" (1974), Ch. 23, Algorithm NNLS. Eigen 3.4 ships no NNLS
// (its unsupported module arrived after 3.4), so the algorithm is written out here. The variable
// projection of LawFit solves a law's linear coefficients with it. Included by .cpp files only.
#include <Eigen/Core>

namespace scalex::fit {

struct NnlsResult {
    Eigen::VectorXd x;
    int iterations = 0;
    bool converged = true;  // false: the iteration cap was reached (x is still feasible)
};

NnlsResult solveNnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, int maxIterations = 0 /* 0: 3 × columns */);

}  // namespace scalex::fit
