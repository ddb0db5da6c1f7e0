// scalex plan: which runs to train next (issue "Plan the next runs").
//   --replay   a finished study replayed run by run: the planner against random and cheapest-first
//              picks of the same budget, scored on the target runs
//   --design   a study from nothing: IsoFLOP budgets and sizes for a study budget, centred on a prior
//              law's N*, with the interval on the exponent and on N*(H) that design would give
//   otherwise  the next runs of a study: candidates (a planned-runs CSV or an N × D grid) ranked by
//              the drop of the target's predictive variance per unit cost, a batch picked greedily
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <cmath>
#include <map>

#include "app/cli/CliSupport.h"
#include "app/cli/LawOptions.h"
#include "app/cli/StudyInput.h"
#include "app/cli/Verbs.h"
#include "app/figures/PlanFigure.h"
#include "app/figures/ReplayCurveFigure.h"
#include "core/analysis/PlanCandidates.h"
#include "core/analysis/PlanReplay.h"
#include "core/analysis/StudyDesign.h"
#include "core/data/RunTableIo.h"

namespace scalex::cli {

using namespace scalex::analysis;

namespace {

// --misfit and --misfit-length: what the planner's ranking assumes beyond the law.
fit::DesignModel designModelOption(const QCommandLineParser& p) {
    fit::DesignModel m;
    if (p.isSet("misfit")) {
        m.misfit = *doubleOption(p, "misfit");
        if (!(*m.misfit >= 0)) throw UsageError("--misfit is a multiple of the residual noise, 0 or more; got " + p.value("misfit").toStdString());
    }
    if (p.isSet("misfit-length")) {
        m.lengthScale = *doubleOption(p, "misfit-length");
        if (!(m.lengthScale > 0)) throw UsageError("--misfit-length is a positive number of decades; got " + p.value("misfit-length").toStdString());
    }
    return m;
}

// --curve and --show name a figure file (or, for --curve, CSV): checked before the study is read,
// so a bad suffix fails at once rather than after minutes of replays.
void checkFigureFile(const QCommandLineParser& p, const QString& option, bool csvToo) {
    if (!p.isSet(option)) return;
    const QString out = p.value(option);
    const QString problem = figures::figureSuffixProblem(out);
    if (problem.isEmpty() || (csvToo && QFileInfo(out).suffix().toLower() == "csv")) return;
    throw UsageError(("--" + option + " " + problem + (csvToo ? " (a figure) or .csv" : "")).toStdString());
}

// A figure for --curve or --show, at --size; an error names the option and the file.
template <typename Write>
void writeFigureOption(const QCommandLineParser& p, const QString& out, const char* option, Write write) {
    figures::FigureStyle style;
    QString error;
    if (p.isSet("size") && !figures::parseFigureSize(p.value("size"), &style, &error)) throw UsageError("--size: " + error.toStdString());
    if (!write(style, &error)) throw UsageError(std::string(option) + " " + out.toStdString() + ": " + error.toStdString());
}

QString fixed(double v, int digits) { return std::isfinite(v) ? QString::number(v, 'f', digits) : QStringLiteral("n/a"); }

int runReplay(const QCommandLineParser& p) {
    checkFigureFile(p, "curve", true);
    const fit::LawDefinition law = lawFromOptions(p);
    PlanReplayOptions options;
    applyLawFitOptions(p, options.fit);
    options.design = designModelOption(p);
    if (!p.isSet("pool")) throw UsageError("--replay needs --pool COND (the runs whose losses the planner may reveal)");
    if (!p.isSet("target")) throw UsageError("--replay needs --target COND (the runs the law is scored on)");
    options.pool = *conditionOptions(p, "pool");
    options.target = *conditionOptions(p, "target");
    if (!p.isSet("budget")) throw UsageError("--replay needs --budget FRACTION (of the pool's total cost, e.g. 0.1)");
    options.budget = *doubleOption(p, "budget");
    if (p.isSet("cost")) options.cost = p.value("cost").toStdString();
    options.seed = static_cast<std::uint64_t>(*intOption(p, "seed", 0));
    const auto strategy = parsePlanStrategy(p.value("strategy").toStdString());
    if (!strategy) throw UsageError(("--strategy expects planner, random or cheapest, got '" + p.value("strategy") + "'").toStdString());
    options.strategy = *strategy;
    if (p.isSet("group")) options.groupColumn = p.value("group").toStdString();
    const QStringList files = p.values("data");
    if (files.isEmpty()) throw UsageError("missing required option --data (the finished study to replay)");
    StudyInput in = loadStudy(files, p);
    fit::FitControl control;
    if (auto t = intOption(p, "threads", 1)) control.threads = static_cast<int>(*t);
    std::optional<ReplayCurves> curves;
    if (p.isSet("curve")) {
        if (p.isSet("strategy")) throw UsageError("--curve replays every strategy; leave out --strategy");
        const auto seeds = p.isSet("seeds") ? static_cast<std::size_t>(*intOption(p, "seeds", 1)) : kReplayCurveRandomSeeds;
        curves = replayCurves(in.table(), in.settings(), law, options, seeds, control);
        if (curves->error) throw UsageError(*curves->error);
        const QString out = p.value("curve");
        if (out.endsWith(".csv", Qt::CaseInsensitive)) {
            writeAtomically(out, QByteArray::fromStdString(replayCurvesCsv(*curves)));
        } else {
            const QString title = p.isSet("title") ? p.value("title") : QStringLiteral("Replay: %1").arg(QString::fromStdString(law.formula));
            writeFigureOption(p, out, "--curve", [&](const figures::FigureStyle& style, QString* error) {
                return figures::writeReplayCurveFigure(*curves, title, out, style, error);
            });
        }
    }
    const PlanReplay r = curves ? curves->planner : replayPlan(in.table(), in.settings(), law, options, control);
    if (r.error) throw UsageError(*r.error);
    if (p.isSet("json")) {
        printJson(toJson(r));
        return kExitOk;
    }
    QString t;
    QTextStream out(&t);
    out << "replay (" << QString::fromStdString(planStrategyName(options.strategy)) << ", budget " << fixed(100 * options.budget, 1)
        << " % of the pool's cost, cost " << QString::fromStdString(r.cost) << ")\n";
    for (const auto& g : r.groups) {
        out << QString::fromStdString(g.name) << ": ";
        if (!g.error.empty()) {
            out << QString::fromStdString(g.error) << "\n";
            continue;
        }
        out << g.poolRuns << " pool runs, " << g.targetRuns << " target runs\n";
        for (const auto& pick : g.picks)
            out << "  " << (pick.initial ? "start " : "pick  ") << QString::fromStdString(pick.run) << "  cost " << QString::number(pick.cost, 'g', 4)
                << "  spent " << fixed(100 * pick.fraction, 2) << " %" << (std::isfinite(pick.r2) ? "  target R^2 " + fixed(pick.r2, 4) : QString())
                << "\n";
    }
    for (const auto& [at, point] : r.checkpoints)
        out << "at " << fixed(100 * at, 0) << " %: spent " << fixed(100 * point.fraction, 2) << " %, " << point.runs << " runs, target R^2 "
            << fixed(point.r2, 4) << ", mean |rel err| " << fixed(100 * point.mape, 2) << " %\n";
    out << "budget spent (" << fixed(100 * r.final.fraction, 2) << " %, " << r.final.runs << " runs): target R^2 " << fixed(r.final.r2, 4)
        << ", mean |rel err| " << fixed(100 * r.final.mape, 2) << " %\n";
    if (!r.skipped.empty()) out << r.skipped.size() << " pool runs skipped (first: " << QString::fromStdString(r.skipped.front()) << ")\n";
    if (curves)
        out << "curve of the target's error against cost (planner, cheapest-first, random over " << curves->randomSeeds << " seeds) written to "
            << p.value("curve") << "\n";
    out.flush();
    printText(t);
    return kExitOk;
}

QString g4(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("n/a"); }

int runCandidates(const QCommandLineParser& p) {
    checkFigureFile(p, "show", false);
    const fit::LawDefinition law = lawFromOptions(p);
    PlanCandidatesOptions options;
    applyLawFitOptions(p, options.fit);
    options.design = designModelOption(p);
    if (!p.isSet("target")) throw UsageError("missing --target 'N=7e9,D=2e12' (a point, repeatable) or a condition on the planned runs");
    for (const QString& v : p.values("target")) {
        const std::string text = v.toStdString();
        // A point gives every name with '=' and a number; anything else is a row condition.
        if (auto point = parseTargetPoint(text)) {
            options.targetPoints.push_back(*point);
        } else if (auto c = parseCondition(text); c && p.isSet("candidates")) {
            options.targetRows.push_back(*c);
        } else {
            throw UsageError("--target '" + text + "': " + point.error().message);
        }
    }
    if (p.isSet("grid-n") || p.isSet("grid-d")) {
        if (p.isSet("candidates")) throw UsageError("give --candidates FILE or --grid-n and --grid-d, not both");
        for (const char* name : {"grid-n", "grid-d"}) {
            if (!p.isSet(name)) throw UsageError(std::string("the grid needs both --grid-n and --grid-d"));
            auto axis = parseGridAxis(p.value(name).toStdString());
            if (!axis) throw UsageError("--" + std::string(name) + " '" + p.value(name).toStdString() + "': " + axis.error().message);
            (std::string(name) == "grid-n" ? options.gridN : options.gridD) = *axis;
        }
    } else if (!p.isSet("candidates")) {
        throw UsageError("missing --candidates FILE.csv (planned runs) or --grid-n LO:HI:K --grid-d LO:HI:K");
    }
    if (p.isSet("cost")) options.cost = p.value("cost").toStdString();
    if (p.isSet("budget")) options.budget = *doubleOption(p, "budget");
    if (p.isSet("pick")) {
        const auto k = *intOption(p, "pick", 1);
        if (k < 1) throw UsageError("--pick: at least one run");
        options.pick = static_cast<std::size_t>(k);
    }
    if (p.isSet("group")) options.groupColumn = p.value("group").toStdString();
    if (p.isSet("simulate")) options.simulate = static_cast<std::size_t>(*intOption(p, "simulate", 2));
    if (p.isSet("seed")) options.seed = static_cast<std::uint64_t>(*intOption(p, "seed", 0));
    const QStringList files = p.values("data");
    if (files.isEmpty()) throw UsageError("missing required option --data (the study's runs the law is fitted on)");
    StudyInput in = loadStudy(files, p);
    std::optional<data::RunTable> planned;
    if (p.isSet("candidates")) {
        data::LoadOptions noLoss;  // planned runs have no loss yet
        noLoss.lossRequired = false;
        auto t = data::loadRunTable(p.value("candidates").toStdString(), noLoss);
        if (!t) throw UsageError("--candidates: " + t.error().toString());
        planned = std::move(*t);
    }
    fit::FitControl control;
    if (auto t = intOption(p, "threads", 1)) control.threads = static_cast<int>(*t);
    const PlanCandidates r = planCandidates(in.table(), in.settings(), law, options, planned ? &*planned : nullptr, control);
    if (r.error) throw UsageError(*r.error);
    if (p.isSet("out")) writeAtomically(p.value("out"), QByteArray::fromStdString(pickedRunsCsv(r)));
    if (p.isSet("show")) {
        const QString title = p.isSet("title") ? p.value("title") : QStringLiteral("Plan: %1").arg(QString::fromStdString(law.formula));
        writeFigureOption(p, p.value("show"), "--show", [&](const figures::FigureStyle& style, QString* error) {
            return figures::writePlanFigure(r, in.table(), in.settings(), title, p.value("show"), style, error);
        });
    }
    if (p.isSet("json")) {
        printJson(toJson(r));
        return kExitOk;
    }
    QString t;
    QTextStream out(&t);
    out << "plan (cost " << QString::fromStdString(r.cost) << (options.budget ? ", budget " + g4(*options.budget) : QString()) << ")\n";
    for (const auto& g : r.groups) {
        out << QString::fromStdString(g.name) << ": ";
        if (!g.error.empty()) {
            out << QString::fromStdString(g.error) << "\n";
            continue;
        }
        out << g.runs << " runs fitted, " << g.candidates << " candidates, " << g.picks.size() << " picked for " << g4(g.spent) << " (misfit allowed for: "
            << g4(g.misfit) << " x the residual noise)\n";
        for (const auto& target : g.targets)
            out << "  target " << QString::fromStdString(target.label) << ": " << QString::fromStdString(r.target) << " " << g4(target.predicted)
                << " +/- " << g4(target.halfWidthBefore) << " (95 %) now, +/- " << g4(target.halfWidthAfter) << " after the batch\n";
        int k = 0;
        for (const auto& pick : g.picks) {
            out << "  " << ++k << ". N " << g4(pick.n) << "  D " << g4(pick.d) << "  cost " << g4(pick.cost) << "  score " << g4(pick.score)
                << "  +/- after " << (pick.halfWidthAfter.empty() ? QString("n/a") : g4(pick.halfWidthAfter.front())) << "\n";
            out << "     why: " << QString::fromStdString(pick.why) << "\n";
            if (!g.rivals.empty()) out << "     separates the rival fits by " << g4(pick.separation) << " residual SDs\n";
        }
        if (g.separating)
            out << "  rival fits: " << QString::fromStdString(g.separating->why) << "\n     the run: N " << g4(g.separating->n) << "  D "
                << g4(g.separating->d) << "  cost " << g4(g.separating->cost) << "\n";
        if (!g.simulated.empty())
            out << "  simulated over " << options.simulate << " seeds (the law drawn from its fit, losses with its noise, refitted; medians):\n";
        for (const auto& b : g.simulated) {
            out << "    " << QString::fromStdString(b.strategy).leftJustified(9) << g4(b.runs) << " runs for " << g4(b.spent);
            if (!b.halfWidth.empty())
                out << ": +/- " << g4(b.halfWidth.front()) << " left, |error| " << g4(b.error.front()) << " [" << g4(b.errorLow.front()) << ", "
                    << g4(b.errorHigh.front()) << "]";
            if (b.failed) out << " (" << b.failed << " refits failed)";
            out << "\n";
        }
    }
    if (!r.skipped.empty()) out << r.skipped.size() << " runs skipped (first: " << QString::fromStdString(r.skipped.front()) << ")\n";
    out.flush();
    printText(t);
    return kExitOk;
}

// --param NAME=VALUE of the design's prior (the same option states bounds for a fit).
std::map<std::string, double> priorValues(const QCommandLineParser& p) {
    std::map<std::string, double> values;
    for (const QString& v : p.values("param")) {
        const auto eq = v.indexOf('=');
        bool ok = false;
        const double x = eq > 0 ? v.mid(eq + 1).toDouble(&ok) : 0.0;
        if (!ok || !std::isfinite(x)) throw UsageError(("--param '" + v + "': with --design, NAME=VALUE (a number)").toStdString());
        values[v.left(eq).trimmed().toStdString()] = x;
    }
    return values;
}

std::vector<double> ladderOption(const QCommandLineParser& p) {
    std::vector<double> ladder;
    for (const QString& item : p.value("ladder").split(',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const double n = item.trimmed().toDouble(&ok);
        if (!ok || !(n > 0) || !std::isfinite(n))
            throw UsageError(("--ladder: '" + item + "' is not a positive number of parameters").toStdString());
        ladder.push_back(n);
    }
    if (ladder.empty()) throw UsageError("--ladder: give sizes separated by commas, e.g. 1e8,2e8,4e8");
    return ladder;
}

QString estimateText(const DesignEstimate& e, int digits) {
    const auto f = [&](double v) { return std::isfinite(v) ? QString::number(v, 'g', digits) : QStringLiteral("n/a"); };
    return f(e.median) + " [" + f(e.lower) + ", " + f(e.upper) + "] (prior " + f(e.prior) + ")";
}

int runDesign(const QCommandLineParser& p) {
    StudyDesignOptions options;
    if (p.isSet("formula")) throw UsageError("--design takes a shipped --law with its values (--param NAME=VALUE), not --formula");
    for (const char* name : {"study-budget", "target-budget"})
        if (!p.isSet(name)) throw UsageError(std::string("--design needs --") + name + " FLOPS");
    options.studyBudget = *doubleOption(p, "study-budget");
    options.targetBudget = *doubleOption(p, "target-budget");
    if (p.isSet("law")) {
        auto prior = shippedDesignPrior(p.value("law").toStdString(), priorValues(p));
        if (!prior) throw UsageError("--law: " + prior.error().message);
        options.prior = std::move(*prior);
    } else {
        if (p.isSet("param")) throw UsageError("--param with --design sets the values of a --law; the paper's prior has its own");
        auto tables = data::loadPaperTables();
        if (!tables) throw UsageError(tables.error().toString());
        auto prior = paperDesignPrior(*tables, p.isSet("family") ? familyOption(p) : accounting::Family::Xlstm);
        if (!prior) throw UsageError(prior.error().message);
        options.prior = std::move(*prior);
    }
    if (p.isSet("ladder")) options.ladder = ladderOption(p);
    if (p.isSet("budgets")) options.budgets = static_cast<std::size_t>(*intOption(p, "budgets", 2));
    if (p.isSet("sizes-per-budget")) options.sizesPerBudget = static_cast<std::size_t>(*intOption(p, "sizes-per-budget", 3));
    if (p.isSet("width")) options.width = *doubleOption(p, "width");
    if (p.isSet("budget-span")) options.budgetSpan = *doubleOption(p, "budget-span");
    if (p.isSet("sigma")) options.sigma = *doubleOption(p, "sigma");
    if (p.isSet("seeds")) options.seeds = static_cast<std::size_t>(*intOption(p, "seeds", 2));
    if (p.isSet("seed")) options.seed = static_cast<std::uint64_t>(*intOption(p, "seed", 0));
    const StudyDesign d = designStudy(options);
    if (d.error) throw UsageError(*d.error);
    if (p.isSet("out")) writeAtomically(p.value("out"), QByteArray::fromStdString(plannedRunsCsv(d)));
    if (p.isSet("json")) {
        printJson(toJson(d));
        return kExitOk;
    }
    QString t;
    QTextStream out(&t);
    out << "design: " << d.runs.size() << " runs in " << d.budgets.size() << " IsoFLOP budgets, cost " << g4(d.cost) << " of " << g4(options.studyBudget)
        << " FLOPs\nprior: " << QString::fromStdString(options.prior.law.name) << ", " << QString::fromStdString(options.prior.source) << "\n";
    for (std::size_t k = 0; k < d.budgets.size(); ++k) {
        out << "  C " << g4(d.budgets[k]) << ": N* (prior) " << g4(d.nOptPrior[k]) << ", sizes";
        for (const auto& r : d.runs)
            if (r.budget == d.budgets[k]) out << " " << g4(r.params);
        out << "\n";
    }
    out << "simulated " << d.simulated << " studies (sigma " << g4(options.sigma) << ", " << d.failed << " without a power law); median ["
        << fixed(100 * options.level, 0) << " % interval]:\n";
    out << "  exponent a of N* ~ C^a: " << estimateText(d.exponentN, 4) << "\n";
    out << "  exponent b of D* ~ C^b: " << estimateText(d.exponentD, 4) << "\n";
    out << "  N*(H = " << g4(options.targetBudget) << "): " << estimateText(d.nOptTarget, 4) << "\n";
    if (p.isSet("out")) out << "planned runs written to " << p.value("out") << " (fill the loss column, then load it as a study)\n";
    out.flush();
    printText(t);
    return kExitOk;
}

}  // namespace

int verbPlan(const QStringList& args) {
    const StudyDesignOptions kDesignDefaults;
    QCommandLineParser p;
    p.setApplicationDescription(
        "Plan the next runs for a law (--formula/--param or --law, as `scalex fit law`).\n"
        "--replay: replay a finished study (--data) run by run. The pool's losses (--pool COND) are revealed only for the runs "
        "picked, the target's (--target COND) only read to score; each group starts from its cheapest runs (free parameters + 1) "
        "and picks while --budget (a fraction of the group's pool cost) allows. Reports the target's R^2 at 1 %, 5 %, 10 % of "
        "the cost and when the budget is spent.\n"
        "Otherwise: fit the law on the study's runs in scope (--data), score each candidate (--candidates FILE.csv of planned runs "
        "with N, D and optional cost columns, or --grid-n/--grid-d) by the expected drop of the target's predictive variance per "
        "unit cost, and pick a batch greedily up to --pick K runs or --budget total cost.\n"
        "--design: a study from nothing. IsoFLOP budgets log-spaced up to what --study-budget allows (each run of a budget "
        "costs 6ND = that budget), sizes per budget centred on the prior's N*(C) (--law NAME with --param NAME=VALUE, else "
        "the paper's L(N,D) of --family, xlstm by default), and the median and 95 % interval of the exponent of N* ~ C^a and "
        "of N*(--target-budget) over simulated studies (the prior's losses plus noise --sigma). --out writes the planned runs.");
    p.addHelpOption();
    p.addOptions({
        {"data", "Run table or .scalex project (repeatable).", "file"},
        {"replay", "Replay a finished study (see above)."},
        {"pool", "The candidate runs: a condition (repeatable: all must hold).", "COND"},
        {"target", "The runs to predict: a condition (repeatable: all must hold); or a point N=7e9,D=2e12 (repeatable).", "COND"},
        {"candidates", "A CSV of planned runs (N, D, optional cost) to pick from.", "file"},
        {"grid-n", "Candidate sizes: LO:HI:K, K log-spaced values.", "LO:HI:K"},
        {"grid-d", "Candidate token counts: LO:HI:K, K log-spaced values.", "LO:HI:K"},
        {"pick", "Runs to pick (default 5, or as many as --budget allows).", "K"},
        {"cost", "A run's cost as an expression over columns (default 6*N*D).", "EXPR"},
        {"budget", "--replay: the fraction of the pool's cost to spend, per group; else the batch's total cost.", "x"},
        {"seed", "Seed of the random picks and the fits' starts.", "K", "1"},
        {"simulate", "Simulate the batch over R seeds before spending: the interval and error it would leave, beside random and "
                     "cheapest-first batches of the same cost.", "R"},
        {"misfit", "The law's misfit the ranking allows for, as a multiple of the residual noise (0: the plain V-optimal "
                   "criterion; default: estimated from the fitted runs, the smaller of what their residuals' likeness between "
                   "neighbours (REML) and the errors of the runs nearest the target, predicted from the others, show).", "x"},
        {"misfit-length", "Decades of N and D over which the law's misfit stays alike.", "decades",
                          QString::number(fit::DesignModel{}.lengthScale)},
        {"strategy", "planner (expected drop of the target's variance per cost), random or cheapest.", "name", "planner"},
        {"group", "One plan per value of this column (default: one per series and context length).", "column"},
        {"threads", "Worker threads (default: every core).", "n"},
        {"json", "Print one JSON object."},
        {"design", "Design an IsoFLOP study from nothing (see above)."},
        {"study-budget", "--design: the study's total compute (FLOPs).", "C"},
        {"target-budget", "--design: the budget H whose N*(H) the study is for (FLOPs).", "H"},
        {"ladder", "--design: the model sizes that can be trained, comma-separated (default: any size).", "N1,N2,..."},
        {"budgets", "--design: IsoFLOP budgets.", "K", QString::number(kDesignDefaults.budgets)},
        {"sizes-per-budget", "--design: model sizes per budget.", "M", QString::number(kDesignDefaults.sizesPerBudget)},
        {"width", "--design: decades of N from the smallest to the largest size of a budget.", "W", QString::number(kDesignDefaults.width)},
        {"budget-span", "--design: decades from the smallest budget to the largest.", "decades", QString::number(kDesignDefaults.budgetSpan)},
        {"sigma", "--design: the noise of a run's loss (standard deviation).", "S", QString::number(kDesignDefaults.sigma)},
        {"seeds", "--design: simulated studies (default " + QString::number(kDesignDefaults.seeds) + "); --curve: random plans (default " +
                      QString::number(kReplayCurveRandomSeeds) + ").", "R"},
        {"curve", "--replay: also replay cheapest-first and random plans (--seeds) and write the target's error against the cost "
                  "spent, per strategy: a figure (.pdf, .svg, .png) or CSV with R^2 too (.csv).", "file"},
        {"show", "Draw the picks in the N-D plane with the study's runs, the target and lines of equal 6ND, each pick with its "
                 "cost and the target's half-width after it: a figure (.pdf, .svg, .png).", "file"},
        {"title", "--curve, --show: the figure's title (default: the law).", "text"},
        {"size", "--curve, --show: the figure's size, e.g. 3.25x2.4in, 16x9cm, single, double (default), slides.", "WxH"},
        {"out", "Write the planned runs as CSV with an empty loss: --design's grid (name, params, tokens, flops, budget), or "
                "the picks (name, the --group column, params, tokens, cost, halfwidth_after); loaded beside the study, the loss "
                "surface view draws them as planned runs.", "file"},
    });
    addLawOptions(p, 32);
    addScopeOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (p.isSet("replay")) return runReplay(p);
    if (p.isSet("design")) return runDesign(p);
    return runCandidates(p);
}

}  // namespace scalex::cli
