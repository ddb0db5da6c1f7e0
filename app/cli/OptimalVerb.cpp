// scalex predict optimal: the compute-optimal model of a budget, a model size or a target loss for
// each series of a study, by both of the paper's methods fitted to its own runs, why they differ,
// and the lifetime optimum once inference tokens are counted; the paper's models on the paper's
// study or as a reference. The numbers are the Compute-optimal view's (analysis::optimalInputs,
// analysis::answerOptimalQuery).
#include <QFileInfo>
#include <QJsonArray>
#include <QTextStream>
#include <algorithm>
#include <cmath>

#include "app/cli/CliSupport.h"
#include "app/cli/StudyInput.h"
#include "app/cli/Verbs.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/OptimalInputs.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/VerbJson.h"
#include "core/data/RunTable.h"
#include "core/data/SpecJson.h"

namespace scalex::cli {

int predictOptimal(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "The compute-optimal N* and D* for a training budget, a model size or a target loss, for each series of a study "
        "(each series and context length apart) by the loss surface L(N,D) fitted to its runs and by the IsoFLOP power "
        "laws fitted to its IsoFLOP profiles, with 95 % bootstrap intervals; why the two differ; and, with "
        "--inference-tokens, the model that reaches the same loss for the least training plus inference compute. A series "
        "that cannot answer (no IsoFLOP law, too few runs for a surface) says why. The paper's models (its fitted surfaces "
        "with the exact FLOP count at --context, its IsoFLOP laws) answer on the paper's study, the default without --data, "
        "and beside any other with --reference paper.");
    p.addHelpOption();
    p.addOptions({
        {"data", "Run table (CSV, TSV, JSON, JSON Lines, optionally .gz) or .scalex project; may be given more than once "
                 "(default: the built-in example, the paper's study).", "file"},
        {"budget", "Training budget H in FLOPs (e.g. 1e22).", "flops"},
        {"params", "Model size N: the budget at which it is compute-optimal.", "n"},
        {"loss", "Target loss: the cheapest budget whose optimum reaches it.", "loss"},
        {"context", "Training context length T at which the paper's models count FLOPs.", "tokens", "8192"},
        {"method", "surface, laws or both.", "method", "both"},
        {"reference", "paper: also the paper's Transformer and xLSTM; none: the study's series alone (default: paper for "
                      "the paper's study, none for any other).", "paper|none"},
        {"inference-tokens", "Tokens the model serves over its life (each costs a forward pass, c(N)/3).", "tokens", "0"},
        {"huber-delta", "Huber delta of the L(N,D) fits, and which of the paper's loss surfaces (Tab. lnd_fit_params) "
                        "(default: the project's, else 0.001).", "delta"},
        {"ladder", "A model file (Scalex's spec JSON or a Hugging Face config.json) whose architecture, sized to any N "
                   "(its aspect ratio, head widths and FFN ratio kept), answers with its own FLOPs per token c_T(N) on the "
                   "paper's loss surface of --ladder-surface; may be given more than once.", "file"},
        {"ladder-surface", "The paper's loss surface the ladders answer on: transformer (default) or xlstm.", "family"},
        {"resamples", "Bootstrap resamples for the intervals of the IsoFLOP laws (0: none).", "n", "200"},
        {"keep-outliers", "Keep the runs far from their IsoFLOP profile or L(N,D) surface in the fits."},
        {"threads", "Worker threads (default: every core).", "n"},
        {"json", "Print one JSON object."},
    });
    addScopeOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    int given = 0;
    analysis::OptimalGiven kind = analysis::OptimalGiven::Budget;
    QString givenName;
    for (const auto& [name, k] : {std::pair{QStringLiteral("budget"), analysis::OptimalGiven::Budget},
                                  {QStringLiteral("params"), analysis::OptimalGiven::ModelSize},
                                  {QStringLiteral("loss"), analysis::OptimalGiven::TargetLoss}})
        if (p.isSet(name)) ++given, kind = k, givenName = name;
    if (given != 1) throw UsageError("give exactly one of --budget, --params and --loss");
    const double value = *doubleOption(p, givenName);
    if (!(value > 0)) throw UsageError(("--" + givenName + " must be positive, got " + p.value(givenName)).toStdString());
    const double context = *doubleOption(p, "context");
    if (!(context >= 64)) throw UsageError("--context must be at least 64 tokens, got " + p.value("context").toStdString());
    const double inference = *doubleOption(p, "inference-tokens");
    if (!(inference >= 0) || !std::isfinite(inference))
        throw UsageError("--inference-tokens must be 0 or more, got " + p.value("inference-tokens").toStdString());
    const QString method = p.value("method");
    if (method != "surface" && method != "laws" && method != "both")
        throw UsageError("--method: expected surface, laws or both, got '" + method.toStdString() + "'");
    if (p.isSet("reference") && p.value("reference") != "paper" && p.value("reference") != "none")
        throw UsageError("--reference: expected paper or none, got '" + p.value("reference").toStdString() + "'");
    const int resamples = static_cast<int>(*intOption(p, "resamples", 0));

