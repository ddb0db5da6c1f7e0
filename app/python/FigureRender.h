#pragma once
// A view of a study drawn to a file, as `scalex render --view ID --out FILE` draws it.
#include <string>
#include <vector>

#include "core/analysis/Study.h"

namespace scalex::python {

// The options of `scalex render` for one figure, with the verb's defaults.
struct FigureOptions {
    std::string view, out;
    std::vector<std::string> set;  // NAME=VALUE: the view's controls, as --set
    std::string size = "double", style = "paper", font = "DejaVu Sans";
    int dpi = 300;
    std::vector<std::string> models;  // --model: model files added to the study's specs
    std::string table;                // --table: which of the view's tables a .tex, .csv or .json out gets
};

// Writes the figure (or with a .tex, .csv or .json out the view's table); empty when written, else the verb's message (naming the view, control,
// option or file).
std::string renderView(const analysis::Study& study, const FigureOptions& options);
// The same checks of the options (view, controls' syntax, size, style, dpi, model files; not the file) without
// drawing: empty when they hold, else the verb's message.
std::string checkFigure(const FigureOptions& options);

}  // namespace scalex::python
