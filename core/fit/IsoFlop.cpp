#include "core/fit/IsoFlop.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace scalex::fit {

namespace {

std::string budgetLabel(double b) {
    std::ostringstream s;
    s << b;
    return s.str();
}

// Three significant digits, for reasons people read ("4.63e+04").
std::string threeDigits(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

bool validRun(const IsoFlopRun& r) {
    return r.params > 0 && r.tokens > 0 && r.flops > 0 && std::isfinite(r.params) && std::isfinite(r.tokens) &&
           std::isfinite(r.flops) && std::isfinite(r.loss);
}

// Fits one variable's parabola and its minimum; returns false when it cannot.
bool fitOne(const std::vector<double>& x, const std::vector<double>& y, Parabola& out, double& opt, double& lossAtOpt,
            double& xMin, double& xMax, FitQuality& quality) {
    const auto p = fitParabola(x, y);
    xMin = *std::min_element(x.begin(), x.end());
    xMax = *std::max_element(x.begin(), x.end());
    if (!p) return false;
    out = *p;
    const double v = p->vertex();
    opt = std::pow(10.0, v);
    lossAtOpt = (*p)(v);
    std::vector<double> predicted(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) predicted[i] = (*p)(x[i]);
    quality = assessFit(y, predicted);
    return true;
}

}  // namespace

std::optional<Parabola> fitParabola(std::span<const double> x, std::span<const double> y) {
    if (x.size() != y.size() || x.size() < 3) return std::nullopt;
    std::vector<double> distinct(x.begin(), x.end());
    std::sort(distinct.begin(), distinct.end());
    if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 3) return std::nullopt;
    const Eigen::Index n = static_cast<Eigen::Index>(x.size());
    // Centre x for conditioning (log10 N ≈ 8–9), then expand back to a x² + b x + c.
    double mean = 0;
    for (double v : x) mean += v;
    mean /= static_cast<double>(n);
    Eigen::MatrixXd design(n, 3);
    Eigen::VectorXd target(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const double t = x[static_cast<std::size_t>(i)] - mean;
        design(i, 0) = t * t;
        design(i, 1) = t;
        design(i, 2) = 1.0;
        target(i) = y[static_cast<std::size_t>(i)];
    }
    const Eigen::Vector3d k = design.colPivHouseholderQr().solve(target);
    Parabola p;
    p.a = k(0);
    p.b = k(1) - 2 * k(0) * mean;
    p.c = k(2) - k(1) * mean + k(0) * mean * mean;
    if (!std::isfinite(p.a) || !std::isfinite(p.b) || !std::isfinite(p.c)) return std::nullopt;
    return p;
}

std::optional<double> assignBudget(double flops, const IsoFlopSettings& settings) {
    std::optional<double> best;
    double bestDistance = 0;
    for (double b : settings.budgets) {
        const double d = std::abs(flops - b);
        if (!(d < settings.tolerance * b)) continue;
        if (!best || d / b < bestDistance) {
            best = b;
            bestDistance = d / b;
        }
    }
    return best;
}

