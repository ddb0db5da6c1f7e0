// Saving and opening projects: the generated example study (768 runs in 2 tables) written to
// and read from .scalex bytes, and the generator itself.
#include <benchmark/benchmark.h>

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