    const QStringList files = p.values("data");
    StudyInput in = files.isEmpty() ? openStudy(QString(), p) : loadStudy(files, p);
    analysis::AnalysisSettings settings = in.settings();
    if (p.isSet("huber-delta")) {
        settings.huberDelta = *doubleOption(p, "huber-delta");
        if (!(settings.huberDelta > 0)) throw UsageError("--huber-delta must be positive, got " + p.value("huber-delta").toStdString());
    }
    if (p.isSet("keep-outliers")) settings.keepOutliers = true;
    if (auto why = analysis::missingScaleColumns(in.table(), settings.scope.filter())) throw UsageError(*why);
    fit::FitControl control;
    if (auto t = intOption(p, "threads", 1)) control.threads = static_cast<int>(*t);

    analysis::OptimalQuery query;
    query.given = kind;
    query.value = value;
    query.context = context;
    query.inferenceTokens = inference;
    query.paperStudy = in.study.isPaperStudy();
    query.paperModels = p.isSet("reference") ? p.value("reference") == "paper" : query.paperStudy;
    query.intervals.resamples = resamples;
    for (const QString& file : p.values("ladder")) {
        const auto model = data::readModelFile(file.toStdString());
        if (!model) throw UsageError("--ladder: " + model.error().toString());
        accounting::ModelLadder ladder = accounting::specLadder(model->spec);
        // Named by its file, unless that is a config.json: then by its model type.
        const QString stem = QFileInfo(file).completeBaseName();
        if (stem != "config") ladder.name = stem.toStdString();
        query.ladders.push_back(std::move(ladder));
    }
    if (p.isSet("ladder-surface")) query.ladderSurface = familyOption(p, "ladder-surface");
    const auto inputs = analysis::optimalInputs(in.table(), settings, in.study.paper(), query, control);
    if (inputs.empty())
        throw UsageError("no series to answer for: no runs in scope with N, D, C and loss (--reference paper shows the paper's models)");
    // Each method asked for, on the same series.
    analysis::OptimalAnswer bySurface, byLaws;
    if (method != "laws") bySurface = analysis::answerOptimalQuery(inputs, query, control);
    if (method != "surface") {
        query.useLaws = true;
        byLaws = analysis::answerOptimalQuery(inputs, query, control);
    }
    const bool surfaceAsked = method != "laws", lawsAsked = method != "surface";
    // No numbers by any method asked: the reasons, as an error.
    if ((!surfaceAsked || !bySurface.problem.empty()) && (!lawsAsked || !byLaws.problem.empty())) {
        std::string why = surfaceAsked ? bySurface.problem : byLaws.problem;
        if (surfaceAsked && lawsAsked && byLaws.problem != bySurface.problem) why += " " + byLaws.problem;
        throw UsageError("--" + givenName.toStdString() + " " + p.value(givenName).toStdString() + ": " + why);
    }

