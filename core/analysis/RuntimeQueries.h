#pragma once
// The runtime verbs' questions (Sec. "Modeling Inference Runtimes", App. "Modeling Inference
// Characteristics"), asked once for the program and the Python module:
//   fit runtime       alpha_eff, beta_eff, eps (and the batch term) per measured model
//   predict runtime   TTFT, step time, throughput and memory of one configuration or spec
//   predict max-model the largest configuration within a TTFT or step-time budget
//   predict crossover the context at which xLSTM's (or a spec's) advantage reaches a factor
// Each verb's options are declared here (their names and defaults written once) and read from the
// parsed options (analysis/VerbOptions.h); bad input throws UsageError with the verb's message.
// Each answer carries its typed result (for the verb's text) and the object its --json prints.
#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/ModelConfig.h"
#include "core/accounting/ModelSpec.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/analysis/VerbOptions.h"

namespace scalex::analysis {

// The roofs a `scalex bench --out` JSON file measured (gpu/BenchJson.h reads it; core does not link gpu/).
struct MeasuredRoofs {
    std::string device, backend;
    double compute16 = 0, computeF32 = 0, bandwidth = 0;  // FLOP/s, FLOP/s, byte/s
};

// What a runtime question needs besides its options: the appendix model tables used when --configs
// is not given (the built-in copy of datasets/paper/model_configs.csv) and the reader of benchmark
// files (throws std::exception with the file's problem).
struct RuntimeQueryContext {
    QString modelConfigs = QString::fromLatin1(kBuiltinModelConfigs);
    std::function<MeasuredRoofs(const QString& path)> readMeasuredRoofs;

    // The embedded copy of datasets/paper (resources/scalex.qrc), registered by the program and the module.
    static constexpr const char* kBuiltinModelConfigs = ":/scalex/datasets/paper/model_configs.csv";
};

// --accelerator VALUE [--accelerator-name ROW]: a paper table name (V100, A100, H100, B200), a CSV in
// the format of datasets/paper/accelerators.csv, or the measured roofs of a `scalex bench` JSON file.
inference::Accelerator resolveAccelerator(const QString& value, const QString& rowName, const RuntimeQueryContext& context);

// The options of each verb (without --help and --json, which the program adds).
void addFitRuntimeOptions(QCommandLineParser& p);
void addPredictRuntimeOptions(QCommandLineParser& p);
void addPredictMaxModelOptions(QCommandLineParser& p);
void addPredictCrossoverOptions(QCommandLineParser& p);

// `scalex fit runtime`: the fits of every measured model (or --model) and stage.
struct FitRuntimeAnswer {
    RuntimeFitAnalysis fitted;
    inference::Accelerator accelerator;
    double variableShare = 0;
    QJsonObject json;
};
FitRuntimeAnswer fitRuntimeQuery(const QCommandLineParser& p, const RuntimeQueryContext& context);

// `scalex predict runtime`: one configuration of the study's architectures, or any spec (--spec).
struct PredictRuntimeAnswer {
    std::optional<accounting::ModelSpec> spec;  // --spec
    accounting::ModelConfig config;             // otherwise
    SourcedRates rates;
    inference::Prediction prediction;
    double batch = 1, prefill = 0;
    double expertsTouched = 0;                  // of a spec's MoE layers per step (0: none)
    QJsonObject json;
};
PredictRuntimeAnswer predictRuntimeQuery(const QCommandLineParser& p, const RuntimeQueryContext& context);

// `scalex predict max-model`: the candidates evaluated and the best.
struct MaxModelQueryAnswer {
    inference::MaxModelAnswer answer;
    std::vector<std::string> labels;  // of the candidates, by index
    inference::Stage stage = inference::Stage::Prefill;
    double budget = 0, batch = 1, prefill = 0;  // budget in seconds
    QJsonObject json;
};
MaxModelQueryAnswer predictMaxModelQuery(const QCommandLineParser& p, const RuntimeQueryContext& context);

// `scalex predict crossover`: xLSTM against the Transformer of the same width and depth, or --spec against --against.
struct CrossoverQueryAnswer {
    inference::CrossoverAnswer answer;
    std::optional<std::string> model, baseline;  // the specs' names (--spec, --against)
    inference::Stage stage = inference::Stage::Decode;
    double factor = 0, batch = 1, maxContext = 0;
    QJsonObject json;
};
CrossoverQueryAnswer predictCrossoverQuery(const QCommandLineParser& p, const RuntimeQueryContext& context);

}  // namespace scalex::analysis
