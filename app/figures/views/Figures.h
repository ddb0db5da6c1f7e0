#pragma once
// The registry of the window's views (one figure file each in this folder): a view is one entry
// here, and the lists of views, of figures and of export tables (`scalex render --view`,
// `--list-tables`, recipes, the window's exports) are read from it.
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

namespace scalex::figures {

class ViewFigure;

struct FigureInput;

// Where the window puts a figure's controls around its charts (data only: the window's one view
// class reads it; a figure with no layout gets each control labelled above its charts).
struct ViewLayout {
    // Groups of controls above the charts, side by side and wrapping onto more lines on a narrow
    // window; each group a form (label: widget). Empty: each control a group of its own.
    std::vector<QStringList> groups;
    // A slider across the top (a context length the figure is about): its read-out large, the
    // controls of `groups` under it, beside the slider and its scale (ViewFigure::scale).
    QString lead;
    // Controls in one row under the charts (a slider stretched), with their read-outs.
    QStringList below;
    // Choices as wide as their longest item (series names) rather than the style's width.
    bool widestChoices = false;
    // Charts side by side are stacked when each would be narrower than this.
    int stackWidth = 480;
    // Shown while the figure's analyses run ("Fitting …").
    QString busy;
    // Charts after the first `chartsPerRow` (of ViewFigure::windowCharts) go in a second row, beside
    // the `aside` controls; 0: every chart in one row.
    int chartsPerRow = 0;
    // Controls in a form beside the second row's charts under `asideTitle`, the figure's asideText()
    // under them (the answers to the questions they ask); they scroll rather than take height from
    // the charts.
    QStringList aside;
    QString asideTitle;
    // Rows of controls in a grid above the others (a law, its formula, its parameters): the first
    // of each labelled, the text fields after it with their labels as placeholder text, and under
    // the row the problem of its first control (ViewFigure::controlProblem).
    std::vector<QStringList> rows;
    // Text fields are checked as they are typed (the figure refreshed and the problems of its
    // controls shown under them); the analyses run when a field is done (Enter).
    bool checkTyping = false;
    // The text fields of `groups` at least as wide as this text.
    QString fieldSample;
    // The table of ViewFigure::shownRows whole, as tall as this many rows, its columns as wide as
    // their contents; 0: columns stretched, at most 220 pixels high.
    int tableRows = 0;
    // The controls in a column beside the charts (one form, in the order of `groups` where given,
    // the actions' buttons and progress under it, then the words on what is drawn) rather than above
    // them; stacked above the charts on a window narrower than `stackWidth`.
    bool side = false;
    // With `side`: each label above its control rather than beside it (long labels).
    bool labelsAbove = false;
    // Whole-number controls shown as a slider (their read-out, ViewFigure::readout, beside it) rather than a spin box.
    QStringList sliders;
};

struct FigureEntry {
    QString id;                                          // the view's id (`--view`, recipes, layouts)
    QString title;                                       // the window's tab
    std::function<std::unique_ptr<ViewFigure>()> make;   // its figure; empty: a view with no figure (the Runs table)
    QStringList tables;                                  // the ids of its export tables, the default first
    // The Explain pane's HTML for the figure as drawn now: the formula, the axes, the live numbers.
    std::function<QString(const ViewFigure& figure, const FigureInput& in)> explain;
    ViewLayout layout;
};

// Every view, in the window's order.
const std::vector<FigureEntry>& figureRegistry();

// Adds a view at the end of the registry (a figure of a test): a tab of every window made after it,
// with its figure, tables and Explain text, and a view of `--view`, recipes and exports. Call it
// before any window is made (a window's views refer to their entries).
void registerFigure(FigureEntry entry);

// The entry of the view `id` (null for an unknown id).
const FigureEntry* figureEntry(const QString& id);

// A new figure of the view `id`; null for an unknown id or a view with no figure (ViewFigure.h: makeFigure).
std::unique_ptr<ViewFigure> makeViewFigure(const QString& id);

}  // namespace scalex::figures