IsoFlopResult fitIsoFlop(std::span<const IsoFlopRun> runs, const IsoFlopSettings& settings) {
    IsoFlopResult result;
    std::vector<std::vector<std::size_t>> members(settings.budgets.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto budget = validRun(runs[i]) ? assignBudget(runs[i].flops, settings) : std::nullopt;
        if (!budget) {
            result.unassigned.push_back(i);
            continue;
        }
        const auto k = static_cast<std::size_t>(std::find(settings.budgets.begin(), settings.budgets.end(), *budget) - settings.budgets.begin());
        members[k].push_back(i);
    }
    std::vector<double> lawC, lawN, lawD;
    for (std::size_t k = 0; k < settings.budgets.size(); ++k) {
        if (members[k].empty()) continue;
        IsoFlopProfile prof;
        prof.budget = settings.budgets[k];
        prof.runs = members[k];
        prof.nRuns = static_cast<int>(members[k].size());
        std::vector<double> xN, xD, y;
        double sumC = 0;
        for (std::size_t i : members[k]) {
            sumC += runs[i].flops;
            xN.push_back(std::log10(runs[i].params));
            xD.push_back(std::log10(runs[i].tokens));
            y.push_back(runs[i].loss);
        }
        prof.flopsMean = sumC / static_cast<double>(members[k].size());
        const std::string label = "budget " + budgetLabel(prof.budget) + ": ";
        const bool okN = fitOne(xN, y, prof.inN, prof.nOpt, prof.lossAtNOpt, prof.log10NMin, prof.log10NMax, prof.qualityN);
        const bool okD = fitOne(xD, y, prof.inD, prof.dOpt, prof.lossAtDOpt, prof.log10DMin, prof.log10DMax, prof.qualityD);
        prof.fitted = okN && okD;
        if (!prof.fitted) prof.warnings.push_back(label + "fewer than 3 distinct model sizes: no parabola");
        if (prof.nRuns < settings.minRunsPerProfile)
            prof.warnings.push_back(label + "only " + std::to_string(prof.nRuns) + " runs in the profile");
        if (prof.fitted) {
            if (prof.inN.a <= 0) prof.warnings.push_back(label + "the parabola in N opens downward (no minimum)");
            if (prof.inD.a <= 0) prof.warnings.push_back(label + "the parabola in D opens downward (no minimum)");
            const double vN = prof.inN.vertex(), vD = prof.inD.vertex();
            if (vN < prof.log10NMin || vN > prof.log10NMax)
                prof.warnings.push_back(label + "N* lies outside the sampled model sizes");
            if (vD < prof.log10DMin || vD > prof.log10DMax)
                prof.warnings.push_back(label + "D* lies outside the sampled token counts");
        }
        const bool inRange = prof.flopsMean >= settings.fitMin && prof.flopsMean <= settings.fitMax;
        if (prof.fitted && inRange) {
            const bool kept = std::any_of(settings.keptBudgets.begin(), settings.keptBudgets.end(),
                                          [&](double b) { return std::abs(b - prof.budget) <= 1e-6 * prof.budget; });
            const double vN = prof.inN.vertex(), vD = prof.inD.vertex();
            if (prof.inN.a <= 0 || prof.inD.a <= 0)
                prof.leftOut = "its parabola has no minimum";
            else if (!kept && (vN < prof.log10NMin || vN > prof.log10NMax))
                prof.leftOut = "its optimum N* = " + threeDigits(prof.nOpt) + " lies outside the sampled sizes " +
                               threeDigits(std::pow(10.0, prof.log10NMin)) + " to " + threeDigits(std::pow(10.0, prof.log10NMax));
            else if (!kept && (vD < prof.log10DMin || vD > prof.log10DMax))
                prof.leftOut = "its optimum D* = " + threeDigits(prof.dOpt) + " lies outside the sampled token counts " +
                               threeDigits(std::pow(10.0, prof.log10DMin)) + " to " + threeDigits(std::pow(10.0, prof.log10DMax));
            if (!prof.leftOut.empty()) prof.warnings.push_back(label + "left out of the power laws: " + prof.leftOut);
        }
        prof.inPowerLaw = prof.fitted && inRange && prof.leftOut.empty();
        if (prof.inPowerLaw) {
            lawC.push_back(prof.flopsMean);
            lawN.push_back(prof.nOpt);
            lawD.push_back(prof.dOpt);
        }
        for (const auto& w : prof.warnings) result.warnings.push_back(w);
        result.profiles.push_back(std::move(prof));
    }
    result.nBudgetsInLaw = static_cast<int>(lawC.size());
    if (lawC.size() >= 2) {
        result.nOptLaw = fitPowerLaw(lawC, lawN);
        result.dOptLaw = fitPowerLaw(lawC, lawD);
    } else {
        result.warnings.push_back("fewer than 2 budgets in the fit range: no power law");
    }
    if (lawC.size() < 3) result.warnings.push_back("fewer than 3 budgets in the power law");
    return result;
}

std::vector<LeaveOneBudgetOut> leaveOneBudgetOut(const IsoFlopResult& result) {
    std::vector<const IsoFlopProfile*> used;
    for (const auto& p : result.profiles)
        if (p.inPowerLaw) used.push_back(&p);
    std::vector<LeaveOneBudgetOut> out;
    if (used.size() < 3) return out;
    for (std::size_t leave = 0; leave < used.size(); ++leave) {
        std::vector<double> c, n, d;
        for (std::size_t k = 0; k < used.size(); ++k) {
            if (k == leave) continue;
            c.push_back(used[k]->flopsMean);
            n.push_back(used[k]->nOpt);
            d.push_back(used[k]->dOpt);
        }
        const auto lawN = fitPowerLaw(c, n), lawD = fitPowerLaw(c, d);
        if (!lawN || !lawD) continue;
        LeaveOneBudgetOut l;
        l.budget = used[leave]->budget;
        l.flopsMean = used[leave]->flopsMean;
        l.nOptLaw = *lawN;
        l.dOptLaw = *lawD;
        l.nOptObserved = used[leave]->nOpt;
        l.dOptObserved = used[leave]->dOpt;
        l.nOptPredicted = (*lawN)(l.flopsMean);
        l.dOptPredicted = (*lawD)(l.flopsMean);
        out.push_back(l);
    }
    return out;
}

ContextTrend contextTrend(std::span<const double> contexts, std::span<const IsoFlopResult> results, double budget) {
    ContextTrend trend;
    trend.budget = budget;
    std::vector<double> t, n, d;
    for (std::size_t i = 0; i < contexts.size() && i < results.size(); ++i) {
        if (!results[i].nOptLaw || !results[i].dOptLaw) continue;
        ContextOptimum o{contexts[i], (*results[i].nOptLaw)(budget), (*results[i].dOptLaw)(budget)};
        trend.optima.push_back(o);
        t.push_back(o.context);
        n.push_back(o.nOpt);
        d.push_back(o.dOpt);
    }
    if (t.size() >= 2) {
        trend.nOptOverContext = fitPowerLaw(t, n);
        trend.dOptOverContext = fitPowerLaw(t, d);
    }
    return trend;
}

}  // namespace scalex::fit
