// CPU kernels of gpu/ at the paper's head shapes, one layer of one sequence: causal attention
// prefill (32 heads of 128, MHA) against the chunkwise mLSTM (16 heads, d_qk 128, d_hv 256,
// L = 64) over T, and the two decode kernels. Counters report FLOP/s from core/accounting.
#include <benchmark/benchmark.h>

#include <thread>

#include "core/accounting/FlopCount.h"
#include "gpu/Kernels.h"

using namespace scalex::gpu;
namespace acc = scalex::accounting;

namespace {

int threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

void BM_AttentionPrefill(benchmark::State& state) {
    const int T = static_cast<int>(state.range(0));
    const AttentionShape s{1, 32, 32, 128, T, T};
    const AttentionData in = randomAttentionData(s, 1);
    std::vector<float> out;
    for (auto _ : state) cpuAttention(s, in, out, threads());
    acc::ModelConfig c;
    c.nHeads = c.nKvHeads = 32;
    c.dQk = c.dHv = 128;
    state.counters["FLOP/s"] = benchmark::Counter(acc::attentionCoreFlops(c, T, T, acc::studyConvention().ops),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_AttentionPrefill)->RangeMultiplier(2)->Range(256, 4096)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MlstmChunkwise(benchmark::State& state) {
    const int T = static_cast<int>(state.range(0));
    const MlstmShape s{1, 16, 128, 256, T, 64};
    const MlstmData in = randomMlstmData(s, 2);
    std::vector<float> h;
    MlstmState st;
    for (auto _ : state) cpuMlstmChunkwise(s, in, h, st, threads());
    acc::ModelConfig c;
    c.family = acc::Family::Xlstm;
    c.nHeads = c.nKvHeads = 16;
    c.dQk = 128;
    c.dHv = 256;
    c.chunk = 64;
    state.counters["FLOP/s"] = benchmark::Counter(acc::mlstmCellChunkwiseFlops(c, T, acc::studyConvention()),
                                                  benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_MlstmChunkwise)->RangeMultiplier(2)->Range(256, 4096)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AttentionDecode(benchmark::State& state) {
    const int T = static_cast<int>(state.range(0));
    const AttentionShape s{1, 32, static_cast<int>(state.range(1)), 128, 1, T};
    const AttentionData in = randomAttentionData(s, 3);
    std::vector<float> out;
    for (auto _ : state) cpuAttention(s, in, out, threads());
}
BENCHMARK(BM_AttentionDecode)->Args({4096, 32})->Args({4096, 8})->Args({32768, 8})->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_MlstmStep(benchmark::State& state) {
    const MlstmShape s{static_cast<int>(state.range(0)), 16, 128, 256, 1, 64};
    const MlstmData in = randomMlstmData(s, 4);
    MlstmState st = zeroMlstmState(s);
    std::vector<float> h;
    for (auto _ : state) cpuMlstmSteps(s, in, h, st, threads());
}
BENCHMARK(BM_MlstmStep)->Arg(1)->Arg(8)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
