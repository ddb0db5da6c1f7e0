// libFuzzer target for the loss-curve reader (core/data/LossCurves: curves_*.csv, one row per
// logged step). Any bytes must give curves or one error naming the file; every row that loads
// becomes one point of the curve of its run_id.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_loss_curves && mkdir -p build-fuzz/corpus-loss_curves && \
//   build-fuzz/tests/fuzz/scalex_fuzz_loss_curves build-fuzz/corpus-loss_curves tests/data/fuzz/loss_curves \
//       -max_total_time=300 -max_len=4096
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/data/LossCurves.h"
#include "tests/fuzz/FuzzInputFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::data;
    const std::string path = scalex::fuzz::writeInputFile(data, size, "curves.csv").toStdString();
    auto curves = loadLossCurves(path);
    if (!curves) {
        if (curves.error().message.empty() || curves.error().file != path) std::abort();
        return 0;
    }
    for (const auto& c : curves->curves) {
        if (c.runId.empty() || c.points.empty() || curves->find(c.runId) != &c) std::abort();
        for (const auto& p : c.points)
            if (!(p.step >= 0)) std::abort();
    }
    return 0;
}
