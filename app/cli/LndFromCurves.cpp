#include "app/cli/LndFromCurves.h"

#include <QJsonObject>
#include <QTextStream>

#include "app/cli/CliSupport.h"
#include "core/analysis/LndQueries.h"

namespace scalex::cli {

namespace {

QString num(double v, int digits = 4) { return QString::number(v, 'g', digits); }

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

int runLndFromCurves(const QCommandLineParser& p, const std::vector<fit::LossPoint>& measured, const fit::LossSurfaceSettings& settings) {
    const analysis::LndFromCurvesAnswer a = analysis::lndFromCurvesQuery(p, measured, settings);
    if (p.isSet("json")) {
        printJson(a.json);
        return kExitOk;
    }
    const auto& predicted = a.predicted;
    const auto& fitted = a.fitted;
    QString t;
    QTextStream out(&t);
    const QString level = QString::number(100 * fitted.level, 'g', 3);
    printRuns(out, predicted.notes, level, "", measured, [](const fit::LossPoint& m) { return 6 * m.params * m.tokens; }, fitted.predicted);
    const auto& f = fitted.fit;
    out << "L(N,D) fit on " << measured.size() << " measured runs and " << fitted.predicted.size() << " predicted checkpoints, "
        << f.nStarts << " starts; " << level << " % intervals from " << fitted.replicates
        << " bootstrap replicates (measured runs resampled, each model's predicted points redrawn within their intervals)\n";
    static const char* names[6] = {"log A", "log B", "log E", "alpha", "beta", "gamma"};
    const auto v = f.best.asArray(), lo = fitted.lower.asArray(), hi = fitted.upper.asArray();
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
    const analysis::IsoFlopFromCurvesAnswer a = analysis::isoFlopFromCurvesQuery(p, measured, std::move(settings));
    if (p.isSet("json")) {
        printJson(a.json);
        return kExitOk;
    }
    const auto& predicted = a.predicted;
    const auto& fitted = a.fitted;
    QString t;
    QTextStream out(&t);
    const QString level = QString::number(100 * fitted.level, 'g', 3);
    printRuns(out, predicted.notes, level, "; D = H/(6N) per model", measured, [](const fit::IsoFlopRun& m) { return m.flops; },
              fitted.predicted);
    const auto& f = fitted.fit;
    out << "IsoFLOP on " << measured.size() << " measured runs and " << fitted.predicted.size() << " predicted checkpoints\n";
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
    law("N*", f.nOptLaw, fitted.nOptLower, fitted.nOptUpper);
    law("D*", f.dOptLaw, fitted.dOptLower, fitted.dOptUpper);
    out << "  " << level << " % intervals from " << fitted.replicates
        << " bootstrap replicates (measured runs resampled within their budget, each model's predicted points redrawn within their intervals)\n";
    for (const auto& w : f.warnings) out << "  warning: " << QString::fromStdString(w) << "\n";
    out.flush();
    printText(t);
    return kExitOk;
}

}  // namespace scalex::cli
