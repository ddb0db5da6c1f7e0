// libFuzzer target for the project reader (core/data/Project): any bytes given as a .scalex
// file must give a project or one clear error, never a crash, hang or unbounded allocation,
// and whatever loads must save and load again with the same tables and runs, curves and measurements.
//
// Run it (clang; from the repository root, as run_table_fuzz.cpp describes):
//   CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DSCALEX_BUILD_FUZZ=ON -DSCALEX_SANITIZE=ON \
//       -DSCALEX_BUILD_BENCH=OFF -DSCALEX_ENABLE_CUDA=OFF && ninja -C build-fuzz scalex_fuzz_project && \
//   mkdir -p build-fuzz/corpus-project && build-fuzz/tests/fuzz/scalex_fuzz_project build-fuzz/corpus-project \
//       tests/data/projects resources/example -max_total_time=300
//
// Without clang the ctest test fuzz_replay_project replays tests/data/projects and the example.
#include <QByteArray>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/data/Project.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::data;
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    // Small limits keep each input fast; the limits themselves are what is under test.
    ProjectLimits limits;
    limits.maxEntryBytes = 4 << 20;
    limits.maxTotalBytes = 16 << 20;
    auto project = readProject(bytes, "fuzz.scalex", limits);
    if (!project) {
        if (project.error().message.empty()) std::abort();  // an error always says what is wrong
        return 0;
    }
    auto saved = writeProject(*project);
    if (!saved) {
        std::fprintf(stderr, "a loaded project does not save: %s\n", saved.error().toString().c_str());
        std::abort();
    }
    auto back = readProject(*saved, "back.scalex");
    if (!back || back->tables.size() != project->tables.size()) {
        std::fprintf(stderr, "round trip failed: %s\n", back ? "table count differs" : back.error().toString().c_str());
        std::abort();
    }
    for (std::size_t i = 0; i < back->tables.size(); ++i)
        if (back->tables[i].table.runs.size() != project->tables[i].table.runs.size()) {
            std::fprintf(stderr, "round trip lost runs of table %s\n", back->tables[i].name.c_str());
            std::abort();
        }
    // Curves and measurements are kept as their bytes: the same bytes come back.
    if (back->curves.size() != project->curves.size() || back->inference.size() != project->inference.size()) {
        std::fprintf(stderr, "round trip lost curve or inference sets\n");
        std::abort();
    }
    for (std::size_t i = 0; i < back->curves.size(); ++i)
        if (back->curves[i].csv != project->curves[i].csv) {
            std::fprintf(stderr, "round trip changed curves %s\n", back->curves[i].name.c_str());
            std::abort();
        }
    for (std::size_t i = 0; i < back->inference.size(); ++i)
        if (back->inference[i].csv != project->inference[i].csv || back->inference[i].dfDicts != project->inference[i].dfDicts) {
            std::fprintf(stderr, "round trip changed measurements %s\n", back->inference[i].name.c_str());
            std::abort();
        }
    return 0;
}
