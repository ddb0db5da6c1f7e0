#pragma once
// `scalex convert IN OUT`: run tables and projects between CSV, JSON, LaTeX and .scalex, chosen by
// the file extensions; several inputs (run tables, loss curves, inference measurements, told apart
// as `scalex check` does) make one project. Its options are declared once and read here for the
// program's verb and the Python module's scalex.convert. Output is written atomically (QSaveFile),
// so a failure leaves no half file.
#include <QCommandLineParser>

#include "core/analysis/VerbOptions.h"

namespace scalex::analysis {

// --table and the positional arguments IN... OUT.
void addConvertOptions(QCommandLineParser& p);

// Converts the positional inputs to the last positional argument. Bad arguments and files that
// cannot be read or written throw UsageError naming them. A project input reads the built-in
// resources the caller registers.
void convertQuery(const QCommandLineParser& p);

}  // namespace scalex::analysis
