#include "core/data/ExampleProject.h"

namespace scalex::data {

Project makeExampleProject(const PaperTables& tables, const ExampleOptions& options) {
    ExampleStudy study = generateExampleStudy(tables, options);
    Project p;
    p.title = "Generated example study (not measured)";
    QJsonObject generated = options.toJson();
    generated["generator"] = QStringLiteral("scalex generate");
    generated["note"] = QStringLiteral(
        "Generated runs, not measurements: Token/Param losses drawn from the paper's fitted L(N,D) surfaces "
        "(tab:lnd_fit_params), IsoFLOP losses from parabolas centred on the paper's IsoFLOP laws N*(H) and as wide "
        "as the study's profiles, both with the noise model above; C counted with the study's FLOP convention at "
        "each run's context. Other contexts than 8192 use the same surface (no per-context surface is published).");
    p.generated = generated;
    p.tables.push_back({kExampleTokenParamTable, std::move(study.tokenParam)});
    p.tables.push_back({kExampleIsoFlopTable, std::move(study.isoflop)});
    p.settings.setFlopConvention("study");
    p.settings.setContextLength(8192);
    p.settings.setSelectedOnly(true);  // the default: a selection column, where a table has one, is honoured
    p.settings.setHuberDelta(options.huberDelta);
    p.settings.setGammaMode(GammaMode::Free);
    return p;
}

}  // namespace scalex::data