    int width = 6;
    for (const auto& s : inputs) width = std::max(width, static_cast<int>(QString::fromStdString(s.name).size()) + 2);
    QString text;
    QTextStream out(&text);
    if (query.paperModels) out << "T = " << context << " (the paper's models), ";
    out << givenName << " = " << value << "\n";
    out << QStringLiteral("series").leftJustified(width) << "method          N*          D*     D*/N*          H      loss   95 % interval of N*\n";
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const analysis::OptimalSeriesInput& s = inputs[k];
        const QString name = QString::fromStdString(s.name);
        const analysis::OptimalSeriesAnswer* surface = k < bySurface.series.size() ? &bySurface.series[k] : nullptr;
        const analysis::OptimalSeriesAnswer* laws = k < byLaws.series.size() ? &byLaws.series[k] : nullptr;
        auto row = [&](const char* label, const analysis::OptimalSeriesAnswer& a) {
            const auto& o = a.optimum;
            out << name.leftJustified(width) << QString::fromLatin1(label).leftJustified(10) << QString::number(o.params, 'e', 3).rightJustified(10)
                << QString::number(o.tokens, 'e', 3).rightJustified(12) << QString::number(o.tokens / o.params, 'f', 1).rightJustified(10)
                << QString::number(o.budget, 'e', 3).rightJustified(11)
                << (std::isfinite(o.loss) ? QString::number(o.loss, 'f', 4) : QStringLiteral("-")).rightJustified(10);
            if (label == std::string("laws") && a.intervals)
                out << "   " << QString::number(a.intervals->params.lower, 'e', 3) << " .. " << QString::number(a.intervals->params.upper, 'e', 3)
                    << " (a = " << QString::number(a.intervals->exponentN.estimate, 'f', 3) << ", "
                    << QString::number(a.intervals->exponentN.lower, 'f', 3) << " .. " << QString::number(a.intervals->exponentN.upper, 'f', 3)
                    << ")";
            out << "\n";
        };
        // One method's line: its optimum, or why there is none.
        auto methodEntry = [&](const char* label, bool asked, const analysis::OptimalAnswer& answer,
                               const analysis::OptimalSeriesAnswer* a) {
            if (!asked) return;
            const std::string why = a ? a->problem : answer.problem;
            if (!why.empty()) {
                out << name.leftJustified(width) << QString::fromLatin1(label).leftJustified(10) << "(" << QString::fromStdString(why) << ")\n";
                return;
            }
            row(label, *a);
        };
        methodEntry("surface", surfaceAsked, bySurface, surface);
        methodEntry("laws", lawsAsked, byLaws, laws);
        const analysis::OptimalSeriesAnswer* chosen = method == "laws" ? laws : surface;
        if (method == "both" && surface && surface->comparison) {
            const auto& c = *surface->comparison;
            out << name.leftJustified(width) << "N* grows as H^" << QString::number(c.surfaceExponent, 'f', 3) << " (surface) and H^"
                << QString::number(c.lawExponent, 'f', 3) << " (laws); same N* at H = "
                << (std::isfinite(c.agreeAtBudget) ? QString::number(c.agreeAtBudget, 'e', 3) : QStringLiteral("none in 1e15..1e27")) << "\n";
        }
        if (inference > 0 && chosen && chosen->lifetime) {
            const auto& l = *chosen->lifetime;
            out << name.leftJustified(width) << "serving " << QString::number(inference, 'e', 2) << " tokens: N = "
                << QString::number(l.params, 'e', 3) << " on D = " << QString::number(l.tokens, 'e', 3) << ", total "
                << QString::number(l.total(), 'e', 3) << " FLOPs (" << QString::number(100 * l.saving(), 'f', 1)
                << " % less than the compute-optimal model)\n";
        }
    }
    if (p.isSet("json")) {
        printJson(analysis::optimalVerbJson(inputs, query, givenName.toStdString(), method.toStdString(), settings.huberDelta,
                                            bySurface, byLaws));
        return kExitOk;
    }
    printText(text);
    return kExitOk;
}

}  // namespace scalex::cli
