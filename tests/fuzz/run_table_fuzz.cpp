// libFuzzer target for the run-table reader (core/data/RunTableIo): CSV, TSV, JSON, JSON Lines
// and gzip input must never crash, hang or leak, and whatever loads must survive a CSV round trip.
//
// Run it (clang; one command from the repository root, a few minutes):
//   CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DSCALEX_BUILD_FUZZ=ON -DSCALEX_SANITIZE=ON \
//       -DSCALEX_BUILD_BENCH=OFF -DSCALEX_ENABLE_CUDA=OFF && ninja -C build-fuzz scalex_fuzz_run_table && \
//   mkdir -p build-fuzz/corpus && build-fuzz/tests/fuzz/scalex_fuzz_run_table build-fuzz/corpus tests/data/bad \
//       -max_total_time=300 -max_len=4096
//
// Without clang the same entry point is replayed over tests/data/bad by the ctest test
// fuzz_replay_run_table (FuzzReplayMain.cpp). A reader of another format (e.g. the project file)
// gets its own <name>_fuzz.cpp with LLVMFuzzerTestOneInput and one line in CMakeLists.txt.
#include <QByteArray>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>

#include "core/data/RunTableIo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::data;
    // The first byte picks the name, hence the format path the reader takes.
    static const char* const kNames[] = {"fuzz.csv", "fuzz.tsv", "fuzz.json", "fuzz.jsonl", "fuzz.csv.gz", "fuzz"};
    const char* name = kNames[size ? data[0] % 6 : 0];
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    LoadOptions options;
    options.maxRows = 10000;
    auto table = parseRunTable(bytes, name, options);
    if (!table) {
        // An error always says what is wrong.
        if (table.error().message.empty()) std::abort();
        return 0;
    }
    // Every row of the input is kept, and what was loaded writes and reads back.
    const QByteArray csv = writeRunTableCsv(*table);
    auto back = parseRunTable(csv, "back.csv", options);
    if (!back || back->runs.size() != table->runs.size()) {
        std::fprintf(stderr, "round trip failed: %s\n", back ? "row count differs" : back.error().toString().c_str());
        std::abort();
    }
    return 0;
}
