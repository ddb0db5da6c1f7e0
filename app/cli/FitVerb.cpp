// scalex fit: the paper's fits on a run table, headless.
//   lnd        parametric loss surface L(N,D) (App. "Details on the Parametric Loss Surface Fit")
//   isoflop    IsoFLOP parabolas and N*(H), D*(H) power laws (Sec. "Compute-Optimal xLSTM Models are Larger")
//   slopes     over-training exponents eta per tokens/param ratio (tab:tokenparam_slopes)
//   pareto     loss-over-compute frontiers per family and their comparison (Fig. 1 left)
//   bootstrap  percentile intervals of any of the above fits' parameters and predictions
//   law        any law typed as a formula (or a shipped one), fitted and scored on held-out runs
//   runtime    inference runtime model (handled by the runtime verbs)
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <cmath>
#include <map>

#include "app/cli/CliSupport.h"
#include "app/cli/LndFromCurves.h"
#include "app/cli/LawOptions.h"
#include "app/cli/StudyInput.h"
#include "app/cli/Verbs.h"
#include "core/analysis/AnalysisJson.h"
#include "core/analysis/BootstrapAnalysis.h"
#include "core/analysis/ContextStudy.h"
#include "core/analysis/IsoFlopTrend.h"
#include "core/analysis/LawAnalysis.h"
#include "core/analysis/LndQueries.h"
#include "core/analysis/LossSurfaceFitSettings.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/VerbJson.h"
#include "core/data/RunTableIo.h"
#include "core/data/Series.h"

