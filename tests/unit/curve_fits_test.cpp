// Schedule-aware laws on real curves (core/analysis/CurveFits on ../shared lr-schedules/):
// published MPL parameters give the same losses on a run's schedule read from its logged rates
// and from its description; for each peak rate, the law fitted on the constant-rate and cosine
// runs predicts the final validation loss of every cooldown run (the errors per cooldown fraction
// and decay shape are held here); and the options' errors name the file or option.
#include <gtest/gtest.h>

#include <QDir>
#include <QFileInfo>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/analysis/CurveFits.h"
#include "tests/support/TestData.h"

using namespace scalex;
using scalex::test::sharedPath;

namespace {

QString lrDir() { return sharedPath("data/public/lr-schedules"); }

// Every run of lr-schedules/ whose file name starts with `prefix` and has peak rate `lr`.
std::vector<std::string> files(const QString& prefix, const QString& lr) {
    std::vector<std::string> out;
    const QDir dir(lrDir());
    for (const auto& name : dir.entryList({prefix + "*_lr" + lr + "_sched_*.json"}, QDir::Files, QDir::Name))
        out.push_back(dir.filePath(name).toStdString());
    return out;
}

// The MPL's published 400M parameters (Luo et al., repository README "Best Parameters").
// The relative errors of the predicted final validation losses on lr-schedules/ (the table this
// test prints).
// Measured: mean 0.0034, worst 0.0097 over the 92 cooldown runs.
constexpr double kMeanBound = 0.005, kWorstBound = 0.012;

const std::vector<double> kMpl400M{2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};

}  // namespace

TEST(CurveFits, ScheduleFromLoggedRatesAndFromDescriptionGiveTheSameLosses) {
    SCALEX_REQUIRE_SHARED();
    analysis::CurveFitOptions o;
    o.dataFiles = files("cos-10-124m", "0.001");
    ASSERT_FALSE(o.dataFiles.empty());
    auto runs = analysis::loadCurveRuns(o);
    ASSERT_TRUE(runs.ok()) << runs.error().toString();
    for (const auto& run : *runs) {
        // The run's config: cosine to 10 % of the peak after 300 warm-up steps.
        const long steps = static_cast<long>(run.run.configNumber("iterations"));
        std::string error;
        const auto spec = fit::parseScheduleSpec("cosine:peak=1e-3,final=1e-4,warmup=300,steps=" + std::to_string(steps), &error);
        ASSERT_TRUE(spec) << error;
        const fit::PreparedSchedule described(fit::Schedule::fromSpec(*spec));
        EXPECT_EQ(run.schedule.schedule().steps(), steps);
        int compared = 0;
        for (const auto& p : run.points) {
            if (p.step < 2000) continue;  // the logged warm-up starts at 1 % of the peak, the described one at 0
            const double fromLog = run.schedule.loss(fit::CurveLaw::MultiPower, kMpl400M, p.step);
            const double fromSpec = described.loss(fit::CurveLaw::MultiPower, kMpl400M, p.step);
            EXPECT_NEAR(fromLog, fromSpec, 1e-4 * fromSpec) << run.run.name << " step " << p.step;
            ++compared;
        }
        EXPECT_GT(compared, 50);
    }
}

