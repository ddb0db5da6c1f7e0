#pragma once
// The runtime-model analyses (Sec. "Modeling Inference Runtimes", App. "Modeling Inference
// Characteristics") for the inference view and the verbs `fit runtime` and `predict runtime |
// max-model | crossover`: the fit of the runtime model per measured model and stage, the rates a
// configuration gets (from such fits, or from an accelerator's roofs), and the deployment
// questions answered with them. Every default is written once, in RuntimeFitOptions, so the view
// and the verbs give the same numbers for the same question.
#include <QString>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accounting/Family.h"
#include "core/accounting/ModelConfig.h"
#include "core/data/Export.h"
#include "core/accounting/ModelLadder.h"
#include "core/accounting/ModelSpec.h"
#include "core/data/InferenceMeasurements.h"
#include "core/inference/Accelerator.h"
#include "core/inference/Deployment.h"
#include "core/inference/RuntimeFit.h"
#include "core/inference/RuntimeModel.h"

namespace scalex::analysis {

// ---- options --------------------------------------------------------------------------------

struct RuntimeFitOptions {
    // Out of line: the default work settings take their FLOP convention from core/inference.
    RuntimeFitOptions();

    // How the work of a point is counted: the appendix FLOP convention with F_causal = 1 (the
    // measured kernels compute the full masked matrix, inference::runtimeConvention) and the
    // step time averaged over 100 generated tokens (Sec. "Empirical Inference Runtimes").
    inference::WorkSettings work;
    // The batch term κ·B of the step time: none for the paper's choice (Transformer decode only,
    // inference::defaultFitOptions), else on or off for every model and stage.
    std::optional<bool> batchTerm;
    // Absolute rather than squared relative residuals (core/inference/RuntimeFit.h says why).
    bool robust = inference::FitOptions{}.robust;
    // A point counts as not dominated by the constant overhead when its modelled variable term
    // is at least this share of the modelled time.
    double variableShare = inference::FitOptions{}.variableShare;
    // Rates without a fit: α_eff = alphaFraction·α_acc and β_eff = betaFraction·β_acc, no
    // overhead. 1: the roofline bound itself, the accelerator's roofs of Tab. accelerator_specs,
    // against which the paper's runtime model is stated (α_eff/α_acc = 1 "would be perfectly
    // utilized", App. "Prefill Stage: Time To First Token").
    double alphaFraction = 1;
    double betaFraction = 1;

