#pragma once
// A figure recipe: everything needed to draw one exported figure again, identically: the view,
// the analysis settings and the view's own controls as they were, the user's include toggles and
// selection of runs, the output format, size and style, and a digest of the runs it was drawn
// from. Recipes are saved in a project's recipes.json as {"<name>": {recipe}, ...}.
#include <QJsonObject>
#include <map>
#include <string>
#include <vector>

#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::data {

struct FigureRecipe {
    std::string view;                 // the view id ("pareto", "isoflop", ...)
    std::string format = "pdf";       // pdf, svg or png
    double widthInches = 6.75;        // 1 to 40
    double heightInches = 0;          // 0: from the width and the number of charts; else 1 to 40
    int dpi = 300;                    // 30 to 2400 (PNG)
    bool paper = true;                // the paper style; false: the view's screen look
    std::string font = "DejaVu Sans"; // font family of the paper style
    bool dark = false;                // the dark colour scheme (screen style only)

    // The session's analysis settings: convention, context, selected_only, huber_delta, gamma_free.
    QJsonObject analysis;
    // The view's controls by name: combo boxes by their text, check boxes, sliders, fields.
    QJsonObject controls;
    // The user's include toggles (run key -> included) and the selected runs, by run key
    // (runKey()). Runs not named keep their default.
    std::map<std::string, bool> include;
    std::vector<std::string> selection;
    // runTablesDigest() of the project's tables when the recipe was saved.
    std::string dataDigest;
    std::string created;  // ISO 8601, UTC

    friend bool operator==(const FigureRecipe&, const FigureRecipe&) = default;
};

using FigureRecipes = std::map<std::string, FigureRecipe>;  // by name

QJsonObject toJson(const FigureRecipe& recipe);
// Checks every field; errors name `file` and the field as "<name>.<field>".
Expected<FigureRecipe> recipeFromJson(const QJsonObject& object, const std::string& file, const std::string& name);
QJsonObject recipesToJson(const FigureRecipes& recipes);
Expected<FigureRecipes> recipesFromJson(const QJsonObject& object, const std::string& file);

// Recipe names become file names: letters, digits, '.', '_', '-', at most 100 characters.
bool validRecipeName(const std::string& name);

// The key a recipe names a run by: its run id when that is set and unique in the merged
// tables, else "#<index>" (0-based, in table order).
std::vector<std::string> runKeys(const std::vector<const Run*>& runs);

// SHA-256 (hex) of the runs of `tables` as their CSV, without the user's include toggles (the
// recipe keeps those itself): the same runs give the same digest.
std::string runTablesDigest(const std::vector<const RunTable*>& tables);

}  // namespace scalex::data
