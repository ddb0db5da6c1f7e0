// libFuzzer target for the inference-measurement readers (core/data/InferenceMeasurements: the
// results and df_dict files and the appendix model table; core/analysis/RuntimeAnalysis: the
// accelerator table). Any bytes must give data or one error naming the file, through every one
// of the readers.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_inference && mkdir -p build-fuzz/corpus-inference && \
//   build-fuzz/tests/fuzz/scalex_fuzz_inference build-fuzz/corpus-inference tests/data/fuzz/inference \
//       -max_total_time=300 -max_len=4096
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/analysis/RuntimeAnalysis.h"
#include "core/data/InferenceMeasurements.h"
#include "tests/fuzz/FuzzInputFile.h"

namespace {
void checkError(bool ok, const QString& error, const QString& path) {
    if (!ok && (error.isEmpty() || !error.contains(path))) {
        std::fprintf(stderr, "an error that does not name the file: '%s'\n", qPrintable(error));
        std::abort();
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::data;
    const QString path = scalex::fuzz::writeInputFile(data, size, "inference.csv");
    QString error;
    auto measured = loadInferenceMeasurements(path, &error);
    checkError(measured.has_value(), error, path);
    if (measured) {
        for (const auto& p : measured->points)
            if (!measured->find(p.model)) std::abort();  // every point's model is listed
        // The same file as the architectures of what it measured.
        error.clear();
        InferenceData copy = *measured;
        checkError(attachDfDictArchitectures(copy, path, &error), error, path);
    }
    error.clear();
    auto configs = loadAppendixConfigs(path, &error);
    checkError(configs.has_value(), error, path);
    if (configs && measured) attachAppendixArchitectures(*measured, *configs, 64);
    error.clear();
    auto accelerators = scalex::analysis::loadAccelerators(path, &error);
    checkError(accelerators.has_value(), error, path);
    if (accelerators)
        for (const auto& a : *accelerators)
            if (a.name.empty() || !(a.flops > 0) || !(a.memoryBandwidth > 0)) std::abort();
    return 0;
}