    // The fit options of one model and stage: the paper's choice of the batch term unless
    // batchTerm says otherwise, and the options' loss and share.
    inference::FitOptions fitOptions(accounting::Family family, inference::Stage stage) const;
};

// The stage names of the JSON, the options and the controls: "prefill" | "decode" (parseStage
// also accepts ttft, generation and step).
std::string_view stageName(inference::Stage stage);
std::optional<inference::Stage> parseStage(std::string_view text);

// ---- accelerators ---------------------------------------------------------------------------

// The four rows of Tab. accelerator_specs (V100, A100, H100, B200), and one of them by short
// name or description, case-insensitive.
std::vector<inference::Accelerator> paperAccelerators();
std::optional<inference::Accelerator> paperAccelerator(std::string_view name);
// The accelerator named in a control (a row of the paper's table), else the table's newest.
inference::Accelerator paperAcceleratorOr(std::string_view name);
// Empty when the accelerator can stand in for rates, else a one-line reason naming the field.
std::optional<std::string> acceleratorProblem(const inference::Accelerator& accelerator);

// An accelerator table in the format of datasets/paper/accelerators.csv (name, description, year,
// bf16_flops_per_s, memory_bandwidth_bytes_per_s, [arithmetic_intensity_flops_per_byte],
// [comm_bandwidth_bytes_per_s]). On error nothing, and *error is "FILE:LINE:COLUMN (NAME): what
// was expected".
std::optional<std::vector<inference::Accelerator>> loadAccelerators(const QString& path, QString* error);

// ---- the runtime-model fit ------------------------------------------------------------------

// One stage of one measured model: the measured points fitted and the fit.
struct RuntimeStageFit {
    inference::Stage stage = inference::Stage::Prefill;
    std::vector<inference::RuntimeSample> samples;  // the points with a measured time of the stage
    std::vector<int> lines;                         // the source line of each sample
    std::size_t failed = 0;  // points whose time of the stage failed: kept in the data, left out
    inference::StageFit fit;  // fit.ok false: fit.error says why
};

struct RuntimeModelFits {
    data::InferenceModel model;          // the measured model (name, family, architecture)
    std::vector<RuntimeStageFit> stages; // in the order asked for; none without an architecture
};

struct RuntimeFitAnalysis {
    std::vector<RuntimeModelFits> models;  // in the order of the measurements
    const RuntimeStageFit* find(const std::string& model, inference::Stage stage) const;
};

// Fits the runtime model (Eq. runtimes: TTFT = FLOPs/α_eff + ε, step = bytes/β_eff + ε (+ κ·B))
// to every measured model of `data` with an architecture, for each of `stages` (empty: prefill
// and decode), or only to `model` when it is given. Models without an architecture are listed
// with no stages.
// Kept in ResultCache by the measurements' values and the options: the inference view, its export
// and `scalex fit runtime` fit the same measurements once.
RuntimeFitAnalysis runtimeFitAnalysis(const data::InferenceData& data, const RuntimeFitOptions& options,
                                      const std::vector<inference::Stage>& stages = {}, const std::string& model = {});
// The same computed afresh and not kept.
RuntimeFitAnalysis computeRuntimeFitAnalysis(const data::InferenceData& data, const RuntimeFitOptions& options,
                                             const std::vector<inference::Stage>& stages = {}, const std::string& model = {});

// The fits as the inference view exports them: one row per model and stage with the numbers of
// `scalex fit runtime --json` (alpha_eff or beta_eff, eps, batch_term, rmse, r2, points), the
// models without an architecture left out.
data::ExportTable runtimeFitTable(const RuntimeFitAnalysis& analysis);

// ---- rates ----------------------------------------------------------------------------------

// The roofline rates of the accelerator at the options' fractions (alphaFraction, betaFraction).
inference::RuntimeRates acceleratorRates(const inference::Accelerator& accelerator, const RuntimeFitOptions& options);

// The rates of one measured model and stage, as `scalex fit runtime --json` lists them.
struct FittedRates {
    std::string model;
    accounting::Family family = accounting::Family::Transformer;
    double params = 0;
    inference::Stage stage = inference::Stage::Prefill;
    inference::StageModel rates;
};

// The rates of a configuration, and where each stage's come from.
struct SourcedRates {
    inference::RuntimeRates rates;
    bool fitted = false;                  // from fits (prefillFrom, decodeFrom), else the accelerator
    std::string prefillFrom, decodeFrom;  // the fitted model each stage's rates are of, or how they were interpolated
    std::string error;                    // a stage without a fit to take rates from; empty when none
};

// The fits of a `scalex fit runtime --json` file. On error nothing, and *error is "FILE: what was
// expected" (naming the entry, e.g. "FILE: fits[3].eps: expected a non-negative number").
std::optional<std::vector<FittedRates>> loadFittedRates(const QString& path, QString* error);

// Where the rates of a configuration come from: the accelerator's roofs at the options' fractions
// (no fits), or fits of measured models: the fit of the same family (or of the model `fitModel`)
// nearest in parameters, or, with `interpolate`, interpolated in log N between the two nearest
// fitted sizes of the family (inference::interpolateRates).
struct RateSource {
    inference::Accelerator accelerator;
    RuntimeFitOptions options;
    std::vector<FittedRates> fits;
    std::string fitModel;
    bool interpolate = false;

