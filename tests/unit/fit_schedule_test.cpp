// Learning-rate schedules and the schedule-aware laws (core/fit/Schedule, ScheduleLaws): the
// described shapes against their formulas and the rates lr-schedules/ logged, the description's
// parser and its errors, logged rates interpolated with a warm-up, the blocked sum of the
// Multi-Power Law against the step-by-step sum, exact gradients against finite differences, and
// the MPL's published parameters recovered from curves generated under constant, cosine and WSD
// schedules.
#include <gtest/gtest.h>

#include <atomic>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/fit/Schedule.h"
#include "core/fit/ScheduleLaws.h"

using namespace scalex::fit;

namespace {

// The 400M model's parameters published by Luo et al. in their repository's README ("Best
// Parameters": L0 2.375, A 0.654, α 0.429, B 523.425, C 2.025, β 0.594, γ 0.635).
const std::vector<double> kMpl400M{2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};

ScheduleSpec spec(const std::string& text) {
    std::string error;
    auto s = parseScheduleSpec(text, &error);
    EXPECT_TRUE(s) << text << ": " << error;
    return s.value_or(ScheduleSpec{});
}

std::string specError(const std::string& text) {
    std::string error;
    EXPECT_FALSE(parseScheduleSpec(text, &error)) << text;
    return error;
}

// LD(t)/B summed term by term from the definition (Luo et al. Eq. (1)), for the blocked sum to meet.
double multiPowerByDefinition(const Schedule& s, const std::vector<double>& p, long t) {
    const double S = s.area(t);
    double LD = 0;
    for (long k = s.warmupSteps() + 1; k <= t; ++k) {
        const double before = k > 1 ? s.lr(k - 1) : s.lr(k);
        // η_k = 0 (the last step of a decay to zero) has S_k(t) = 0 at k = t: x = 0 (η floored as in the law).
        const double x = std::pow(std::max(s.lr(k), 1e-30), -p[6]) * (s.area(t) - s.area(k - 1));
        LD += (before - s.lr(k)) * (1 - std::pow(p[4] * x + 1, -p[5]));
    }
    return p[0] + p[1] * std::pow(S, -p[2]) - p[3] * LD;
}

}  // namespace

TEST(Schedule, DescribedShapesFollowTheirFormulas) {
    const auto cosine = spec("cosine:peak=1e-3,steps=25000,warmup=300,final=1e-4");
    EXPECT_DOUBLE_EQ(scheduleRate(cosine, 150), 0.5e-3);  // half-way through the warm-up
    EXPECT_DOUBLE_EQ(scheduleRate(cosine, 300), 1e-3);
    // lr-schedules/ cos-10-124m lr 0.001 iter25000 logged 0.0009203102231904352 at step 5050 and
    // 0.0004147036184565784 at 15050: its tracker logs the rate after the scheduler's step (t + 1).
    EXPECT_NEAR(scheduleRate(cosine, 5051), 0.0009203102231904352, 1e-15);
    EXPECT_NEAR(scheduleRate(cosine, 15051), 0.0004147036184565784, 1e-15);
    EXPECT_NEAR(scheduleRate(cosine, 25000), 1e-4, 1e-15);
    // ann124-0.2 lr 0.001 iter25000: linear and sqrt cooldowns from step 20000, as logged.
    const auto linear = spec("wsd:peak=1e-3,steps=25000,warmup=300,cooldown=0.2,decay=linear");
    EXPECT_DOUBLE_EQ(scheduleRate(linear, 20000), 1e-3);
    EXPECT_NEAR(scheduleRate(linear, 20050), 0.00099, 1e-15);
    EXPECT_NEAR(scheduleRate(linear, 25000), 0, 1e-18);
    const auto sqrt = spec("wsd:peak=1e-3,steps=25000,warmup=300,cooldown=0.2,decay=sqrt");
    EXPECT_NEAR(scheduleRate(sqrt, 20050), 0.0009000000000000001, 1e-15);
    EXPECT_NEAR(scheduleRate(sqrt, 20100), 0.0008585786437626905, 1e-15);
    const auto exp = spec("wsd:peak=1e-3,steps=1000,cooldown=0.5,decay=exp,final=1e-5");
    EXPECT_NEAR(scheduleRate(exp, 750), 1e-4, 1e-15);  // half-way: the geometric mean
    const auto step = spec("step:peak=1,steps=100,milestones=30;60,factor=0.5");
    EXPECT_EQ(scheduleRate(step, 30), 1);
    EXPECT_EQ(scheduleRate(step, 31), 0.5);
    EXPECT_EQ(scheduleRate(step, 61), 0.25);
    EXPECT_EQ(scheduleRate(spec("constant:peak=2e-3,steps=10,warmup=4"), 1), 0.5e-3);
}