TEST(CurveFits, ConstantAndCosineRunsPredictEveryCooldownsFinalLoss) {
    SCALEX_REQUIRE_SHARED();
    struct Error {
        double sum = 0, worst = 0;
        int n = 0;
    };
    std::map<std::string, Error> byShape;  // "F=0.2 sqrt"
    Error all;
    // Observed final losses inside their predicted interval at each level.
    const std::vector<double> levels{0.5, 0.8, 0.9, 0.95};
    std::vector<int> coveredAt(levels.size(), 0);
    double halfWidth = 0;  // mean relative half-width of the 95 % intervals
    std::vector<double> misfits;
    std::printf("lr       fraction decay  steps  observed  predicted [interval]  rel.err\n");
    for (const QString lr : {"0.0001", "0.0005", "0.001", "0.002"}) {
        analysis::CurveFitOptions o;
        o.dataFiles = files("stable-124m", lr);
        for (const auto& f : files("cos-", lr)) o.dataFiles.push_back(f);
        o.holdoutFiles = files("ann124-", lr);
        ASSERT_GE(o.dataFiles.size(), 3u) << lr.toStdString();
        ASSERT_FALSE(o.holdoutFiles.empty()) << lr.toStdString();
        const auto r = analysis::fitCurves(o);
        ASSERT_TRUE(r.ok()) << r.error().toString();
        ASSERT_EQ(r->heldOut.size(), o.holdoutFiles.size());
        for (const auto& fitted : r->fit.curves) EXPECT_GT(fitted.r2, 0.9) << fitted.name;
        misfits.push_back(r->fit.misfitSd);
        for (std::size_t i = 0; i < r->heldOut.size(); ++i) {
            const auto& s = r->heldOut[i];
            const auto& curveRun = r->runs[r->runs.size() - r->heldOut.size() + i];
            const auto& run = curveRun.run;
            // Logged from the start, joined to its constant-rate run, or (resumed from its own step 0,
            // logged late) scheduled from its config.
            EXPECT_TRUE(run.firstLoggedStep() <= 300 || !run.joinedTo.empty() || curveRun.scheduleSource.rfind("config wsd:", 0) == 0)
                << run.name << ": " << curveRun.scheduleSource;
            // The final validation loss: the last periodic one (every 200 steps, the last at T − 200).
            EXPECT_EQ(s.finalStep, static_cast<long>(run.configNumber("iterations")) - 200) << run.name;
            EXPECT_LE(s.finalLower, s.finalPredicted);
            EXPECT_GE(s.finalUpper, s.finalPredicted);
            const double rel = std::abs(s.finalPredicted - s.finalObserved) / s.finalObserved;
            for (std::size_t k = 0; k < levels.size(); ++k) {
                auto atLevel = r->fit;
                atLevel.level = levels[k];
                const auto p = fit::predictCurveLoss(atLevel, curveRun.schedule, s.finalStep);
                EXPECT_DOUBLE_EQ(p.loss, s.finalPredicted);
                coveredAt[k] += p.lower <= s.finalObserved && s.finalObserved <= p.upper;
            }
            halfWidth += (s.finalUpper - s.finalLower) / 2 / s.finalPredicted;
            char key[64];
            std::snprintf(key, sizeof key, "F=%.1f %s", run.configNumber("wsd_fract_decay"), run.configValue("decay_type")->c_str());
            for (Error* e : {&byShape[key], &all}) e->sum += rel, e->worst = std::max(e->worst, rel), ++e->n;
            std::printf("%-8s %-14s %6ld  %.4f    %.4f [%.4f, %.4f]  %.4f\n", lr.toStdString().c_str(), key, s.finalStep, s.finalObserved,
                        s.finalPredicted, s.finalLower, s.finalUpper, rel);
        }
    }
    std::printf("cooldown        runs  mean rel.err  worst rel.err\n");
    for (const auto& [key, e] : byShape) std::printf("%-14s  %4d  %.4f        %.4f\n", key.c_str(), e.n, e.sum / e.n, e.worst);
    std::printf("all             %4d  %.4f        %.4f\n", all.n, all.sum / all.n, all.worst);
    EXPECT_EQ(all.n, QDir(lrDir()).entryList({"ann124-*.json"}, QDir::Files).size());  // every cooldown run
    EXPECT_LT(all.sum / all.n, kMeanBound);
    EXPECT_LT(all.worst, kWorstBound);
    // The intervals add the law's misfit measured leaving out each fitted curve in turn (by default),
    // at Student's t quantile. Without it they held 42 of the 92 at 95 %; with it (measured):
    // 50 % 44, 80 % 69, 90 % 80, 95 % 86 of 92, the 95 % intervals ±0.97 % of the loss on average.
    std::printf("misfit sd of ln L per peak rate:");
    for (double m : misfits) {
        std::printf(" %.5f", m);
        EXPECT_GT(m, 0);
    }
    std::printf("\nnominal  achieved (of %d)\n", all.n);
    for (std::size_t k = 0; k < levels.size(); ++k) {
        std::printf("%.2f     %.3f (%d)\n", levels[k], static_cast<double>(coveredAt[k]) / all.n, coveredAt[k]);
        EXPECT_GE(static_cast<double>(coveredAt[k]) / all.n, levels[k] - 0.1) << "level " << levels[k];
    }
    std::printf("mean relative half-width of the 95 %% intervals: %.4f\n", halfWidth / all.n);
    EXPECT_LT(halfWidth / all.n, 0.012) << "honest, not vacuous";
}

TEST(CurveFits, OptionErrorsNameTheFileOrOption) {
    analysis::CurveFitOptions o;
    auto r = analysis::fitCurves(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--data");
    o.dataFiles = {"/nonexistent/run.json"};
    r = analysis::fitCurves(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().file, "/nonexistent/run.json");
    SCALEX_REQUIRE_SHARED();
    o.dataFiles = files("stable-124m", "0.001");
    o.schedule = "wsd:peak=1e-3";
    r = analysis::fitCurves(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().column, "--schedule");
    EXPECT_NE(r.error().message.find("'steps'"), std::string::npos) << r.error().message;
    // A cooldown branch given without its constant-rate run cannot be joined: it names itself.
    o.schedule.clear();
    o.dataFiles = files("cos-10-124m", "0.001");
    o.holdoutFiles = {files("ann124-0.2", "0.001").front()};
    r = analysis::fitCurves(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().file, o.holdoutFiles.front());
    EXPECT_NE(r.error().message.find("no constant-rate run"), std::string::npos) << r.error().message;
    analysis::CurvePredictOptions p;
    p.fit.dataFiles = files("stable-124m", "0.001");
    p.schedule = "cosine:peak=1e-3,steps=100";
    p.steps = {101};
    const auto pr = analysis::predictCurve(p);
    ASSERT_FALSE(pr.ok());
    EXPECT_EQ(pr.error().column, "--at");
}
