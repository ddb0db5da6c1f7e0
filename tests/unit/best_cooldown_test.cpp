// "Best cooldown for this budget" (core/analysis/BestCooldown): under known Multi-Power Law
// parameters the search finds the optimum a dense grid finds; on lr-schedules/ the chosen
// cooldown's predicted final loss is at or below the predicted final of every observed WSD and
// cosine run of that budget and peak rate.
#include <gtest/gtest.h>

#include <QDir>
#include <cmath>
#include <cstdio>

#include "core/analysis/BestCooldown.h"
#include "tests/support/TestData.h"

using namespace scalex;
using scalex::test::sharedPath;

namespace {

// The MPL's published 400M parameters (Luo et al., repository README "Best Parameters"):
// L0 A alpha B C beta gamma.
const std::vector<double> kMpl400M{2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};

// A fit result that holds the known parameters (no covariance: predictions without interval).
analysis::CurveFitsResult knownMpl() {
    analysis::CurveFitsResult r;
    r.fit.law = fit::CurveLaw::MultiPower;
    r.fit.params = kMpl400M;
    return r;
}

fit::ScheduleSpec budget(long steps, double peak) {
    fit::ScheduleSpec s;
    s.shape = fit::ScheduleShape::Wsd;
    s.peakLr = peak;
    s.steps = steps;
    s.warmupSteps = 300;
    return s;
}

double finalLoss(const analysis::CurveFitsResult& r, const fit::ScheduleSpec& s) {
    const fit::PreparedSchedule prepared(fit::Schedule::fromSpec(s));
    return prepared.loss(r.fit.law, r.fit.params, s.steps);
}

}  // namespace

TEST(BestCooldown, FindsTheOptimumOfADenseGridUnderKnownParameters) {
    const auto known = knownMpl();
    // The authors' 400M runs peak at 3e-4; 8,000 steps keep the dense grid quick.
    const auto b = budget(8000, 3e-4);
    analysis::BestCooldownOptions o;
    o.decays = {fit::DecayShape::Linear};
    const auto best = analysis::bestCooldown(known, b, o);
    ASSERT_EQ(best.bestPerDecay.size(), 1u);
    // The dense grid: the cooldown fraction every 0.005, the final rate every 0.05 of the peak.
    double gridLoss = INFINITY, gridFraction = 0, gridRatio = 0;
    int gridPoints = 0;
    for (int i = 2; i <= 200; ++i)
        for (int j = 0; j <= 10; ++j) {
            auto s = b;
            s.cooldownFraction = i * 0.005;
            s.finalLr = j * 0.05 * b.peakLr;
            const double v = finalLoss(known, s);
            ++gridPoints;
            if (v < gridLoss) gridLoss = v, gridFraction = s.cooldownFraction, gridRatio = j * 0.05;
        }
    std::printf("dense grid (%d schedules): fraction %.3f, final %.2f x peak, loss %.6f\n", gridPoints, gridFraction, gridRatio, gridLoss);
    std::printf("search (%d schedules): fraction %.4f, final %.3f x peak, loss %.6f\n", best.evaluations, best.best.schedule.cooldownFraction,
                best.best.schedule.finalLr / b.peakLr, best.best.final.loss);
    // An interior optimum: neither the shortest nor the longest cooldown.
    EXPECT_GT(gridFraction, 0.05);
    EXPECT_LT(gridFraction, 0.95);
    EXPECT_LE(best.best.final.loss, gridLoss + 1e-6);
    EXPECT_NEAR(best.best.schedule.cooldownFraction, gridFraction, 0.01);
    EXPECT_NEAR(best.best.schedule.finalLr / b.peakLr, gridRatio, 0.03);
    EXPECT_LT(best.evaluations, gridPoints / 2) << "fewer schedules than the grid";
    // It is the law's own loss under the schedule it names, and without covariance it has no interval.
    EXPECT_DOUBLE_EQ(best.best.final.loss, finalLoss(known, best.best.schedule));
    EXPECT_TRUE(std::isnan(best.best.final.lower));
    // The budget's own schedule (20 % linear to 0) is no better.
    EXPECT_LE(best.best.final.loss, best.given.final.loss);
}

