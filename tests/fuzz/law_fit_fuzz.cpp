// libFuzzer target for the law fit (core/fit/LawFit, Nnls): random formulas fitted to random runs.
// The text is read as the law_formula target reads it (the first line a formula, every further
// line a `NAME=LO:HI[@START]` parameter); a law that compiles is fitted to runs drawn from a seed
// hashed from the text (FNV-1a): 3 to 40 runs, every variable log-uniform over 1e-3..1e9, the target
// the law at a random point of its box plus noise (or noise alone), with and without variable
// projection, in linear and log space, squared and Huber losses. The fit may refuse (too few runs,
// a target it cannot use) with an invalid_argument naming why; otherwise it must return without a
// crash or a hang, every parameter inside its bounds or NaN, and an objective that is the law's at
// the parameters it returns (or infinite, with a warning saying no start reached a finite one).
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_law_fit && mkdir -p build-fuzz/corpus-law_fit && \
//   build-fuzz/tests/fuzz/scalex_fuzz_law_fit build-fuzz/corpus-law_fit tests/data/fuzz/law_fit \
//       -max_total_time=300 -max_len=1024
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "tests/fuzz/LawFuzzInput.h"
#include "core/fit/LawExpression.h"
#include "core/fit/LawFit.h"
#include "core/fit/SplitMix64.h"

namespace {

void fail(const char* what, const std::string& detail) {
    std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::fit;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const LawDefinition definition = lawFromFuzzText(text);
    // FNV-1a of the text: the runs depend on it alone.
    std::uint64_t hash = 1469598103934665603ull;
    for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
    SplitMix64 rng{hash};
    const int variants = 4;
    for (int variant = 0; variant < variants; ++variant) {
        LawDefinition law = definition;
        law.space = variant == 3 ? LawSpace::Log : LawSpace::Linear;
        law.loss = variant == 2 ? LawLoss::Huber : LawLoss::Squared;
        const auto compiled = compileLaw(law);
        if (std::holds_alternative<LawError>(compiled)) return 0;
        const auto& c = std::get<CompiledLaw>(compiled);
        if (c.parameterCount() > 12) return 0;  // a bounded time per input
        LawData runs;
        runs.variableCount = c.variables.size();
        const std::size_t n = 3 + rng.below(38);
        std::vector<double> truth(c.parameterCount()), row(c.variables.size()), scratch;
        for (std::size_t k = 0; k < truth.size(); ++k) truth[k] = c.lower[k] + rng.uniform() * (c.upper[k] - c.lower[k]);
        const bool noiseOnly = rng.below(4) == 0;
        for (std::size_t i = 0; i < n; ++i) {
            for (auto& v : row) v = std::pow(10.0, -3 + 12 * rng.uniform());
            const double clean = noiseOnly ? 1.0 : lawValue(c.expression, truth, row, scratch);
            runs.add(row, clean * (1 + 0.05 * (rng.uniform() - 0.5)) + 0.01 * (rng.uniform() - 0.5));
        }
        LawFitSettings settings;
        settings.starts = 8;
        settings.refineCount = 2;
        settings.maxIterations = 100;
        settings.projection = variant != 1;
        LawFitResult fit;
        try {
            fit = fitLaw(c, runs, settings);
        } catch (const std::invalid_argument& e) {
            if (std::string(e.what()).empty()) fail("a refusal without a reason", definition.formula);
            continue;
        }
        if (fit.params.size() != c.parameterCount()) fail("parameters missing", definition.formula);
        if (!std::isfinite(fit.objective)) {
            if (fit.warnings.empty()) fail("an infinite objective without a warning", definition.formula);
            continue;
        }
        for (std::size_t k = 0; k < c.parameterCount(); ++k)
            if (!(fit.params[k] >= c.lower[k] && fit.params[k] <= c.upper[k]))
                fail("a parameter outside its bounds", c.parameterName(k) + " = " + std::to_string(fit.params[k]));
        const double again = lawObjective(c, runs, fit.params);
        if (!(std::abs(again - fit.objective) <= 1e-6 * std::max(1.0, std::abs(again))))
            fail("the objective is not the law's at its parameters", std::to_string(again) + " vs " + std::to_string(fit.objective));
    }
    return 0;
}
