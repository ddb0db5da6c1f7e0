// libFuzzer target for the figure-recipe reader (core/data/FigureRecipe: a project's
// recipes.json). Any bytes must give recipes or one error naming the file; whatever loads must
// write and read back to the same recipes. Each recipe's control values are then set on controls of
// every kind (app/figures/Controls, as a headless render and the window set them): a value a
// control does not take leaves it as it was, with a note; what is set is a value of that control,
// and the controls' values set again change nothing.
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

#include "app/figures/Controls.h"
#include "core/data/FigureRecipe.h"

namespace {

using scalex::figures::Control;
using scalex::figures::Controls;

// One control of every kind, as views declare them.
Controls everyKind() {
    using namespace scalex::figures;
    Controls c;
    c.add(choiceControl("panels", {}, {{"one", "One chart"}, {"fig5", "Every context length (Fig. 5)"}, {"range", "budgets 5e18 … 2e20"}},
                        QStringLiteral("one")));
    c.add(choiceControl("context", {}, {textChoice("2048"), textChoice("8192")}, QStringLiteral("8192"))).editable = true;
    c.add(switchControl("pick", {}, false));
    c.add(valueControl("budget", {}, {1e19, 3.1622776601683794e19, 1e20}, 1e19, 175));
    c.add(integerControl("overtrain", {}, 5, 100, 100));
    Control number;  // no view has one yet
    number.name = "delta";
    number.kind = Control::Kind::Number;
    number.min = 1e-6;
    number.max = 1;
    number.value = 1e-3;
    c.add(number);
    c.add(textControl("value", {}, QStringLiteral("1e22")));
    return c;
}

// Whether every control holds a value of its kind.
bool valid(const Controls& controls) {
    for (const Control& c : controls.list()) {
        switch (c.kind) {
            case Control::Kind::Choice:
                if (c.choiceIndex() < 0 && !(c.editable && c.value.isString())) return false;
                break;
            case Control::Kind::Switch:
                if (!c.value.isBool()) return false;
                break;
            case Control::Kind::Value:
                if (c.valueIndex() < 0) return false;
                break;
            case Control::Kind::Integer:
            case Control::Kind::Number:
                if (!c.value.isDouble() || c.value.toDouble() < c.min || c.value.toDouble() > c.max) return false;
                if (c.kind == Control::Kind::Integer && c.value.toDouble() != static_cast<double>(static_cast<long long>(c.value.toDouble())))
                    return false;
                break;
            case Control::Kind::Text:
                if (!c.value.isString()) return false;
                break;
        }
    }
    return true;
}

}  // namespace

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
    for (const auto& [name, recipe] : *recipes) {
        Controls controls = everyKind();
        const QStringList notes = controls.set(recipe.controls);
        if (!valid(controls)) {
            std::fprintf(stderr, "recipe '%s': a control holds a value it does not take\n", name.c_str());
            std::abort();
        }
        for (const QString& note : notes)
            if (note.isEmpty()) std::abort();
        (void)controls.describe();
        Controls again = everyKind();
        if (!again.set(controls.values()).isEmpty() || again.values() != controls.values()) {
            std::fprintf(stderr, "recipe '%s': the controls' values set again differ\n", name.c_str());
            std::abort();
        }
    }
    return 0;
}
