// scalex predict optimal: the compute-optimal model of a budget, a model size or a target loss,
// by both of the paper's methods, why they differ, and the lifetime optimum once inference
// tokens are counted. The numbers are the Compute-optimal view's (analysis::ComputeOptimal).
#include <QJsonArray>
#include <QTextStream>
#include <cmath>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/data/PaperTables.h"

namespace scalex::cli {

namespace {

QJsonObject pointJson(const fit::OptimalPoint& o) {
    return {{"budget", o.budget}, {"params", o.params}, {"tokens", o.tokens}, {"tokens_per_param", o.tokens / o.params},
            {"loss", o.loss}};
}

}  // namespace

int predictOptimal(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "The compute-optimal N* and D* for a training budget, a model size or a target loss, by the loss surface "
        "L(N,D) with the exact FLOP count at the context length and by the paper's IsoFLOP power laws; why the two "
        "differ; and, with --inference-tokens, the model that reaches the same loss for the least training plus "
        "inference compute. The paper's fitted surfaces and laws, as the Compute-optimal view uses them.");
    p.addHelpOption();
    p.addOptions({
        {"budget", "Training budget H in FLOPs (e.g. 1e22).", "flops"},
        {"params", "Model size N: the budget at which it is compute-optimal.", "n"},
        {"loss", "Target loss: the cheapest budget whose optimum reaches it.", "loss"},
        {"context", "Training context length T.", "tokens", "8192"},
        {"method", "surface, laws or both.", "method", "both"},
        {"inference-tokens", "Tokens the model serves over its life (each costs a forward pass, c_T(N)/3).", "tokens", "0"},
        {"huber-delta", "Which of the paper's loss surfaces (Tab. lnd_fit_params): Huber delta.", "delta", "0.001"},
        {"json", "Print one JSON object."},
    });
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
    const double delta = *doubleOption(p, "huber-delta");
    auto paper = data::loadPaperTables();
    if (!paper) throw UsageError(paper.error().toString());

    QJsonArray families;
    QString text;
    QTextStream out(&text);
    out << "T = " << context << ", " << givenName << " = " << value << "\n";
    out << "model        method          N*          D*     D*/N*          H      loss\n";
    for (accounting::Family f : {accounting::Family::Transformer, accounting::Family::Xlstm}) {
        const data::LossSurfaceParams* s = paper->lossSurface(f, delta);
        if (!s) throw UsageError("--huber-delta: the paper has no loss surface with delta " + p.value("huber-delta").toStdString());
        analysis::OptimalMethod surface;
        surface.surface = {s->logA, s->logB, s->logE, s->alpha, s->beta, s->gamma};
        surface.computePerToken = analysis::studyComputePerToken(paper->modelConfigs, f, context, accounting::studyConvention());
        analysis::OptimalMethod laws = surface;
        laws.laws = analysis::paperOptimalLaws(*paper, f, context);
        const std::string name(accounting::familyName(f));
        QJsonObject entry{{"family", QString::fromStdString(name)}};
        auto row = [&](const char* label, const fit::OptimalPoint& o) {
            out << QString::fromStdString(name).leftJustified(13) << QString::fromLatin1(label).leftJustified(10)
                << QString::number(o.params, 'e', 3).rightJustified(10) << QString::number(o.tokens, 'e', 3).rightJustified(12)
                << QString::number(o.tokens / o.params, 'f', 1).rightJustified(10) << QString::number(o.budget, 'e', 3).rightJustified(11)
                << QString::number(o.loss, 'f', 4).rightJustified(10) << "\n";
        };
        std::optional<fit::OptimalPoint> chosen;
        if (method != "laws") {
            const auto o = analysis::solveOptimal(surface, kind, value);
            if (!o) throw UsageError("--loss: " + name + " cannot reach a loss of " + p.value("loss").toStdString() +
                                     " (its irreducible loss E is " + std::to_string(std::exp(s->logE)) + ")");
            entry["surface"] = pointJson(*o);
            row("surface", *o);
            chosen = o;
        }
        if (method != "surface") {
            if (!laws.laws) {
                if (method == "laws")
                    throw UsageError("--method laws: the paper has IsoFLOP power laws at T = 2048, 8192 and 16384 only, none at T = " +
                                     p.value("context").toStdString());
                entry["laws"] = QJsonValue::Null;
                out << QString::fromStdString(name).leftJustified(13) << "laws      (the paper has none at this context)\n";
            } else {
                const auto o = analysis::solveOptimal(laws, kind, value);
                if (!o) throw UsageError("--loss: " + name + " cannot reach a loss of " + p.value("loss").toStdString());
                entry["laws"] = pointJson(*o);
                row("laws", *o);
                if (!chosen) chosen = o;
                if (method == "both") {
                    const auto c = analysis::compareMethods(surface, laws, chosen->budget);
                    entry["comparison"] = QJsonObject{
                        {"budget", chosen->budget},
                        {"surface_exponent", c.surfaceExponent},
                        {"law_exponent", c.lawExponent},
                        {"agree_at_budget", std::isfinite(c.agreeAtBudget) ? QJsonValue(c.agreeAtBudget) : QJsonValue::Null}};
                    out << QString::fromStdString(name).leftJustified(13) << "N* grows as H^" << QString::number(c.surfaceExponent, 'f', 3)
                        << " (surface) and H^" << QString::number(c.lawExponent, 'f', 3) << " (laws); same N* at H = "
                        << (std::isfinite(c.agreeAtBudget) ? QString::number(c.agreeAtBudget, 'e', 3) : QStringLiteral("none in 1e15..1e27"))
                        << "\n";
                }
            }
        }
        if (inference > 0) {
            const analysis::OptimalMethod& m = method == "laws" ? laws : surface;
            if (const auto l = analysis::lifetimeOptimal(m, chosen->loss, inference)) {
                entry["lifetime"] = QJsonObject{{"inference_tokens", inference},
                                                {"params", l->params},
                                                {"tokens", l->tokens},
                                                {"tokens_per_param", l->tokens / l->params},
                                                {"training_compute", l->trainingCompute},
                                                {"inference_compute", l->inferenceCompute},
                                                {"total_compute", l->total()},
                                                {"compute_optimal_total", l->computeOptimalTotal},
                                                {"saving", l->saving()}};
                out << QString::fromStdString(name).leftJustified(13) << "serving " << QString::number(inference, 'e', 2) << " tokens: N = "
                    << QString::number(l->params, 'e', 3) << " on D = " << QString::number(l->tokens, 'e', 3) << ", total "
                    << QString::number(l->total(), 'e', 3) << " FLOPs (" << QString::number(100 * l->saving(), 'f', 1)
                    << " % less than the compute-optimal model)\n";
            }
        }
        families.append(entry);
    }
    if (p.isSet("json")) {
        printJson(QJsonObject{{"context", context},
                              {"given", QJsonObject{{givenName, value}}},
                              {"method", method},
                              {"huber_delta", delta},
                              {"families", families}});
        return kExitOk;
    }
    printText(text);
    return kExitOk;
}

}  // namespace scalex::cli
