#pragma once
// Every headless verb: `int verbX(const QStringList& args)`, args[0] is the verb itself.
// Each throws UsageError for bad input and returns the exit status otherwise.
#include <QString>
#include <QStringList>
#include <vector>

namespace scalex::cli {

using VerbFunction = int (*)(const QStringList& args);

struct Verb {
    const char* name;
    const char* summary;
    VerbFunction run;
    bool needsWidgets = false;  // renders widgets offscreen (QApplication instead of QCoreApplication)
};

// The table of verbs, in the order `scalex help` lists them.
const std::vector<Verb>& verbs();

int verbAccount(const QStringList& args);
int verbDevice(const QStringList& args);
int verbRender(const QStringList& args);
int verbConvert(const QStringList& args);
int verbGenerate(const QStringList& args);
int verbFit(const QStringList& args);
int verbPlan(const QStringList& args);

// Registers resources/scalex.qrc (the embedded datasets and example project); the static
// library would otherwise leave it out of the program. Safe to call more than once.
void ensureBuiltinResources();
int verbBench(const QStringList& args);
int verbPredict(const QStringList& args);
// `scalex predict optimal` (OptimalVerb.cpp).
int predictOptimal(const QStringList& args);
int verbCheck(const QStringList& args);
// `scalex fit runtime ...`: args[0] is "runtime" (the fit verb dispatches its sub-verb here).
int runFitRuntime(const QStringList& args);
// `scalex fit curves` and `scalex predict curve` (CurvesVerb.cpp).
int runFitCurves(const QStringList& args);
int predictCurveVerb(const QStringList& args);

}  // namespace scalex::cli
