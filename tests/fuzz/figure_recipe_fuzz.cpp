// libFuzzer target for the figure-recipe reader (core/data/FigureRecipe: a project's
// recipes.json). Any bytes must give recipes or one error naming the file; whatever loads must
// write and read back to the same recipes.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_figure_recipe && mkdir -p build-fuzz/corpus-figure_recipe && \
//   build-fuzz/tests/fuzz/scalex_fuzz_figure_recipe build-fuzz/corpus-figure_recipe \
//       tests/data/fuzz/figure_recipe -max_total_time=300 -max_len=8192
#include <QByteArray>
#include <QJsonDocument>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/data/FigureRecipe.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::data;
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isObject()) return 0;  // the project reader rejects these before recipesFromJson
    auto recipes = recipesFromJson(doc.object(), "recipes.json");
    if (!recipes) {
        if (recipes.error().message.empty() || recipes.error().file != "recipes.json") std::abort();
        return 0;
    }
    const QByteArray written = QJsonDocument(recipesToJson(*recipes)).toJson();
    auto back = recipesFromJson(QJsonDocument::fromJson(written).object(), "back.json");
    if (!back || !(*back == *recipes)) {
        std::fprintf(stderr, "round trip failed: %s\n", back ? "the recipes differ" : back.error().toString().c_str());
        std::abort();
    }
    return 0;
}
