// A study the size of a training log (issue "Millions of rows"): generated tables of checkpoints
// (CheckpointStudy.h: run_name, step, params, tokens, loss) of 100k, 1M and 10M rows.
// - reading the table from bytes in memory (parse, derive, mark checkpoints, keep them as columns);
// - the loss curves of every run, and each decimated for drawing (what the Loss curves view
//   computes before Qt draws).
// Whole-process figures (`scalex check` wall time and peak memory, beside another reader of the
// same file) are in tests/bench/README.md, measured on files write_checkpoint_study writes.
#include <benchmark/benchmark.h>

#include <QByteArray>
#include <cmath>
#include <map>

#include "CheckpointStudy.h"
#include "app/figures/Decimation.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/RunTableIo.h"

using namespace scalex;

namespace {

const QByteArray& table(int runs) {
    static std::map<int, QByteArray> cache;
    auto& bytes = cache[runs];
    if (bytes.isEmpty()) {
        const std::string text = bench::checkpointStudy(runs, 1000);
        bytes = QByteArray(text.data(), static_cast<qsizetype>(text.size()));
    }
    return bytes;
}

}  // namespace

// state.range(0): runs of 1000 checkpoints each.
static void BM_LoadCheckpointTable(benchmark::State& state) {
    const int runs = static_cast<int>(state.range(0));
    const QByteArray& bytes = table(runs);
    std::size_t compactBytes = 0;
    for (auto _ : state) {
        auto t = data::parseRunTable(bytes, "log.csv");
        if (!t || t->rowCount() != static_cast<std::size_t>(runs) * 1000) {
            state.SkipWithError("load failed");
            break;
        }
        compactBytes = 0;
        for (const auto& b : t->compactCheckpoints) compactBytes += b.rows->bytes();
        benchmark::DoNotOptimize(t);
    }
    state.SetItemsProcessed(state.iterations() * runs * 1000);
    state.SetBytesProcessed(state.iterations() * bytes.size());
    state.counters["column_bytes_per_row"] = static_cast<double>(compactBytes) / (runs * 1000.0);
}
BENCHMARK(BM_LoadCheckpointTable)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_LoadCheckpointTable)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

static void BM_LossCurvesDecimated(benchmark::State& state) {
    const int runs = static_cast<int>(state.range(0));
    auto t = data::parseRunTable(table(runs), "log.csv");
    if (!t) {
        state.SkipWithError("load failed");
        return;
    }
    const analysis::AnalysisSettings settings;
    std::size_t drawn = 0;
    for (auto _ : state) {
        const auto curves = analysis::lossCurves(*t, settings);
        const std::size_t perCurve = std::max<std::size_t>(96, 100000 / std::max<std::size_t>(curves.size(), 1));
        drawn = 0;
        for (const auto& c : curves) {
            std::vector<std::pair<double, double>> logs;
            logs.reserve(c.checkpoints.size());
            for (const auto& p : c.checkpoints) logs.emplace_back(std::log(p.tokens), std::log(p.loss));
            drawn += figures::largestTriangleThreeBuckets(logs, perCurve).size();
        }
        benchmark::DoNotOptimize(drawn);
    }
    state.SetItemsProcessed(state.iterations() * runs * 1000);
    state.counters["points_drawn"] = static_cast<double>(drawn);
}
BENCHMARK(BM_LossCurvesDecimated)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();
