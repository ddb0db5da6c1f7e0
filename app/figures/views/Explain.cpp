#include "app/figures/views/Explain.h"

#include <QObject>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "app/figures/LogTicks.h"
#include "app/figures/views/ContextFigure.h"
#include "app/figures/views/FlopBreakdownFigure.h"
#include "app/figures/views/InferenceFigure.h"
#include "app/figures/views/IsoFlopFigure.h"
#include "app/figures/views/LawsFigure.h"
#include "app/figures/views/LossCurvesFigure.h"
#include "app/figures/views/LossSurfaceFigure.h"
#include "app/figures/views/OptimalFigure.h"
#include "app/figures/views/OverTrainingFigure.h"
#include "app/figures/views/ParetoFigure.h"
#include "app/figures/views/RooflineFigure.h"
#include "core/accounting/CacheSize.h"
#include "core/accounting/ParamCount.h"
#include "core/analysis/Study.h"
#include "core/data/Series.h"

namespace scalex::figures {

QString explainLossCurves(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const LossCurvesFigure&>(figure);
    return QObject::tr(
               "<h3>Loss curves</h3>"
               "<p>The validation loss logged at checkpoints along each run's training, over the tokens seen (D) or the "
               "compute spent (C, as the run table gives or derives it). Both axes are logarithmic.</p>"
               "<p>Scaling-law fits use finished runs: the end of each curve. Intermediate checkpoints of a run with a "
               "learning-rate schedule tied to its length are not finished runs of a shorter length.</p>"
               "<p>Now: %1 curves, %2 checkpoints.</p>")
        .arg(f.curveCount())
        .arg(f.checkpointCount());
}

QString explainPareto(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const ParetoFigure&>(figure);
    // Each series' frontier (the first few of many), then the compared pair's ratio.
    constexpr int kListed = 6;
    QStringList sizes;
    int withRuns = 0;
    for (const auto& a : f.shown()) {
        if (a.points.empty()) continue;
        if (++withRuns <= kListed)
            sizes << QStringLiteral("%1 %2").arg(QString::fromStdString(data::seriesLabel(a.group.series))).arg(a.frontier.size());
    }
    if (withRuns > kListed) sizes << QObject::tr("%n more series", nullptr, withRuns - kListed);
    QString now = QObject::tr("no runs with compute and loss in scope");
    if (!sizes.isEmpty()) {
        now = QObject::tr("frontier runs %1").arg(sizes.join(QStringLiteral(", ")));
        const auto& compared = f.compared();
        if (f.comparison().overlap)
            now += QObject::tr("; %1 needs %2× the compute of %3 for the same loss")
                       .arg(compared.second, QString::number(f.comparison().geomeanComputeRatio, 'f', 2), compared.first);
        else if (withRuns == 1)
            now += QObject::tr("; one series, nothing to compare");
    }
    return QObject::tr("<h3>Loss over compute: the Pareto front</h3>"
                       "<p>Each point is one training run: its training compute <b>C</b> (FLOPs) and the validation loss it "
                       "reached. Both axes are logarithmic, so a power law L ∝ C<sup>−η</sup> is a straight line.</p>"
                       "<p>The solid line of each series is its <b>Pareto frontier</b>: the runs no other run beats with "
                       "less compute. A frontier below another means better loss for the same compute. Runs of one context "
                       "length are shown at a time (<i>Context</i>).</p>"
                       "<p>Dashed: the loss surface L̂(N, D) fitted to the runs of each architecture family at this context "
                       "(the paper's fit on the paper's study where its runs give none), along runs with a fixed number of "
                       "tokens per parameter (D/N = 22 is Chinchilla-optimal; 2200 is heavily over-trained).</p>"
                       "<p>Now: %1.</p>")
        .arg(now);
}

QString explainOverTraining(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const OverTrainingFigure&>(figure);
    QString etas;
    for (int k = 0; k < 2; ++k)
        if (const auto& shown = f.shown(k))
            for (const auto& g : shown->result.groups)
                if (g.fitted && (g.ratio == 22 || g.ratio == 2200))
                    etas += QObject::tr("%1, M = %2: η = %3<br>")
                                .arg(QString::fromStdString(data::seriesLabel(shown->group.series)))
                                .arg(g.ratio)
                                .arg(g.eta, 0, 'f', 3);
    return QObject::tr(
               "<h3>Over-training</h3>"
               "<p>Models are often trained far past the compute-optimal number of tokens, because a smaller model "
               "is cheaper to serve. Here runs are grouped by their tokens per parameter <b>M = D/N</b>, and within "
               "each group the loss follows a power law in compute:</p>"
               "<p style='font-size:large'>L(C) = λ · C<sup>−η</sup></p>"
               "<p>A straight line on these log-log axes; its slope is −η. If η stays the same as M grows, "
               "over-training costs a constant factor of compute, not a worse scaling.</p><p>%1</p>")
        .arg(etas.isEmpty() ? QObject::tr("No group has enough runs to fit.") : etas);
}

QString explainIsoFlop(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const IsoFlopFigure&>(figure);
    const auto& t = f.result(false);
    const auto& x = f.result(true);
    auto law = [](const std::optional<fit::PowerLaw>& l) {
        return l ? QStringLiteral("%1·H<sup>%2</sup>").arg(l->coefficient, 0, 'g', 3).arg(l->exponent, 0, 'f', 3) : QStringLiteral("—");
    };
    QStringList now;  // only the series the view has a law for
    if (t.nOptLaw) now << QObject::tr("%1 N* = %2").arg(f.seriesLabel(0), law(t.nOptLaw));
    if (x.nOptLaw) now << QObject::tr("%1 N* = %2").arg(f.seriesLabel(1), law(x.nOptLaw));
    return QObject::tr(
               "<h3>IsoFLOP profiles</h3>"
               "<p>Train many models with the <b>same compute budget H</b> but different sizes: small models see "
               "many tokens, large ones few. The loss over log N is a valley; a parabola through it gives the "
               "best size N* for that budget (red points). The same over log D gives D*.</p>"
               "<p>Repeating this for several budgets and fitting straight lines on log-log axes gives the "
               "compute-optimal scaling laws</p>"
               "<p style='font-size:large'>N*(H) = A'·H<sup>a</sup>, &nbsp; D*(H) = B'·H<sup>b</sup></p>"
               "<p>Now: %1. Shaded: 95&nbsp;% bootstrap bands over runs.</p>")
        .arg(now.isEmpty() ? QObject::tr("no power law yet (it needs profiles at two budgets or more)") : now.join(QStringLiteral("; "))) +
           checkpointsExplain(f.checkpoints());
}

QString explainContext(const ViewFigure& figure, const FigureInput& in) {
    const auto& f = static_cast<const ContextFigure&>(figure);
    const QString convention = in.study ? QString::fromStdString(in.study->settings().convention) : QString();
    return QObject::tr(
               "<h3>Context length and the compute-optimal model</h3>"
               "<p>Training compute is C = c<sub>T</sub>(N)·D: FLOPs per token times tokens. For a Transformer, "
               "attention adds about 6·n<sub>layer</sub>·T·d<sub>model</sub> FLOPs per token (training), which "
               "grows with the context length T; the mLSTM's cell does not grow with T.</p>"
               "<p>For a fixed budget H, the best model minimises the loss surface L̂(N, D) on the line "
               "c<sub>T</sub>(N)·D = H. When T grows, every Transformer token becomes more expensive, the "
               "line moves, and the optimum shifts to <b>smaller Transformers</b>. The xLSTM optimum "
               "stays put.</p>"
               "<p>Now: T = %1, H = %2. N*: Transformer %3, xLSTM %4.</p>"
               "<p>FLOPs are counted with the <b>%5</b> convention through the study's model configurations; "
               "the loss surfaces: Transformer %6; xLSTM %7. Dotted lines (left) and hollow squares "
               "(right): the paper's own IsoFLOP laws at 2048, 8192 and 16384 tokens; hollow circles (left): "
               "the study's IsoFLOP runs with their compute recounted at T.</p>")
        .arg(f.context())
        .arg(formatTickValue(f.budget()), formatCount(f.optimalParams(false)), formatCount(f.optimalParams(true)), convention,
             f.surfaceNote(false).toHtmlEscaped(), f.surfaceNote(true).toHtmlEscaped());
}

QString explainFlopBreakdown(const ViewFigure& figure, const FigureInput&) {
    using namespace accounting;
    const auto& f = static_cast<const FlopBreakdownFigure&>(figure);
    const double T1 = 2048, T2 = 32768;
    auto share = [&](const ModelConfig& c, double T) {
        const FlopSplit split = forwardFlops(c, T, f.convention());
        return 100.0 * split.seqMix / split.total();
    };
    auto cache = [](const ModelConfig& c, double T) { return cacheBytes(c, defaultSequenceMix(c), 1, T, ByteWidths{}); };
    return QObject::tr(
               "<h3>Where the compute goes</h3>"
               "<p>Each bar splits the cost of one token into the <b>linear layers</b> (projections, feed-forward, "
               "LM head: 2 FLOPs per parameter), the <b>sequence mix</b> (attention core or mLSTM cell) and the rest (<i>Other</i>: norms, "
               "activations, embedding). A model with <b>shared blocks</b> (Zamba2's transformer blocks, each counted once "
               "and run by several layers) shows their work at every use as a part of its own.</p>"
               "<p>Attention compares every token with every earlier one: its prefill cost is "
               "<i>2·F<sub>causal</sub>·T²·n<sub>head</sub>·(d<sub>qk</sub>+d<sub>hv</sub>+F<sub>softmax</sub>/2)</i>, "
               "so <b>per token it grows linearly in T</b>. The mLSTM carries a fixed-size memory: its chunkwise cost "
               "per token depends on the chunk size L, not on T.</p>"
               "<p>Convention <b>%1</b>. Sequence-mix share of the forward FLOPs:<br>"
               "Transformer %2: %3&nbsp;% at T = 2k, %4&nbsp;% at T = 32k<br>"
               "xLSTM %5: %6&nbsp;% at T = 2k, %7&nbsp;% at T = 32k</p>"
               "<p>During generation the Transformer must read its whole KV cache every step "
               "(2·n<sub>kv</sub>·d<sub>hv</sub>·T elements per layer), while the mLSTM reads a state of "
               "n<sub>head</sub>·(d<sub>qk</sub>·d<sub>hv</sub>+d<sub>qk</sub>+1) elements whatever T is: "
               "%8 against a KV cache of %9 at T = 2k and %10 at T = 128k (batch 1). The cache is drawn on a "
               "logarithmic axis, so both show; its share would be 100 % for every bar, so <i>Shares</i> is off there.</p>"
               "<p>The number above a bar is the share of the sequence mix in it (the cache size, for the cache), "
               "in the colour of that part: the mLSTM cell is a sliver of its bar, but its share reads.</p>")
        .arg(QString::fromStdString(f.convention().name))
        .arg(formatCount(static_cast<double>(countParameters(f.transformer()).total())))
        .arg(share(f.transformer(), T1), 0, 'f', 1)
        .arg(share(f.transformer(), T2), 0, 'f', 1)
        .arg(formatCount(static_cast<double>(countParameters(f.xlstm()).total())))
        .arg(share(f.xlstm(), T1), 0, 'f', 1)
        .arg(share(f.xlstm(), T2), 0, 'f', 1)
        .arg(FlopBreakdownFigure::formatBytes(cache(f.xlstm(), T1)), FlopBreakdownFigure::formatBytes(cache(f.transformer(), T1)),
             FlopBreakdownFigure::formatBytes(cache(f.transformer(), 131072)));
}

QString explainOptimal(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const OptimalFigure&>(figure);
    if (const QString problem = f.problem(); !problem.isEmpty())
        return QObject::tr("<h3>Compute-optimal training</h3><p>No numbers for this query: %1</p>").arg(problem.toHtmlEscaped());
    QStringList now;
    for (const auto& a : f.answer().series) {
        if (!a.answered()) continue;
        QString line = QObject::tr("%1 N* = %2 with %3 tokens/param")
                           .arg(QString::fromStdString(a.name), formatCount(a.optimum.params))
                           .arg(a.optimum.tokens / std::max(1.0, a.optimum.params), 0, 'f', 1);
        if (f.answer().query.useLaws && a.intervals)
            line += QObject::tr(" (95&nbsp;%: %1 to %2; a = %3, %4 to %5)")
                        .arg(formatCount(a.intervals->params.lower), formatCount(a.intervals->params.upper))
                        .arg(a.intervals->exponentN.estimate, 0, 'f', 3)
                        .arg(a.intervals->exponentN.lower, 0, 'f', 3)
                        .arg(a.intervals->exponentN.upper, 0, 'f', 3);
        now << line;
    }
    return QObject::tr("<h3>Compute-optimal training</h3>"
                       "<p>With a fixed compute budget H you can train a large model on few tokens or a small model on "
                       "many. The loss surface L̂(N, D) says which split is best: the N* and D* with the lowest predicted "
                       "loss on the line c(N)·D = H.</p>"
                       "<p>Given a model size instead, the calculator finds the budget for which that size is optimal; "
                       "given a target loss, the cheapest budget that reaches it.</p>"
                       "<p>Now: %1.</p><p>%2</p>"
                       "<p>Two methods, for each series of the study from its own runs: the loss surface (its L(N,D) fit, with "
                       "the compute per token of its runs), or the IsoFLOP power laws N* = A'·H<sup>a</sup>, "
                       "D* = B'·H<sup>b</sup> fitted to the minima of its IsoFLOP profiles, with 95&nbsp;% bootstrap intervals "
                       "over its runs. The paper's models (its fitted surfaces with the exact FLOP count at T, its IsoFLOP laws at "
                       "T = 2048, 8192 and 16384) answer on the paper's study, and beside any other when switched on. With "
                       "a &gt; b the IsoFLOP laws make tokens per parameter fall as models grow; the surface, fitted on "
                       "over-trained runs, need not agree.</p><p>%3</p>")
        .arg(now.isEmpty() ? QObject::tr("being computed") : now.join(QStringLiteral("; ")))
        .arg(f.seriesNote())
        .arg(f.overtrainNote() + QStringLiteral("</p><p>") + f.methodsNote() + QStringLiteral("</p><p>") + f.lifetimeNote());
}

QString explainLossSurface(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const LossSurfaceFigure&>(figure);
    QString live;
    if (const auto& fit = f.result()) {
        const auto& b = fit->best;
        live = QObject::tr("<p>Fitted now: E = %1, A = %2, B = %3, α = %4, β = %5, γ = %6 (Huber objective %7 over %8 runs).</p>")
                   .arg(std::exp(b.logE), 0, 'f', 3)
                   .arg(formatTickValue(std::exp(b.logA)))
                   .arg(formatTickValue(std::exp(b.logB)))
                   .arg(b.alpha, 0, 'f', 3)
                   .arg(b.beta, 0, 'f', 3)
                   .arg(b.gamma, 0, 'f', 3)
                   .arg(fit->objective, 0, 'e', 3)
                   .arg(fit->nPoints);
    } else if (f.scaleNotice().isEmpty()) {  // else nothing to fit (the window says why)
        live = QObject::tr("<p>No fit yet: press <b>Fit</b>.</p>");
    }
    return QObject::tr(
               "<h3>The parametric loss surface</h3>"
               "<p style='font-size:large'>L̂(N, D) = E + (A·N<sup>−α</sup> + B·D<sup>−β</sup>)<sup>γ</sup></p>"
               "<p><b>E</b> is the loss no model reaches (the entropy of text); the bracket is what finite size "
               "<b>N</b> and finite data <b>D</b> add. Larger α means parameters pay off faster, larger β the "
               "same for data.</p>"
               "<p>The fit minimises Σ Huber<sub>δ</sub>(ln L − ln L̂) from every point of a grid of starting "
               "values, because the surface has many near-equal optima.</p>"
               "<p>Axes: parameters and tokens, both logarithmic. Background and dotted contours: predicted loss. "
               "Dashed lines: equal training compute C. Red: for each compute budget, the (N, D) on its dashed "
               "line with the lowest predicted loss — the compute-optimal allocation.</p>") +
           live + checkpointsExplain(f.checkpoints());
}

QString explainRoofline(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const RooflineFigure&>(figure);
    return QObject::tr(
               "<h3>The roofline model</h3>"
               "<p>A kernel's speed is capped twice: by the accelerator's arithmetic rate α (FLOP/s) and by its "
               "memory bandwidth β (bytes/s). With <b>arithmetic intensity</b> I = FLOPs / bytes moved, the "
               "attainable rate is</p><p style='font-size:large'>min(α, I·β)</p>"
               "<p>Left of the ridge (I = α/β, about 295 FLOP/byte on an H100) a kernel waits for memory; right "
               "of it, for arithmetic.</p>"
               "<p>Prefill processes many tokens per weight read: high intensity, compute-bound "
               "(Transformer %1, xLSTM %2 FLOP/byte here). A decode step reads every weight — and the "
               "Transformer its whole KV cache — for one token: intensity near 1, memory-bound "
               "(Transformer %3, xLSTM %4).</p>"
               "<p>Right: time of one layer's attention and mLSTM cell over the context length. Attention grows "
               "as T², the chunkwise mLSTM as T; they cross at T ≈ %5 on the chosen accelerator.</p>")
        .arg(f.operatingPoints()[0], 0, 'f', 0)
        .arg(f.operatingPoints()[2], 0, 'f', 0)
        .arg(f.operatingPoints()[1], 0, 'f', 2)
        .arg(f.operatingPoints()[3], 0, 'f', 2)
        .arg(f.crossover(), 0, 'f', 0);
}

QString explainLaws(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const LawsFigure&>(figure);
    QString rows;
    for (const auto& s : f.shown())
        if (s.analysis->test)
            rows += QObject::tr("<li><b>%1</b>: held-out R² %2, mean relative error %3 %</li>")
                        .arg(QString::fromStdString(s.label))
                        .arg(s.analysis->test->r2, 0, 'f', 3)
                        .arg(100 * s.analysis->test->mape, 0, 'f', 2);
    return QObject::tr(
               "<h3>Laws that predict</h3>"
               "<p>A scaling law is there to predict the run nobody has trained yet. Here up to three laws are fitted "
               "on the <b>training runs</b> only and asked to predict the <b>held-out runs</b> (by default those of "
               "the largest tenth of the model sizes), as one would before training them.</p>"
               "<p>A law is a shipped form from the literature or a formula typed over the study's columns, e.g. "
               "<code>L = E + A/N^alpha + B/D^beta</code> with its parameters' bounds <code>E=0:10, A=0:1e8, …</code>. "
               "The left chart puts each prediction against what the run measured (on the dashed line a prediction is "
               "exact), with its 95 % prediction interval from a bootstrap over the training runs; the right one shows "
               "the runs over compute with each law's predictions beside the held-out ones.</p>"
               "<p>The table compares the fits (objective, AIC, BIC, R² on the training runs) with what matters here: "
               "R² and relative errors on the held-out runs.</p><ul>%1</ul>")
        .arg(rows);
}

QString explainInference(const ViewFigure& figure, const FigureInput&) {
    const auto& f = static_cast<const InferenceFigure&>(figure);
    return QObject::tr("<h3>Inference runtimes</h3>"
                       "<p><b>Prefill</b> reads the prompt and builds the cache; it multiplies large matrices and is "
                       "compute-bound: TTFT = FLOPs / α<sub>eff</sub> + ε.</p>"
                       "<p><b>Generation</b> produces one token per step; each step streams the weights (and, for a "
                       "Transformer, its whole KV cache) from memory: step = bytes / β<sub>eff</sub> + ε.</p>"
                       "<p>The Transformer's step time grows with the prefill length because its KV cache grows; the "
                       "xLSTM's state has a fixed size, so its step time stays flat.</p>"
                       "<p>α<sub>eff</sub>/α<sub>acc</sub> is the share of the accelerator's peak that a model attains; "
                       "larger models use the hardware better.</p>"
                       "<p><i>TTFT and step time (Fig. 6)</i> draws both stages for several model sizes at once, "
                       "colour by size, Transformers solid (Llama 3 dotted) and xLSTMs dashed, as the paper's Fig. 6.</p><p>%1</p>")
        .arg(f.measurements() ? QObject::tr("Fitted to %1 measured points.").arg(f.measurements()->points.size())
                              : QObject::tr("No measurements loaded: curves use %1&nbsp;% of the accelerator's FLOP/s and %2&nbsp;% of its "
                                            "bandwidth (the roofline bound). Load the study's inference_results CSV to see measured "
                                            "points and fits.")
                                    .arg(100 * f.options().alphaFraction)
                                    .arg(100 * f.options().betaFraction));
}

}  // namespace scalex::figures
