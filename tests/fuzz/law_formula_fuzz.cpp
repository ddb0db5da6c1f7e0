// libFuzzer target for law formulas (core/fit/LawExpression, LawDefinition): the first line is a
// formula `TARGET = EXPRESSION`, every further line a parameter `NAME=LO:HI[@START]` as the CLI's
// --param reads it. Any text must give a law or one error with a message and a place inside the
// text; a law that compiles evaluates (value and reverse-mode gradient) without crashing, and its
// gradient has one entry per parameter.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_law_formula && mkdir -p build-fuzz/corpus-law_formula && \
//   build-fuzz/tests/fuzz/scalex_fuzz_law_formula build-fuzz/corpus-law_formula tests/data/fuzz/law_formula \
//       -max_total_time=300 -max_len=4096
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "tests/fuzz/LawFuzzInput.h"
#include "core/fit/LawExpression.h"

namespace {

void checkError(const scalex::fit::LawError& e, std::size_t textSize) {
    if (e.message.empty()) {
        std::fprintf(stderr, "an error without a message\n");
        std::abort();
    }
    if (e.position != scalex::fit::kNoPosition && e.position > textSize) {
        std::fprintf(stderr, "an error past the end of the text: %zu > %zu (%s)\n", e.position, textSize, e.message.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::fit;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const LawDefinition law = lawFromFuzzText(text);

    // The expression alone: every name a variable, evaluated at 2.
    LawError error;
    if (auto e = parseLawExpression(law.formula, &error)) {
        std::vector<std::string> variables;
        if (!bindLawExpression(*e, {}, nullptr, variables, &error)) std::abort();
        const std::vector<double> values(variables.size(), 2.0);
        std::vector<double> scratch;
        const double v = lawValue(*e, {}, values, scratch);
        const double t = evaluateLaw<double>(*e, std::span<const double>(), values);
        if (!(v == t || (std::isnan(v) && std::isnan(t)))) std::abort();
    } else {
        checkError(error, law.formula.size());
    }

    // The law: parameters as given, every other name a column.
    const auto compiled = compileLaw(law, [](const std::string& name) { return name.size() % 2 == 1; });
    if (const auto* e = std::get_if<LawError>(&compiled)) {
        checkError(*e, law.formula.size());
        return 0;
    }
    const auto& c = std::get<CompiledLaw>(compiled);
    if (c.parameterCount() != law.parameters.size()) std::abort();
    std::vector<double> params, values(c.variables.size(), 3.0), gradient(c.parameterCount(), 0.0), scratch;
    for (std::size_t k = 0; k < c.parameterCount(); ++k) params.push_back(0.5 * (c.lower[k] + c.upper[k]));
    lawValueAndGradient(c.expression, params, values, 1.0, gradient, scratch);
    for (const auto& t : c.linearTerms)
        if (t.parameter < 0 || static_cast<std::size_t>(t.parameter) >= c.parameterCount()) std::abort();
    return 0;
}
