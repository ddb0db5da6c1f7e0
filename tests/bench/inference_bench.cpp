// Runtime-model throughput: predictions (TTFT, step time, throughput, memory) per second, the
// per-model fit of the study's 130 measurement points, and the deployment searches.
#include <benchmark/benchmark.h>

#include <cmath>

#include "core/inference/Deployment.h"
#include "core/inference/RuntimeFit.h"
#include "core/inference/RuntimeModel.h"

using namespace scalex::accounting;
using namespace scalex::inference;

static void BM_Predict(benchmark::State& state) {
    const Family family = state.range(0) ? Family::Xlstm : Family::Transformer;
    const RuntimeRates r = ratesFromAccelerator(*paperAccelerator("H100"), 0.4, 0.7);
    const WorkSettings s;
    std::int64_t i = 0;
    for (auto _ : state) {
        // Sweep the appendix widths, batch sizes and prefill lengths as a slider drag would.
        const std::int64_t d = 512 + 128 * (i % 28);
        const ModelConfig c = makeStudyConfig(family, d, 24, family == Family::Xlstm ? 4 : d / 64);
        const Prediction p = predict(c, static_cast<double>(1 << (i % 8)), static_cast<double>(128 << (i % 8)), r, s);
        benchmark::DoNotOptimize(p);
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel(family == Family::Xlstm ? "xlstm predictions" : "transformer predictions");
}
BENCHMARK(BM_Predict)->Arg(0)->Arg(1);

static void BM_FitStage(benchmark::State& state) {
    // One model's fit over the study's grid: 13 batch sizes x 10 prefill lengths.
    const ModelConfig c = makeStudyConfig(Family::Transformer, 2048, 24, 16);
    const WorkSettings s;
    const Stage stage = state.range(0) ? Stage::Decode : Stage::Prefill;
    std::vector<RuntimeSample> samples;
    for (double b : {1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 768, 1024})
        for (double t : {0, 128, 256, 512, 1024, 2048, 4096, 8192, 12288, 16384}) {
            const double w = stageWork(stage, c, b, t, s);
            samples.push_back({b, t, (w / (stage == Stage::Prefill ? 4e14 : 2e12) + 2e-3) * (1 + 0.05 * std::sin(b + t))});
        }
    const FitOptions o = defaultFitOptions(c.family, stage);
    for (auto _ : state) {
        const StageFit f = fitStage(c, stage, samples, s, o);
        benchmark::DoNotOptimize(f.model);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel(stage == Stage::Prefill ? "prefill fits (130 points)" : "decode fits (130 points, batch term)");
}
BENCHMARK(BM_FitStage)->Arg(0)->Arg(1);

static void BM_Crossover(benchmark::State& state) {
    const ModelConfig t = makeStudyConfig(Family::Transformer, 4096, 32, 32);
    const ModelConfig x = makeStudyConfig(Family::Xlstm, 4096, 32, 8);
    const RuntimeRates r = ratesFromAccelerator(*paperAccelerator("H100"));
    const WorkSettings s;
    double factor = 1.5;
    for (auto _ : state) {
        const CrossoverAnswer a = advantageCrossover(t, r, x, r, Stage::Decode, 8, factor, s);
        benchmark::DoNotOptimize(a.context);
        factor = factor > 4 ? 1.5 : factor + 0.25;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Crossover);