// A tracker logs rates at float precision: lr-schedules/ (cos-10-124m ... lr0.001) holds the peak
// as 0.000999999989723444, a double within a float's precision of 1e-3. Described for a project or
// JSON the numbers are kept exactly (parsed back to the same doubles); shown to a person they read
// at float precision, as does a final rate the best cooldown computed in double.
TEST(Schedule, RatesAreShownAtFloatPrecisionAndDescribedExactly) {
    ScheduleSpec s = spec("wsd:peak=1e-3,steps=25000,warmup=300,cooldown=0.2,decay=sqrt");
    s.peakLr = 0.000999999989723444;
    s.finalLr = 6.569999999999999e-06;  // as fit curves --best-cooldown printed it
    const std::string exact = describeSchedule(s);
    EXPECT_NE(exact.find("peak=0.000999999989723444,"), std::string::npos) << exact;
    EXPECT_NE(exact.find("final=6.569999999999999e-06,"), std::string::npos) << exact;
    const auto back = spec(exact);
    EXPECT_EQ(back.peakLr, s.peakLr) << "the exact description reads back to the same double";
    EXPECT_EQ(back.finalLr, s.finalLr);
    EXPECT_EQ(back.cooldownFraction, s.cooldownFraction);
    EXPECT_EQ(describeSchedule(back), exact);
    EXPECT_EQ(describeSchedule(s, ScheduleNumbers::Shown), "wsd:peak=0.001,steps=25000,warmup=300,final=6.57e-06,cooldown=0.2,decay=sqrt");
    // A float32 rate widened to double (0.0003000000142492354) and a cooldown of 0.1067: their digits.
    s.peakLr = static_cast<double>(3e-4f);
    s.cooldownFraction = 0.1067;
    EXPECT_NE(exact, describeSchedule(s));
    EXPECT_EQ(describeSchedule(s, ScheduleNumbers::Shown), "wsd:peak=3e-04,steps=25000,warmup=300,final=6.57e-06,cooldown=0.1067,decay=sqrt");
    EXPECT_EQ(spec(describeSchedule(s)).peakLr, static_cast<double>(3e-4f));
}

TEST(Schedule, DescriptionRoundTripsAndErrorsNameTheKey) {
    for (const char* text : {"wsd:peak=0.002,steps=50000,warmup=300,final=0,cooldown=0.35,decay=sqrt",
                             "cosine:peak=0.001,steps=25000,warmup=300,final=1e-04", "step:peak=1,steps=100,warmup=0,factor=0.5,milestones=30;60",
                             "constant:peak=5e-04,steps=7,warmup=2"}) {
        const auto s = spec(text);
        EXPECT_EQ(describeSchedule(s), text);
        EXPECT_EQ(describeSchedule(spec(describeSchedule(s))), describeSchedule(s));
    }
    EXPECT_NE(specError("linear:peak=1,steps=3").find("schedule shape"), std::string::npos);
    EXPECT_NE(specError("wsd:peak=1,steps=3,cooldown=1.5").find("'cooldown'"), std::string::npos);
    EXPECT_NE(specError("wsd:peak=1,steps=3,decay=cubic").find("'decay'"), std::string::npos);
    EXPECT_NE(specError("wsd:peak=1,steps=2.5").find("'steps'"), std::string::npos);
    EXPECT_NE(specError("cosine:peak=1").find("'steps'"), std::string::npos);
    EXPECT_NE(specError("cosine:peak=1,steps=10,warmup=11").find("'warmup'"), std::string::npos);
    EXPECT_NE(specError("cosine:peak=x,steps=10").find("'peak'"), std::string::npos);
    EXPECT_NE(specError("cosine:peak=1,steps=10,colour=red").find("'colour'"), std::string::npos);
    EXPECT_NE(specError("cosine:peak").find("key=value"), std::string::npos);
}

