#include "core/analysis/GenerateQuery.h"

#include <QDir>
#include <QJsonDocument>
#include <QSaveFile>

#include "core/data/ExampleProject.h"
#include "core/data/PaperTables.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"

namespace scalex::analysis {

void addGenerateOptions(QCommandLineParser& p) {
    const data::ExampleOptions defaults;
    p.addOptions({
        {"seed", QStringLiteral("Seed of the noise (default %1).").arg(defaults.seed), "n", QString::number(defaults.seed)},
        {"sigma", QStringLiteral("Noise: standard deviation of log loss (default %1).").arg(defaults.noiseSigma), "x"},
        {"noise-free", "No noise: every loss is the surface's (Token/Param) or the IsoFLOP parabola's value."},
        {"tables", "Directory of the paper's tables (default: the built-in copy of datasets/paper).", "dir"},
        {"out", "FILE.scalex (a project) or DIR (one CSV per run table).", "path"},
    });
}

GenerateAnswer generateQuery(const QCommandLineParser& p) {
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
    GenerateAnswer answer;
    for (const auto& t : project.tables) answer.runs += t.table.runs.size();
    answer.tables = project.tables.size();
    answer.seed = options.seed;
    answer.out = out;
    return answer;
}

}  // namespace scalex::analysis
