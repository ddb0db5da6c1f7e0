#pragma once
// Figure recipes in the window: taking one from what a view shows and bringing the window back to
// one (rendering one to its file, with no window, is app/figures/Render.h). See
// core/data/FigureRecipe.h for what a recipe holds.
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include "app/figures/Render.h"
#include "app/gui/FigureExport.h"
#include "core/data/FigureRecipe.h"
#include "core/data/Project.h"

class QWidget;

namespace scalex::gui {

class MainWindow;
class Session;
class ViewPanel;

// The controls of a view by name: a view that draws a figure gives its figure's controls (Controls.h);
// the others their widgets that carry an object name (combo boxes by their choice's key or text,
// the others by their value).
QJsonObject captureControls(const QWidget* panel);
// Sets the controls named in `controls` as a person would; returns a note for each value that
// could not be set. A number or an on/off value may also come as text, as typed on a command line
// ("true", "off", "4096").
QStringList restoreControls(QWidget* panel, const QJsonObject& controls);
// One line per named control: "name<TAB>kind<TAB>current value<TAB>choices or range".
QString describeControls(const QWidget* panel);

// The figure `panel` shows now, in `style` and `format` ("pdf", "svg", "png"), as a recipe
// (figures::captureRecipe of the session's study and selection and the view's controls).
data::FigureRecipe captureRecipe(const Session& session, const ViewPanel& panel, const FigureStyle& style,
                                 const QString& format);
using figures::styleOf;

// Brings `window` to the state of `recipe`: analysis settings and fitted surfaces, include
// toggles, selection, the view and its controls; then runs the view's work to the end. Returns
// false with `error` when the recipe cannot be shown; `warnings` gets what differs from when it
// was saved (changed runs, runs or control values that are gone).
bool applyRecipe(MainWindow& window, const data::FigureRecipe& recipe, QStringList* warnings, QString* error);

}  // namespace scalex::gui
