#include "core/fit/Outliers.h"
#include "core/fit/SplitMix64.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>

namespace scalex::fit {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Exact fits through every p-subset while there are at most this many, else this many subsets
// drawn by a fixed-seed generator (FAST-LTS uses 500 starts; more is cheap at these sizes).
constexpr std::size_t kMaxSubsets = 3000;
// FAST-LTS: the best few starts are iterated to convergence.
constexpr std::size_t kKeepStarts = 10;

double median(std::vector<double> v) {
    if (v.empty()) return kNaN;
    const std::size_t m = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
    const double hi = v[m];
    if (v.size() % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m)));
}


struct Design {
    Eigen::MatrixXd X;  // n × p, standardised x
    double centre = 0, spread = 1;
};

Design design(std::span<const double> x, int degree) {
    Design d;
    const auto n = static_cast<Eigen::Index>(x.size());
    double mean = 0;
    for (double v : x) mean += v;
    mean /= static_cast<double>(std::max<Eigen::Index>(n, 1));
    double var = 0;
    for (double v : x) var += (v - mean) * (v - mean);
    d.centre = mean;
    d.spread = var > 0 ? std::sqrt(var / static_cast<double>(n)) : 1.0;
    d.X.resize(n, degree + 1);
    for (Eigen::Index i = 0; i < n; ++i) {
        const double t = (x[static_cast<std::size_t>(i)] - d.centre) / d.spread;
        double v = 1;
        for (int k = 0; k <= degree; ++k, v *= t) d.X(i, k) = v;
    }
    return d;
}

// Least squares on the rows `use`; false when they do not determine the coefficients.
bool leastSquares(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& use, Eigen::VectorXd& beta) {
    const auto p = X.cols();
    Eigen::MatrixXd A(static_cast<Eigen::Index>(use.size()), p);
    Eigen::VectorXd b(static_cast<Eigen::Index>(use.size()));
    for (std::size_t k = 0; k < use.size(); ++k) {
        A.row(static_cast<Eigen::Index>(k)) = X.row(use[k]);
        b(static_cast<Eigen::Index>(k)) = y(use[k]);
    }
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
    if (qr.rank() < p) return false;
    beta = qr.solve(b);
    return beta.allFinite();
}

// Sum of the h smallest squared residuals, and which rows they are.
double trimmedSum(const Eigen::VectorXd& r, std::size_t h, std::vector<Eigen::Index>* rows) {
    std::vector<Eigen::Index> order(static_cast<std::size_t>(r.size()));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    // Ties broken by index so the subset never depends on the sort's implementation.
    std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
        const double ra = r(a) * r(a), rb = r(b) * r(b);
        return ra != rb ? ra < rb : a < b;
    });
    double sum = 0;
    for (std::size_t k = 0; k < h; ++k) sum += r(order[k]) * r(order[k]);
    if (rows) {
        rows->assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(h));
        std::sort(rows->begin(), rows->end());
    }
    return sum;
}

std::string signedNumber(double v) {
    std::ostringstream s;
    s << (v >= 0 ? "+" : "") << std::setprecision(2) << v;
    return s.str();
}

std::string sigmaText(double sigmas) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << std::abs(sigmas) << " robust sigma";
    return s.str();
}

std::string numberText(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

bool isFlagged(double sigmas, const OutlierSettings& o) {
    if (!std::isfinite(sigmas)) return false;
    return o.upwardOnly ? sigmas > o.threshold : std::abs(sigmas) > o.threshold;
}

}  // namespace

double RobustPolynomial::operator()(double x) const {
    double y = 0, v = 1;
    for (double c : coefficients) {
        y += c * v;
        v *= x;
    }
    return y;
}

