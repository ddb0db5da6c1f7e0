// The runtime verbs of the inference model (Sec. "Modeling Inference Runtimes", App. "Modeling
// Inference Characteristics"):
//   scalex fit runtime    fit alpha_eff, beta_eff, eps (and the batch term) per measured model
//   scalex predict runtime | max-model | crossover
// What they compute and their JSON are core/analysis/RuntimeQueries' (the Python module asks the
// same); here the options are parsed and the answers printed.
#include <QJsonObject>
#include <QTextStream>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "app/figures/BenchRoofs.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/RuntimeQueries.h"

namespace scalex::cli {

using namespace scalex::accounting;
using inference::Stage;

// Q_INIT_RESOURCE declares the registration function in the enclosing namespace, so it is called
// from the global one (initScalexRuntimeResources below); registering twice is harmless.
void initRuntimeResources();

namespace {

QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

[[noreturn]] void usage(const QString& message) { throw UsageError(message.toStdString()); }

// The built-in model tables (resources/scalex.qrc) and the benchmark files of `scalex bench --out`.
analysis::RuntimeQueryContext queryContext() {
    initRuntimeResources();
    analysis::RuntimeQueryContext context;
    context.readMeasuredRoofs = figures::readBenchRoofs;
    return context;
}

// Parses the verb's options (those of core/analysis, then --json); false after --help.
bool parseQuery(QCommandLineParser& p, const QStringList& args, const char* description, void (*addOptions)(QCommandLineParser&)) {
    p.setApplicationDescription(QString::fromUtf8(description));
    p.addHelpOption();
    addOptions(p);
    p.addOption({"json", "Print one JSON object."});
    return parseVerbArguments(p, args);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// scalex fit runtime

int runFitRuntime(const QStringList& args) {
    QCommandLineParser p;
    if (!parseQuery(p, args,
                    "Fit the runtime model (Eq. runtimes) per measured model: TTFT = FLOPs/alpha_eff + eps (prefill), "
                    "step = bytes/beta_eff + eps (+ kappa B for Transformers) (decode).",
                    analysis::addFitRuntimeOptions))
        return kExitOk;
    const analysis::FitRuntimeAnswer a = analysis::fitRuntimeQuery(p, queryContext());
    if (p.isSet("json")) {
        printJson(a.json);
        return kExitOk;
    }
    const inference::Accelerator& acc = a.accelerator;
    QString text;
    QTextStream t(&text);
    t << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
             .arg("model", -12).arg("stage", -8).arg("rate", 11).arg("/roof", 7).arg("eps ms", 8).arg("kappa ms", 9)
             .arg("med err", 8).arg("med var", 8).arg("points", 7);
    for (const auto& m : a.fitted.models)
        for (const auto& s : m.stages) {
            const inference::StageFit& f = s.fit;
            const bool pre = s.stage == Stage::Prefill;
            t << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
                     .arg(q(m.model.model), -12)
                     .arg(q(analysis::stageName(s.stage)), -8)
                     .arg(f.model.rate, 11, 'e', 3)
                     .arg(f.model.rate / (pre ? acc.flops : acc.memoryBandwidth), 7, 'f', 3)
                     .arg(f.model.overhead * 1e3, 8, 'f', 3)
                     .arg(f.model.batchTerm * 1e3, 9, 'f', 4)
                     .arg(f.medianRelError * 100, 7, 'f', 1)
                     .arg(f.medianRelErrorVariable * 100, 7, 'f', 1)
                     .arg(QStringLiteral("%1/%2").arg(f.nVariable).arg(f.nPoints), 7);
        }
    t << "rate: alpha_eff [FLOP/s] (prefill) or beta_eff [byte/s] (decode); /roof against " << q(acc.name)
      << "; errors in %, 'med var' over points whose modelled variable term is >= " << a.variableShare * 100 << " %\n";
    printText(text);
    return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// scalex predict

namespace {

// TTFT, step time, throughput and memory of a prediction, one line each.
void printPredictionLines(QTextStream& t, const inference::Prediction& x) {
    t << "TTFT        " << QString::number(x.ttft * 1e3, 'g', 6) << " ms\n"
      << "step time   " << QString::number(x.stepTime * 1e3, 'g', 6) << " ms\n"
      << "throughput  " << QString::number(x.throughput, 'g', 6) << " tokens/s\n"
      << "memory      " << QString::number(x.memoryBytes() / 1e9, 'g', 6) << " GB (weights "
      << QString::number(x.weightBytes / 1e9, 'g', 6) << ", cache " << QString::number(x.cacheBytes / 1e9, 'g', 6) << ")\n";
}

int predictRuntime(const QStringList& args) {
    QCommandLineParser p;
    if (!parseQuery(p, args, "Predict TTFT, step time, throughput and memory of one configuration.", analysis::addPredictRuntimeOptions))
        return kExitOk;
    const analysis::PredictRuntimeAnswer a = analysis::predictRuntimeQuery(p, queryContext());
    if (p.isSet("json")) {
        printJson(a.json);
        return kExitOk;
    }
    QString out;
    QTextStream t(&out);
    if (a.spec) {
        const ModelSpec& spec = *a.spec;
        t << q(spec.name) << " d_model " << spec.dModel << ", " << spec.layers.size() << " layers, " << paramCounts(spec).total()
          << " parameters (active " << paramCounts(spec).activeTotal() << "); batch " << a.batch << ", prefill " << a.prefill << "\n";
        if (a.expertsTouched > 0)
            t << "experts     " << QString::number(a.expertsTouched, 'g', 4) << " of " << spec.moe.nRouted << " read per MoE layer a step\n";
        if (a.rates.fitted) t << "rates       prefill of " << q(a.rates.prefillFrom) << ", decode of " << q(a.rates.decodeFrom) << " (--fit)\n";
    } else {
        const ModelConfig& c = a.config;
        t << familyLabel(c.family).data() << " d_model " << c.dModel << ", " << c.nLayers << " layers, "
          << countParameters(c).total() << " parameters; batch " << a.batch << ", prefill " << a.prefill << "\n";
    }
    printPredictionLines(t, a.prediction);
    printText(out);
    return kExitOk;
}

int predictMaxModel(const QStringList& args) {
    QCommandLineParser p;
    if (!parseQuery(p, args,
                    "The largest model of a family of configurations that meets a TTFT or step-time budget: the appendix "
                    "Token/Param table (default) or a width sweep at fixed depth.",
                    analysis::addPredictMaxModelOptions))
        return kExitOk;
    const analysis::MaxModelQueryAnswer m = analysis::predictMaxModelQuery(p, queryContext());
    if (p.isSet("json")) {
        printJson(m.json);
        return kExitOk;
    }
    const inference::MaxModelAnswer& a = m.answer;
    QString out;
    QTextStream t(&out);
    t << (m.stage == Stage::Prefill ? "TTFT" : "step-time") << " budget " << m.budget * 1e3 << " ms at batch " << m.batch
      << ", prefill " << m.prefill << ": ";
    if (a.best)
        t << q(m.labels[*a.best]) << " (" << qint64(a.evaluated[*a.best].params) << " parameters, "
          << QString::number(a.evaluated[*a.best].seconds * 1e3, 'g', 5) << " ms)\n";
    else
        t << "no candidate meets it\n";
    printText(out);
    return kExitOk;
}

int predictCrossover(const QStringList& args) {
    QCommandLineParser p;
    if (!parseQuery(p, args,
                    "The context length at which xLSTM's TTFT or step-time advantage over a Transformer of the same width and "
                    "depth reaches a factor (Transformer time / xLSTM time).",
                    analysis::addPredictCrossoverOptions))
        return kExitOk;
    const analysis::CrossoverQueryAnswer c = analysis::predictCrossoverQuery(p, queryContext());
    if (p.isSet("json")) {
        printJson(c.json);
        return kExitOk;
    }
    const inference::CrossoverAnswer& a = c.answer;
    QString out;
    QTextStream t(&out);
    if (c.model) {
        t << q(*c.model) << " against " << q(*c.baseline) << ", " << analysis::stageName(c.stage).data() << ", batch " << c.batch
          << ": advantage " << QString::number(a.advantageAtStart, 'g', 4) << " at T = 1, "
          << QString::number(a.advantageAtEnd, 'g', 4) << " at T = " << c.maxContext << "; factor " << c.factor << " "
          << (a.context ? "from T = " + QString::number(*a.context, 'f', 0) : QStringLiteral("not reached")) << "\n";
    } else {
        t << "xLSTM " << (c.stage == Stage::Prefill ? "TTFT" : "step-time") << " advantage " << c.factor << "x ";
        if (a.context)
            t << "from context " << qint64(*a.context) << "\n";
        else
            t << "not reached up to context " << qint64(c.maxContext) << " (advantage there " << a.advantageAtEnd << ")\n";
    }
    printText(out);
    return kExitOk;
}

}  // namespace

int verbPredict(const QStringList& args) {
    const QString sub = args.value(1);
    QStringList rest = args.mid(1);  // the sub-verb takes the place of the verb
    if (sub == "runtime") return predictRuntime(rest);
    if (sub == "max-model") return predictMaxModel(rest);
    if (sub == "crossover") return predictCrossover(rest);
    if (sub == "optimal") return predictOptimal(rest);
    if (sub == "curve") return predictCurveVerb(rest);
    if (sub.isEmpty()) usage("missing sub-verb (expected runtime, max-model, crossover, optimal or curve)");
    if (sub == "--help" || sub == "-h" || sub == "help") {
        printText(QStringLiteral(
            "Usage: scalex predict <runtime|max-model|crossover|optimal|curve> [options]\n"
            "  runtime    TTFT, step time, throughput and memory of one configuration\n"
            "  max-model  the largest configuration that meets a TTFT or step-time budget\n"
            "  crossover  the context length at which xLSTM's advantage reaches a factor\n"
            "  optimal    compute-optimal N*, D* of each series of a study by both methods; the lifetime optimum\n"
            "  curve      a run's loss at any step under any learning-rate schedule, with its interval\n"
            "`scalex predict <sub-verb> --help` lists the options.\n"));
        return kExitOk;
    }
    usage("unknown sub-verb '" + sub + "' (expected runtime, max-model, crossover, optimal or curve)");
}

}  // namespace scalex::cli

static void initScalexRuntimeResources() { Q_INIT_RESOURCE(scalex); }

void scalex::cli::initRuntimeResources() {
    static const bool done = (initScalexRuntimeResources(), true);
    (void)done;
}
