#pragma once
// Figures and tables for papers, with no window: charts written to PDF, SVG (vector, text kept as
// text) or PNG at a physical size, optionally in the "paper" style (white background, font sizes
// matched to the width, thin lines), and tables written as LaTeX booktabs, CSV or JSON records.
// Every file is written whole or not at all.
#include <QString>
#include <QStringList>
#include <vector>

#include "core/data/Export.h"

class QChart;

namespace scalex::figures {

struct FigureStyle {
    double widthInches = 6.75;   // double column; 3.25 single column; 13.33 slides
    double heightInches = 0;     // 0: automatic: the charts (width x 0.75 for one; x 0.42 for two side by side, x 0.55
                                 // under 4.5 in; x 0.55 each when stacked) and the legend
    int dpi = 300;               // PNG only
    bool paper = true;           // paper style; false: the view's own look
    QString fontFamily = QStringLiteral("DejaVu Sans");
    bool dark = false;           // the dark colour scheme (screen style only)
};

// Parses "3.25x2.4in", "6.75in", "16x9cm" or the presets "single", "double", "slides".
bool parseFigureSize(const QString& text, FigureStyle* style, QString* error);

// Writes `charts` side by side (wrapping into rows when narrow) with one legend for all of them, as
// a PDF, SVG or PNG chosen by the suffix of `out`. `what` names the figure in the file's title and
// in errors. The paper style restyles the charts; their on-screen sizes and axes are put back
// afterwards, and the caller redraws them for their own look.
bool writeFigure(const std::vector<QChart*>& charts, const QString& what, const QString& out, const FigureStyle& style,
                 QString* error);

// The file suffixes writeFigure writes (pdf, svg, png), and what is wrong with `out` as a figure's
// file name: "'OUT' must end in .pdf, .svg or .png", or empty where its suffix is one of them.
QStringList figureSuffixes();
QString figureSuffixProblem(const QString& out);

// A table of a view, for export as LaTeX, CSV or JSON.
struct FigureTable {
    QString id;     // short name: `scalex render --table ID`, the default file name
    QString title;  // what the table holds, for menus
    data::ExportTable table;
};

// The file suffixes writeTable writes.
QStringList tableSuffixes();

// Writes the table `tableId` of `tables` (the first when empty) as LaTeX booktabs (.tex), CSV (.csv)
// or JSON records (.json), chosen by the suffix of `out`. The error names the tables of `owner`
// when `tableId` is not one of them.
bool writeTable(const std::vector<FigureTable>& tables, const QString& owner, const QString& tableId, const QString& out,
                QString* error);

}  // namespace scalex::figures