RobustPolynomial fitRobustPolynomial(std::span<const double> x, std::span<const double> y, int degree, double scaleFloor) {
    RobustPolynomial out;
    const std::size_t n = x.size();
    const auto p = static_cast<std::size_t>(degree + 1);
    if (degree < 0 || y.size() != n || n < p + 1) return out;
    {
        std::vector<double> distinct(x.begin(), x.end());
        std::sort(distinct.begin(), distinct.end());
        if (static_cast<std::size_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin()) < p) return out;
    }
    const Design d = design(x, degree);
    Eigen::VectorXd yv(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) yv(static_cast<Eigen::Index>(i)) = y[i];
    // LTS coverage h = ⌊(n + p + 1)/2⌋: the highest breakdown point (Rousseeuw & Leroy 1987).
    const std::size_t h = (n + p + 1) / 2;

    // 1. Exact fits through p-subsets, scored by the trimmed sum of squares.
    std::vector<std::pair<double, Eigen::VectorXd>> starts;
    auto consider = [&](const std::vector<Eigen::Index>& subset) {
        Eigen::VectorXd beta;
        if (!leastSquares(d.X, yv, subset, beta)) return;
        const double score = trimmedSum(yv - d.X * beta, h, nullptr);
        starts.emplace_back(score, std::move(beta));
    };
    double combos = 1;
    for (std::size_t k = 0; k < p; ++k) combos = combos * static_cast<double>(n - k) / static_cast<double>(k + 1);
    std::vector<Eigen::Index> subset(p);
    if (combos <= static_cast<double>(kMaxSubsets)) {
        std::vector<std::size_t> c(p);
        std::iota(c.begin(), c.end(), std::size_t{0});
        for (;;) {
            for (std::size_t k = 0; k < p; ++k) subset[k] = static_cast<Eigen::Index>(c[k]);
            consider(subset);
            std::size_t k = p;
            while (k > 0 && c[k - 1] == n - p + (k - 1)) --k;
            if (k == 0) break;
            ++c[k - 1];
            for (std::size_t j = k; j < p; ++j) c[j] = c[j - 1] + 1;
        }
    } else {
        SplitMix64 rng{0x5CA1E5u + n};
        for (std::size_t draw = 0; draw < kMaxSubsets; ++draw) {
            for (std::size_t k = 0; k < p; ++k) {
                Eigen::Index v;
                do v = static_cast<Eigen::Index>(rng.next() % n);
                while (std::find(subset.begin(), subset.begin() + static_cast<std::ptrdiff_t>(k), v) != subset.begin() + static_cast<std::ptrdiff_t>(k));
                subset[k] = v;
            }
            consider(subset);
        }
    }
    if (starts.empty()) return out;
    std::stable_sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    starts.resize(std::min(starts.size(), kKeepStarts));

    // 2. Concentration steps: least squares on the h runs closest to the current fit, until the
    // subset no longer changes (each step lowers the trimmed sum; FAST-LTS).
    Eigen::VectorXd best;
    double bestScore = std::numeric_limits<double>::infinity();
    for (auto& [score, beta] : starts) {
        std::vector<Eigen::Index> rows, previous;
        for (int step = 0; step < 50; ++step) {
            score = trimmedSum(yv - d.X * beta, h, &rows);
            if (rows == previous) break;
            previous = rows;
            Eigen::VectorXd next;
            if (!leastSquares(d.X, yv, rows, next)) break;
            beta = next;
        }
        if (score < bestScore) {
            bestScore = score;
            best = beta;
        }
    }

    // 3. Reweighting: the LTS residuals measured in the LMS scale with its small-sample
    // correction, 1.4826·(1 + 5/(n − p))·med|r| (Rousseeuw & Leroy 1987, eq. 1.3 of ch. 5); runs
    // within 2.5 of it enter a least-squares fit, whose scale is √(Σ r²/(n_in − p)) (ibid., RLS).
    Eigen::VectorXd r = yv - d.X * best;
    std::vector<double> absR(n);
    for (std::size_t i = 0; i < n; ++i) absR[i] = std::abs(r(static_cast<Eigen::Index>(i)));
    const double s0 = 1.4826 * (1.0 + 5.0 / static_cast<double>(n - p)) * median(absR);
    std::vector<Eigen::Index> in;
    for (std::size_t i = 0; i < n; ++i)
        if (s0 == 0 ? absR[i] == 0 : absR[i] <= 2.5 * s0) in.push_back(static_cast<Eigen::Index>(i));
    Eigen::VectorXd beta = best;
    if (in.size() > p) {
        Eigen::VectorXd refit;
        if (leastSquares(d.X, yv, in, refit)) beta = refit;
    }
    r = yv - d.X * beta;
    double rss = 0;
    for (auto i : in) rss += r(i) * r(i);
    double s = in.size() > p ? std::sqrt(rss / static_cast<double>(in.size() - p)) : s0;
    std::vector<double> absY(n);
    for (std::size_t i = 0; i < n; ++i) absY[i] = std::abs(y[i]);
    s = std::max(s, scaleFloor * median(absY));

    // (X'X)⁻¹ of the final fit's runs, for leverage().
    Eigen::MatrixXd Xin(static_cast<Eigen::Index>(in.size()), static_cast<Eigen::Index>(p));
    for (std::size_t k = 0; k < in.size(); ++k) Xin.row(static_cast<Eigen::Index>(k)) = d.X.row(in[k]);
    Eigen::FullPivLU<Eigen::MatrixXd> lu(Xin.transpose() * Xin);
    out.centre = d.centre;
    out.spread = d.spread;
    if (lu.isInvertible()) {
        const Eigen::MatrixXd inv = lu.inverse();
        for (Eigen::Index i = 0; i < inv.rows(); ++i)
            for (Eigen::Index j = 0; j < inv.cols(); ++j) out.gramInverse.push_back(inv(i, j));
    }
    out.inlier.assign(n, false);
    for (auto i : in) out.inlier[static_cast<std::size_t>(i)] = true;
    out.residuals.resize(n);
    for (std::size_t i = 0; i < n; ++i) out.residuals[i] = r(static_cast<Eigen::Index>(i));
    out.scale = s;
    // Expand Σ β_k t^k with t = (x − centre)/spread into ascending powers of x.
    out.coefficients.assign(p, 0.0);
    for (std::size_t k = 0; k < p; ++k) {
        // (x − c)^k / spread^k = Σ_j C(k, j) x^j (−c)^(k−j) / spread^k
        double cjk = 1;  // C(k, j)
        for (std::size_t j = 0; j <= k; ++j) {
            out.coefficients[j] += beta(static_cast<Eigen::Index>(k)) * cjk * std::pow(-d.centre, static_cast<double>(k - j)) /
                                   std::pow(d.spread, static_cast<double>(k));
            cjk = cjk * static_cast<double>(k - j) / static_cast<double>(j + 1);
        }
    }
    out.ok = true;
    return out;
}