namespace scalex::cli {

using namespace scalex::data;
using namespace scalex::fit;
using namespace scalex::analysis;

namespace {

// Options every fit shares: the data and which runs take part.
void addCommonOptions(QCommandLineParser& p) {
    p.addHelpOption();
    p.addOptions({
        {"data", "Run table (CSV, TSV, JSON, JSON Lines, optionally .gz) or .scalex project; may be given more than once.", "file"},
        {"example", "Use the built-in example project (as render does when given no --data)."},
        {"threads", "Worker threads (default: every core).", "n"},
        {"json", "Print one JSON object."},
        {"keep-outliers", "Keep the runs far from their curve (IsoFLOP profile, L(N,D) surface, over-training line) in the fits; "
                          "by default they are left out and listed."},
    });
    addScopeOptions(p);
}

struct Inputs {
    StudyInput study;
    FitControl control;
    const RunTable& table() const { return study.table(); }
    const AnalysisSettings& settings() const { return study.settings(); }
    template <class Change>
    void changeSettings(Change change) {
        AnalysisSettings s = settings();
        change(s);
        study.study.setSettings(s);
    }
};

Inputs readInputs(const QCommandLineParser& p) {
    const QStringList files = p.values("data");
    if (p.isSet("example") && !files.isEmpty()) throw UsageError("--data and --example exclude each other");
    if (files.isEmpty() && !p.isSet("example")) throw UsageError("missing required option --data (the run table), or --example");
    Inputs in{files.isEmpty() ? openStudy(QString(), p) : loadStudy(files, p), {}};
    if (p.isSet("keep-outliers")) in.changeSettings([](AnalysisSettings& s) { s.keepOutliers = true; });
    if (auto t = intOption(p, "threads", 1)) in.control.threads = static_cast<int>(*t);
    return in;
}

[[noreturn]] void noRuns(const Inputs& in) {
    throw UsageError(("no usable runs in " + in.study.files.join(", ") + " match the filters").toStdString());
}

// The analyses of N and D on a study without those columns: one clear error, no numbers.
void requireScale(const Inputs& in, analysis::ScaleNeed need = analysis::ScaleNeed::NAndD) {
    if (auto why = analysis::missingScaleColumns(in.table(), in.settings().scope.filter(), need)) throw UsageError(*why);
}

QString labelOf(const SeriesGroup& g) { return QString::fromStdString(g.label()); }

// The one series and context a bootstrap resamples; several are an error listing them.
SeriesGroup singleGroup(const Inputs& in) {
    const auto groups = seriesGroups(in.table(), in.settings());
    if (groups.empty()) noRuns(in);
    if (groups.size() > 1) {
        QStringList names;
        for (const auto& g : groups) names << labelOf(g);
        throw UsageError(("the runs form " + QString::number(groups.size()) + " series (" + names.join("; ") +
                          "): pick one with --where, --family or --ctx")
                             .toStdString());
    }
    return groups.front();
}

// --budget-range LO HI takes two values, which QCommandLineParser cannot: take it out first.
QStringList takeBudgetRange(QStringList args, std::optional<std::pair<double, double>>& range) {
    const qsizetype i = args.indexOf("--budget-range");
    if (i < 0) return args;
    if (i + 2 >= args.size()) throw UsageError("--budget-range expects two numbers: LO HI");
    bool okLo = false, okHi = false;
    const double lo = args[i + 1].toDouble(&okLo), hi = args[i + 2].toDouble(&okHi);
    if (!okLo || !okHi || !(lo >= 0) || !(hi > lo))
        throw UsageError(("--budget-range expects two numbers LO < HI, got '" + args[i + 1] + " " + args[i + 2] + "'").toStdString());
    range = std::pair{lo, hi};
    args.remove(i, 3);
    return args;
}

std::vector<double> numberList(const QCommandLineParser& p, const QString& name) {
    std::vector<double> out;
    for (const QString& v : p.values(name)) {
        bool ok = false;
        const double x = v.toDouble(&ok);
        if (!ok || !(x > 0)) throw UsageError(("--" + name + " expects a positive number, got '" + v + "'").toStdString());
        out.push_back(x);
    }
    return out;
}

// ---- lnd -----------------------------------------------------------------------------------

// A line of the text output for each run an analysis left out as an outlier.
void printOutliers(const std::vector<FlaggedRun>& flagged, QTextStream& out) {
    for (const auto& f : flagged)
        out << "outlier left out: " << QString::fromStdString(describeRun(*f.run, f.outlier.reason)) << "\n";
}

// How well the surface extrapolates: fitted without the largest model size, predicting its runs.
void lndExtrapolation(LossSurfaceAnalysis& a, const LossSurfaceSettings& s, const FitControl& control,
                             QTextStream& out) {
    checkExtrapolation(a, s, control);
    if (a.extrapolation && !a.extrapolation->note.empty()) {
        out << "  extrapolation: " << QString::fromStdString(a.extrapolation->note) << "\n";
    } else if (a.extrapolation) {
        const auto& ex = *a.extrapolation;
        out << "  extrapolation: fitted without the largest model (" << ex.heldOut.size() << " runs), its loss predicted with mean |error| "
            << QString::number(100 * ex.meanAbsError, 'f', 2) << " %, max " << QString::number(100 * ex.maxAbsError, 'f', 2) << " %\n";
    }
}

int runLnd(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Fit L(N,D) = E + (A N^-alpha + B D^-beta)^gamma: Huber loss on log-loss residuals, "
                                "multi-start L-BFGS from the paper's grid; one fit per series and context length.");
    addCommonOptions(p);
    addLndOptions(p);
    addFromCurvesOptions(p);
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    if (p.isSet("from-curves")) {
        // Predicted checkpoints, beside the measured runs of the one series of --data where given.
        if (!p.isSet("data") && !p.isSet("example")) {
            AnalysisSettings a;
            return runLndFromCurves(p, {}, lndSettings(p, a));
        }
        Inputs in = readInputs(p);
        requireScale(in);
        std::optional<LossSurfaceSettings> settings;
        in.changeSettings([&](AnalysisSettings& a) { settings = lndSettings(p, a); });
        const SeriesGroup g = studySet(in.table(), singleGroup(in), ExperimentSet::TokenParam);
        return runLndFromCurves(p, lossSurfacePoints(in.table(), g.filter).points, *settings);
    }
    if (p.isSet("checkpoints")) throw UsageError(kCheckpointsNeedCurves);
    Inputs in = readInputs(p);
    requireScale(in);
    std::optional<LossSurfaceSettings> settings;  // set from the options (a default would build the paper's grid here)
    in.changeSettings([&](AnalysisSettings& a) { settings = lndSettings(p, a); });
    const LossSurfaceSettings& s = *settings;
    const auto groups = seriesGroups(in.table(), in.settings());
    if (groups.empty()) noRuns(in);
    std::vector<std::pair<SeriesGroup, QJsonObject>> results;
    QString t;
    QTextStream out(&t);
    for (const auto& g : groups) {
        auto a = lossSurfaceAnalysis(in.table(), in.settings(), studySet(in.table(), g, ExperimentSet::TokenParam), s, in.control);
        if (a.error) {
            if (groups.size() == 1) throw UsageError(*a.error);
            results.push_back({g, QJsonObject{{"error", QString::fromStdString(*a.error)}}});
            out << labelOf(g) << ": " << QString::fromStdString(*a.error) << "\n";
            continue;
        }
        const auto& fit = a.fit;
        if (groups.size() > 1) out << labelOf(g) << ":\n";
        printOutliers(a.outliers, out);
        if (!p.isSet("no-extrapolation")) lndExtrapolation(a, s, in.control, out);
        results.push_back({g, lossSurfaceVerbJson(a, s, !p.isSet("no-extrapolation"))});
        out << "L(N,D) fit on " << fit.nPoints << " runs, " << fit.nStarts << " starts (" << fit.nConverged << " converged";
        if (fit.refitFrom > 0) out << "; without the outliers, refitted from its " << fit.refitFrom << " optima";
        out << "), " << QString::number(fit.seconds, 'f', 2) << " s\n";
        out << "  log A = " << fit.best.logA << ", log B = " << fit.best.logB << ", log E = " << fit.best.logE << "\n";
        out << "  alpha = " << fit.best.alpha << ", beta = " << fit.best.beta << ", gamma = " << fit.best.gamma << "\n";
        out << "  objective = " << QString::number(fit.objective, 'g', 8) << ", R^2 = " << fit.quality.r2 << "\n";
        for (const auto& w : fit.warnings) out << "  warning: " << QString::fromStdString(w) << "\n";
    }
    out.flush();
    if (p.isSet("json")) printJson(seriesJson(results));
    else printText(t);
    return kExitOk;
}

// ---- isoflop -------------------------------------------------------------------------------

int runIsoFlop(const QStringList& rawArgs) {
    std::optional<std::pair<double, double>> range;
    const QStringList args = takeBudgetRange(rawArgs, range);
    QCommandLineParser p;
    p.setApplicationDescription("IsoFLOP profiles: parabolas of loss over log10 N and log10 D per budget, then "
                                "N*(H) = A' H^a and D*(H) = B' H^b. --budget-range LO HI limits the power laws to "
                                "budgets whose mean compute lies in [LO, HI].");
    addCommonOptions(p);
    p.addOptions({
        {"budgets", "Nominal budgets (repeatable; default: the study's, from its budget column, its run names or clusters of C; `check` shows them). "
                    "With --from-curves: comma-separated too, each model's checkpoint predicted at D = H/(6N).", "H"},
        {"tolerance", "A run belongs to budget B when |C - B| < tolerance B.", "x", "0.1"},
        {"at-budget", "Budget H for N*(T), D*(T) across context lengths.", "H", "1e20"},
    });
    addFromCurvesOptions(p, false);
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    IsoFlopSettings s;
    s.tolerance = *doubleOption(p, "tolerance");
    if (!(s.tolerance > 0 && s.tolerance < 1)) throw UsageError(("--tolerance must lie in (0, 1), got " + p.value("tolerance")).toStdString());
    if (p.isSet("from-curves")) {
        // Predicted checkpoints at --budgets, beside the runs of the one series of --data where given.
        if (!p.isSet("data") && !p.isSet("example")) return runIsoFlopFromCurves(p, {}, s);
        Inputs in = readInputs(p);
        requireScale(in);
        const SeriesGroup g = studySet(in.table(), singleGroup(in), ExperimentSet::IsoFlop);
        return runIsoFlopFromCurves(p, isoFlopRuns(in.table(), g.filter).points, s);
    }
    if (p.isSet("budgets")) s.budgets = numberList(p, "budgets");
    const double atBudget = *doubleOption(p, "at-budget");
    Inputs in = readInputs(p);
    requireScale(in);
    if (range) in.changeSettings([&](AnalysisSettings& s) { s.budgetRange = range; });
    const auto groups = seriesGroups(in.table(), in.settings());
    std::vector<IsoFlopAnalysis> analyses;
    for (const auto& g : groups) analyses.push_back(isoFlopAnalysis(in.table(), in.settings(), studySet(in.table(), g, ExperimentSet::IsoFlop), s, p.isSet("budgets")));
    if (std::none_of(analyses.begin(), analyses.end(), [](const auto& a) { return !a.runs.empty(); })) noRuns(in);

    QString t;
    QTextStream out(&t);
    for (const auto& a : analyses) {
        printOutliers(a.outliers, out);
        if (analyses.size() > 1) out << labelOf(a.group) << ":\n";
        for (const auto& pr : a.result.profiles)
            out << "budget " << pr.budget << ": " << pr.nRuns << " runs, C = " << pr.flopsMean << ", N* = " << pr.nOpt
                << ", D* = " << pr.dOpt << ", L = " << pr.lossAtNOpt << (pr.inPowerLaw ? "" : " (not in the power law)") << "\n";
        if (a.result.nOptLaw && a.result.dOptLaw)
            out << "N*(H) = " << a.result.nOptLaw->coefficient << " H^" << a.result.nOptLaw->exponent << ", D*(H) = "
                << a.result.dOptLaw->coefficient << " H^" << a.result.dOptLaw->exponent << "\n";
        for (const auto& w : a.result.warnings) out << "warning: " << QString::fromStdString(w) << "\n";
    }
    // A series trained at several context lengths: the optimum at one budget across them.
    for (const auto& trend : isoFlopContextTrends(analyses, atBudget)) {
        out << QString::fromStdString(seriesLabel(trend.series)) << " across context lengths:\n";
        for (const auto& c : trend.trend.optima)
            out << "  T = " << c.context << ": N*(" << atBudget << ") = " << c.nOpt << ", D* = " << c.dOpt << "\n";
    }
    out.flush();
    if (p.isSet("json")) printJson(isoFlopVerbJson(analyses, atBudget));
    else printText(t);
    return kExitOk;
}

// ---- slopes --------------------------------------------------------------------------------

// Each ratio group's line fitted without its largest-compute run, as text.
void printSlopesExtrapolation(const SlopeAnalysis& a, QTextStream& out) {
    for (const auto& pr : a.extrapolation)
        out << "  M = " << pr.ratio << ": fitted without its largest-compute run, predicts its loss with error "
            << QString::number(100 * pr.error, 'f', 2) << " %\n";
}

void addSlopeOptions(QCommandLineParser& p) {
    p.addOptions({
        {"ratios", "Nominal tokens/param ratios (repeatable; default 22 44 110 220 550 1100 2200).", "M"},
        {"ratio-tolerance", "A run belongs to ratio m when |M - m| < tolerance m.", "x", "0.18"},
        {"min-runs", "Fewest runs for a fitted exponent.", "n", "3"},
    });
}

SlopeSettings slopeSettings(const QCommandLineParser& p) {
    SlopeSettings s;
    if (p.isSet("ratios")) s.ratios = numberList(p, "ratios");
    s.tolerance = *doubleOption(p, "ratio-tolerance");
    if (!(s.tolerance > 0 && s.tolerance < 1)) throw UsageError(("--ratio-tolerance must lie in (0, 1), got " + p.value("ratio-tolerance")).toStdString());
    s.minRuns = static_cast<int>(*intOption(p, "min-runs", 2));
    return s;
}

int runSlopes(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Over-training exponents: L(C) = lambda C^-eta per tokens/param ratio M, per series and context length.");
    addCommonOptions(p);
    addSlopeOptions(p);
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    const auto s = slopeSettings(p);
    Inputs in = readInputs(p);
    requireScale(in);
    const auto analyses = slopeAnalyses(in.table(), in.settings(), s);
    if (analyses.empty()) noRuns(in);
    std::vector<std::pair<SeriesGroup, QJsonObject>> results;
    QString t;
    QTextStream out(&t);
    for (const auto& a : analyses) {
        out << labelOf(a.group) << ":\n";
        printOutliers(a.outliers, out);
        printSlopesExtrapolation(a, out);
        results.push_back({a.group, slopeVerbJson(a)});
        for (const auto& grp : a.result.groups)
            out << "  M = " << grp.ratio << ": "
                << (grp.fitted ? QString::number(grp.runs.size()) + " runs, eta = " + QString::number(grp.eta, 'f', 4)
                               : QString::fromStdString(grp.note))
                << "\n";
    }
    out.flush();
    if (p.isSet("json")) printJson(seriesJson(results));
    else printText(t);
    return kExitOk;
}

// ---- context -------------------------------------------------------------------------------

int runContext(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Compute-optimal N*, D* across context lengths: each family's L(N,D) with its FLOPs recounted at every "
                                "context T, its IsoFLOP runs recounted at T, and N*, D* at a budget over T (tab:context_optima).");
    addCommonOptions(p);
    const ContextOptions defaults;
    p.addOptions({
        {"context", QStringLiteral("Context length T of N*(H) and of the recounted law (default %1).").arg(defaults.context), "T"},
        {"budget", QStringLiteral("Training budget H of N*, D* over the context lengths (default %1).").arg(defaults.budget), "H"},
    });
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    ContextOptions options;
    if (auto t = doubleOption(p, "context")) options.context = *t;
    if (auto h = doubleOption(p, "budget")) options.budget = *h;
    if (!(options.context > 0)) throw UsageError(("--context must be a positive number of tokens, got " + p.value("context")).toStdString());
    if (!(options.budget > 0)) throw UsageError(("--budget must be a positive number of FLOPs, got " + p.value("budget")).toStdString());
    Inputs in = readInputs(p);
    requireScale(in);
    const ContextResult r = contextAnalysis(in.table(), in.settings(), contextRequest(in.study.study, options), in.control);
    if (const std::string why = contextProblem(r); !why.empty()) throw UsageError(why);
    QString t;
    QTextStream out(&t);
    for (const auto& a : r.answer.series) {
        out << QString::fromStdString(a.name) << ": at T = " << options.context << ", H = " << options.budget << ": N* = "
            << QString::fromStdString(formatCount(a.sweep.here.params)) << ", D* = " << QString::fromStdString(formatCount(a.sweep.here.tokens)) << "\n";
    }
    out.flush();
    if (p.isSet("json")) printJson(contextVerbJson(r, options));
    else printText(t);
    return kExitOk;
}

