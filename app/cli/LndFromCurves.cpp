#include "app/cli/LndFromCurves.h"

#include <QJsonObject>
#include <QTextStream>

#include "app/cli/CliSupport.h"
#include "core/analysis/PredictedCheckpoints.h"

namespace scalex::cli {

namespace {

// "[N=<params>:]PATH[,PATH...]": one model's curves, its parameter count where the configs lack it.
analysis::CheckpointModel parseModel(const QString& value) {
    analysis::CheckpointModel m;
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

QString num(double v, int digits = 4) { return QString::number(v, 'g', digits); }

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
analysis::PredictedCheckpointOptions checkpointOptions(const QCommandLineParser& p) {
    analysis::PredictedCheckpointOptions o;
    for (const QString& v : p.values("from-curves")) o.models.push_back(parseModel(v));
    if (p.isSet("cooldown")) {
        o.cooldownFraction = *doubleOption(p, "cooldown");
        if (!(o.cooldownFraction > 0 && o.cooldownFraction <= 1))
            throw UsageError(("--cooldown must lie in (0, 1], got " + p.value("cooldown")).toStdString());
    }
    const auto law = analysis::curveLawFromName(p.value("curve-law").toStdString());
    if (!law) throw UsageError(("--curve-law: expected mpl, lra or power, got '" + p.value("curve-law") + "'").toStdString());
    o.curves.law = *law;
    return o;
}

analysis::CheckpointSurfaceOptions replicateOptions(const QCommandLineParser& p, const analysis::PredictedCheckpointOptions& o) {
    analysis::CheckpointSurfaceOptions so;
    so.replicates = static_cast<int>(*intOption(p, "replicates", 0));
    so.level = o.curves.level;
    return so;
}

// One predicted checkpoint as a row of the runs' table.
void printPredictedRow(const analysis::PredictedCheckpoint& c, QTextStream& out) {
    out << "  predicted  " << num(c.params).leftJustified(10) << " " << num(c.tokens).leftJustified(10) << " " << num(c.flops).leftJustified(10) << " "
        << QString::number(c.loss, 'f', 4) << "  [" << QString::number(c.lower, 'f', 4) << ", " << QString::number(c.upper, 'f', 4) << "]  "
        << QString::fromStdString(c.model) << ": " << QString::fromStdString(analysis::scheduleLabel(c.schedule)) << "\n";
}

// The predictions' notes, then the runs a fit takes: the measured ones (C as `compute` gives it), then the predicted checkpoints.
template <typename Run, typename Compute>
void printRuns(QTextStream& out, const std::vector<std::string>& notes, const QString& level, const char* what,
               const std::vector<Run>& measured, Compute compute, const std::vector<analysis::PredictedCheckpoint>& predicted) {
    for (const auto& n : notes) out << QString::fromStdString(n) << "\n";
    out << "runs (" << level << " % intervals of the predicted losses" << what << "):\n";
    out << "  kind       N          D          C          loss    interval            schedule\n";
    for (const auto& m : measured)
        out << "  measured   " << num(m.params).leftJustified(10) << " " << num(m.tokens).leftJustified(10) << " "
            << num(compute(m)).leftJustified(10) << " " << QString::number(m.loss, 'f', 4) << "\n";
    for (const auto& c : predicted) printPredictedRow(c, out);
}

}  // namespace

void addFromCurvesOptions(QCommandLineParser& p, bool checkpoints) {
    const analysis::PredictedCheckpointOptions defaults;
    p.addOption({"from-curves", "One model's curves (tracker JSON files or folders, comma-separated; N from config n_params, or "
                                "N=<params>:FILES); repeat per model. Their law predicts the checkpoints the law is fitted to.", "files"});
    if (checkpoints)
        p.addOption({"checkpoints", "Token counts D (comma-separated or repeated) at which each model's end-of-cooldown loss is predicted.", "tokens"});
    p.addOptions({
        {"cooldown", "WSD cooldown fraction of each predicted checkpoint, linear to 0 (default: the best cooldown of each budget).", "fraction"},
        {"curve-law", "Law of the curves: mpl, lra or power.", "law", QString::fromStdString(analysis::curveLawLabel(defaults.curves.law))},
        {"replicates", "Bootstrap replicates of the L(N,D) intervals (each redraws the predicted points within their intervals).", "n",
         QString::number(analysis::CheckpointSurfaceOptions{}.replicates)},
    });
}

int runLndFromCurves(const QCommandLineParser& p, const std::vector<fit::LossPoint>& measured, const fit::LossSurfaceSettings& settings) {
    analysis::PredictedCheckpointOptions o = checkpointOptions(p);
    o.tokens = positiveList(p, "checkpoints", "token counts");
    const analysis::CheckpointSurfaceOptions so = replicateOptions(p, o);
    const auto predicted = analysis::predictCheckpoints(o);
    if (!predicted) throw UsageError(predicted.error().toString());
    const auto fitted = analysis::fitSurfaceWithCheckpoints(measured, predicted->checkpoints, settings, so);
    if (!fitted) throw UsageError(fitted.error().toString());
    if (p.isSet("json")) {
        printJson(QJsonObject{{"checkpoints", analysis::predictedCheckpointsJson(*predicted)}, {"fit", analysis::checkpointSurfaceJson(*fitted)}});
        return kExitOk;
    }
    QString t;
    QTextStream out(&t);
    const QString level = QString::number(100 * fitted->level, 'g', 3);
    printRuns(out, predicted->notes, level, "", measured, [](const fit::LossPoint& m) { return 6 * m.params * m.tokens; }, fitted->predicted);
    const auto& f = fitted->fit;
    out << "L(N,D) fit on " << measured.size() << " measured runs and " << fitted->predicted.size() << " predicted checkpoints, "
        << f.nStarts << " starts; " << level << " % intervals from " << fitted->replicates
        << " bootstrap replicates (measured runs resampled, each model's predicted points redrawn within their intervals)\n";
    static const char* names[6] = {"log A", "log B", "log E", "alpha", "beta", "gamma"};
    const auto v = f.best.asArray(), lo = fitted->lower.asArray(), hi = fitted->upper.asArray();
    for (std::size_t k = 0; k < 6; ++k)
        out << "  " << names[k] << " = " << QString::number(v[k], 'f', 4) << " [" << QString::number(lo[k], 'f', 4) << ", "
            << QString::number(hi[k], 'f', 4) << "]\n";
    out << "  objective = " << QString::number(f.objective, 'g', 8) << ", R^2 = " << f.quality.r2 << "\n";
    for (const auto& w : f.warnings) out << "  warning: " << QString::fromStdString(w) << "\n";
    out.flush();
    printText(t);
    return kExitOk;
}

int runIsoFlopFromCurves(const QCommandLineParser& p, const std::vector<fit::IsoFlopRun>& measured, fit::IsoFlopSettings settings) {
    analysis::PredictedCheckpointOptions o = checkpointOptions(p);
    o.budgets = positiveList(p, "budgets", "compute budgets");
    if (o.budgets.empty()) throw UsageError("--from-curves in fit isoflop needs --budgets H1,H2,... (per model the checkpoint at D = H/(6N))");
    settings.budgets = o.budgets;
    const analysis::CheckpointSurfaceOptions so = replicateOptions(p, o);
    const auto predicted = analysis::predictCheckpoints(o);
    if (!predicted) throw UsageError(predicted.error().toString());
    const auto fitted = analysis::fitIsoFlopWithCheckpoints(measured, predicted->checkpoints, settings, so);
    if (!fitted) throw UsageError(fitted.error().toString());
    if (p.isSet("json")) {
        printJson(QJsonObject{{"checkpoints", analysis::predictedCheckpointsJson(*predicted)}, {"fit", analysis::checkpointIsoFlopJson(*fitted)}});
        return kExitOk;
    }
    QString t;
    QTextStream out(&t);
    const QString level = QString::number(100 * fitted->level, 'g', 3);
    printRuns(out, predicted->notes, level, "; D = H/(6N) per model", measured, [](const fit::IsoFlopRun& m) { return m.flops; },
              fitted->predicted);
    const auto& f = fitted->fit;
    out << "IsoFLOP on " << measured.size() << " measured runs and " << fitted->predicted.size() << " predicted checkpoints\n";
    for (const auto& pr : f.profiles)
        out << "  budget " << num(pr.budget) << ": " << pr.nRuns << " runs, N* = " << num(pr.nOpt) << ", D* = " << num(pr.dOpt)
            << ", L = " << QString::number(pr.lossAtNOpt, 'f', 4)
            << (pr.inPowerLaw ? QString() : " (not in the power law" + (pr.leftOut.empty() ? QString() : ": " + QString::fromStdString(pr.leftOut)) + ")")
            << "\n";
    const auto law = [&](const char* name, const std::optional<fit::PowerLaw>& l, const fit::PowerLaw& lo, const fit::PowerLaw& hi) {
        if (!l) return;
        out << "  " << name << "(H) = " << num(l->coefficient) << " [" << num(lo.coefficient) << ", " << num(hi.coefficient) << "] H^"
            << QString::number(l->exponent, 'f', 4) << " [" << QString::number(lo.exponent, 'f', 4) << ", " << QString::number(hi.exponent, 'f', 4)
            << "]\n";
    };
    law("N*", f.nOptLaw, fitted->nOptLower, fitted->nOptUpper);
    law("D*", f.dOptLaw, fitted->dOptLower, fitted->dOptUpper);
    out << "  " << level << " % intervals from " << fitted->replicates
        << " bootstrap replicates (measured runs resampled within their budget, each model's predicted points redrawn within their intervals)\n";
    for (const auto& w : f.warnings) out << "  warning: " << QString::fromStdString(w) << "\n";
    out.flush();
    printText(t);
    return kExitOk;
}

}  // namespace scalex::cli
