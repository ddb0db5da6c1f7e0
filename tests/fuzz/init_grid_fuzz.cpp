// libFuzzer target for the init-grid reader (core/fit/LossSurface parseInitGrid: the starting
// points of the L(N,D) fit, one axis per line). Any text must give a grid or an error
// "line L: ..."; a grid that loads has every axis and gives its starts.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_init_grid && mkdir -p build-fuzz/corpus-init_grid && \
//   build-fuzz/tests/fuzz/scalex_fuzz_init_grid build-fuzz/corpus-init_grid tests/data/fuzz/init_grid \
//       -max_total_time=300 -max_len=4096
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/fit/LossSurface.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::fit;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (bool fitGamma : {true, false}) {
        std::string error;
        auto grid = parseInitGrid(text, &error);
        if (!grid) {
            if (error.rfind("line ", 0) != 0) {
                std::fprintf(stderr, "an error that does not name the line: '%s'\n", error.c_str());
                std::abort();
            }
            return 0;
        }
        if (grid->logA.empty() || grid->logB.empty() || grid->logE.empty() || grid->alpha.empty() || grid->beta.empty())
            std::abort();
        const std::size_t n = grid->size(fitGamma);
        if (n == 0) std::abort();
        // The first, last and a middle start are combinations of the axes' values.
        for (std::size_t i : {std::size_t{0}, n / 2, n - 1}) {
            const LossSurfaceParams p = grid->start(i, fitGamma);
            if (std::find(grid->alpha.begin(), grid->alpha.end(), p.alpha) == grid->alpha.end()) std::abort();
        }
    }
    return 0;
}
