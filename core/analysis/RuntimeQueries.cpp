#include "core/analysis/RuntimeQueries.h"

#include <QFileInfo>
#include <QJsonArray>
#include <algorithm>
#include <utility>

#include "core/accounting/ModelLadder.h"
#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/AnalysisJson.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/SpecJson.h"

namespace scalex::analysis {

using namespace scalex::accounting;
using inference::Accelerator;
using inference::Stage;

namespace {

QString q(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

[[noreturn]] void usage(const QString& message) { throw UsageError(message.toStdString()); }

// --- Work settings: FLOP convention (runtime default: appendix, F_causal 1) and generated tokens;
// the defaults are those of RuntimeFitOptions.
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
RateSource rateSource(const QCommandLineParser& p, const RuntimeFitOptions& options, const RuntimeQueryContext& context) {
    RateSource src;
    src.options = options;
    src.accelerator = resolveAccelerator(p.value("accelerator"), p.value("accelerator-name"), context);
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
        auto fits = loadFittedRates(p.value("fit"), &error);
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
SourcedRates ratesOf(const RateSource& src, const ModelConfig& config) {
    SourcedRates r = src.rates(config);
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
SourcedRates specRates(const QCommandLineParser& p, const RateSource& src, const char* option, const ModelSpec& spec) {
    for (const char* o : {"family", "d-model", "n-layers", "n-heads", "n-kv-heads", "d-qk", "d-hv", "d-ff", "vocab", "chunk"})
        if (p.optionNames().contains(o) && p.isSet(o)) usage(QStringLiteral("--%1 does not go with --%2 (the file gives the architecture)").arg(o, option));
    SourcedRates r = src.rates(spec);
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

// The work settings every prediction's JSON states.
void addWorkJson(QJsonObject& out, const RuntimeFitOptions& s, const Accelerator& accelerator) {
    out["generated_tokens"] = s.work.generatedTokens;
    out["convention"] = q(s.work.convention.name);
    out["f_causal"] = s.work.convention.ops.causal;
    out["accelerator"] = toJson(accelerator);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// accelerators

Accelerator resolveAccelerator(const QString& value, const QString& rowName, const RuntimeQueryContext& context) {
    if (auto a = paperAccelerator(value.toStdString())) return *a;
    const QFileInfo info(value);
    if (!info.exists())
        usage("--accelerator: '" + value + "' is neither V100, A100, H100, B200 nor an existing file");
    if (info.suffix().compare("json", Qt::CaseInsensitive) == 0) {
        if (!context.readMeasuredRoofs) usage("--accelerator: " + value + ": benchmark files cannot be read here");
        MeasuredRoofs r;
        try {
            r = context.readMeasuredRoofs(value);
        } catch (const std::exception& e) {
            usage(QStringLiteral("--accelerator: %1").arg(QString::fromUtf8(e.what())));
        }
        Accelerator a;
        a.name = r.device + " (measured roofs)";
        a.description = r.backend + " " + r.device;
        a.flops = r.compute16 > 0 ? r.compute16 : r.computeF32;
        a.memoryBandwidth = r.bandwidth;
        if (auto problem = acceleratorProblem(a))
            usage("--accelerator: " + value + ": the benchmark has no usable roofs (" + q(*problem) + ")");
        return a;
    }
    QString error;
    const auto rows = loadAccelerators(value, &error);
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

// ---------------------------------------------------------------------------------------------
// fit runtime

void addFitRuntimeOptions(QCommandLineParser& p) {
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
    });
    addWorkOptions(p);
}

FitRuntimeAnswer fitRuntimeQuery(const QCommandLineParser& p, const RuntimeQueryContext& context) {
    if (!p.isSet("data")) usage("missing required option --data (a measurement CSV)");
    FitRuntimeAnswer answer;
    RuntimeFitOptions options;
    readWorkOptions(p, options);
    answer.accelerator = resolveAccelerator(p.value("accelerator"), p.value("accelerator-name"), context);

    std::vector<Stage> stages{Stage::Prefill, Stage::Decode};
    if (p.isSet("stage")) {
        auto s = parseStage(p.value("stage").toStdString());
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
    answer.variableShare = share;

    const QString dataPath = p.value("data");
    QString error;
    auto data = data::loadInferenceMeasurements(dataPath, &error);
    if (!data) usage("--data: " + error);
    const QStringList archFiles = p.isSet("arch") ? p.values("arch") : data::siblingDfDictFiles(dataPath);
    for (const auto& f : archFiles)
        if (!data::attachDfDictArchitectures(*data, f, &error)) usage("--arch: " + error);
    const QString configsPath = p.isSet("configs") ? p.value("configs") : context.modelConfigs;
    if (std::any_of(data->models.begin(), data->models.end(), [](const auto& m) { return !m.config; })) {
        auto table = data::loadAppendixConfigs(configsPath, &error);
        if (!table) usage("--configs: " + error);
        // The measured xLSTMs run the kernels with chunk 128 (df_dict model_params__chunk_size).
        data::attachAppendixArchitectures(*data, *table, 128);
    }
    if (p.isSet("model") && !data->find(p.value("model").toStdString()))
        usage("--model: no model '" + p.value("model") + "' in " + dataPath);

    answer.fitted = runtimeFitAnalysis(*data, options, stages, p.value("model").toStdString());
    for (const auto& m : answer.fitted.models) {
        if (!m.model.config) usage(QStringLiteral("no architecture for model '%1': give --arch or --configs").arg(q(m.model.model)));
        for (const auto& s : m.stages)
            if (!s.fit.ok) usage(QStringLiteral("model '%1' %2: %3").arg(q(m.model.model), q(analysis::stageName(s.stage)), q(s.fit.error)));
    }
    answer.json = toJson(answer.fitted, options, answer.accelerator, p.isSet("points"));
    answer.json.insert("data", dataPath);
    return answer;
}

// ---------------------------------------------------------------------------------------------
// predict runtime

void addPredictRuntimeOptions(QCommandLineParser& p) {
    addModelOptions(p, true);
    addRateOptions(p);
    addWorkOptions(p);
    p.addOptions({{"batch", "Batch size B.", "n", "1"}, {"prefill", "Prefill length T_p.", "n", "0"},
                  {"spec", "Any architecture from a model file (Scalex's spec JSON or a Hugging Face config.json) instead of "
                           "--family and the sizes, at the accelerator's roofs (with --fit, at the rates of the fitted model --fit-model names).", "file"}});
}

PredictRuntimeAnswer predictRuntimeQuery(const QCommandLineParser& p, const RuntimeQueryContext& context) {
    PredictRuntimeAnswer answer;
    RuntimeFitOptions s;
    if (p.isSet("spec")) {
        // Any architecture at the accelerator's roofs.
        readWorkOptions(p, s);
        const RateSource src = rateSource(p, s, context);
        const ModelSpec& spec = answer.spec.emplace(specOption(p, "spec"));
        answer.rates = specRates(p, src, "spec", spec);
        answer.batch = static_cast<double>(*intOption(p, "batch"));
        answer.prefill = static_cast<double>(*intOption(p, "prefill", 0));
        answer.prediction = predictRuntime(spec, answer.batch, answer.prefill, answer.rates.rates, s);
        answer.expertsTouched = expertsTouched(spec, answer.batch);
        QJsonObject& out = answer.json = toJson(answer.prediction);
        out["model"] = specSummary(spec);
        out["model_file"] = p.value("spec");
        out["experts_touched"] = answer.expertsTouched;
        out["batch"] = answer.batch;
        out["prefill"] = answer.prefill;
        addWorkJson(out, s, src.accelerator);
        out["rates"] = toJson(answer.rates.rates, src.accelerator);
        return answer;
    }
    const Family family = familyOption(p);
    if (family == Family::Xlstm && p.isSet("n-kv-heads"))
        usage("--n-kv-heads applies to Transformers only (an mLSTM has no key/value head groups)");
    if (family == Family::Transformer && p.isSet("chunk")) usage("--chunk applies to the mLSTM only");
    answer.config = configFrom(p, family);
    readWorkOptions(p, s);
    const RateSource src = rateSource(p, s, context);
    answer.batch = static_cast<double>(*intOption(p, "batch"));
    answer.prefill = static_cast<double>(*intOption(p, "prefill", 0));
    answer.rates = ratesOf(src, answer.config);
    answer.prediction = predictRuntime(answer.config, answer.batch, answer.prefill, answer.rates.rates, s);
    QJsonObject& out = answer.json = toJson(answer.prediction);
    out["config"] = toJson(answer.config);
    out["batch"] = answer.batch;
    out["prefill"] = answer.prefill;
    addWorkJson(out, s, src.accelerator);
    out["rates"] = toJson(answer.rates.rates, src.accelerator);
    if (const QJsonObject from = sourceJson(answer.rates); !from.isEmpty()) out["rates_from_fit"] = from;
    return answer;
}

// ---------------------------------------------------------------------------------------------
// predict max-model

void addPredictMaxModelOptions(QCommandLineParser& p) {
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
    });
    addRateOptions(p);
    addWorkOptions(p);
}

MaxModelQueryAnswer predictMaxModelQuery(const QCommandLineParser& p, const RuntimeQueryContext& context) {
    if (p.isSet("ttft-ms") == p.isSet("step-ms")) usage("give exactly one of --ttft-ms and --step-ms");
    MaxModelQueryAnswer answer;
    const Stage stage = answer.stage = p.isSet("ttft-ms") ? Stage::Prefill : Stage::Decode;
    const double budget = answer.budget = positiveMs(p, stage == Stage::Prefill ? "ttft-ms" : "step-ms");
    const double batch = answer.batch = static_cast<double>(*intOption(p, "batch"));
    const double prefill = answer.prefill = static_cast<double>(*intOption(p, "prefill", 0));
    RuntimeFitOptions s;
    readWorkOptions(p, s);
    const RateSource src = rateSource(p, s, context);
    QJsonValue best(QJsonValue::Null);
    QJsonObject head;
    if (p.isSet("ladder")) {
        // The largest rung of any architecture's ladder within the budget.
        const ModelSpec base = specOption(p, "ladder");
        const inference::RuntimeRates rates = specRates(p, src, "ladder", base).rates;
        const auto cands = ladderCandidates(specLadder(base));
        answer.answer = largestModelWithinBudget(cands, stage, budget, batch, prefill, rates, s);
        for (const auto& c : cands) answer.labels.push_back(c.label);
        if (const auto& b = answer.answer.best)
            best = QJsonObject{{"label", q(cands[*b].label)},
                               {"model", specSummary(cands[*b].spec)},
                               {"prediction", toJson(predictRuntime(cands[*b].spec, batch, prefill, rates, s))}};
        head = {{"ladder", q(base.name)}, {"candidates", "ladder"}};
    } else {
        const Family family = familyOption(p);
        std::vector<inference::Candidate> cands;
        const QString kind = p.value("candidates");
        if (kind == "appendix" || kind == "appendix-all") {
            QString error;
            const QString path = p.isSet("configs") ? p.value("configs") : context.modelConfigs;
            auto table = data::loadAppendixConfigs(path, &error);
            if (!table) usage("--configs: " + error);
            cands = appendixCandidates(*table, family, kind == "appendix-all");
        } else if (kind == "sweep") {
            const QStringList parts = p.value("d-model-range").split(':');
            bool ok = parts.size() == 3;
            std::int64_t v[3] = {0, 0, 0};
            for (int i = 0; ok && i < 3; ++i) v[i] = parts[i].toLongLong(&ok);
            if (!ok || v[0] <= 0 || v[1] < v[0] || v[2] <= 0)
                usage("--d-model-range: expected MIN:MAX:STEP with 0 < MIN <= MAX and STEP > 0, got '" + p.value("d-model-range") + "'");
            cands = widthSweepCandidates(family, v[0], v[1], v[2], *intOption(p, "n-layers"), *intOption(p, "head-dim"));
        } else {
            usage("--candidates: expected appendix, appendix-all or sweep, got '" + kind + "'");
        }
        if (cands.empty()) usage("no candidate configurations (check --d-model-range and --head-dim)");
        if (p.isSet("chunk") && family != Family::Xlstm) usage("--chunk applies to xLSTM candidates only");
        for (auto& c : cands) c.config.chunk = *intOption(p, "chunk");

        const inference::RatesFor rates = [&](const ModelConfig& c) { return ratesOf(src, c).rates; };
        answer.answer = largestModelWithinBudget(cands, stage, budget, batch, prefill, rates, s);
        for (const auto& c : cands) answer.labels.push_back(c.label);
        if (answer.answer.best) {
            const inference::Candidate& c = cands[*answer.answer.best];
            QJsonObject b{{"label", q(c.label)}, {"config", toJson(c.config)}};
            const SourcedRates r = ratesOf(src, c.config);
            b["prediction"] = toJson(predictRuntime(c.config, batch, prefill, r.rates, s));
            if (const QJsonObject from = sourceJson(r); !from.isEmpty()) b["rates_from_fit"] = from;
            best = b;
        }
        head = {{"family", q(familyName(family))}, {"candidates", kind}};
    }
    head.insert("stage", q(analysis::stageName(stage)));
    head.insert("budget_ms", budget * 1e3);
    head.insert("batch", batch);
    head.insert("prefill", prefill);
    head.insert("accelerator", toJson(src.accelerator));
    head.insert("best", best);
    head.insert("evaluated", evaluatedJson(answer.answer, stage, [&](std::size_t i) { return answer.labels[i]; }));
    answer.json = head;
    return answer;
}

// ---------------------------------------------------------------------------------------------
// predict crossover

void addPredictCrossoverOptions(QCommandLineParser& p) {
    addModelOptions(p, false);
    p.addOptions({
        {"xlstm-n-heads", "mLSTM heads of the xLSTM (its d_qk = d/2/H, d_hv = d/H).", "n"},
        {"factor", "Advantage factor F (> 0).", "x"},
        {"stage", "prefill (TTFT) or decode (step time).", "stage", "decode"},
        {"batch", "Batch size B.", "n", "1"},
        {"max-context", "Upper end of the search.", "n", "16777216"},
        {"spec", "Any architecture (Scalex's spec JSON or a config.json) in place of the xLSTM; with --against.", "file"},
        {"against", "The baseline of --spec in place of the Transformer (e.g. a GQA or MLA model's config.json).", "file"},
    });
    addRateOptions(p);
    addWorkOptions(p);
}

CrossoverQueryAnswer predictCrossoverQuery(const QCommandLineParser& p, const RuntimeQueryContext& context) {
    if (!p.isSet("factor")) usage("missing required option --factor");
    CrossoverQueryAnswer answer;
    const double factor = answer.factor = *doubleOption(p, "factor");
    if (!(factor > 0)) usage("--factor must be positive, got " + p.value("factor"));
    const auto stage = parseStage(p.value("stage").toStdString());
    if (!stage) usage("--stage: unknown stage '" + p.value("stage") + "' (expected prefill or decode)");
    answer.stage = *stage;
    if (p.isSet("spec") != p.isSet("against")) usage("--spec and --against go together (the model and its baseline)");
    RuntimeFitOptions s;
    if (p.isSet("spec")) {
        // Between any two architectures at the accelerator's roofs.
        if (p.isSet("xlstm-n-heads")) usage("--xlstm-n-heads does not go with --spec (the file gives the architecture)");
        readWorkOptions(p, s);
        const RateSource src = rateSource(p, s, context);
        const ModelSpec model = specOption(p, "spec"), baseline = specOption(p, "against");
        const inference::RuntimeRates rates = specRates(p, src, "spec", model).rates;
        answer.batch = static_cast<double>(*intOption(p, "batch"));
        answer.maxContext = static_cast<double>(*intOption(p, "max-context", 2));
        answer.answer = specCrossover(baseline, model, rates, *stage, answer.batch, factor, s, 1, answer.maxContext);
        answer.model = model.name;
        answer.baseline = baseline.name;
        QJsonObject& json = answer.json = crossoverJson(answer.answer, *stage, factor, answer.batch, answer.maxContext);
        json["model"] = specSummary(model);
        json["baseline"] = specSummary(baseline);
        json["accelerator"] = toJson(src.accelerator);
        json["rates"] = toJson(rates, src.accelerator);
        return answer;
    }
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
    readWorkOptions(p, s);
    const RateSource src = rateSource(p, s, context);
    answer.batch = static_cast<double>(*intOption(p, "batch"));
    answer.maxContext = static_cast<double>(*intOption(p, "max-context", 2));
    const SourcedRates rt = ratesOf(src, t);
    const SourcedRates rx = ratesOf(src, x);
    answer.answer = xlstmCrossover(t, rt.rates, x, rx.rates, *stage, answer.batch, factor, s, 1, answer.maxContext);
    QJsonObject& out = answer.json = crossoverJson(answer.answer, *stage, factor, answer.batch, answer.maxContext);
    out["transformer"] = toJson(t);
    out["xlstm"] = toJson(x);
    out["accelerator"] = toJson(src.accelerator);
    out["transformer_rates"] = toJson(rt.rates, src.accelerator);
    out["xlstm_rates"] = toJson(rx.rates, src.accelerator);
    if (rt.fitted) out["rates_from_fit"] = QJsonObject{{"transformer", sourceJson(rt)}, {"xlstm", sourceJson(rx)}};
    return answer;
}

}  // namespace scalex::analysis
