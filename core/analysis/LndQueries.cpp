#include "core/analysis/LndQueries.h"

#include <QFile>

#include "core/analysis/LossSurfaceFitSettings.h"

namespace scalex::analysis {

namespace {

// "[N=<params>:]PATH[,PATH...]": one model's curves, its parameter count where the configs lack it.
CheckpointModel parseModel(const QString& value) {
    CheckpointModel m;
    QString paths = value;
    if (value.startsWith("N=")) {
        const qsizetype colon = value.indexOf(':');
        bool ok = false;
        m.params = colon > 2 ? value.mid(2, colon - 2).toDouble(&ok) : 0;
        if (!ok || !(m.params > 0)) throw UsageError(("--from-curves: expected N=<params>:FILES, got '" + value + "'").toStdString());
        paths = value.mid(colon + 1);
    }
    for (const QString& f : paths.split(',', Qt::SkipEmptyParts)) m.files.push_back(f.toStdString());
    if (m.files.empty()) throw UsageError(("--from-curves: no files in '" + value + "'").toStdString());
    return m;
}

// Positive numbers of a repeatable option, each value comma-separated.
std::vector<double> positiveList(const QCommandLineParser& p, const QString& name, const QString& what) {
    std::vector<double> out;
    for (const QString& v : p.values(name))
        for (const QString& t : v.split(',', Qt::SkipEmptyParts)) {
            bool ok = false;
            const double d = t.toDouble(&ok);
            if (!ok || !(d > 0)) throw UsageError(("--" + name + " expects positive " + what + ", got '" + t + "'").toStdString());
            out.push_back(d);
        }
    return out;
}

// The models, the cooldown and the curves' law of the options.
PredictedCheckpointOptions checkpointOptions(const QCommandLineParser& p) {
    PredictedCheckpointOptions o;
    for (const QString& v : p.values("from-curves")) o.models.push_back(parseModel(v));
    if (p.isSet("cooldown")) {
        o.cooldownFraction = *doubleOption(p, "cooldown");
        if (!(o.cooldownFraction > 0 && o.cooldownFraction <= 1))
            throw UsageError(("--cooldown must lie in (0, 1], got " + p.value("cooldown")).toStdString());
    }
    const auto law = curveLawFromName(p.value("curve-law").toStdString());
    if (!law) throw UsageError(("--curve-law: expected mpl, lra or power, got '" + p.value("curve-law") + "'").toStdString());
    o.curves.law = *law;
    return o;
}

CheckpointSurfaceOptions replicateOptions(const QCommandLineParser& p, const PredictedCheckpointOptions& o) {
    CheckpointSurfaceOptions so;
    so.replicates = static_cast<int>(*intOption(p, "replicates", 0));
    so.level = o.curves.level;
    return so;
}

}  // namespace

void addLndOptions(QCommandLineParser& p) {
    p.addOptions({
        {{"huber-delta", "huber"}, "Huber delta of the objective (settings: huber_delta).", "delta", "1e-3"},
        {"gamma", "free (fit gamma) or fixed_1 (gamma held at 1, Hoffmann et al.; also 'fixed' or '1').", "free|fixed_1", "free"},
        {"grid", "Initialisations: paper (the 8000-start grid) or a grid file (lines `logA: 0 5 10`, ...).", "paper|file", "paper"},
        {"exhaustive", "Run every start to the tight tolerance (slower; no screening)."},
        {"no-extrapolation", "lnd: skip the extrapolation check (a second fit without the largest model size)."},
    });
}

// The fit settings: --huber-delta and --gamma where given (else the study's settings), the grid and stops.
fit::LossSurfaceSettings lndSettings(const QCommandLineParser& p, AnalysisSettings& settings) {
    if (p.isSet("huber-delta")) {
        settings.huberDelta = *doubleOption(p, "huber-delta");
        if (!(settings.huberDelta > 0))
            throw UsageError(("--huber-delta must be positive, got " + p.value("huber-delta")).toStdString());
    }
    if (p.isSet("gamma")) {
        const auto fitGamma = parseFitGamma(p.value("gamma").toStdString());
        if (!fitGamma) throw UsageError(("--gamma expects free or fixed_1 (or fixed, 1), got '" + p.value("gamma") + "'").toStdString());
        settings.fitGamma = *fitGamma;
    }
    LossSurfaceFitRequest request;
    const QString grid = p.value("grid");
    if (grid != "paper") {
        QFile f(grid);
        if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) throw UsageError(("--grid: cannot open '" + grid + "'").toStdString());
        request.gridText = f.readAll().toStdString();
        request.gridName = grid.toStdString();
    }
    request.exhaustive = p.isSet("exhaustive");
    std::string error;
    auto s = lossSurfaceFitSettings(settings, request, &error);
    if (!s) throw UsageError(error);
    return std::move(*s);
}

