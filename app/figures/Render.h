#pragma once
// Headless figures, tables and recipes: a view's figure drawn from a study with no window
// (`scalex render`, the recipes dialog's "render", the paper figures). The study comes ready: read
// from its files, its scope options applied.
#include <QJsonObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>

#include "app/figures/FigureWriter.h"
#include "core/data/FigureRecipe.h"

namespace scalex::analysis {
class Study;
}

namespace scalex::figures {

struct RenderRequest {
    QString view;          // view id, e.g. "pareto"
    QString out;           // .pdf, .svg or .png; .tex, .csv or .json for tables
    FigureStyle style;
    QJsonObject controls;  // the view's controls to set first, by name (as a recipe keeps them)
    QSet<int> selection;   // runs ringed (indices into the study's runs)
};

// Draws the figure of `request.view` from `study` with its controls and writes it. False with
// `error` (naming the view, control or file) when it cannot, or when the figure has no results
// for these settings (its own reason); never writes a partial file.
bool renderFigure(const analysis::Study& study, const RenderRequest& request, QString* error);
// Writes the table `tableId` (the view's first when empty) of the view as LaTeX booktabs, CSV or
// JSON records, chosen by the suffix of `request.out`.
bool renderTable(const analysis::Study& study, const RenderRequest& request, const QString& tableId, QString* error);
// The controls of `view` for `study` (`scalex render --list-controls`), after setting `controls`.
bool describeControls(const analysis::Study& study, const QString& view, const QJsonObject& controls, QString* text,
                      QString* error);
// The controls of `view` as a recipe keeps them after setting `controls` (defaults for the others).
bool controlValues(const analysis::Study& study, const QString& view, const QJsonObject& controls, QJsonObject* values,
                   QString* error);

// The table of runs the Runs view exports (every run, in table order).
FigureTable runListTable(const analysis::Study& study);

// --- Figure recipes ------------------------------------------------------------------------------

// A recipe of the figure of `view` drawn with `controls` (every control's value), from the study's
// settings, fitted surfaces, include toggles and `selection`.
data::FigureRecipe captureRecipe(const analysis::Study& study, const QSet<int>& selection, const QString& view,
                                 const QJsonObject& controls, const FigureStyle& style, const QString& format);
FigureStyle styleOf(const data::FigureRecipe& recipe);
// Brings `study` to the recipe's analysis settings, fitted surfaces and include toggles, and
// `selection` to its selected runs. False with `error` when the recipe cannot be shown; `warnings`
// gets what differs from when it was saved (changed runs, runs that are gone).
bool applyRecipeScope(analysis::Study& study, const data::FigureRecipe& recipe, QSet<int>* selection, QStringList* warnings,
                      QString* error);
// Renders `recipe` from a copy of `study` to `out`; `warnings` also gets the controls that could
// not be set. With `table`: writes that table of the recipe's view instead (renderTable; empty: its first).
bool renderRecipe(const analysis::Study& study, const data::FigureRecipe& recipe, const QString& out, QStringList* warnings,
                  QString* error, const std::optional<QString>& table = std::nullopt);
// Renders the recipe `name` of the study's project to `out` (empty: "<name>.<format>" in the
// current directory); `name` "all" renders every recipe into the directory `out`. `written` gets
// the paths; `projectLabel` names the project in errors. One recipe to a .tex, .csv or .json `out`
// writes the table `tableId` of its view (empty: the first) with the recipe's controls and scope.
bool renderRecipes(const analysis::Study& study, const QString& projectLabel, const QString& name, const QString& out,
                   QStringList* written, QStringList* warnings, QString* error, const QString& tableId = {});

// Regenerates the counterparts of the paper's figures 1, 3, 4, 5 and 6 (and the roofline and the
// context optimum) as PDF and PNG, and its appendix tables as LaTeX and CSV, into `outDir`. A
// figure the study's runs cannot give (no IsoFLOP runs in a table of Token/Param runs) is left out
// and named in `skipped` with the reason.
bool renderPaperFigures(const analysis::Study& study, const QString& outDir, const FigureStyle& style, QStringList* written,
                        QStringList* skipped, QString* error);

}  // namespace scalex::figures
