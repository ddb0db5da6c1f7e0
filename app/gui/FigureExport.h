#pragma once
#include <functional>

#include "app/figures/FigureWriter.h"
#include "app/figures/ViewFigure.h"
#include "core/analysis/AnalysisSettings.h"
// Figures and tables of the window's views, for papers: a view's charts as shown written to PDF,
// SVG or PNG at a physical size (app/figures/FigureWriter), and a window that is never shown, for
// tests and benchmarks. Headless renders without a window are app/figures/Render.h.
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <utility>
#include <vector>

namespace scalex::gui {

using figures::FigureStyle;
using figures::parseFigureSize;
using figures::tableSuffixes;

class ViewPanel;
using ViewTable = figures::FigureTable;
class MainWindow;

// A window that is never shown on screen, with the project at `project` open (a .scalex project
// or a run table; the built-in example when empty), in the light or dark colours. Null, with
// `error` naming the file, when it cannot be opened.
std::unique_ptr<MainWindow> openHeadless(const QString& project, bool dark, QString* error);

// Writes the charts of a view as shown (its ranges, selection and legend) in `style`. The paper
// style restyles the charts; the caller redraws the view afterwards.
bool exportPanel(ViewPanel* panel, const QString& out, const FigureStyle& style, QString* error);

// Writes the table `tableId` of a view (its first table when empty) as LaTeX booktabs (.tex), CSV
// (.csv) or JSON records (.json), chosen by the suffix of `out`. The error names the view's tables
// when `tableId` is not one of them; never writes a partial file.
bool exportViewTable(ViewPanel* panel, const QString& tableId, const QString& out, QString* error);
// The same from tables already computed (`tables` of the view `viewId`).
bool exportViewTable(const std::vector<ViewTable>& tables, const QString& viewId, const QString& tableId, const QString& out,
                     QString* error);

// The view ids that render (every chart view; each draws a figure of app/figures), and those
// with tables.
inline QStringList renderableViews() { return figures::figureViews(); }
using figures::tableViews;
using figures::unknownViewError;
using figures::viewTables;

}  // namespace scalex::gui
