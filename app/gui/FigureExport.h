#pragma once
#include <functional>

#include "app/figures/FigureWriter.h"
#include "core/analysis/AnalysisSettings.h"
// Figures for papers: a view's charts rendered to PDF, SVG (vector, text kept as text) or PNG at a
// physical size, optionally in the "paper" style (white background, font sizes matched to the
// width, thin lines, no window chrome). No Qt Widgets in this header: the CLI calls it too.
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

struct RenderRequest {
    QString project;  // .scalex or run table; empty: the built-in example
    QString view;     // view id, e.g. "pareto"
    QString out;      // .pdf, .svg or .png
    FigureStyle style;
    QJsonObject controls;  // the view's controls to set first, by name (as a recipe keeps them)
    // Changes to the project's analysis settings (scope, series, outliers) before the view is drawn.
    std::function<void(analysis::AnalysisSettings&)> adjust;
};

// Opens the project headless, brings the view up to date (fits included) and writes the figure.
// Returns false and sets `error` (naming the file or option) on failure; never writes a partial file.
bool renderFigure(const RenderRequest& request, QString* error);

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

// `scalex render --view ID --out FILE.tex|.csv|.json [--table ID]`: opens the project headless,
// brings the view up to date and writes its table.
bool renderTable(const RenderRequest& request, const QString& tableId, QString* error);


// The view ids that render (every chart view).
QStringList renderableViews();
// "--view: unknown view 'X' (expected one of ...)".
QString unknownViewError(const QString& view);
// The view ids with tables to export, and the ids of their tables (ViewPanel::tables()).
QStringList tableViews();
std::vector<std::pair<QString, QStringList>> viewTables();

// Regenerates the counterparts of the paper's figures 1, 3, 4, 5 and 6 (and the roofline) as PDF
// and PNG, and its appendix tables (L(N,D) fit parameters, over-training exponents, compute-optimal
// configurations) as LaTeX and CSV, into `outDir`, each file named after what it reproduces.
// `written` receives the file names. The project is `project` or, when empty, the built-in example.
bool renderPaperFigures(const QString& project, const QString& outDir, const FigureStyle& style, QStringList* written,
                        QString* error);

}  // namespace scalex::gui