TEST(Schedule, LoggedRatesAreInterpolatedWithAWarmUpBeforeTheFirst) {
    const std::vector<LrPoint> logged{{100, 1.0}, {200, 0.5}, {300, 0.5}};
    const auto s = Schedule::fromLogged(logged, 50, 400);
    ASSERT_EQ(s.steps(), 400);
    EXPECT_DOUBLE_EQ(s.lr(25), 0.5);   // warm-up: linear from 0 to the first logged rate over 50 steps
    EXPECT_DOUBLE_EQ(s.lr(50), 1.0);
    EXPECT_DOUBLE_EQ(s.lr(80), 1.0);   // after the warm-up, the first logged rate
    EXPECT_DOUBLE_EQ(s.lr(150), 0.75); // between logged steps, linear
    EXPECT_DOUBLE_EQ(s.lr(400), 0.5);  // after the last logged step, held
    double sum = 0;
    for (long t = 1; t <= 400; ++t) sum += s.lr(t);
    EXPECT_NEAR(s.area(400), sum, 1e-12);
    EXPECT_NEAR(s.area(150), s.area(149) + s.lr(150), 1e-12);
    // Unusable points are skipped, not fatal; none left is an empty schedule.
    const std::vector<LrPoint> bad{{NAN, 1}, {-1, 1}, {10, -2}};
    EXPECT_TRUE(Schedule::fromLogged(bad, 0).empty());
}

TEST(ScheduleLaws, BlockedMultiPowerSumMatchesTheDefinition) {
    // A cosine and a WSD sqrt cooldown of 24,000 steps: the blocked sum within 2e-5 of the loss.
    for (const char* text : {"cosine:peak=3e-4,steps=24000,warmup=500,final=3e-5", "wsd:peak=3e-4,steps=24000,warmup=500,cooldown=0.2,decay=sqrt"}) {
        const Schedule s = Schedule::fromSpec(spec(text));
        const PreparedSchedule blocked(s), exact(s, CurveLawOptions{0.999, 1, 1});
        EXPECT_GT(blocked.blockSteps(), 10);
        for (long t : {501L, 777L, 6000L, 19500L, 20003L, 21000L, 23999L, 24000L}) {
            const double truth = multiPowerByDefinition(s, kMpl400M, t);
            EXPECT_NEAR(exact.loss(CurveLaw::MultiPower, kMpl400M, t), truth, 1e-10) << text << " t=" << t;
            EXPECT_NEAR(blocked.loss(CurveLaw::MultiPower, kMpl400M, t), truth, 2e-5 * truth) << text << " t=" << t;
        }
    }
}