void addFromCurvesOptions(QCommandLineParser& p, bool checkpoints) {
    const PredictedCheckpointOptions defaults;
    p.addOption({"from-curves", "One model's curves (tracker JSON files or folders, comma-separated; N from config n_params, or "
                                "N=<params>:FILES); repeat per model. Their law predicts the checkpoints the law is fitted to.", "files"});
    if (checkpoints)
        p.addOption({"checkpoints", "Token counts D (comma-separated or repeated) at which each model's end-of-cooldown loss is predicted.", "tokens"});
    p.addOptions({
        {"cooldown", "WSD cooldown fraction of each predicted checkpoint, linear to 0 (default: the best cooldown of each budget).", "fraction"},
        {"curve-law", "Law of the curves: mpl, lra or power.", "law", QString::fromStdString(curveLawLabel(defaults.curves.law))},
        {"replicates", "Bootstrap replicates of the L(N,D) intervals (each redraws the predicted points within their intervals).", "n",
         QString::number(CheckpointSurfaceOptions{}.replicates)},
    });
}

LndFromCurvesAnswer lndFromCurvesQuery(const QCommandLineParser& p, const std::vector<fit::LossPoint>& measured,
                                       const fit::LossSurfaceSettings& settings, const fit::FitControl& control) {
    if (!p.isSet("from-curves")) throw UsageError(kCheckpointsNeedCurves);
    PredictedCheckpointOptions o = checkpointOptions(p);
    o.tokens = positiveList(p, "checkpoints", "token counts");
    const CheckpointSurfaceOptions so = replicateOptions(p, o);
    auto predicted = predictCheckpoints(o, control);
    if (!predicted) throw UsageError(predicted.error().toString());
    auto fitted = fitSurfaceWithCheckpoints(measured, predicted->checkpoints, settings, so, control);
    if (!fitted) throw UsageError(fitted.error().toString());
    LndFromCurvesAnswer answer{std::move(*predicted), std::move(*fitted), {}};
    answer.json = QJsonObject{{"checkpoints", predictedCheckpointsJson(answer.predicted)}, {"fit", checkpointSurfaceJson(answer.fitted)}};
    return answer;
}

IsoFlopFromCurvesAnswer isoFlopFromCurvesQuery(const QCommandLineParser& p, const std::vector<fit::IsoFlopRun>& measured,
                                               fit::IsoFlopSettings settings, const fit::FitControl& control) {
    PredictedCheckpointOptions o = checkpointOptions(p);
    o.budgets = positiveList(p, "budgets", "compute budgets");
    if (o.budgets.empty()) throw UsageError("--from-curves in fit isoflop needs --budgets H1,H2,... (per model the checkpoint at D = H/(6N))");
    settings.budgets = o.budgets;
    const CheckpointSurfaceOptions so = replicateOptions(p, o);
    auto predicted = predictCheckpoints(o, control);
    if (!predicted) throw UsageError(predicted.error().toString());
    auto fitted = fitIsoFlopWithCheckpoints(measured, predicted->checkpoints, settings, so, control);
    if (!fitted) throw UsageError(fitted.error().toString());
    IsoFlopFromCurvesAnswer answer{std::move(*predicted), std::move(*fitted), {}};
    answer.json = QJsonObject{{"checkpoints", predictedCheckpointsJson(answer.predicted)}, {"fit", checkpointIsoFlopJson(answer.fitted)}};
    return answer;
}

}  // namespace scalex::analysis