    SourcedRates rates(const accounting::ModelConfig& config) const;
    // The rates of any architecture: the accelerator's without fits; with fits, those of the model
    // `fitModel` names (the fitted model nearest in parameters among its entries), whose kernels the
    // user says the spec's run like: a spec is of no family, so without `fitModel` it is an error.
    SourcedRates rates(const accounting::ModelSpec& spec) const;

private:
    // The fits nearest to n parameters, of `fitModel` or else of `family`.
    SourcedRates fittedRates(double n, std::optional<accounting::Family> family) const;
};

// Rates for the deployment questions of the inference view: interpolated in log N over the fits
// of `analysis` for the family (without the study's llama3 models, a second Transformer line)
// when both stages have fits, else the accelerator's roofs at the options' fractions.
inference::RatesFor fittedOrRooflineRates(const RuntimeFitAnalysis& analysis, accounting::Family family,
                                          const inference::Accelerator& accelerator, const RuntimeFitOptions& options);

// ---- what the runtime model answers ---------------------------------------------------------

// The time of the stage (TTFT or step time) of `config` at (batch, prefill) under `model`.
double stageSeconds(inference::Stage stage, const inference::StageModel& model, const accounting::ModelConfig& config,
                    double batch, double prefill, const RuntimeFitOptions& options);

// TTFT, step time, throughput and memory of one configuration (inference::predict).
inference::Prediction predictRuntime(const accounting::ModelConfig& config, double batch, double prefill,
                                     const inference::RuntimeRates& rates, const RuntimeFitOptions& options);

// The candidates of a family from the appendix model tables: the Token/Param tables, or with
// `allSets` the IsoFLOP tables too; labelled "<table> <params>M".
std::vector<inference::Candidate> appendixCandidates(const std::vector<data::AppendixConfig>& table,
                                                     accounting::Family family, bool allSets);
// A width sweep of study-rule configurations at fixed depth (inference::widthSweep).
std::vector<inference::Candidate> widthSweepCandidates(accounting::Family family, std::int64_t dMin, std::int64_t dMax,
                                                       std::int64_t dStep, std::int64_t nLayers, std::int64_t headDim);

// The candidate with the most parameters whose TTFT (prefill) or step time (decode) at (batch,
// prefill) is within the budget (inference::largestWithinBudget).
inference::MaxModelAnswer largestModelWithinBudget(const std::vector<inference::Candidate>& candidates,
                                                   inference::Stage stage, double budgetSeconds, double batch,
                                                   double prefill, const inference::RatesFor& rates,
                                                   const RuntimeFitOptions& options);

// The smallest context length at which the xLSTM's time advantage over the Transformer reaches
// `factor` (inference::advantageCrossover).
inference::CrossoverAnswer xlstmCrossover(const accounting::ModelConfig& transformer,
                                          const inference::RuntimeRates& transformerRates,
                                          const accounting::ModelConfig& xlstm, const inference::RuntimeRates& xlstmRates,
                                          inference::Stage stage, double batch, double factor,
                                          const RuntimeFitOptions& options, double minContext = 1,
                                          double maxContext = 16777216);

// ---- any architecture: model specs at the accelerator's rates --------------------------------

// TTFT, step time, throughput and memory of any spec (inference::predict): MoE layers read the
// experts a batch is expected to touch, sliding windows cap the cache read, latent attention reads
// its compressed vectors, recurrent layers their states.
inference::Prediction predictRuntime(const accounting::ModelSpec& spec, double batch, double prefill,
                                     const inference::RuntimeRates& rates, const RuntimeFitOptions& options);
// The rungs of a ladder as candidates, labelled by their names.
std::vector<inference::SpecCandidate> ladderCandidates(const accounting::ModelLadder& ladder);
// The candidate with the most parameters within the budget (inference::largestWithinBudget).
inference::MaxModelAnswer largestModelWithinBudget(const std::vector<inference::SpecCandidate>& candidates,
                                                   inference::Stage stage, double budgetSeconds, double batch,
                                                   double prefill, const inference::RuntimeRates& rates,
                                                   const RuntimeFitOptions& options);
// The smallest context at which `model` is `factor` times faster than `baseline` in the stage
// (e.g. a state-space model against a GQA Transformer; inference::advantageCrossover).
inference::CrossoverAnswer specCrossover(const accounting::ModelSpec& baseline, const accounting::ModelSpec& model,
                                         const inference::RuntimeRates& rates, inference::Stage stage, double batch,
                                         double factor, const RuntimeFitOptions& options, double minContext = 1,
                                         double maxContext = 16777216);

}  // namespace scalex::analysis
