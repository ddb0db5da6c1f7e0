#pragma once
// Power laws y = A x^a fitted by least squares in log space (the IsoFLOP N*(H), D*(H) laws
// and the over-training slopes L(C) = lambda C^-eta).
#include <optional>
#include <span>
#include <string>

namespace scalex::fit {

struct PowerLaw {
    double coefficient = 0;  // A (natural scale)
    double exponent = 0;     // a
    double r2 = 0;           // coefficient of determination in log space
    double rmseLog = 0;      // root-mean-square residual of ln y
    int nPoints = 0;
    double operator()(double x) const;
    // The x with A x^a = y (e.g. the budget H whose compute-optimal size N*(H) is y).
    double inverse(double y) const;
};

// Ordinary least squares of ln y on ln x. Needs at least two distinct positive x and positive y;
// otherwise returns an empty optional and sets `error` when given.
std::optional<PowerLaw> fitPowerLaw(std::span<const double> x, std::span<const double> y, std::string* error = nullptr);

}  // namespace scalex::fit