// ---- pareto --------------------------------------------------------------------------------

int runPareto(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Pareto frontiers of loss over compute per series and context length; for two series "
                                "(the study's xLSTM and Transformer, else the first two at one context), the compute "
                                "ratio at equal loss and the loss gap at equal compute.");
    addCommonOptions(p);
    p.addOptions({{"samples", "Samples of the comparison over the frontiers' overlap.", "n", "50"},
                  {"resamples", "Bootstrap resamples for the comparison's 95 % intervals (0: none).", "n", "1000"}});
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    const int samples = static_cast<int>(*intOption(p, "samples", 2));
    const int resamples = static_cast<int>(*intOption(p, "resamples", 0));
    Inputs in = readInputs(p);
    requireScale(in, analysis::ScaleNeed::Compute);
    const auto analyses = paretoAnalyses(in.table(), in.settings());
    if (analyses.empty()) noRuns(in);
    QString t;
    QTextStream out(&t);
    for (const auto& a : analyses)
        out << labelOf(a.group) << ": " << a.frontier.size() << " of " << a.points.size() << " runs on the frontier\n";
    BootstrapSettings b;
    b.resamples = resamples;
    const auto compared = compareSeries(analyses, b, samples, in.control);
    if (compared) {
        const auto& A = analyses[compared->a];
        const auto& B = analyses[compared->b];
        const auto& cmp = compared->comparison;
        if (cmp.overlap) {
            if (resamples > 0)
                for (const auto& g : compared->intervals.intervals)
                    if (g.name == "geomean_compute_ratio")
                        out << "  geometric-mean compute ratio " << cmp.geomeanComputeRatio << ", 95 % [" << g.lower << ", " << g.upper
                            << "] (" << resamples << " resamples)\n";
            out << labelOf(A.group) << " vs " << labelOf(B.group) << ": loss gap " << cmp.minLossGap << " to " << cmp.maxLossGap
                << " at equal compute; " << QString::fromStdString(seriesLabel(B.group.series)) << " needs " << cmp.minComputeRatio
                << " to " << cmp.maxComputeRatio << " x the compute at equal loss\n";
        }
    }
    out.flush();
    if (p.isSet("json")) printJson(paretoVerbJson(analyses, compared, resamples > 0));
    else printText(t);
    return kExitOk;
}

