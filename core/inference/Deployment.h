#pragma once
// Deployment questions answered with the runtime model (App. "Modeling Inference
// Characteristics": "it is easily possible to determine model configurations which satisfy
// [TTFT or step-time] conditions"): the largest model of a family of configurations that meets
// a time budget, and the context length at which xLSTM's speed advantage reaches a factor.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/inference/RuntimeModel.h"

namespace scalex::inference {

struct Candidate {
    std::string label;  // e.g. "xlstm_tokenparam_hyperparams 1420M" or "d2048 L24"
    accounting::ModelConfig config;
};

// A candidate of any architecture (a rung of a model ladder, a published model).
struct SpecCandidate {
    std::string label;
    accounting::ModelSpec spec;
};

// Rates to use for a candidate (fixed accelerator fractions, or the fit of the nearest measured model).
using RatesFor = std::function<RuntimeRates(const accounting::ModelConfig&)>;

struct CandidateTime {
    std::size_t index = 0;
    double params = 0;
    double seconds = 0;  // TTFT or step time
    bool meetsBudget = false;
};

struct MaxModelAnswer {
    std::optional<std::size_t> best;      // index into the candidates; empty when none meets the budget
    std::vector<CandidateTime> evaluated;  // every candidate, in the order given
};

// The candidate with the most parameters whose TTFT (stage Prefill) or step time (Decode) at
// (batch, prefill) is at most budgetSeconds.
MaxModelAnswer largestWithinBudget(const std::vector<Candidate>& candidates, Stage stage, double budgetSeconds,
                                   double batch, double prefill, const RatesFor& rates, const WorkSettings& settings);

// The same among specs, at one set of rates (an accelerator's roofs).
MaxModelAnswer largestWithinBudget(const std::vector<SpecCandidate>& candidates, Stage stage, double budgetSeconds,
                                   double batch, double prefill, const RuntimeRates& rates, const WorkSettings& settings);

// Width sweep of study-rule configurations: d_model from dMin to dMax in steps of dStep at fixed
// depth, heads of width headDim (Transformer d_qk = d_hv = headDim; mLSTM d_hv = headDim,
// d_qk = headDim / 2), d_ff by the study's rule. Widths not divisible by headDim are skipped.
std::vector<Candidate> widthSweep(accounting::Family family, std::int64_t dMin, std::int64_t dMax, std::int64_t dStep,
                                  std::int64_t nLayers, std::int64_t headDim);

// Transformer time over xLSTM time for the stage at (batch, context).
double xlstmAdvantage(const accounting::ModelConfig& transformer, const RuntimeRates& transformerRates,
                      const accounting::ModelConfig& xlstm, const RuntimeRates& xlstmRates, Stage stage, double batch,
                      double context, const WorkSettings& settings);

struct CrossoverAnswer {
    std::optional<double> context;  // smallest whole context length with advantage >= factor
    double advantageAtStart = 0;    // at context minContext
    double advantageAtEnd = 0;      // at context maxContext
};

// The smallest context length in [minContext, maxContext] at which xlstmAdvantage reaches
// `factor`: a geometric scan for the first bracket, then bisection on whole tokens.
CrossoverAnswer advantageCrossover(const accounting::ModelConfig& transformer, const RuntimeRates& transformerRates,
                                   const accounting::ModelConfig& xlstm, const RuntimeRates& xlstmRates, Stage stage,
                                   double batch, double factor, const WorkSettings& settings, double minContext = 1,
                                   double maxContext = 16777216);

// Between any two specs at one set of rates: the baseline's time over the model's for the stage
// at (batch, context), and the smallest context at which it reaches `factor` (as above).
double specAdvantage(const accounting::ModelSpec& baseline, const accounting::ModelSpec& model, const RuntimeRates& rates,
                     Stage stage, double batch, double context, const WorkSettings& settings);
CrossoverAnswer advantageCrossover(const accounting::ModelSpec& baseline, const accounting::ModelSpec& model,
                                   const RuntimeRates& rates, Stage stage, double batch, double factor,
                                   const WorkSettings& settings, double minContext = 1, double maxContext = 16777216);

}  // namespace scalex::inference
