// Schedule-aware laws (core/fit/ScheduleLaws): the Multi-Power Law on a 72,000-step schedule
// (the prefix sums once, then the loss at the last step and at every 100th step), and the fit of
// MPL to three curves of 24,000, 48,000 and 72,000 steps generated from the published 400M
// parameters (constant, cosine to 10 %, WSD with a 20 % linear cooldown; logged every 100 steps),
// on one thread. tests/bench/mpl_scipy.py fits the same curves with scipy's L-BFGS-B on the same
// objective (Σ Huber_δ of the log residuals over the same points, the same blocked sums, the same
// box and starts).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/fit/Schedule.h"
#include "core/fit/ScheduleLaws.h"

using namespace scalex::fit;

namespace {

const std::vector<double> kMpl400M{2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};

Schedule schedule(const std::string& text) { return Schedule::fromSpec(*parseScheduleSpec(text)); }

void BM_MplPrepare72k(benchmark::State& state) {
    const Schedule s = schedule("cosine:peak=3e-4,steps=72000,warmup=500,final=3e-5");
    for (auto _ : state) benchmark::DoNotOptimize(PreparedSchedule(s));
}
BENCHMARK(BM_MplPrepare72k)->Unit(benchmark::kMicrosecond);

void BM_MplLossAtStep72k(benchmark::State& state) {
    const PreparedSchedule s(schedule("cosine:peak=3e-4,steps=72000,warmup=500,final=3e-5"));
    for (auto _ : state) benchmark::DoNotOptimize(s.loss(CurveLaw::MultiPower, kMpl400M, 72000));
}
BENCHMARK(BM_MplLossAtStep72k)->Unit(benchmark::kMicrosecond);

void BM_MplCurveEvery100Steps72k(benchmark::State& state) {
    const PreparedSchedule s(schedule("cosine:peak=3e-4,steps=72000,warmup=500,final=3e-5"));
    for (auto _ : state) {
        double sum = 0;
        for (long t = 100; t <= 72000; t += 100) sum += s.loss(CurveLaw::MultiPower, kMpl400M, t);
        benchmark::DoNotOptimize(sum);
    }
}
BENCHMARK(BM_MplCurveEvery100Steps72k)->Unit(benchmark::kMillisecond);

void BM_FitMplThreeCurves(benchmark::State& state) {
    std::vector<PreparedSchedule> schedules;
    for (const char* text : {"constant:peak=3e-4,steps=24000,warmup=500", "cosine:peak=3e-4,steps=48000,warmup=500,final=3e-5",
                             "wsd:peak=3e-4,steps=72000,warmup=500,cooldown=0.2,decay=linear"})
        schedules.emplace_back(schedule(text));
    std::vector<FitCurve> curves;
    for (std::size_t c = 0; c < schedules.size(); ++c) {
        FitCurve curve{"curve" + std::to_string(c), &schedules[c], {}};
        for (long t = 600; t <= schedules[c].schedule().steps(); t += 100)
            curve.points.push_back({t, schedules[c].loss(CurveLaw::MultiPower, kMpl400M, t)});
        curves.push_back(curve);
    }
    FitControl oneThread;
    oneThread.threads = 1;
    CurveFitResult fit;
    for (auto _ : state) {
        fit = fitCurveLaw(curves, {}, oneThread);
        benchmark::DoNotOptimize(fit.objective);
    }
    state.counters["objective"] = fit.objective;
    state.counters["starts"] = static_cast<double>(fit.nStarts);
    state.counters["L0"] = fit.params[0];
    state.counters["B"] = fit.params[3];
    state.counters["C"] = fit.params[4];
    state.counters["beta"] = fit.params[5];
    state.counters["gamma"] = fit.params[6];
}
BENCHMARK(BM_FitMplThreeCurves)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
