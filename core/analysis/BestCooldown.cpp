#include "core/analysis/BestCooldown.h"

#include <QJsonArray>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace scalex::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The searched coordinates of a WSD schedule: cooldown fraction, final rate / peak, ln(peak / the
// budget's peak).
using Point = std::array<double, 3>;

class CooldownSearch {
public:
    CooldownSearch(const CurveFitsResult& fit, const fit::ScheduleSpec& budget, const BestCooldownOptions& o) : fit_(fit), budget_(budget), o_(o) {
        if (!fit.runs.empty()) lawOptions_.tokensPerStep = fit.runs.front().schedule.options().tokensPerStep;
        lower_ = {std::clamp(o.minFraction, 0.0, 1.0), 0.0, o.freePeak ? -std::log(std::max(1.0, o.peakFactor)) : 0.0};
        upper_ = {std::clamp(o.maxFraction, lower_[0], 1.0), std::max(0.0, o.maxFinalRatio), -lower_[2]};
    }

    fit::ScheduleSpec spec(fit::DecayShape decay, const Point& x) const {
        fit::ScheduleSpec s = budget_;
        s.shape = fit::ScheduleShape::Wsd;
        s.decay = decay;
        s.peakLr = budget_.peakLr * std::exp(x[2]);
        s.cooldownFraction = x[0];
        s.finalLr = x[1] * s.peakLr;
        return s;
    }

    // The law's loss at the budget's last step under the schedule at x (NaN where undefined).
    double finalLoss(fit::DecayShape decay, const Point& x) {
        ++evaluations_;
        const fit::PreparedSchedule prepared(fit::Schedule::fromSpec(spec(decay, x)), lawOptions_);
        return prepared.loss(fit_.fit.law, fit_.fit.params, budget_.steps);
    }

    CooldownCandidate candidate(const fit::ScheduleSpec& s) const {
        const fit::PreparedSchedule prepared(fit::Schedule::fromSpec(s), lawOptions_);
        return {s, fit::predictCurveLoss(fit_.fit, prepared, s.steps)};
    }

    // The grid's best point for one decay shape, then a compass search from it.
    Point search(fit::DecayShape decay) {
        const std::array<int, 3> counts{std::max(2, o_.fractionGrid), upper_[1] > 0 ? std::max(2, o_.finalGrid) : 1,
                                        o_.freePeak ? std::max(2, o_.peakGrid) : 1};
        Point step{};
        for (int i = 0; i < 3; ++i) step[i] = counts[i] > 1 ? (upper_[i] - lower_[i]) / (counts[i] - 1) : 0.0;
        Point best = lower_;
        double bestLoss = std::numeric_limits<double>::infinity();
        for (int i = 0; i < counts[0]; ++i)
            for (int j = 0; j < counts[1]; ++j)
                for (int k = 0; k < counts[2]; ++k) {
                    const Point x{lower_[0] + i * step[0], lower_[1] + j * step[1], lower_[2] + k * step[2]};
                    const double v = finalLoss(decay, x);
                    if (v < bestLoss) bestLoss = v, best = x;
                }
        // Compass search (Kolda, Lewis & Torczon 2003): the best of the 2·d neighbours at the
        // current steps, or half the steps when none is lower.
        const double tolerance = std::max(o_.fractionTolerance, 1.0 / static_cast<double>(std::max(1L, budget_.steps)));
        while (step[0] >= tolerance) {
            Point moveTo = best;
            double moveLoss = bestLoss;
            for (int i = 0; i < 3; ++i)
                for (double sign : {-1.0, 1.0}) {
                    if (step[i] <= 0) continue;
                    Point x = best;
                    x[i] = std::clamp(x[i] + sign * step[i], lower_[i], upper_[i]);
                    if (x[i] == best[i]) continue;
                    const double v = finalLoss(decay, x);
                    if (v < moveLoss) moveLoss = v, moveTo = x;
                }
            if (moveLoss < bestLoss) {
                best = moveTo, bestLoss = moveLoss;
            } else {
                for (double& s : step) s *= 0.5;
            }
        }
        return best;
    }

    int evaluations() const { return evaluations_; }

private:
    const CurveFitsResult& fit_;
    fit::ScheduleSpec budget_;
    BestCooldownOptions o_;
    fit::CurveLawOptions lawOptions_;
    Point lower_{}, upper_{};
    int evaluations_ = 0;
};

}  // namespace

BestCooldownResult bestCooldown(const CurveFitsResult& fit, const fit::ScheduleSpec& budget, const BestCooldownOptions& options) {
    BestCooldownResult out;
    out.budget = budget;
    out.best = {budget, {kNaN, kNaN, kNaN}};
    if (budget.steps < 1 || budget.steps <= budget.warmupSteps || !(budget.peakLr > 0) || fit.fit.params.empty() || options.decays.empty())
        return out;
    CooldownSearch search(fit, budget, options);
    out.given = search.candidate(budget);
    for (const auto decay : options.decays) {
        // Printed to four decimals: the fraction and final rate are rounded there (far below the search's tolerance).
        Point x = search.search(decay);
        for (int i : {0, 1}) x[i] = std::round(x[i] * 1e4) / 1e4;
        CooldownCandidate c = search.candidate(search.spec(decay, x));
        if (out.bestPerDecay.empty() || c.final.loss < out.best.final.loss || !std::isfinite(out.best.final.loss)) out.best = c;
        out.bestPerDecay.push_back(std::move(c));
    }
    out.evaluations = search.evaluations();
    return out;
}

QJsonObject bestCooldownJson(const BestCooldownResult& r, double level) {
    const auto number = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); };
    const auto candidate = [&](const CooldownCandidate& c) {
        return QJsonObject{{"schedule", QString::fromStdString(fit::describeSchedule(c.schedule))},
                           {"cooldown_fraction", c.schedule.cooldownFraction},
                           {"decay", QString::fromStdString(fit::decayShapeName(c.schedule.decay))},
                           {"peak_lr", c.schedule.peakLr},
                           {"final_lr", c.schedule.finalLr},
                           {"loss", number(c.final.loss)},
                           {"lower", number(c.final.lower)},
                           {"upper", number(c.final.upper)}};
    };
    QJsonArray perDecay;
    for (const auto& c : r.bestPerDecay) perDecay.append(candidate(c));
    QJsonObject given = candidate(r.given);
    given.remove("cooldown_fraction");
    given.remove("decay");
    return QJsonObject{{"steps", static_cast<double>(r.budget.steps)},
                       {"level", level},
                       {"best", candidate(r.best)},
                       {"per_decay", perDecay},
                       {"given", given},
                       {"evaluations", r.evaluations}};
}

}  // namespace scalex::analysis
