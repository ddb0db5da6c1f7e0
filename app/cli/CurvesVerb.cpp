// `scalex fit curves` and `scalex predict curve`: a schedule-aware law of loss curves
// (core/analysis/CurveFits.h) fitted to tracker exports, scored on held-out curves, and a run's
// loss predicted at any step under any schedule. The verbs parse flags into the analysis' options
// and print its result; every printed prediction carries its interval.
#include <QCommandLineParser>
#include <QTextStream>
#include <cmath>

#include "app/cli/CliSupport.h"
#include "app/figures/CurveFitFigure.h"
#include "app/cli/Verbs.h"
#include "core/analysis/BestCooldown.h"
#include "core/analysis/CurveFits.h"

namespace scalex::cli {

namespace {

void addCurveFitOptions(QCommandLineParser& p) {
    const analysis::CurveFitOptions defaults;
    p.addHelpOption();
    p.addOptions({
        {"data", "Tracker JSON exports (or folders of them) whose curves are fitted; repeatable.", "file"},
        {"holdout", "Tracker JSON export whose curve is predicted and scored; repeatable.", "file"},
        {"law", "mpl (Multi-Power Law), lra (LR-annealing law) or power (power law in tokens).", "law",
         QString::fromStdString(analysis::curveLawLabel(defaults.law))},
        {"warmup", "Warm-up steps before the first logged rate, linear from 0 (default: the run's warmup_steps).", "steps"},
        {"schedule", "A schedule description replacing the fitted runs' logged rates, e.g. "
                     "wsd:peak=1e-3,steps=50000,warmup=300,cooldown=0.2,decay=sqrt.", "description"},
        {"train-loss", "Fit the training loss instead of the validation loss."},
        {"huber-delta", "Huber delta of the log-space residuals.", "delta", QString::number(defaults.huberDelta)},
        {"level", "Level of the parameter and prediction intervals.", "level", QString::number(defaults.level)},
        {"no-misfit", "Leave the law's misfit out of the prediction intervals (by default measured by refitting without each fitted "
                      "curve in turn and predicting it)."},
        {"max-iterations", "L-BFGS iterations of each start (fewer: an early-stopped fit).", "n", QString::number(defaults.maxIterations)},
        {"plot", "Draw the curves, the law's fitted and predicted losses and their intervals to FILE (.pdf, .svg or .png).", "file"},
        {"json", "Print one JSON object."},
    });
}

void checkPlotFile(const QCommandLineParser& p) {
    if (!p.isSet("plot")) return;
    if (const QString problem = figures::figureSuffixProblem(p.value("plot")); !problem.isEmpty())
        throw UsageError(("--plot " + problem).toStdString());
}

void writePlot(const QCommandLineParser& p, const std::vector<analysis::CurveBand>& bands, const QString& title) {
    if (!p.isSet("plot")) return;
    QString error;
    if (!figures::writeCurveFitFigure(bands, title, p.value("plot"), figures::FigureStyle{}, &error))
        throw UsageError(("--plot " + p.value("plot") + ": " + error).toStdString());
}

QString plotTitle(const analysis::CurveFitsResult& r) {
    return QString::fromStdString(analysis::curveLawLabel(r.fit.law)).toUpper() + QStringLiteral(" fitted to %1 curves, %2 held out")
                                                                                     .arg(r.fit.curves.size())
                                                                                     .arg(r.heldOut.size());
}

analysis::CurveFitOptions readCurveFitOptions(const QCommandLineParser& p, bool scheduleIsTarget) {
    analysis::CurveFitOptions o;
    for (const auto& f : p.values("data")) o.dataFiles.push_back(f.toStdString());
    for (const auto& f : p.values("holdout")) o.holdoutFiles.push_back(f.toStdString());
    if (o.dataFiles.empty()) throw UsageError("missing required option --data (tracker JSON exports of the runs to fit)");
    const auto law = analysis::curveLawFromName(p.value("law").toStdString());
    if (!law) throw UsageError(("--law: expected mpl, lra or power, got '" + p.value("law") + "'").toStdString());
    o.law = *law;
    if (p.isSet("warmup")) o.warmupSteps = static_cast<long>(*intOption(p, "warmup", 0));
    if (!scheduleIsTarget) o.schedule = p.value("schedule").toStdString();
    o.trainLoss = p.isSet("train-loss");
    o.calibrateIntervals = !p.isSet("no-misfit");
    const auto delta = doubleOption(p, "huber-delta");
    if (!delta || !(*delta > 0)) throw UsageError("--huber-delta: expected a positive number");
    o.huberDelta = *delta;
    const auto level = doubleOption(p, "level");
    if (!level || !(*level > 0 && *level < 1)) throw UsageError("--level: expected a number between 0 and 1");
    o.level = *level;
    o.maxIterations = static_cast<int>(std::min<std::int64_t>(*intOption(p, "max-iterations", 1), 1'000'000));
    return o;
}

template <class T>
T orThrow(data::Expected<T> r) {
    if (!r) throw UsageError(r.error().toString());
    return std::move(*r);
}

QString num(double v, int precision = 4) { return std::isfinite(v) ? QString::number(v, 'f', precision) : QStringLiteral("n/a"); }

void printFit(QTextStream& out, const analysis::CurveFitsResult& r) {
    const auto& f = r.fit;
    out << "law " << QString::fromStdString(analysis::curveLawLabel(f.law)) << ": " << f.nPoints << " points of " << f.curves.size()
        << " curves, " << f.nStarts << " starts, objective " << QString::number(f.objective, 'g', 6) << "\n";
    for (const auto& e : f.estimates)
        out << "  " << QString::fromStdString(e.name).leftJustified(6) << QString::number(e.value, 'g', 6) << "  ["
            << QString::number(e.lower, 'g', 4) << ", " << QString::number(e.upper, 'g', 4) << "] (" << f.level * 100 << " %)\n";
    const auto row = [&](const fit::CurveScore& s) {
        out << "  " << QString::fromStdString(s.name) << "\n      R2 " << num(s.r2, 5) << "  MAE " << num(s.mae, 5) << "  RMSE " << num(s.rmse, 5)
            << "  PredE " << num(s.predE, 5) << "  WorstE " << num(s.worstE, 5);
        if (s.finalStep > 0)
            out << "\n      final (step " << s.finalStep << "): observed " << num(s.finalObserved) << ", predicted " << num(s.finalPredicted) << " ["
                << num(s.finalLower) << ", " << num(s.finalUpper) << "]";
        out << "\n";
    };
    out << "fitted curves:\n";
    for (const auto& s : f.curves) row(s);
    if (!r.heldOut.empty()) {
        out << "held-out curves:\n";
        for (const auto& s : r.heldOut) row(s);
        const auto& m = r.heldOutMean;
        out << "held-out mean: R2 " << num(m.r2, 5) << "  MAE " << num(m.mae, 5) << "  RMSE " << num(m.rmse, 5) << "  PredE " << num(m.predE, 5)
            << "  WorstE " << num(m.worstE, 5) << "\n";
    }
    for (const auto& w : f.warnings) out << "warning: " << QString::fromStdString(w) << "\n";
    out << "Intervals: Gauss-Newton at the optimum, widened for the residuals' correlation along a curve (rho "
        << num(f.residualAutocorrelation, 3) << ")";
    if (f.misfitSd > 0)
        out << ", with the law's misfit on curves left out of the fit (sd of ln L " << num(f.misfitSd, 5) << ") added to each prediction's.\n";
    else
        out << "; they leave out the law's own misfit (measured only on 3 or more fitted curves).\n";
}

}  // namespace

int runFitCurves(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Fit a schedule-aware law (Multi-Power Law, Luo et al. 2025; LR-annealing law, Tissue et al. 2024; or a power law in "
        "tokens) to the loss curves of tracker JSON exports, and score it on held-out curves.");
    addCurveFitOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    checkPlotFile(p);
    const auto result = orThrow(analysis::fitCurves(readCurveFitOptions(p, false)));
    writePlot(p, analysis::curveBands(result), plotTitle(result));
    if (p.isSet("json")) {
        printJson(analysis::curveFitsJson(result));
        return kExitOk;
    }
    QString text;
    QTextStream out(&text);
    printFit(out, result);
    out.flush();
    printText(text);
    return kExitOk;
}

int predictCurveVerb(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Predict a run's loss at any step under any learning-rate schedule (e.g. the end of a cooldown, or a 3x longer run) "
        "from a schedule-aware law fitted to the --data curves; every prediction with its interval.");
    addCurveFitOptions(p);
    p.addOption({"at", "Step to predict at; repeatable (default: the schedule's last step).", "step"});
    p.addOption({"best-cooldown", "Also find the WSD schedule of --schedule's length, warm-up and peak rate whose predicted final loss is "
                                  "lowest: cooldown fraction, decay shape (linear, sqrt, exp) and final rate searched."});
    p.addOption({"free-peak", "With --best-cooldown: search the peak rate too (within 4x of --schedule's)."});
    if (!parseVerbArguments(p, args)) return kExitOk;
    analysis::CurvePredictOptions o;
    o.fit = readCurveFitOptions(p, true);
    o.schedule = p.value("schedule").toStdString();
    if (o.schedule.empty()) throw UsageError("missing required option --schedule (the schedule to predict under)");
    for (const auto& v : p.values("at")) {
        bool ok = false;
        const long step = v.toLong(&ok);
        if (!ok || step < 1) throw UsageError(("--at: expected a step >= 1, got '" + v + "'").toStdString());
        o.steps.push_back(step);
    }
    if (p.isSet("free-peak") && !p.isSet("best-cooldown")) throw UsageError("--free-peak: only with --best-cooldown");
    checkPlotFile(p);
    const auto result = orThrow(analysis::predictCurve(o));
    auto bands = analysis::curveBands(result.fitted);
    bands.push_back(result.predicted);
    std::optional<analysis::BestCooldownResult> best;
    if (p.isSet("best-cooldown")) {
        analysis::BestCooldownOptions bo;
        bo.freePeak = p.isSet("free-peak");
        best = analysis::bestCooldown(result.fitted, result.schedule, bo);
        if (!std::isfinite(best->best.final.loss))
            throw UsageError("--best-cooldown: --schedule '" + analysis::scheduleLabel(result.schedule) +
                             "' leaves no steps after its warm-up at a positive peak rate");
        bands.push_back(analysis::scheduleBand(result.fitted, best->best.schedule));
    }
    writePlot(p, bands, plotTitle(result.fitted) + QStringLiteral("; predicted under ") + QString::fromStdString(analysis::scheduleLabel(result.schedule)));
    if (p.isSet("json")) {
        QJsonObject o = analysis::curvePredictionJson(result);
        if (best) o.insert("best_cooldown", analysis::bestCooldownJson(*best, result.fitted.fit.level));
        printJson(o);
        return kExitOk;
    }
    QString text;
    QTextStream out(&text);
    printFit(out, result.fitted);
    out << "schedule " << QString::fromStdString(analysis::scheduleLabel(result.schedule)) << "\n";
    for (const auto& pt : result.points)
        out << "  step " << pt.step << " (lr " << QString::number(pt.lr, 'g', 4) << "): loss " << num(pt.loss.loss) << " [" << num(pt.loss.lower)
            << ", " << num(pt.loss.upper) << "] (" << result.fitted.fit.level * 100 << " %)\n";
    if (best) {
        const auto line = [&](const analysis::CooldownCandidate& c) {
            out << QString::fromStdString(analysis::scheduleLabel(c.schedule)) << ": final loss " << num(c.final.loss) << " [" << num(c.final.lower)
                << ", " << num(c.final.upper) << "]\n";
        };
        out << "best cooldown for " << best->budget.steps << " steps (" << best->evaluations << " schedules evaluated"
            << (p.isSet("free-peak") ? ", peak searched" : ", peak held") << "):\n  ";
        line(best->best);
        out << "best of each decay shape:\n";
        for (const auto& c : best->bestPerDecay) out << "  ", line(c);
        out << "the given schedule:\n  ";
        line(best->given);
    }
    out.flush();
    printText(text);
    return kExitOk;
}

}  // namespace scalex::cli