TEST(BestCooldown, EverySearchedShapeAndTheFreePeakAreNoWorseThanTheGrid) {
    const auto known = knownMpl();
    const auto b = budget(6000, 3e-4);
    analysis::BestCooldownOptions held;
    const auto heldPeak = analysis::bestCooldown(known, b, held);
    ASSERT_EQ(heldPeak.bestPerDecay.size(), 3u);
    for (const auto& c : heldPeak.bestPerDecay) {
        EXPECT_DOUBLE_EQ(c.schedule.peakLr, b.peakLr) << "the peak is held unless asked";
        EXPECT_GE(c.final.loss, heldPeak.best.final.loss);
        // No coarse grid point of its shape is lower than the one the search settles on.
        for (int i = 1; i <= 20; ++i) {
            auto s = c.schedule;
            s.cooldownFraction = i * 0.05;
            s.finalLr = 0;
            EXPECT_LE(c.final.loss, finalLoss(known, s) + 1e-6) << fit::describeSchedule(s);
        }
    }
    analysis::BestCooldownOptions free = held;
    free.freePeak = true;
    const auto freePeak = analysis::bestCooldown(known, b, free);
    EXPECT_LE(freePeak.best.final.loss, heldPeak.best.final.loss + 1e-9);
    EXPECT_GE(freePeak.best.schedule.peakLr, b.peakLr / free.peakFactor * (1 - 1e-9));
    EXPECT_LE(freePeak.best.schedule.peakLr, b.peakLr * free.peakFactor * (1 + 1e-9));
    // A budget with no steps after its warm-up has no best schedule.
    auto none = b;
    none.steps = 300;
    EXPECT_TRUE(std::isnan(analysis::bestCooldown(known, none).best.final.loss));
}

TEST(BestCooldown, ChosenCooldownPredictsNoHigherThanEveryObservedRunOfItsBudget) {
    SCALEX_REQUIRE_SHARED();
    const QDir dir(sharedPath("data/public/lr-schedules"));
    const QString lr = QStringLiteral("0.001");
    analysis::CurveFitOptions o;
    for (const QString prefix : {"stable-124m", "cos-"})
        for (const auto& name : dir.entryList({prefix + "*_lr" + lr + "_sched_*.json"}, QDir::Files, QDir::Name))
            o.dataFiles.push_back(dir.filePath(name).toStdString());
    for (const auto& name : dir.entryList({"ann124-*_lr" + lr + "_sched_*.json"}, QDir::Files, QDir::Name))
        o.holdoutFiles.push_back(dir.filePath(name).toStdString());
    ASSERT_FALSE(o.holdoutFiles.empty());
    const auto fitted = analysis::fitCurves(o);
    ASSERT_TRUE(fitted.ok()) << fitted.error().toString();
    int compared = 0;
    std::printf("budget  best schedule                                        predicted [interval]     observed runs (best predicted)\n");
    for (long steps : {15000L, 25000L, 50000L}) {
        const auto best = analysis::bestCooldown(*fitted, budget(steps, 1e-3));
        ASSERT_TRUE(std::isfinite(best.best.final.loss));
        EXPECT_LT(best.best.final.lower, best.best.final.loss);
        EXPECT_GT(best.best.final.upper, best.best.final.loss);
        double bestObserved = INFINITY;
        int runs = 0;
        for (const auto& c : fitted->runs) {
            // Every WSD cooldown and cosine run of this length, its schedule as read from its file.
            if (c.schedule.schedule().steps() != steps || c.run.configNumber("iterations") != static_cast<double>(steps)) continue;
            const std::string* scheduler = c.run.configValue("scheduler");
            if (!scheduler || (*scheduler == "wsd" && !(c.run.configNumber("wsd_fract_decay") > 0))) continue;  // constant runs
            const double v = c.schedule.loss(fitted->fit.law, fitted->fit.params, steps);
            EXPECT_LE(best.best.final.loss, v) << c.run.name;
            bestObserved = std::min(bestObserved, v);
            ++runs, ++compared;
        }
        EXPECT_GT(runs, 0) << steps;
        std::printf("%6ld  %-52s %.4f [%.4f, %.4f]  %d (%.4f)\n", steps, fit::describeSchedule(best.best.schedule).c_str(), best.best.final.loss,
                    best.best.final.lower, best.best.final.upper, runs, bestObserved);
    }
    EXPECT_GE(compared, 15);
}