double RobustPolynomial::leverage(double x) const {
    const std::size_t p = coefficients.size();
    if (gramInverse.size() != p * p) return 0;
    const double t = (x - centre) / spread;
    std::vector<double> v(p);
    double pw = 1;
    for (std::size_t k = 0; k < p; ++k, pw *= t) v[k] = pw;
    double h = 0;
    for (std::size_t i = 0; i < p; ++i)
        for (std::size_t j = 0; j < p; ++j) h += v[i] * gramInverse[i * p + j] * v[j];
    return h;
}

bool OutlierCheck::flagged(std::size_t index) const {
    return std::any_of(outliers.begin(), outliers.end(), [&](const RunOutlier& o) { return o.index == index; });
}

std::vector<std::size_t> OutlierCheck::kept() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < robustSigmas.size(); ++i)
        if (!flagged(i)) out.push_back(i);
    return out;
}

namespace {

// Leave-one-out prediction of every run of a group from its `neighbours` nearest others in x
// (all others when neighbours <= 0), standardised as described in the header; flags into `check`.
void checkGroup(const std::vector<std::size_t>& members, const std::vector<double>& x, const std::vector<double>& y, int degree,
                int neighbours, double group, const std::string& curveName, const char* units, const OutlierSettings& o,
                OutlierCheck& check) {
    const std::size_t n = members.size();
    const std::size_t p = static_cast<std::size_t>(degree + 1);
    const std::size_t needed = p + static_cast<std::size_t>(std::max(o.minSpareRuns, 1)) + 1;
    if (n < needed) {
        check.notes.push_back(curveName + ": " + std::to_string(n) + " runs, fewer than the " + std::to_string(needed) +
                              " an outlier check needs");
        return;
    }
    const std::size_t k = neighbours > 0 ? std::max(std::min(static_cast<std::size_t>(neighbours), n - 1), needed - 1) : n - 1;
    std::vector<double> absY(n);
    for (std::size_t i = 0; i < n; ++i) absY[i] = std::abs(y[i]);
    const double floor = o.scaleFloor * median(absY);
    std::vector<double> error(n, kNaN), localScale(n, kNaN), factor(n, 1.0);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i) {
        order.resize(n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return std::abs(x[a] - x[i]) < std::abs(x[b] - x[i]); });
        std::vector<double> xs, ys;
        for (std::size_t j = 0; j < k; ++j) {
            xs.push_back(x[order[j]]);
            ys.push_back(y[order[j]]);
        }
        const RobustPolynomial fit = fitRobustPolynomial(xs, ys, degree, o.scaleFloor);
        if (!fit.ok) continue;
        error[i] = y[i] - fit(x[i]);
        localScale[i] = fit.scale;
        factor[i] = std::sqrt(1.0 + fit.leverage(x[i]));
    }
    // The group's scale from every run's error divided by its own leverage factor, so that it
    // estimates the same s as each local fit's.
    std::vector<double> finite;
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(error[i])) finite.push_back(error[i] / factor[i]);
    if (finite.size() < needed) {
        check.notes.push_back(curveName + ": too few distinct values for an outlier check");
        return;
    }
    const double centre = median(finite);
    for (double& e : finite) e = std::abs(e - centre);
    const double groupScale = 1.4826 * median(finite);  // normalised MAD: σ for normal errors
    for (std::size_t m = 0; m < n; ++m) {
        if (!std::isfinite(error[m])) continue;
        const double s = std::max({localScale[m], groupScale, floor}) * factor[m];
        const double sigmas = s > 0 ? error[m] / s : 0.0;
        const std::size_t i = members[m];
        check.robustSigmas[i] = sigmas;
        if (!isFlagged(sigmas, o)) continue;
        RunOutlier out;
        out.index = i;
        out.group = group;
        out.observed = y[m];
        out.residual = error[m];
        out.expected = y[m] - out.residual;
        out.robustSigmas = sigmas;
        out.reason = signedNumber(out.residual) + units + (out.residual >= 0 ? " above the " : " below the ") + curveName + ", " +
                     sigmaText(out.robustSigmas);
        check.outliers.push_back(out);
    }
}

