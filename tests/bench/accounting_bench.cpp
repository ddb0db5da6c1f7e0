// Accounting throughput: configurations evaluated per second for a full training-FLOP count
// (parameters + forward FLOPs at the training context + per-token training FLOPs).
#include <benchmark/benchmark.h>

#include "core/accounting/FlopCount.h"
#include "core/accounting/ParamCount.h"

using namespace scalex::accounting;

static void BM_TrainingFlopCount(benchmark::State& state) {
    const Family family = state.range(0) ? Family::Xlstm : Family::Transformer;
    const auto conv = studyConvention();
    std::int64_t i = 0;
    for (auto _ : state) {
        const std::int64_t d = 512 + 128 * (i % 28);  // sweep the appendix widths
        const ModelConfig c = makeStudyConfig(family, d, 10 + (i % 27), family == Family::Xlstm ? 4 : d / 64);
        const double n = static_cast<double>(countParameters(c).total());
        const double perToken = trainingFlopsPerToken(c, 8192, conv);
        benchmark::DoNotOptimize(n);
        benchmark::DoNotOptimize(perToken);
        ++i;
    }
    state.SetItemsProcessed(state.iterations());
    state.SetLabel(family == Family::Xlstm ? "xlstm configs" : "transformer configs");
}
BENCHMARK(BM_TrainingFlopCount)->Arg(0)->Arg(1);

static void BM_ContextSweep(benchmark::State& state) {
    // One context-slider step recomputes a run table's FLOPs: 200 runs at a new context.
    const ModelConfig c = makeStudyConfig(Family::Transformer, 2048, 24, 16);
    const auto conv = studyConvention();
    double ctx = 512;
    for (auto _ : state) {
        double sum = 0;
        for (int r = 0; r < 200; ++r) sum += trainingFlops(c, ctx, 1e10 + r, conv);
        benchmark::DoNotOptimize(sum);
        ctx = ctx >= 131072 ? 512 : ctx * 2;
    }
    state.SetItemsProcessed(state.iterations() * 200);
}
BENCHMARK(BM_ContextSweep);
