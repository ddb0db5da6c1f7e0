// Saving and opening projects: the generated example study (768 runs in 2 tables) written to
// and read from .scalex bytes, and the generator itself; a project of 100k and 1M checkpoints.
#include <benchmark/benchmark.h>

#include <map>

#include "CheckpointStudy.h"
#include "core/data/RunTableIo.h"

#include "app/cli/Verbs.h"
#include "core/data/ExampleProject.h"
#include "core/data/Project.h"

using namespace scalex::data;

namespace {
const PaperTables& tables() {
    static const PaperTables t = [] {
        scalex::cli::ensureBuiltinResources();
        return *loadPaperTables();  // the embedded copy of datasets/paper
    }();
    return t;
}
}  // namespace

static void BM_GenerateExampleStudy(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(makeExampleProject(tables()));
}
BENCHMARK(BM_GenerateExampleStudy)->Unit(benchmark::kMillisecond);

static void BM_WriteProject(benchmark::State& state) {
    const Project p = makeExampleProject(tables());
    for (auto _ : state) benchmark::DoNotOptimize(writeProject(p));
}
BENCHMARK(BM_WriteProject)->Unit(benchmark::kMillisecond);

static void BM_ReadProject(benchmark::State& state) {
    const QByteArray bytes = *writeProject(makeExampleProject(tables()));
    for (auto _ : state) benchmark::DoNotOptimize(readProject(bytes, "example.scalex"));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * bytes.size());
}
BENCHMARK(BM_ReadProject)->Unit(benchmark::kMillisecond);

// A project of one generated table of checkpoints (CheckpointStudy.h; state.range(0) runs of 1000
// checkpoints): saving it (the run table in columns, zipped) and opening it from its bytes.
namespace {
const Project& checkpointProject(int runs) {
    static std::map<int, Project> cache;
    auto& p = cache[runs];
    if (p.tables.empty()) {
        const std::string text = scalex::bench::checkpointStudy(runs, 1000);
        auto t = parseRunTable(QByteArray(text.data(), static_cast<qsizetype>(text.size())), "log.csv");
        p.title = "log";
        if (t) p.tables.push_back({"log", std::move(*t)});
    }
    return p;
}
}  // namespace

static void BM_WriteCheckpointProject(benchmark::State& state) {
    const Project& p = checkpointProject(static_cast<int>(state.range(0)));
    qsizetype size = 0;
    for (auto _ : state) {
        auto bytes = writeProject(p);
        size = bytes ? bytes->size() : 0;
        benchmark::DoNotOptimize(bytes);
    }
    state.counters["file_MiB"] = static_cast<double>(size) / (1 << 20);
}
BENCHMARK(BM_WriteCheckpointProject)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_ReadCheckpointProject(benchmark::State& state) {
    const QByteArray bytes = *writeProject(checkpointProject(static_cast<int>(state.range(0))));
    for (auto _ : state) {
        auto p = readProject(bytes, "log.scalex");
        if (!p) {
            state.SkipWithError(p.error().toString().c_str());
            break;
        }
        benchmark::DoNotOptimize(p);
    }
}
BENCHMARK(BM_ReadCheckpointProject)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();
