// The runtime verbs of the inference model (Sec. "Modeling Inference Runtimes", App. "Modeling
// Inference Characteristics"):
//   scalex fit runtime    fit alpha_eff, beta_eff, eps (and the batch term) per measured model
//   scalex predict runtime | max-model | crossover
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <cmath>
#include <functional>
#include <limits>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/accounting/ModelLadder.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/AnalysisJson.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/SpecJson.h"
#include "gpu/BenchJson.h"

namespace scalex::cli {

using namespace scalex::accounting;
using analysis::RuntimeFitOptions;
using analysis::toJson;
using inference::Accelerator;
using inference::Stage;

void initRuntimeResources();

namespace {

// The embedded copy of datasets/paper (resources/scalex.qrc).
const char* const kBuiltinModelConfigs = ":/scalex/datasets/paper/model_configs.csv";

QString builtinModelConfigs() {
    initRuntimeResources();
    return QString::fromLatin1(kBuiltinModelConfigs);
}

QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

[[noreturn]] void usage(const QString& message) { throw UsageError(message.toStdString()); }


// --- Accelerator: a paper table name, a CSV in the format of datasets/paper/accelerators.csv,
// or the measured roofs of a `scalex bench --out` JSON file.
Accelerator resolveAccelerator(const QString& value, const QString& rowName) {
    if (auto a = analysis::paperAccelerator(value.toStdString())) return *a;
    const QFileInfo info(value);
    if (!info.exists())
        usage("--accelerator: '" + value + "' is neither V100, A100, H100, B200 nor an existing file");
    if (info.suffix().compare("json", Qt::CaseInsensitive) == 0) {
        gpu::BenchReport r;
        try {
            r = gpu::loadBenchReport(value);
        } catch (const std::exception& e) {
            usage(QStringLiteral("--accelerator: %1").arg(QString::fromUtf8(e.what())));
        }
        Accelerator a;
        a.name = r.device.name + " (measured roofs)";
        a.description = r.device.backend + " " + r.device.name;
        a.flops = r.roofs.compute16 > 0 ? r.roofs.compute16 : r.roofs.computeF32;
        a.memoryBandwidth = r.roofs.bandwidth;
        if (auto problem = analysis::acceleratorProblem(a))
            usage("--accelerator: " + value + ": the benchmark has no usable roofs (" + q(*problem) + ")");
        return a;
    }
    QString error;
    const auto rows = analysis::loadAccelerators(value, &error);
    if (!rows) usage("--accelerator: " + error);
    if (!rowName.isEmpty()) {
        for (const auto& a : *rows)
            if (QString::fromStdString(a.name).compare(rowName, Qt::CaseInsensitive) == 0) return a;
        usage("--accelerator-name: no row '" + rowName + "' in " + value);
    }
    if (rows->size() != 1) {
        QStringList names;
        for (const auto& a : *rows) names << QString::fromStdString(a.name);
        usage("--accelerator: " + value + " lists " + QString::number(rows->size()) + " accelerators (" +
              names.join(", ") + "); choose one with --accelerator-name");
    }
    return rows->front();
}

// --- Work settings: FLOP convention (runtime default: appendix, F_causal 1) and generated tokens;
// the defaults are those of analysis::RuntimeFitOptions.
void addWorkOptions(QCommandLineParser& p) {
    const RuntimeFitOptions defaults;
    p.addOptions({
        {"convention", "FLOP convention: appendix (default), study, chinchilla or 6nd.", "name",
         QString::fromStdString(defaults.work.convention.name)},
        {"f-causal", "F_causal of the attention core and mLSTM intra-chunk block (runtime default 1: the measured kernels compute the full masked matrix).", "x",
         QString::number(defaults.work.convention.ops.causal)},
        {"generate", "Generated tokens the step time is averaged over (and the cache holds).", "n",
         QString::number(defaults.work.generatedTokens)},
    });
}

// The options' work settings into `o`.
void readWorkOptions(const QCommandLineParser& p, RuntimeFitOptions& o) {
    auto conv = conventionByName(p.value("convention").toStdString());
    if (!conv)
        usage("--convention: unknown convention '" + p.value("convention") + "' (expected appendix, study, chinchilla or 6nd)");
    o.work.convention = *conv;
    const double fc = *doubleOption(p, "f-causal");
    if (!(fc > 0 && fc <= 1)) usage("--f-causal must be in (0, 1], got " + p.value("f-causal"));
    o.work.convention.ops.causal = fc;
    o.work.generatedTokens = static_cast<double>(*intOption(p, "generate"));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// scalex fit runtime

int runFitRuntime(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "Fit the runtime model (Eq. runtimes) per measured model: TTFT = FLOPs/alpha_eff + eps (prefill), "
        "step = bytes/beta_eff + eps (+ kappa B for Transformers) (decode).");
    p.addHelpOption();
    const RuntimeFitOptions defaults;
    p.addOptions({
        {"data", "Measurements: the study's inference_results.csv or an inference_results_df_dict_*.csv.", "file"},
        {"arch", "df_dict file(s) with the architectures (default: <data stem>_df_dict_*.csv beside --data).", "file"},
        {"configs", "Appendix model tables for models without a df_dict architecture (default: built-in datasets/paper/model_configs.csv).", "file"},
        {"model", "Fit only this model (e.g. llama2_7b).", "name"},
        {"stage", "prefill or decode (default both).", "stage"},
        {"accelerator", "V100, A100, H100, B200, an accelerator CSV or a `scalex bench` JSON (measured roofs).", "name|file", "H100"},
        {"accelerator-name", "Row of an accelerator CSV with several rows.", "name"},
        {"batch-term", "auto (Transformer decode only, as the paper), on or off.", "mode", "auto"},
        {"loss", "l1 (absolute relative residuals, default) or l2 (squared relative residuals).", "kind", defaults.robust ? "l1" : "l2"},
        {"variable-share", "A point counts as not overhead-dominated when the modelled variable term is at least this share.", "x",
         QString::number(defaults.variableShare)},
        {"points", "Include every point's measured and modelled time in the JSON."},
        {"json", "Print one JSON object."},
    });
    addWorkOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (!p.isSet("data")) usage("missing required option --data (a measurement CSV)");
    RuntimeFitOptions options;
    readWorkOptions(p, options);
    const Accelerator acc = resolveAccelerator(p.value("accelerator"), p.value("accelerator-name"));

    std::vector<Stage> stages{Stage::Prefill, Stage::Decode};
    if (p.isSet("stage")) {
        auto s = analysis::parseStage(p.value("stage").toStdString());
        if (!s) usage("--stage: unknown stage '" + p.value("stage") + "' (expected prefill or decode)");
        stages = {*s};
    }
    const QString batchTerm = p.value("batch-term");
    if (batchTerm != "auto" && batchTerm != "on" && batchTerm != "off")
        usage("--batch-term: expected auto, on or off, got '" + batchTerm + "'");
    if (batchTerm != "auto") options.batchTerm = batchTerm == "on";
    const QString loss = p.value("loss");
    if (loss != "l1" && loss != "l2") usage("--loss: expected l1 or l2, got '" + loss + "'");
    options.robust = loss == "l1";
    const double share = *doubleOption(p, "variable-share");
    if (!(share > 0 && share < 1)) usage("--variable-share must be between 0 and 1, got " + p.value("variable-share"));
    options.variableShare = share;

    const QString dataPath = p.value("data");
    QString error;
    auto data = data::loadInferenceMeasurements(dataPath, &error);
    if (!data) usage("--data: " + error);
    const QStringList archFiles = p.isSet("arch") ? p.values("arch") : data::siblingDfDictFiles(dataPath);
    for (const auto& f : archFiles)
        if (!data::attachDfDictArchitectures(*data, f, &error)) usage("--arch: " + error);
    const QString configsPath = p.isSet("configs") ? p.value("configs") : builtinModelConfigs();
    if (std::any_of(data->models.begin(), data->models.end(), [](const auto& m) { return !m.config; })) {
        auto table = data::loadAppendixConfigs(configsPath, &error);
        if (!table) usage("--configs: " + error);
        // The measured xLSTMs run the kernels with chunk 128 (df_dict model_params__chunk_size).
        data::attachAppendixArchitectures(*data, *table, 128);
    }
    if (p.isSet("model") && !data->find(p.value("model").toStdString()))
        usage("--model: no model '" + p.value("model") + "' in " + dataPath);

    const auto fitted = analysis::runtimeFitAnalysis(*data, options, stages, p.value("model").toStdString());
    for (const auto& m : fitted.models) {
        if (!m.model.config) usage(QStringLiteral("no architecture for model '%1': give --arch or --configs").arg(q(m.model.model)));
        for (const auto& s : m.stages)
            if (!s.fit.ok)
                usage(QStringLiteral("model '%1' %2: %3").arg(q(m.model.model), q(analysis::stageName(s.stage)), q(s.fit.error)));
    }
    if (p.isSet("json")) {
        QJsonObject out = toJson(fitted, options, acc, p.isSet("points"));
        out.insert("data", dataPath);
        printJson(out);
        return kExitOk;
    }
    QString text;
    QTextStream t(&text);
    t << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9\n")
             .arg("model", -12).arg("stage", -8).arg("rate", 11).arg("/roof", 7).arg("eps ms", 8).arg("kappa ms", 9)
             .arg("med err", 8).arg("med var", 8).arg("points", 7);
    for (const auto& m : fitted.models)
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
      << "; errors in %, 'med var' over points whose modelled variable term is >= " << share * 100 << " %\n";
    printText(text);
    return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// scalex predict

namespace {

ModelConfig configFrom(const QCommandLineParser& p, Family family, const QString& headsOption = "n-heads") {
    return modelFromOptions(p, family, headsOption);
}

void addRateOptions(QCommandLineParser& p) {
    const RuntimeFitOptions defaults;
    p.addOptions({
        {"accelerator", "V100, A100, H100, B200, an accelerator CSV or a `scalex bench` JSON (measured roofs).", "name|file", "H100"},
        {"accelerator-name", "Row of an accelerator CSV with several rows.", "name"},
        {"alpha-eff-fraction", QStringLiteral("alpha_eff = x alpha_acc (default %1: the roofline bound).").arg(defaults.alphaFraction), "x"},
        {"beta-eff-fraction", QStringLiteral("beta_eff = x beta_acc (default %1).").arg(defaults.betaFraction), "x"},
        {"fit", "Rates of a `scalex fit runtime --json` file: the fitted model of the same family nearest in parameters.", "file"},
        {"fit-model", "Use this model's rates from --fit (e.g. xlstm_7b).", "name"},
        {"fit-rates", "nearest (the fitted model nearest in parameters, default) or interpolate (log-linear in N between the two nearest fitted sizes).", "mode", "nearest"},
    });
}

// Where the rates come from, per family: the accelerator at the options' fractions, or --fit.
analysis::RateSource rateSource(const QCommandLineParser& p, const RuntimeFitOptions& options) {
    analysis::RateSource src;
    src.options = options;
    src.accelerator = resolveAccelerator(p.value("accelerator"), p.value("accelerator-name"));
    for (const char* name : {"alpha-eff-fraction", "beta-eff-fraction"}) {
        if (auto v = doubleOption(p, name)) {
            if (!(*v > 0 && *v <= 1)) usage(QStringLiteral("--%1 must be in (0, 1], got %2").arg(name, p.value(name)));
            (QString(name) == "alpha-eff-fraction" ? src.options.alphaFraction : src.options.betaFraction) = *v;
        }
    }
    if (p.isSet("fit")) {
        if (p.isSet("alpha-eff-fraction") || p.isSet("beta-eff-fraction"))
            usage("--fit and --alpha-eff-fraction/--beta-eff-fraction exclude each other");
        QString error;
        auto fits = analysis::loadFittedRates(p.value("fit"), &error);
        if (!fits) usage("--fit: " + error);
        src.fits = std::move(*fits);
        if (p.isSet("fit-model")) {
            src.fitModel = p.value("fit-model").toStdString();
            if (std::none_of(src.fits.begin(), src.fits.end(), [&](const auto& e) { return e.model == src.fitModel; }))
                usage("--fit-model: no model '" + p.value("fit-model") + "' in " + p.value("fit"));
        }
    } else if (p.isSet("fit-model")) {
        usage("--fit-model needs --fit");
    }
    const QString mode = p.value("fit-rates");
    if (mode != "nearest" && mode != "interpolate") usage("--fit-rates: expected nearest or interpolate, got '" + mode + "'");
    if (mode == "interpolate" && !p.isSet("fit")) usage("--fit-rates interpolate needs --fit");
    src.interpolate = mode == "interpolate";
    return src;
}

// The rates of `config`; a stage that --fit has no fit for is a usage error.
analysis::SourcedRates ratesOf(const analysis::RateSource& src, const ModelConfig& config) {
    analysis::SourcedRates r = src.rates(config);
    if (!r.error.empty()) usage("--fit: " + q(r.error));
    return r;
}

// A model of any architecture from a model file (--spec, --against, --ladder): Scalex's spec JSON
// or a config.json. Its rates are the accelerator's roofs, or a fitted model's that --fit-model names.
ModelSpec specOption(const QCommandLineParser& p, const char* name) {
    const auto model = data::readModelFile(p.value(name).toStdString());
    if (!model) usage(QStringLiteral("--%1: ").arg(name) + q(model.error().toString()));
    return model->spec;
}

// The rates of `spec`: the accelerator's roofs, or with --fit those of the fitted model --fit-model names.
analysis::SourcedRates specRates(const QCommandLineParser& p, const analysis::RateSource& src, const char* option, const ModelSpec& spec) {
    for (const char* o : {"family", "d-model", "n-layers", "n-heads", "n-kv-heads", "d-qk", "d-hv", "d-ff", "vocab", "chunk"})
        if (p.optionNames().contains(o) && p.isSet(o)) usage(QStringLiteral("--%1 does not go with --%2 (the file gives the architecture)").arg(o, option));
    analysis::SourcedRates r = src.rates(spec);
    if (!r.error.empty()) usage(QStringLiteral("--fit with --%1: ").arg(option) + q(r.error));
    return r;
}

QJsonObject specSummary(const ModelSpec& spec) {
    const ParamCounts n = paramCounts(spec);
    return {{"name", q(spec.name)}, {"d_model", qint64(spec.dModel)}, {"n_layers", qint64(spec.layers.size())},
            {"params", qint64(n.total())}, {"params_active", qint64(n.activeTotal())}};
}

double positiveMs(const QCommandLineParser& p, const char* name) {
    const double v = *doubleOption(p, name);
    if (!(v > 0)) usage(QStringLiteral("--%1 must be positive, got %2").arg(name, p.value(name)));
    return v * 1e-3;
}

// predict runtime --spec: any architecture at the accelerator's roofs.
// TTFT, step time, throughput and memory of a prediction, one line each.
void printPredictionLines(QTextStream& t, const inference::Prediction& x) {
    t << "TTFT        " << QString::number(x.ttft * 1e3, 'g', 6) << " ms\n"
      << "step time   " << QString::number(x.stepTime * 1e3, 'g', 6) << " ms\n"
      << "throughput  " << QString::number(x.throughput, 'g', 6) << " tokens/s\n"
      << "memory      " << QString::number(x.memoryBytes() / 1e9, 'g', 6) << " GB (weights "
      << QString::number(x.weightBytes / 1e9, 'g', 6) << ", cache " << QString::number(x.cacheBytes / 1e9, 'g', 6) << ")\n";
}

int predictSpecRuntime(const QCommandLineParser& p) {
    RuntimeFitOptions s;
    readWorkOptions(p, s);
    const analysis::RateSource src = rateSource(p, s);
    const ModelSpec spec = specOption(p, "spec");
    const analysis::SourcedRates sourced = specRates(p, src, "spec", spec);
    const inference::RuntimeRates& rates = sourced.rates;
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const double prefill = static_cast<double>(*intOption(p, "prefill", 0));
    const inference::Prediction x = analysis::predictRuntime(spec, batch, prefill, rates, s);
    const double touched = expertsTouched(spec, batch);
    if (!p.isSet("json")) {
        QString out;
        QTextStream t(&out);
        t << q(spec.name) << " d_model " << spec.dModel << ", " << spec.layers.size() << " layers, " << paramCounts(spec).total()
          << " parameters (active " << paramCounts(spec).activeTotal() << "); batch " << batch << ", prefill " << prefill << "\n";
        if (touched > 0) t << "experts     " << QString::number(touched, 'g', 4) << " of " << spec.moe.nRouted << " read per MoE layer a step\n";
        if (sourced.fitted) t << "rates       prefill of " << q(sourced.prefillFrom) << ", decode of " << q(sourced.decodeFrom) << " (--fit)\n";
        printPredictionLines(t, x);
        printText(out);
        return kExitOk;
    }
    QJsonObject out = toJson(x);
    out["model"] = specSummary(spec);
    out["model_file"] = p.value("spec");
    out["experts_touched"] = touched;
    out["batch"] = batch;
    out["prefill"] = prefill;
    out["generated_tokens"] = s.work.generatedTokens;
    out["convention"] = q(s.work.convention.name);
    out["f_causal"] = s.work.convention.ops.causal;
    out["accelerator"] = toJson(src.accelerator);
    out["rates"] = toJson(rates, src.accelerator);
    printJson(out);
    return kExitOk;
}

int predictRuntime(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("Predict TTFT, step time, throughput and memory of one configuration.");
    p.addHelpOption();
    addModelOptions(p, true);
    addRateOptions(p);
    addWorkOptions(p);
    p.addOptions({{"batch", "Batch size B.", "n", "1"}, {"prefill", "Prefill length T_p.", "n", "0"}, {"json", "Print one JSON object."},
                  {"spec", "Any architecture from a model file (Scalex's spec JSON or a Hugging Face config.json) instead of "
                           "--family and the sizes, at the accelerator's roofs (with --fit, at the rates of the fitted model --fit-model names).", "file"}});
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (p.isSet("spec")) return predictSpecRuntime(p);
    const Family family = familyOption(p);
    if (family == Family::Xlstm && p.isSet("n-kv-heads"))
        usage("--n-kv-heads applies to Transformers only (an mLSTM has no key/value head groups)");
    if (family == Family::Transformer && p.isSet("chunk")) usage("--chunk applies to the mLSTM only");
    const ModelConfig c = configFrom(p, family);
    RuntimeFitOptions s;
    readWorkOptions(p, s);
    const analysis::RateSource src = rateSource(p, s);
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const double prefill = static_cast<double>(*intOption(p, "prefill", 0));
    const analysis::SourcedRates r = ratesOf(src, c);
    const inference::Prediction x = analysis::predictRuntime(c, batch, prefill, r.rates, s);
    if (!p.isSet("json")) {
        QString out;
        QTextStream t(&out);
        t << familyLabel(c.family).data() << " d_model " << c.dModel << ", " << c.nLayers << " layers, "
          << countParameters(c).total() << " parameters; batch " << batch << ", prefill " << prefill << "\n";
        printPredictionLines(t, x);
        printText(out);
        return kExitOk;
    }
    QJsonObject out = toJson(x);
    out["config"] = toJson(c);
    out["batch"] = batch;
    out["prefill"] = prefill;
    out["generated_tokens"] = s.work.generatedTokens;
    out["convention"] = q(s.work.convention.name);
    out["f_causal"] = s.work.convention.ops.causal;
    out["accelerator"] = toJson(src.accelerator);
    out["rates"] = toJson(r.rates, src.accelerator);
    if (const QJsonObject from = analysis::sourceJson(r); !from.isEmpty()) out["rates_from_fit"] = from;
    printJson(out);
    return kExitOk;
}

using LabelOf = std::function<std::string(std::size_t)>;

QJsonArray evaluatedJson(const inference::MaxModelAnswer& a, Stage stage, const LabelOf& label) {
    QJsonArray evaluated;
    for (const auto& e : a.evaluated)
        evaluated.append(QJsonObject{{"label", q(label(e.index))},
                                     {"params", e.params},
                                     {stage == Stage::Prefill ? "ttft_ms" : "step_ms", e.seconds * 1e3},
                                     {"meets_budget", e.meetsBudget}});
    return evaluated;
}

void printMaxModelText(const inference::MaxModelAnswer& a, Stage stage, double budget, double batch, double prefill,
                       const LabelOf& label) {
    QString out;
    QTextStream t(&out);
    t << (stage == Stage::Prefill ? "TTFT" : "step-time") << " budget " << budget * 1e3 << " ms at batch " << batch
      << ", prefill " << prefill << ": ";
    if (a.best)
        t << q(label(*a.best)) << " (" << qint64(a.evaluated[*a.best].params) << " parameters, "
          << QString::number(a.evaluated[*a.best].seconds * 1e3, 'g', 5) << " ms)\n";
    else
        t << "no candidate meets it\n";
    printText(out);
}

// predict max-model --ladder: the largest rung of any architecture's ladder within the budget.
int predictLadderMaxModel(const QCommandLineParser& p, Stage stage, double budget, double batch, double prefill,
                          const RuntimeFitOptions& s, const analysis::RateSource& src) {
    const ModelSpec base = specOption(p, "ladder");
    const inference::RuntimeRates rates = specRates(p, src, "ladder", base).rates;
    const auto cands = analysis::ladderCandidates(specLadder(base));
    const inference::MaxModelAnswer a = analysis::largestModelWithinBudget(cands, stage, budget, batch, prefill, rates, s);
    const LabelOf label = [&](std::size_t i) { return cands[i].label; };
    if (!p.isSet("json")) {
        printMaxModelText(a, stage, budget, batch, prefill, label);
        return kExitOk;
    }
    QJsonValue best(QJsonValue::Null);
    if (a.best)
        best = QJsonObject{{"label", q(cands[*a.best].label)},
                           {"model", specSummary(cands[*a.best].spec)},
                           {"prediction", toJson(analysis::predictRuntime(cands[*a.best].spec, batch, prefill, rates, s))}};
    printJson(QJsonObject{{"ladder", q(base.name)},
                          {"stage", q(analysis::stageName(stage))},
                          {"budget_ms", budget * 1e3},
                          {"batch", batch},
                          {"prefill", prefill},
                          {"candidates", "ladder"},
                          {"accelerator", toJson(src.accelerator)},
                          {"best", best},
                          {"evaluated", evaluatedJson(a, stage, label)}});
    return kExitOk;
}

int predictMaxModel(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "The largest model of a family of configurations that meets a TTFT or step-time budget: the appendix "
        "Token/Param table (default) or a width sweep at fixed depth.");
    p.addHelpOption();
    p.addOptions({
        {"family", "transformer (llama) or xlstm (mlstm).", "name"},
        {"ttft-ms", "TTFT budget [ms].", "x"},
        {"step-ms", "Step-time budget [ms].", "x"},
        {"batch", "Batch size B.", "n", "1"},
        {"prefill", "Prefill length T_p.", "n", "0"},
        {"candidates", "appendix (Tab. *_tokenparam_hyperparams), appendix-all (also the IsoFLOP tables) or sweep.", "kind", "appendix"},
        {"configs", "Appendix model tables (default: built-in datasets/paper/model_configs.csv).", "file"},
        {"d-model-range", "Sweep widths MIN:MAX:STEP.", "range", "512:8192:128"},
        {"n-layers", "Sweep depth.", "n", "32"},
        {"head-dim", "Sweep head width (Transformer d_qk = d_hv; mLSTM d_hv, d_qk half of it).", "n", "128"},
        {"chunk", "mLSTM chunk size L of the xLSTM candidates (the study's inference kernels ran at 128).", "n", "64"},
        {"ladder", "Candidates of any architecture: the model file's spec (Scalex's spec JSON or a config.json) sized to "
                   "widths 256 to 16384 (its aspect ratio, head widths and FFN ratio kept), at the accelerator's roofs.", "file"},
        {"json", "Print one JSON object."},
    });
    addRateOptions(p);
    addWorkOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (p.isSet("ttft-ms") == p.isSet("step-ms")) usage("give exactly one of --ttft-ms and --step-ms");
    const Stage stage = p.isSet("ttft-ms") ? Stage::Prefill : Stage::Decode;
    const double budget = positiveMs(p, stage == Stage::Prefill ? "ttft-ms" : "step-ms");
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const double prefill = static_cast<double>(*intOption(p, "prefill", 0));
    RuntimeFitOptions s;
    readWorkOptions(p, s);
    const analysis::RateSource src = rateSource(p, s);
    if (p.isSet("ladder")) return predictLadderMaxModel(p, stage, budget, batch, prefill, s, src);
    const Family family = familyOption(p);

    std::vector<inference::Candidate> cands;
    const QString kind = p.value("candidates");
    if (kind == "appendix" || kind == "appendix-all") {
        QString error;
        const QString path = p.isSet("configs") ? p.value("configs") : builtinModelConfigs();
        auto table = data::loadAppendixConfigs(path, &error);
        if (!table) usage("--configs: " + error);
        cands = analysis::appendixCandidates(*table, family, kind == "appendix-all");
    } else if (kind == "sweep") {
        const QStringList parts = p.value("d-model-range").split(':');
        bool ok = parts.size() == 3;
        std::int64_t v[3] = {0, 0, 0};
        for (int i = 0; ok && i < 3; ++i) v[i] = parts[i].toLongLong(&ok);
        if (!ok || v[0] <= 0 || v[1] < v[0] || v[2] <= 0)
            usage("--d-model-range: expected MIN:MAX:STEP with 0 < MIN <= MAX and STEP > 0, got '" + p.value("d-model-range") + "'");
        cands = analysis::widthSweepCandidates(family, v[0], v[1], v[2], *intOption(p, "n-layers"), *intOption(p, "head-dim"));
    } else {
        usage("--candidates: expected appendix, appendix-all or sweep, got '" + kind + "'");
    }
    if (cands.empty()) usage("no candidate configurations (check --d-model-range and --head-dim)");
    if (p.isSet("chunk") && family != Family::Xlstm) usage("--chunk applies to xLSTM candidates only");
    for (auto& c : cands) c.config.chunk = *intOption(p, "chunk");

    const inference::RatesFor rates = [&](const ModelConfig& c) { return ratesOf(src, c).rates; };
    const inference::MaxModelAnswer a = analysis::largestModelWithinBudget(cands, stage, budget, batch, prefill, rates, s);
    const QJsonArray evaluated = evaluatedJson(a, stage, [&](std::size_t i) { return cands[i].label; });
    QJsonValue best(QJsonValue::Null);
    if (a.best) {
        const inference::Candidate& c = cands[*a.best];
        QJsonObject b{{"label", q(c.label)}, {"config", toJson(c.config)}};
        const analysis::SourcedRates r = ratesOf(src, c.config);
        const inference::Prediction x = analysis::predictRuntime(c.config, batch, prefill, r.rates, s);
        b["prediction"] = toJson(x);
        if (const QJsonObject from = analysis::sourceJson(r); !from.isEmpty()) b["rates_from_fit"] = from;
        best = b;
    }
    if (!p.isSet("json")) {
        printMaxModelText(a, stage, budget, batch, prefill, [&](std::size_t i) { return cands[i].label; });
        return kExitOk;
    }
    printJson(QJsonObject{{"family", q(familyName(family))},
                          {"stage", q(analysis::stageName(stage))},
                          {"budget_ms", budget * 1e3},
                          {"batch", batch},
                          {"prefill", prefill},
                          {"candidates", kind},
                          {"accelerator", toJson(src.accelerator)},
                          {"best", best},
                          {"evaluated", evaluated}});
    return kExitOk;
}

// predict crossover --spec --against: between any two architectures at the accelerator's roofs.
// The keys every crossover answer has, whichever models it compares.
QJsonObject crossoverJson(const inference::CrossoverAnswer& a, Stage stage, double factor, double batch, double maxContext) {
    return {{"stage", q(analysis::stageName(stage))},
            {"factor", factor},
            {"batch", batch},
            {"context", a.context ? QJsonValue(*a.context) : QJsonValue(QJsonValue::Null)},
            {"advantage_at_1", a.advantageAtStart},
            {"advantage_at_max_context", a.advantageAtEnd},
            {"max_context", maxContext}};
}

int predictSpecCrossover(const QCommandLineParser& p, Stage stage, double factor) {
    if (p.isSet("xlstm-n-heads")) usage("--xlstm-n-heads does not go with --spec (the file gives the architecture)");
    RuntimeFitOptions s;
    readWorkOptions(p, s);
    const analysis::RateSource src = rateSource(p, s);
    const ModelSpec model = specOption(p, "spec"), baseline = specOption(p, "against");
    const inference::RuntimeRates rates = specRates(p, src, "spec", model).rates;
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const double maxContext = static_cast<double>(*intOption(p, "max-context", 2));
    const inference::CrossoverAnswer a = analysis::specCrossover(baseline, model, rates, stage, batch, factor, s, 1, maxContext);
    if (!p.isSet("json")) {
        QString out;
        QTextStream t(&out);
        t << q(model.name) << " against " << q(baseline.name) << ", " << analysis::stageName(stage).data() << ", batch " << batch
          << ": advantage " << QString::number(a.advantageAtStart, 'g', 4) << " at T = 1, "
          << QString::number(a.advantageAtEnd, 'g', 4) << " at T = " << maxContext << "; factor " << factor << " "
          << (a.context ? "from T = " + QString::number(*a.context, 'f', 0) : QStringLiteral("not reached")) << "\n";
        printText(out);
        return kExitOk;
    }
    QJsonObject json = crossoverJson(a, stage, factor, batch, maxContext);
    json["model"] = specSummary(model);
    json["baseline"] = specSummary(baseline);
    json["accelerator"] = toJson(src.accelerator);
    json["rates"] = toJson(rates, src.accelerator);
    printJson(json);
    return kExitOk;
}

int predictCrossover(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "The context length at which xLSTM's TTFT or step-time advantage over a Transformer of the same width and "
        "depth reaches a factor (Transformer time / xLSTM time).");
    p.addHelpOption();
    addModelOptions(p, false);
    p.addOptions({
        {"xlstm-n-heads", "mLSTM heads of the xLSTM (its d_qk = d/2/H, d_hv = d/H).", "n"},
        {"factor", "Advantage factor F (> 0).", "x"},
        {"stage", "prefill (TTFT) or decode (step time).", "stage", "decode"},
        {"batch", "Batch size B.", "n", "1"},
        {"max-context", "Upper end of the search.", "n", "16777216"},
        {"spec", "Any architecture (Scalex's spec JSON or a config.json) in place of the xLSTM; with --against.", "file"},
        {"against", "The baseline of --spec in place of the Transformer (e.g. a GQA or MLA model's config.json).", "file"},
        {"json", "Print one JSON object."},
    });
    addRateOptions(p);
    addWorkOptions(p);
    if (!parseVerbArguments(p, args)) return kExitOk;
    if (!p.isSet("factor")) usage("missing required option --factor");
    const double factor = *doubleOption(p, "factor");
    if (!(factor > 0)) usage("--factor must be positive, got " + p.value("factor"));
    const auto stage = analysis::parseStage(p.value("stage").toStdString());
    if (!stage) usage("--stage: unknown stage '" + p.value("stage") + "' (expected prefill or decode)");
    if (p.isSet("spec") != p.isSet("against")) usage("--spec and --against go together (the model and its baseline)");
    if (p.isSet("spec")) return predictSpecCrossover(p, *stage, factor);
    if (p.isSet("d-qk") || p.isSet("d-hv"))
        usage("--d-qk/--d-hv would apply to both models; crossover uses the study's head widths");
    const ModelConfig t = configFrom(p, Family::Transformer);
    if (!p.isSet("xlstm-n-heads")) usage("missing required option --xlstm-n-heads");
    // Same width, depth, d_ff and vocabulary; its own heads.
    ModelConfig x = makeStudyConfig(Family::Xlstm, t.dModel, t.nLayers, requiredIntOption(p, "xlstm-n-heads"),
                                    ConfigOverrides{std::nullopt, std::nullopt, std::nullopt, intOption(p, "d-ff"),
                                                    intOption(p, "vocab"), intOption(p, "chunk")});
    if (auto problem = validate(x)) usage("--xlstm-" + q(*problem).replace('_', '-'));
    if (x.dHv * x.nHeads != x.dModel || x.dQk * 2 * x.nHeads != x.dModel)
        usage("--xlstm-n-heads must divide --d-model/2");
    RuntimeFitOptions s;
    readWorkOptions(p, s);
    const analysis::RateSource src = rateSource(p, s);
    const double batch = static_cast<double>(*intOption(p, "batch"));
    const double maxContext = static_cast<double>(*intOption(p, "max-context", 2));
    const analysis::SourcedRates rt = ratesOf(src, t);
    const analysis::SourcedRates rx = ratesOf(src, x);
    const inference::CrossoverAnswer a = analysis::xlstmCrossover(t, rt.rates, x, rx.rates, *stage, batch, factor, s, 1, maxContext);
    if (!p.isSet("json")) {
        QString out;
        QTextStream ts(&out);
        ts << "xLSTM " << (*stage == Stage::Prefill ? "TTFT" : "step-time") << " advantage " << factor << "x ";
        if (a.context)
            ts << "from context " << qint64(*a.context) << "\n";
        else
            ts << "not reached up to context " << qint64(maxContext) << " (advantage there " << a.advantageAtEnd << ")\n";
        printText(out);
        return kExitOk;
    }
    QJsonObject out = crossoverJson(a, *stage, factor, batch, maxContext);
    out["transformer"] = toJson(t);
    out["xlstm"] = toJson(x);
    out["accelerator"] = toJson(src.accelerator);
    out["transformer_rates"] = toJson(rt.rates, src.accelerator);
    out["xlstm_rates"] = toJson(rx.rates, src.accelerator);
    if (rt.fitted) out["rates_from_fit"] = QJsonObject{{"transformer", analysis::sourceJson(rt)}, {"xlstm", analysis::sourceJson(rx)}};
    printJson(out);
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

// Q_INIT_RESOURCE declares the registration function in the enclosing namespace, so it is called
// from the global one; registering the static library's resources twice is harmless.
static void initScalexRuntimeResources() { Q_INIT_RESOURCE(scalex); }

void scalex::cli::initRuntimeResources() {
    static const bool done = (initScalexRuntimeResources(), true);
    (void)done;
}
