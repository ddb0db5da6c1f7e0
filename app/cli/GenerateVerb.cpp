// scalex generate: the generated example study (datasets/example/README.md) as a project or as
// CSV run tables. The same seed gives byte-identical output.
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QSaveFile>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/data/ExampleProject.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"

namespace scalex::cli {

int verbGenerate(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Generate the example study: Token/Param runs drawn from the paper's fitted L(N,D) surfaces "
        "(Tab. lnd_fit_params), IsoFLOP profiles centred on the paper's IsoFLOP laws N*(H) = A' H^a, with log-normal "
        "noise. Every run is labelled generated.");
    p.addHelpOption();
    p.addOptions({
        {"seed", "Seed of the noise (default 2025).", "n", "2025"},
        {"sigma", "Noise: standard deviation of log loss (default 0.005).", "x"},
        {"noise-free", "No noise: every loss is the surface's (Token/Param) or the IsoFLOP parabola's value."},
        {"tables", "Directory of the paper's tables (default: the built-in copy of datasets/paper).", "dir"},
        {"out", "FILE.scalex (a project) or DIR (one CSV per run table).", "path"},
    });
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (!p.isSet("out")) throw UsageError("missing required option --out (FILE.scalex or a directory)");

    data::ExampleOptions options;
    bool ok = false;
    options.seed = p.value("seed").toULongLong(&ok);
    if (!ok) throw UsageError(("--seed: expected a non-negative whole number, found '" + p.value("seed") + "'").toStdString());
    if (auto sigma = doubleOption(p, "sigma")) {
        if (!(*sigma >= 0)) throw UsageError("--sigma must not be negative");
        options.noiseSigma = *sigma;
    }
    if (p.isSet("noise-free")) options.noiseSigma = 0;

    ensureBuiltinResources();
    const QString tablesDir = p.isSet("tables") ? p.value("tables") : QString::fromLatin1(data::kBuiltinPaperDir);
    auto tables = data::loadPaperTables(tablesDir);
    if (!tables) throw UsageError(tables.error().toString());
    const data::Project project = data::makeExampleProject(*tables, options);

    const QString out = p.value("out");
    if (out.endsWith(QLatin1String(".scalex"), Qt::CaseInsensitive)) {
        if (auto e = data::saveProject(project, out)) throw UsageError(e->toString());
    } else {
        if (!QDir().mkpath(out)) throw UsageError(("cannot create directory '" + out + "'").toStdString());
        for (const auto& t : project.tables) {
            const QString path = QDir(out).filePath(QString::fromStdString(t.name) + ".csv");
            if (auto e = data::saveRunTableCsv(t.table, path.toStdString())) throw UsageError(e->toString());
        }
        QSaveFile info(QDir(out).filePath("generator.json"));
        if (!info.open(QIODevice::WriteOnly) || info.write(QJsonDocument(*project.generated).toJson()) < 0 || !info.commit())
            throw UsageError(("cannot write " + info.fileName()).toStdString());
    }
    std::size_t runs = 0;
    for (const auto& t : project.tables) runs += t.table.runs.size();
    printText(QStringLiteral("generated %1 runs in %2 tables (seed %3) -> %4\n")
                  .arg(runs)
                  .arg(project.tables.size())
                  .arg(QString::number(options.seed), out));
    return kExitOk;
}

}  // namespace scalex::cli

// Q_INIT_RESOURCE declares the registration function in the enclosing namespace, so it is
// called from the global one.
static void initScalexResources() { Q_INIT_RESOURCE(scalex); }

void scalex::cli::ensureBuiltinResources() {
    static const bool done = (initScalexResources(), true);
    (void)done;
}
