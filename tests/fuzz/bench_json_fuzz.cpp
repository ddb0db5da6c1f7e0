// libFuzzer target for the benchmark-result reader (gpu/BenchJson: what `scalex bench --out`
// writes and the roofline view reads back). Any bytes must give a report or one
// std::runtime_error naming the file; whatever loads must write and read back to the same report.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_bench_json && mkdir -p build-fuzz/corpus-bench_json && \
//   build-fuzz/tests/fuzz/scalex_fuzz_bench_json build-fuzz/corpus-bench_json tests/data/fuzz/bench_json \
//       -max_total_time=300 -max_len=8192
#include <QJsonDocument>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "gpu/BenchJson.h"
#include "tests/fuzz/FuzzInputFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::gpu;
    const QString path = scalex::fuzz::writeInputFile(data, size, "bench.json");
    BenchReport report;
    try {
        report = loadBenchReport(path);
    } catch (const std::runtime_error& e) {
        if (!QString::fromStdString(e.what()).startsWith(path)) {
            std::fprintf(stderr, "an error that does not name the file: '%s'\n", e.what());
            std::abort();
        }
        return 0;
    }
    try {
        const BenchReport back = benchReportFromJson(QJsonDocument::fromJson(QJsonDocument(toJson(report)).toJson()).object());
        if (!(back == report)) {
            std::fprintf(stderr, "round trip failed: the report differs\n");
            std::abort();
        }
    } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "a loaded report does not read back: %s\n", e.what());
        std::abort();
    }
    return 0;
}