// ---- bootstrap -----------------------------------------------------------------------------

int runBootstrap(const QStringList& rawArgs) {
    std::optional<std::pair<double, double>> range;
    const QStringList args = takeBudgetRange(rawArgs, range);
    QCommandLineParser p;
    p.setApplicationDescription("Bootstrap over runs: percentile intervals of a fit's parameters and predictions.\n"
                                "--of lnd: runs resampled, each replicate refitted from the full fit's best starts.\n"
                                "--of isoflop: runs resampled within each budget (accepts --budget-range LO HI).\n"
                                "--of slopes: runs resampled within each tokens/param ratio.");
    addCommonOptions(p);
    addLndOptions(p);
    addSlopeOptions(p);
    p.addOptions({
        {"of", "Which fit: lnd, isoflop or slopes.", "fit"},
        {"resamples", "Bootstrap replicates.", "n", "1000"},
        {"seed", "Seed; the result depends only on it, not on the thread count.", "n", "20250601"},
        {"level", "Central interval level.", "x", "0.95"},
        {"at", "lnd: a point N,D at which to report the loss (repeatable).", "N,D"},
        {"at-budget", "isoflop: a budget H at which to report N*, D* (repeatable).", "H"},
    });
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    const QString of = p.value("of");
    if (of.isEmpty()) throw UsageError("missing required option --of (lnd, isoflop or slopes)");
    if (of != "lnd" && of != "isoflop" && of != "slopes")
        throw UsageError(("--of expects lnd, isoflop or slopes, got '" + of + "'").toStdString());
    BootstrapSettings b;
    b.resamples = static_cast<int>(*intOption(p, "resamples", 1));
    b.seed = static_cast<std::uint64_t>(*intOption(p, "seed", 0));
    b.level = *doubleOption(p, "level");
    if (!(b.level > 0 && b.level < 1)) throw UsageError(("--level must lie in (0, 1), got " + p.value("level")).toStdString());
    Inputs in = readInputs(p);
    requireScale(in);
    std::optional<BootstrapResult> result;
    if (of == "lnd") {
        std::optional<LossSurfaceSettings> s;
        in.changeSettings([&](AnalysisSettings& a) { s = lndSettings(p, a); });
        std::vector<SurfaceQuery> queries;
        for (const QString& v : p.values("at")) {
            const QStringList nd = v.split(',');
            bool okN = false, okD = false;
            const double n = nd.size() == 2 ? nd[0].toDouble(&okN) : 0, d = nd.size() == 2 ? nd[1].toDouble(&okD) : 0;
            if (!okN || !okD || !(n > 0) || !(d > 0)) throw UsageError(("--at expects N,D (two positive numbers), got '" + v + "'").toStdString());
            queries.push_back({n, d});
        }
        result = lossSurfaceBootstrap(in.table(), singleGroup(in).filter, *s, queries, b, in.control);
    } else if (of == "isoflop") {
        if (range) in.changeSettings([&](AnalysisSettings& s) { s.budgetRange = range; });
        result = isoFlopBootstrap(in.table(), in.settings(), singleGroup(in).filter, numberList(p, "at-budget"), b, in.control);
    } else {
        const RunFilter group = singleGroup(in).filter;
        result = slopeBootstrap(in.table(), group, slopeSettings(p), b, in.control);
    }
    if (!result) noRuns(in);
    if (p.isSet("json")) {
        QJsonObject o = toJson(*result, b);
        o.insert("of", of);
        printJson(o);
    } else {
        QString t;
        QTextStream out(&t);
        out << result->nResamples << " replicates, " << b.level * 100 << " % intervals\n";
        for (const auto& i : result->intervals)
            out << "  " << QString::fromStdString(i.name) << " = " << i.estimate << "  [" << i.lower << ", " << i.upper << "]\n";
        out.flush();
        printText(t);
    }
    return kExitOk;
}


