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

struct FigureEntry {
    QString id;                                          // the view's id (`--view`, recipes, layouts)
    std::function<std::unique_ptr<ViewFigure>()> make;   // its figure; empty: a view with no figure (the Runs table)
    QStringList tables;                                  // the ids of its export tables, the default first
};

// Every view, in the window's order.
const std::vector<FigureEntry>& figureRegistry();

// A new figure of the view `id`; null for an unknown id or a view with no figure (ViewFigure.h: makeFigure).
std::unique_ptr<ViewFigure> makeViewFigure(const QString& id);

}  // namespace scalex::figures
