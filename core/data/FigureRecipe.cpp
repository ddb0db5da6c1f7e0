#include "core/data/FigureRecipe.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/data/RunTableIo.h"

namespace scalex::data {

namespace {

const char* const kFormats[] = {"pdf", "svg", "png"};

QJsonObject includeToJson(const std::map<std::string, bool>& include) {
    QJsonObject o;
    for (const auto& [key, on] : include) o[QString::fromStdString(key)] = on;
    return o;
}

// Reads one recipe's fields, each checked; the first bad one is the error.
class RecipeReader {
public:
    RecipeReader(const QJsonObject& o, const std::string& file, const std::string& name) : o_(o), file_(file), name_(name) {}

    Expected<FigureRecipe> read() {
        FigureRecipe r;
        if (!text("view", &r.view, true)) return *error_;
        if (r.view.empty()) return fail("view", "expected a view id such as \"pareto\"");
        if (!text("format", &r.format, false)) return *error_;
        if (std::find(std::begin(kFormats), std::end(kFormats), r.format) == std::end(kFormats))
            return fail("format", "expected \"pdf\", \"svg\" or \"png\", got \"" + r.format + "\"");
        if (!number("width_in", &r.widthInches, 1, 40, false, "a width from 1 to 40 inches")) return *error_;
        if (!number("height_in", &r.heightInches, 1, 40, true, "0 (automatic) or a height from 1 to 40 inches")) return *error_;
        double dpi = r.dpi;
        if (!number("dpi", &dpi, 30, 2400, false, "a resolution from 30 to 2400 dpi")) return *error_;
        if (dpi != std::floor(dpi)) return fail("dpi", "expected a whole number of dots per inch");
        r.dpi = static_cast<int>(dpi);
        std::string style = "paper";
        if (!text("style", &style, false)) return *error_;
        if (style != "paper" && style != "screen") return fail("style", "expected \"paper\" or \"screen\", got \"" + style + "\"");
        r.paper = style == "paper";
        if (!text("font", &r.font, false)) return *error_;
        if (!boolean("dark", &r.dark)) return *error_;
        if (!object("analysis", &r.analysis)) return *error_;
        if (!object("controls", &r.controls)) return *error_;
        for (auto it = r.controls.begin(); it != r.controls.end(); ++it)
            if (!(it->isString() || it->isBool() || it->isDouble()))
                return fail("controls." + it.key().toStdString(), "expected a string, a number or true/false");
        QJsonObject include;
        if (!object("include", &include)) return *error_;
        for (auto it = include.begin(); it != include.end(); ++it) {
            if (!it->isBool()) return fail("include." + it.key().toStdString(), "expected true or false");
            r.include[it.key().toStdString()] = it->toBool();
        }
        if (o_.contains("selection")) {
            if (!o_.value("selection").isArray()) return fail("selection", "expected an array of run keys");
            const QJsonArray a = o_.value("selection").toArray();
            for (qsizetype i = 0; i < a.size(); ++i) {
                if (!a[i].isString()) return fail("selection[" + std::to_string(i) + "]", "expected a run key (a string)");
                r.selection.push_back(a[i].toString().toStdString());
            }
        }
        if (!text("data_sha256", &r.dataDigest, false)) return *error_;
        if (!text("created", &r.created, false)) return *error_;
        return r;
    }

private:
    LoadError fail(const std::string& field, const std::string& message) {
        error_ = LoadError{file_, 0, name_ + "." + field, message, true};
        return *error_;
    }
    bool text(const char* key, std::string* out, bool required) {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (v.isUndefined()) {
            if (required) fail(key, "missing");
            return !required;
        }
        if (!v.isString()) return fail(key, "expected a string"), false;
        *out = v.toString().toStdString();
        return true;
    }
    bool number(const char* key, double* out, double lo, double hi, bool zeroAllowed, const char* what) {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (v.isUndefined()) return true;
        const double x = v.toDouble(std::nan(""));
        if (!v.isDouble() || !((x >= lo && x <= hi) || (zeroAllowed && x == 0)))
            return fail(key, std::string("expected ") + what), false;
        *out = x;
        return true;
    }
    bool boolean(const char* key, bool* out) {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (v.isUndefined()) return true;
        if (!v.isBool()) return fail(key, "expected true or false"), false;
        *out = v.toBool();
        return true;
    }
    bool object(const char* key, QJsonObject* out) {
        const QJsonValue v = o_.value(QLatin1String(key));
        if (v.isUndefined()) return true;
        if (!v.isObject()) return fail(key, "expected an object"), false;
        *out = v.toObject();
        return true;
    }

    const QJsonObject& o_;
    std::string file_, name_;
    std::optional<LoadError> error_;
};

}  // namespace

QJsonObject toJson(const FigureRecipe& r) {
    QJsonArray selection;
    for (const auto& key : r.selection) selection.append(QString::fromStdString(key));
    return QJsonObject{{"view", QString::fromStdString(r.view)},
                       {"format", QString::fromStdString(r.format)},
                       {"width_in", r.widthInches},
                       {"height_in", r.heightInches},
                       {"dpi", r.dpi},
                       {"style", r.paper ? "paper" : "screen"},
                       {"font", QString::fromStdString(r.font)},
                       {"dark", r.dark},
                       {"analysis", r.analysis},
                       {"controls", r.controls},
                       {"include", includeToJson(r.include)},
                       {"selection", selection},
                       {"data_sha256", QString::fromStdString(r.dataDigest)},
                       {"created", QString::fromStdString(r.created)}};
}

Expected<FigureRecipe> recipeFromJson(const QJsonObject& object, const std::string& file, const std::string& name) {
    return RecipeReader(object, file, name).read();
}

QJsonObject recipesToJson(const FigureRecipes& recipes) {
    QJsonObject o;
    for (const auto& [name, recipe] : recipes) o[QString::fromStdString(name)] = toJson(recipe);
    return o;
}

Expected<FigureRecipes> recipesFromJson(const QJsonObject& object, const std::string& file) {
    FigureRecipes out;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string name = it.key().toStdString();
        if (!validRecipeName(name))
            return LoadError{file, 0, name, "a recipe name must be 1 to 100 letters, digits, '.', '_' or '-'", true};
        if (!it->isObject()) return LoadError{file, 0, name, "expected a recipe (an object)", true};
        auto recipe = recipeFromJson(it->toObject(), file, name);
        if (!recipe) return recipe.error();
        out.emplace(name, std::move(*recipe));
    }
    return out;
}

bool validRecipeName(const std::string& name) {
    if (name.empty() || name.size() > 100 || name == "." || name == "..") return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
    return true;
}

std::vector<std::string> runKeys(const std::vector<const Run*>& runs) {
    std::unordered_map<std::string, int> count;
    for (const Run* r : runs)
        if (!r->runId.empty()) ++count[r->runId];
    std::vector<std::string> keys;
    keys.reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string& id = runs[i]->runId;
        keys.push_back(!id.empty() && count[id] == 1 && id[0] != '#' ? id : "#" + std::to_string(i));
    }
    return keys;
}

std::string runTablesDigest(const std::vector<const RunTable*>& tables) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    for (const RunTable* t : tables) {
        RunTable copy = *t;
        for (Run& r : copy.runs) r.userIncluded.reset();
        const QByteArray csv = writeRunTableCsv(copy);
        hash.addData(QByteArray::number(csv.size()) + '\n');
        hash.addData(csv);
    }
    return hash.result().toHex().toStdString();
}

}  // namespace scalex::data
