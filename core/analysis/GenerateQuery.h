#pragma once
// `scalex generate`: the generated example study (datasets/example/README.md) written as a project
// or as CSV run tables, its options declared once and read here for the program's verb and the
// Python module's scalex.generate. The same seed gives byte-identical output.
#include <QCommandLineParser>
#include <QString>
#include <cstddef>
#include <cstdint>

#include "core/analysis/VerbOptions.h"

namespace scalex::analysis {

// --seed, --sigma, --noise-free, --tables, --out.
void addGenerateOptions(QCommandLineParser& p);

struct GenerateAnswer {
    std::size_t runs = 0, tables = 0;
    std::uint64_t seed = 0;
    QString out;
};
// Draws the example project (data::makeExampleProject) and writes it to --out: FILE.scalex a
// project, else a directory of one CSV per run table and generator.json. Bad options and files
// that cannot be written throw UsageError naming them. The built-in paper tables (the default of
// --tables) are the caller's resources to register.
GenerateAnswer generateQuery(const QCommandLineParser& p);

}  // namespace scalex::analysis
