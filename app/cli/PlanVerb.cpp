// scalex plan: which runs to train next (issue "Plan the next runs").
//   --replay   a finished study replayed run by run: the planner against random and cheapest-first
//              picks of the same budget, scored on the target runs
//   otherwise  the next runs of a study: candidates (a planned-runs CSV or an N × D grid) ranked by
//              the drop of the target's predictive variance per unit cost, a batch picked greedily
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <cmath>

#include "app/cli/CliSupport.h"
#include "app/cli/LawOptions.h"
#include "app/cli/StudyInput.h"
#include "app/cli/Verbs.h"
#include "core/analysis/PlanCandidates.h"
#include "core/analysis/PlanReplay.h"
#include "core/data/RunTableIo.h"

namespace scalex::cli {

using namespace scalex::analysis;

namespace {

QString fixed(double v, int digits) { return std::isfinite(v) ? QString::number(v, 'f', digits) : QStringLiteral("n/a"); }

int runReplay(const QCommandLineParser& p) {
    const fit::LawDefinition law = lawFromOptions(p);
    PlanReplayOptions options;
    applyLawFitOptions(p, options.fit);
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
    const PlanReplay r = replayPlan(in.table(), in.settings(), law, options, control);
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
    out.flush();
    printText(t);
    return kExitOk;
}

QString g4(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("n/a"); }

int runCandidates(const QCommandLineParser& p) {
    const fit::LawDefinition law = lawFromOptions(p);
    PlanCandidatesOptions options;
    applyLawFitOptions(p, options.fit);
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
        out << g.runs << " runs fitted, " << g.candidates << " candidates, " << g.picks.size() << " picked for " << g4(g.spent) << "\n";
        for (const auto& target : g.targets)
            out << "  target " << QString::fromStdString(target.label) << ": " << QString::fromStdString(r.target) << " " << g4(target.predicted)
                << " +/- " << g4(target.halfWidthBefore) << " (95 %) now, +/- " << g4(target.halfWidthAfter) << " after the batch\n";
        int k = 0;
        for (const auto& pick : g.picks) {
            out << "  " << ++k << ". N " << g4(pick.n) << "  D " << g4(pick.d) << "  cost " << g4(pick.cost) << "  score " << g4(pick.score)
                << "  +/- after " << (pick.halfWidthAfter.empty() ? QString("n/a") : g4(pick.halfWidthAfter.front())) << "\n";
            out << "     why: " << QString::fromStdString(pick.why) << "\n";
        }
    }
    if (!r.skipped.empty()) out << r.skipped.size() << " runs skipped (first: " << QString::fromStdString(r.skipped.front()) << ")\n";
    out.flush();
    printText(t);
    return kExitOk;
}

}  // namespace

int verbPlan(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Plan the next runs for a law (--formula/--param or --law, as `scalex fit law`).\n"
        "--replay: replay a finished study (--data) run by run. The pool's losses (--pool COND) are revealed only for the runs "
        "picked, the target's (--target COND) only read to score; each group starts from its cheapest runs (free parameters + 1) "
        "and picks while --budget (a fraction of the group's pool cost) allows. Reports the target's R^2 at 1 %, 5 %, 10 % of "
        "the cost and when the budget is spent.\n"
        "Otherwise: fit the law on the study's runs in scope (--data), score each candidate (--candidates FILE.csv of planned runs "
        "with N, D and optional cost columns, or --grid-n/--grid-d) by the expected drop of the target's predictive variance per "
        "unit cost, and pick a batch greedily up to --pick K runs or --budget total cost.");
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
        {"strategy", "planner (expected drop of the target's variance per cost), random or cheapest.", "name", "planner"},
        {"group", "One plan per value of this column (default: one per series and context length).", "column"},
        {"threads", "Worker threads (default: every core).", "n"},
        {"json", "Print one JSON object."},
    });
    addLawOptions(p, 32);
    addScopeOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (p.isSet("replay")) return runReplay(p);
    return runCandidates(p);
}

}  // namespace scalex::cli
