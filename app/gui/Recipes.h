#pragma once
// Figure recipes in the window: taking one from what a view shows, bringing a window back to
// one, and rendering one (headless) to its file. See core/data/FigureRecipe.h for what a recipe
// holds. No Qt Widgets in this header: the CLI calls it too.
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include "app/gui/FigureExport.h"
#include "core/data/FigureRecipe.h"
#include "core/data/Project.h"

class QWidget;

namespace scalex::gui {

class MainWindow;
class Session;
class ViewPanel;

// The controls of a view (combo boxes, check boxes, sliders, spin boxes, line edits) that carry an
// object name, by that name: combo boxes by their text, the others by their value.
QJsonObject captureControls(const QWidget* panel);
// Sets the controls named in `controls`, in the order the view created them (the way a person
// would); returns a note for each value that could not be set.
// A number or an on/off value may also come as text, as typed on a command line ("true", "off",
// "4096").
QStringList restoreControls(QWidget* panel, const QJsonObject& controls);
// One line per named control: "name<TAB>kind<TAB>current value<TAB>choices or range".
QString describeControls(const QWidget* panel);
// `NAME=VALUE` assignments (from `scalex render --set`) as controls for restoreControls; false
// with an error naming --set for a malformed or repeated one.
bool parseControlAssignments(const QStringList& assignments, QJsonObject* controls, QString* error);
// describeControls of `view` in the project at `project` (empty: the built-in example), headless.
bool listViewControls(const QString& project, const QString& view, QString* text, QString* error);

// The figure `panel` shows now, in `style` and `format` ("pdf", "svg", "png"), as a recipe.
data::FigureRecipe captureRecipe(const Session& session, const ViewPanel& panel, const FigureStyle& style,
                                 const QString& format);
FigureStyle styleOf(const data::FigureRecipe& recipe);

// Brings `window` to the state of `recipe`: analysis settings and fitted surfaces, include
// toggles, selection, the view and its controls; then runs the view's work to the end. Returns
// false with `error` when the recipe cannot be shown; `warnings` gets what differs from when it
// was saved (changed runs, runs or control values that are gone).
bool applyRecipe(MainWindow& window, const data::FigureRecipe& recipe, QStringList* warnings, QString* error);

// Renders `recipe` from `project` (saved at `projectPath`, or not saved: empty) to `out`, in a
// window of its own that is never shown; the current theme is kept.
bool renderRecipe(const data::Project& project, const QString& projectPath, const data::FigureRecipe& recipe,
                  const QString& out, QStringList* warnings, QString* error);

// Renders recipe `name` of the project at `project` to `out` (empty: "<name>.<format>" in the
// current directory). `name` "all" renders every recipe into the directory `out`; `written` gets
// the paths.
bool renderRecipes(const QString& project, const QString& name, const QString& out, QStringList* written,
                   QStringList* warnings, QString* error);

// Whether `name` may be kept as a recipe in `project` (a valid name, a .scalex file); the error
// names the option.
bool checkRecipeTarget(const QString& project, const QString& name, QString* error);

// Adds (or replaces) recipe `name` for the figure of `view` in the project file `project`, drawn
// with the project's saved settings and the view's default controls but those in `controls`, and
// saves the project.
bool saveRecipeToProject(const QString& project, const QString& name, const QString& view, const QJsonObject& controls,
                         const FigureStyle& style, const QString& format, QString* error);

}  // namespace scalex::gui