// ---- law -----------------------------------------------------------------------------------

void printLawList(bool json) {
    if (json) printJson(QJsonObject{{"laws", shippedLawsJson()}});
    else printText(QString::fromStdString(shippedLawsText()));
}

QString percent(double v) { return std::isfinite(v) ? QString::number(100 * v, 'f', 2) + " %" : QStringLiteral("n/a"); }

int runLaw(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Fit any law to the runs: --formula 'L = E + A/N^alpha + B/D^beta' (or the expression alone, for the study's loss) "
        "with --param NAME=LO:HI[@START] for each parameter; other names are columns as spelled in the file (and N, D, C, "
        "U, epochs). Or --law NAME for a shipped law (--list). --train/--test COND fit on some runs and score the "
        "predictions of the others (either alone: the complement); --holdout FILE scores the rows of another file.");
    addCommonOptions(p);
    addLawOptions(p);
    p.addOptions({
        {"list", "List the shipped laws."},
        {"group", "One fit per value of this column (default: one per series and context length).", "column"},
        {"shared", "Parameters with one value for every group, fitted at once (NAME[,NAME...]; repeatable).", "names"},
        {"train", "Fit on the runs meeting this condition (repeatable: all must hold).", "COND"},
        {"test", "Score the runs meeting this condition (repeatable: all must hold).", "COND"},
        {"holdout", "Score the rows of this file (same columns; e.g. a benchmark's test.csv): predicted, never fitted; R² pooled over groups and per group.", "file"},
        {"leave-one-out", "Hold out each value of this column in turn (e.g. isoflop_bucket), refit on the others, score the held-out runs.", "column"},
        {"resamples", "Bootstrap replicates of the held-out prediction intervals (0: none).", "n", "50"},
        {"seed", "Seed of the starts and the bootstrap.", "n", "20250601"},
        {"at", "The loss the law predicts at a point, every variable of the law given (repeatable), e.g. 'N=7e9,D=2e12'.", "NAME=VALUE,..."},
        {"optimal-at", "N*(C), D*(C) and the loss at the optimum for compute C = 6ND (repeatable; a law in N and D).", "C"},
        {"budget-for-loss", "The compute C = 6ND at which the optimum reaches this loss, with N* and D* (repeatable).", "L"},
        {"interval", "Intervals of the queries: bootstrap (refit on resampled runs, --resamples) or curvature (at the optimum).",
         "bootstrap|curvature", "bootstrap"},
        {"level", "Central level of the queries' intervals.", "x", "0.95"},
    });
    parseOrThrow(p, args);
    if (p.isSet("help")) {
        printText(p.helpText());
        return kExitOk;
    }
    if (p.isSet("list")) {
        printLawList(p.isSet("json"));
        return kExitOk;
    }
    const LawDefinition law = lawFromOptions(p);
    LawFitOptions options;
    applyLawFitOptions(p, options.fit);
    options.resamples = static_cast<int>(*intOption(p, "resamples", 0));
    options.seed = static_cast<std::uint64_t>(*intOption(p, "seed", 0));
    options.fit.seed = options.seed;
    options.train = conditionOptions(p, "train");
    options.test = conditionOptions(p, "test");
    if (p.isSet("group")) options.groupColumn = p.value("group").toStdString();
    if (p.isSet("leave-one-out")) options.leaveOneOut = p.value("leave-one-out").toStdString();
    for (const QString& v : p.values("shared"))
        for (const QString& name : v.split(',', Qt::SkipEmptyParts)) options.shared.push_back(name.trimmed().toStdString());
    for (const QString& v : p.values("at")) {
        auto spec = parseLawPoint(v.toStdString());
        if (const auto* bad = std::get_if<std::string>(&spec)) throw UsageError("--at: " + *bad);
        options.queries.push_back(std::get<LawQuerySpec>(spec));
    }
    auto valueQueries = [&](const char* name, LawQueryKind kind) {
        for (const QString& v : p.values(name)) {
            bool ok = false;
            const double x = v.toDouble(&ok);
            if (!ok || !std::isfinite(x)) throw UsageError("--" + std::string(name) + ": not a number: '" + v.toStdString() + "'");
            options.queries.push_back({kind, {}, x});
        }
    };
    valueQueries("optimal-at", LawQueryKind::OptimalAt);
    valueQueries("budget-for-loss", LawQueryKind::BudgetForLoss);
    const QString interval = p.value("interval");
    if (interval == "curvature") options.interval = LawIntervalMethod::Curvature;
    else if (interval != "bootstrap") throw UsageError("--interval: expected bootstrap or curvature, got '" + interval.toStdString() + "'");
    options.level = *doubleOption(p, "level");
    Inputs in = readInputs(p);
    if (p.isSet("holdout")) {
        // Its tables after the study's: the runs from this index on are the held-out ones.
        options.heldOutFrom = in.table().runs.size();
        const StudyInput heldOut = loadStudy({p.value("holdout")}, p);
        for (const auto& t : heldOut.study.loaded().tables) in.study.study.addRuns(t.table, t.name);
    }
    const LawAnalysis a = fitLawAnalysis(in.study.study, law, options, in.control);
    if (a.error) throw UsageError(*a.error);
    if (p.isSet("json")) {
        printJson(toJson(a));
        return kExitOk;
    }
    QString t;
    QTextStream out(&t);
    out << "law: " << QString::fromStdString(lawSummary(a.law)) << "\n";
    for (const auto& g : a.groups) {
        out << QString::fromStdString(g.name) << ": ";
        if (!g.error.empty()) {
            out << QString::fromStdString(g.error) << "\n";
            continue;
        }
        out << g.nTrain << " runs fitted, " << g.fit.nStarts << " starts (" << g.fit.nConverged << " converged, " << g.fit.nNearBest
            << " at the best), " << QString::number(g.fit.seconds, 'f', 2) << " s" << (g.fit.projected ? ", variable projection" : "")
            << (g.fit.sharedParameters.empty() ? "" : ", fitted with every group") << "\n";
        out << "  objective = " << QString::number(g.fit.objective, 'g', 8) << ", R^2 = " << QString::number(g.quality.r2, 'f', 5)
            << ", AIC = " << QString::number(g.quality.aic, 'f', 2) << ", BIC = " << QString::number(g.quality.bic, 'f', 2) << "\n";
        for (std::size_t k = 0; k < g.fit.params.size(); ++k)
            out << "  " << QString::fromStdString(a.law.parameters[k].name) << " = " << QString::number(g.fit.params[k], 'g', 8) << "\n";
        if (g.test)
            out << "  held out: " << g.nTest << " runs, R^2 = " << QString::number(g.test->r2, 'f', 4) << ", mean |rel err| = "
                << percent(g.test->mape) << ", max = " << percent(g.test->maxRelError)
                << (g.fit.doubt.empty() ? "" : " (from a doubtful optimum: see the warning)") << "\n";
        for (const auto& pr : g.predictions)
            out << "    " << QString::fromStdString(pr.label) << (pr.fold.empty() ? "" : " (" + QString::fromStdString(pr.fold) + " held out)")
                << ": observed " << pr.observed << ", predicted " << pr.predicted
                << (std::isfinite(pr.lower) ? " [" + QString::number(pr.lower) + ", " + QString::number(pr.upper) + "]" : QString()) << "\n";
        for (const auto& query : g.queries) {
            out << "  " << QString::fromStdString(describeLawQuery(query.spec)) << ":";
            for (std::size_t j = 0; j < query.values.size(); ++j) {
                out << (j ? "," : "") << " " << QString::fromStdString(query.outputs[j]) << " = " << QString::number(query.values[j], 'g', 6);
                if (std::isfinite(query.lower[j]))
                    out << " [" << QString::number(query.lower[j], 'g', 6) << ", " << QString::number(query.upper[j], 'g', 6) << "]";
            }
            out << "  (" << a.level * 100 << " % by " << QString::fromStdString(intervalMethodName(a.interval))
                << (a.interval == LawIntervalMethod::Bootstrap ? ", " + QString::number(g.queryResamples) + " resamples" : QString()) << ")\n";
        }
        for (const auto& e : g.foldErrors) out << "  not scored: " << QString::fromStdString(e) << "\n";
        for (const auto& w : g.fit.warnings) out << "  warning: " << QString::fromStdString(w) << "\n";
    }
    if (a.test)
        out << "held out (pooled): " << a.test->n << " runs, R^2 = " << QString::number(a.test->r2, 'f', 4) << ", mean |rel err| = "
            << percent(a.test->mape) << ", max = " << percent(a.test->maxRelError)
            << (analysis::lawAnalysisDoubt(a).empty() ? "" : " (from a doubtful optimum: see the warnings)") << "\n";
    if (a.heldOutOutsideScope > 0)
        out << "--holdout: " << a.heldOutOutsideScope << " of " << a.heldOutRows
            << " rows are outside the scope (not the best of their sweep, --where, ...) and not scored (--all-sweep-runs takes a "
               "sweep's runs in)\n";
    if (a.everySweepRun)
        out << "every run of the sweeps fitted: the law reads a knob the sweeps tune (" << QString::fromStdString([&] {
                   std::string v;
                   for (const auto& x : a.variables) v += (v.empty() ? "" : ", ") + x;
                   return v;
               }()) << ")\n";
    if (!a.skipped.empty()) out << a.skipped.size() << " runs skipped (first: " << QString::fromStdString(a.skipped.front()) << ")\n";
    out.flush();
    printText(t);
    return kExitOk;
}

}  // namespace