TEST(ScheduleLaws, GradientsMatchFiniteDifferences) {
    const PreparedSchedule s(Schedule::fromSpec(spec("wsd:peak=3e-4,steps=6000,warmup=100,cooldown=0.3,decay=linear")));
    const std::vector<std::pair<CurveLaw, std::vector<double>>> cases{
        {CurveLaw::MultiPower, kMpl400M}, {CurveLaw::LrAnnealing, {2.4, 0.6, 0.45, 0.8}}, {CurveLaw::PowerLaw, {2.4, 30, 0.3}}};
    for (const auto& [law, p] : cases)
        for (long t : {150L, 4300L, 5000L, 6000L}) {
            std::vector<double> g(p.size());
            s.loss(law, p, t, g);
            for (std::size_t i = 0; i < p.size(); ++i) {
                auto up = p, down = p;
                const double h = 1e-6 * std::max(1.0, std::abs(p[i]));
                up[i] += h, down[i] -= h;
                const double fd = (s.loss(law, up, t) - s.loss(law, down, t)) / (2 * h);
                EXPECT_NEAR(g[i], fd, 1e-6 * std::max(1.0, std::abs(fd))) << curveLawName(law) << " parameter " << i << " t=" << t;
            }
        }
}

TEST(ScheduleLaws, LrAnnealingMomentumFollowsTissueEtAl) {
    // S2 = Σ m_i with m_i = λ m_{i−1} + (η_{i−1} − η_i): with A = 0, L = L0 − C·S2.
    const Schedule s = Schedule::fromSpec(spec("wsd:peak=1,steps=100,cooldown=0.5,decay=linear"));
    const PreparedSchedule p(s);
    double m = 0, S2 = 0;
    for (long i = 1; i <= 100; ++i) {
        m = 0.999 * m + ((i > 1 ? s.lr(i - 1) : s.lr(i)) - s.lr(i));
        S2 += m;
    }
    const std::vector<double> params{3, 0, 0.5, 1};
    EXPECT_NEAR(p.loss(CurveLaw::LrAnnealing, params, 100), 3 - S2, 1e-12);
    EXPECT_GT(S2, 0);
}

TEST(ScheduleLaws, FitRecoversMultiPowerParametersFromWsdCurves) {
    // Three curves of 24,000 steps generated from the published parameters (constant, cosine and a
    // WSD cooldown of 20 %), logged every 100 steps, as Luo et al. fit three curves of a model.
    std::vector<PreparedSchedule> schedules;
    for (const char* text : {"constant:peak=3e-4,steps=24000,warmup=500", "cosine:peak=3e-4,steps=24000,warmup=500,final=3e-5",
                             "wsd:peak=3e-4,steps=24000,warmup=500,cooldown=0.2,decay=linear"})
        schedules.emplace_back(Schedule::fromSpec(spec(text)));
    std::vector<FitCurve> curves;
    for (std::size_t c = 0; c < schedules.size(); ++c) {
        FitCurve curve{"curve" + std::to_string(c), &schedules[c], {}};
        for (long t = 600; t <= 24000; t += 100) curve.points.push_back({t, schedules[c].loss(CurveLaw::MultiPower, kMpl400M, t)});
        curves.push_back(curve);
    }
    const CurveFitResult fit = fitCurveLaw(curves);
    ASSERT_EQ(fit.params.size(), 7u);
    const auto names = curveLawParameterNames(CurveLaw::MultiPower);
    for (std::size_t i = 0; i < 7; ++i) EXPECT_NEAR(fit.params[i], kMpl400M[i], 0.02 * kMpl400M[i]) << names[i];
    for (const auto& e : fit.estimates) {
        EXPECT_LE(e.lower, e.value) << e.name;
        EXPECT_GE(e.upper, e.value) << e.name;
    }
    for (const auto& s : fit.curves) {
        EXPECT_GT(s.r2, 0.99999) << s.name;
        EXPECT_LT(s.worstE, 1e-4) << s.name;
    }
    // A prediction under an unseen schedule (a sqrt cooldown of 40 %) carries its interval.
    const PreparedSchedule unseen(Schedule::fromSpec(spec("wsd:peak=3e-4,steps=24000,warmup=500,cooldown=0.4,decay=sqrt")));
    const auto pred = predictCurveLoss(fit, unseen, 24000);
    const double truth = unseen.loss(CurveLaw::MultiPower, kMpl400M, 24000);
    EXPECT_NEAR(pred.loss, truth, 1e-3 * truth);
    EXPECT_LE(pred.lower, pred.loss);
    EXPECT_GE(pred.upper, pred.loss);
}