void sortOutliers(OutlierCheck& check) {
    std::sort(check.outliers.begin(), check.outliers.end(), [](const RunOutlier& a, const RunOutlier& b) { return a.index < b.index; });
}

}  // namespace

OutlierCheck findIsoFlopOutliers(std::span<const IsoFlopRun> runs, const IsoFlopSettings& settings, const OutlierSettings& o) {
    OutlierCheck check;
    check.robustSigmas.assign(runs.size(), kNaN);
    std::vector<std::vector<std::size_t>> members(settings.budgets.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        if (!(r.params > 0 && std::isfinite(r.params) && r.flops > 0 && std::isfinite(r.flops) && std::isfinite(r.loss))) continue;
        const auto b = assignBudget(r.flops, settings);
        if (!b) continue;
        members[static_cast<std::size_t>(std::find(settings.budgets.begin(), settings.budgets.end(), *b) - settings.budgets.begin())]
            .push_back(i);
    }
    for (std::size_t k = 0; k < settings.budgets.size(); ++k) {
        if (members[k].empty()) continue;
        std::vector<double> x, y;
        for (std::size_t i : members[k]) {
            x.push_back(std::log10(runs[i].params));
            y.push_back(runs[i].loss);
        }
        // fitIsoFlop's curve: loss (linear) over log10 N.
        checkGroup(members[k], x, y, 2, o.neighbours, settings.budgets[k], numberText(settings.budgets[k]) + " profile", "", o, check);
    }
    sortOutliers(check);
    return check;
}

OutlierCheck findSlopeOutliers(std::span<const ComputeLossPoint> points, const SlopeSettings& settings, const OutlierSettings& o) {
    OutlierCheck check;
    check.robustSigmas.assign(points.size(), kNaN);
    std::vector<std::vector<std::size_t>> members(settings.ratios.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (!(p.flops > 0 && p.loss > 0 && std::isfinite(p.flops) && std::isfinite(p.loss))) continue;
        const auto m = nominalRatio(p.tokensPerParam, settings);
        if (!m) continue;
        members[static_cast<std::size_t>(std::find(settings.ratios.begin(), settings.ratios.end(), *m) - settings.ratios.begin())]
            .push_back(i);
    }
    OutlierSettings logUnits = o;
    // ln L is relative: the floor applies to it directly, not to its median.
    for (std::size_t k = 0; k < settings.ratios.size(); ++k) {
        if (members[k].empty()) continue;
        std::vector<double> x, y;
        for (std::size_t i : members[k]) {
            x.push_back(std::log(points[i].flops));
            y.push_back(std::log(points[i].loss));
        }
        double medianLogLoss = median(y);
        logUnits.scaleFloor = medianLogLoss != 0 ? o.scaleFloor / std::abs(medianLogLoss) : o.scaleFloor;
        checkGroup(members[k], x, y, 1, 0, settings.ratios[k], "M = " + numberText(settings.ratios[k]) + " line", " in ln L", logUnits,
                   check);
    }
    std::erase_if(check.outliers, [&](const RunOutlier& r) { return std::abs(std::expm1(r.residual)) < o.minExcessGlobal; });
    sortOutliers(check);
    return check;
}