int verbFit(const QStringList& args) {
    const QString usage = "expected `scalex fit lnd|isoflop|slopes|pareto|context|bootstrap|law|runtime|curves [options]`";
    if (args.size() < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help") {
        if (args.size() >= 2) {
            printText("Usage: scalex fit <lnd|isoflop|slopes|pareto|context|bootstrap|law|runtime|curves> [options]\n"
                      "  lnd        parametric loss surface L(N,D)\n"
                      "  isoflop    IsoFLOP parabolas and N*(H), D*(H) power laws\n"
                      "  slopes     over-training exponents eta per tokens/param ratio\n"
                      "  pareto     loss-over-compute frontiers and their comparison\n"
                      "  context    compute-optimal N*, D* across context lengths\n"
                      "  bootstrap  percentile intervals of a fit (--of lnd|isoflop|slopes)\n"
                      "  law        any law as a formula (or a shipped one), scored on held-out runs\n"
                      "  runtime    inference runtime model\n"
                      "  curves     a schedule-aware law of loss curves (mpl, lra, power), scored on held-out curves\n"
                      "`scalex fit <name> --help` lists a fit's options.\n");
            return kExitOk;
        }
        throw UsageError(usage.toStdString());
    }
    const QString sub = args[1];
    const QStringList rest = args.mid(1);  // the sub-verb takes the verb's place
    if (sub == "lnd") return runLnd(rest);
    if (sub == "isoflop") return runIsoFlop(rest);
    if (sub == "slopes") return runSlopes(rest);
    if (sub == "pareto") return runPareto(rest);
    if (sub == "context") return runContext(rest);
    if (sub == "bootstrap") return runBootstrap(rest);
    if (sub == "law") return runLaw(rest);
    if (sub == "runtime") return runFitRuntime(rest);
    if (sub == "curves") return runFitCurves(rest);
    throw UsageError(("unknown fit '" + sub + "' (" + usage + ")").toStdString());
}

}  // namespace scalex::cli