// A fit cancelled part-way (the window cancels a view's fit when the study changes, e.g. as the
// files of its command line open one after another) leaves its starts unrun: it returns no
// parameters and says so, and the curves' fit an error, instead of reading the unrun starts.
TEST(ScheduleLaws, ACancelledFitReturnsNoParameters) {
    std::vector<PreparedSchedule> schedules;
    for (const char* text : {"constant:peak=3e-4,steps=6000,warmup=500", "wsd:peak=3e-4,steps=6000,warmup=500,cooldown=0.2,decay=linear"})
        schedules.emplace_back(Schedule::fromSpec(spec(text)));
    std::vector<FitCurve> curves;
    for (std::size_t c = 0; c < schedules.size(); ++c) {
        FitCurve curve{"curve" + std::to_string(c), &schedules[c], {}};
        for (long t = 600; t <= 6000; t += 100) curve.points.push_back({t, schedules[c].loss(CurveLaw::MultiPower, kMpl400M, t)});
        curves.push_back(curve);
    }
    for (std::size_t after : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
        std::atomic<bool> cancel{after == 0};
        FitControl control;
        control.threads = 1;
        control.cancel = &cancel;
        control.progress = [&](std::size_t done, std::size_t) {
            if (done >= after) cancel = true;
        };
        const CurveFitResult fit = fitCurveLaw(curves, {}, control);
        EXPECT_TRUE(fit.params.empty()) << "cancelled after " << after << " starts";
        ASSERT_FALSE(fit.warnings.empty());
        EXPECT_EQ(fit.warnings.back(), "cancelled");
    }
}

TEST(ScheduleLaws, FitRefusesTooFewPoints) {
    const PreparedSchedule s(Schedule::fromSpec(spec("constant:peak=1e-3,steps=1000")));
    const std::vector<FitCurve> curves{{"short", &s, {{100, 3.0}, {200, 2.9}, {300, 2.8}}}};
    EXPECT_THROW(fitCurveLaw(curves), std::invalid_argument);
    const std::vector<FitCurve> none{{"none", nullptr, {{100, 3.0}}}};
    EXPECT_THROW(fitCurveLaw(none), std::invalid_argument);
}

TEST(ScheduleLaws, MisfitWidensThePredictionIntervalAtStudentsQuantile) {
    // Published MPL 400M parameters (Luo et al., repository README), no parameter uncertainty: the
    // interval is the misfit alone, ln L̂ ± t·sd.
    CurveFitResult fit;
    fit.law = CurveLaw::MultiPower;
    fit.params = {2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};
    fit.covariance.assign(49, 0.0);
    fit.misfitSd = 0.004;
    const PreparedSchedule schedule(Schedule::fromSpec(*parseScheduleSpec("wsd:peak=3e-4,steps=5000,warmup=100,cooldown=0.2")));
    const auto halfWidth = [&](int curves, double level) {
        fit.misfitCurves = curves;
        fit.level = level;
        const auto p = predictCurveLoss(fit, schedule, 5000);
        EXPECT_NEAR(std::log(p.upper / p.loss), -std::log(p.lower / p.loss), 1e-12);
        return std::log(p.upper / p.loss) / fit.misfitSd;
    };
    // Student's t quantiles (tables): ν = 6 at 0.975: 2.4469; ν = 3: 3.1824; ν = 6 at 0.75: 0.7176.
    EXPECT_NEAR(halfWidth(7, 0.95), 2.4469, 2.4469 * 2e-3);
    EXPECT_NEAR(halfWidth(4, 0.95), 3.1824, 3.1824 * 2e-3);
    EXPECT_NEAR(halfWidth(7, 0.5), 0.7176, 0.7176 * 2e-3);
    // Fewer than three curves: the normal quantile.
    EXPECT_NEAR(halfWidth(0, 0.95), 1.9600, 1e-4);
}