OutlierCheck findLossSurfaceOutliers(std::span<const LossPoint> points, const LossSurfaceParams& fitted, const OutlierSettings& o) {
    OutlierCheck check;
    check.robustSigmas.assign(points.size(), kNaN);
    std::vector<std::size_t> valid;
    std::vector<double> r;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& p = points[i];
        if (!(p.params > 0 && p.tokens > 0 && p.loss > 0 && std::isfinite(p.params) && std::isfinite(p.tokens) && std::isfinite(p.loss)))
            continue;
        valid.push_back(i);
        r.push_back(std::log(p.loss) - fitted.logLoss(p.params, p.tokens));
    }
    const std::size_t needed = 6 + static_cast<std::size_t>(std::max(o.minSpareRuns, 1));
    if (valid.size() < needed) {
        check.notes.push_back("L(N,D): " + std::to_string(valid.size()) + " runs, fewer than the " + std::to_string(needed) +
                              " an outlier check needs");
        return check;
    }
    const double centre = median(r);
    std::vector<double> dev(r.size());
    for (std::size_t k = 0; k < r.size(); ++k) dev[k] = std::abs(r[k] - centre);
    const double s = std::max(1.4826 * median(dev), o.scaleFloor);
    for (std::size_t k = 0; k < valid.size(); ++k) {
        const std::size_t i = valid[k];
        const double sig = r[k] / s;
        check.robustSigmas[i] = sig;
        if (!isFlagged(sig, o) || std::abs(std::expm1(r[k])) < o.minExcessGlobal) continue;
        RunOutlier out;
        out.index = i;
        out.observed = std::log(points[i].loss);
        out.residual = r[k];
        out.expected = out.observed - r[k];
        out.robustSigmas = sig;
        std::ostringstream pct;
        pct << (r[k] >= 0 ? "+" : "") << std::setprecision(2) << 100.0 * std::expm1(r[k]) << " %";
        out.reason = pct.str() + (r[k] >= 0 ? " above" : " below") + " the fitted L(N,D), " + sigmaText(sig);
        check.outliers.push_back(out);
    }
    return check;
}

IsoFlopWithoutOutliers fitIsoFlopWithoutOutliers(std::span<const IsoFlopRun> runs, const IsoFlopSettings& settings,
                                                 const OutlierSettings& o) {
    IsoFlopWithoutOutliers out;
    out.outliers = findIsoFlopOutliers(runs, settings, o);
    const auto kept = out.outliers.kept();
    std::vector<IsoFlopRun> subset;
    subset.reserve(kept.size());
    for (std::size_t i : kept) subset.push_back(runs[i]);
    out.result = fitIsoFlop(subset, settings);
    for (auto& p : out.result.profiles)
        for (auto& i : p.runs) i = kept[i];
    for (auto& i : out.result.unassigned) i = kept[i];
    return out;
}

LossSurfaceWithoutOutliers fitLossSurfaceWithoutOutliers(std::span<const LossPoint> points, const LossSurfaceSettings& settings,
                                                         const OutlierSettings& o, const FitControl& control) {
    LossSurfaceWithoutOutliers out;
    out.fit = fitLossSurface(points, settings, control);
    out.outliers = findLossSurfaceOutliers(points, out.fit.best, o);
    if (out.outliers.outliers.empty() || out.fit.cancelled) return out;
    std::vector<LossPoint> subset;
    for (std::size_t i : out.outliers.kept()) subset.push_back(points[i]);
    if (subset.size() < (settings.fitGamma ? 6u : 5u)) return out;
    out.fit = refitLossSurface(subset, out.fit, settings, control);
    return out;
}

}  // namespace scalex::fit
