#pragma once
// FLOP counts, App. "FLOP Counts": the mLSTM cell (Tab. flop_counts_mlstm_chunkwise,
// Tab. flop_counts_mlstm_recurrent), self-attention (Tab. flop_counts_attention,
// Eq. flop_counts_attention_train-pref / _gen_step / _gen_seq) and the backbones
// (Tab. flop_counts_mlstm_backbone, Tab. flop_counts_transformer_backbone).
//
// Counts are doubles: they exceed 2^53 only for whole training runs, where the
// relative precision of a double (1e-16) is far below any use.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accounting/ModelConfig.h"

namespace scalex::accounting {

// FLOP factors F_OP of the appendix (Tab. acc_notation).
struct OpFactors {
    double causal = 0.5;   // F_causal
    double softmax = 5.0;  // F_softmax
    double norm = 3.0;     // F_norm
    double skip = 1.0;     // F_skip (0 neglects residual additions)
    double exp = 1.0;
    double log = 1.0;
    double sig = 1.0;
    double max = 1.0;
    double abs = 1.0;
    double swish = 1.0;
    friend bool operator==(const OpFactors&, const OpFactors&) = default;
};

// How the mLSTM cell of the chunkwise form is counted.
enum class MlstmCellCount {
    Study,     // the count of the study's own code (reference README (c), mode "first")
    Appendix,  // the rows of Tab. flop_counts_mlstm_chunkwise with the factors above
};

// A named way of counting FLOPs that a user switches between.
struct FlopConvention {
    std::string name;
    OpFactors ops;
    MlstmCellCount cell = MlstmCellCount::Study;
    // The study counts the input/forget gate projections as 2*2 d n_head per token;
    // Tab. flop_counts_mlstm_backbone prints 2 d n_head + 2 n_head.
    bool studyGateProjection = true;
    bool sixNd = false;              // C = 6 N D: forward = 2 N per token, nothing else
    double trainingMultiplier = 3.0; // training = forward + backward = 3 x forward
};

// study: what the paper's runs and scaling laws use (reference README (c)): training = 3 x forward,
//        causal attention (F_causal 0.5, F_softmax 5), LM head counted, embeddings/norms/skips not.
// appendix: the appendix formulas with every term (F_norm 3, F_skip 1, chunkwise table rows).
// chinchilla: as study, but non-causal attention (F_causal 1, F_softmax 3).
// 6nd: 6 N D.
FlopConvention studyConvention();
FlopConvention appendixConvention();
FlopConvention chinchillaConvention();
FlopConvention sixNdConvention();
std::optional<FlopConvention> conventionByName(std::string_view name);
std::vector<std::string> conventionNames();

struct FlopSplit {
    double linear = 0;  // projections, feed-forward matrices, LM head
    double seqMix = 0;  // attention core or mLSTM cell
    double other = 0;   // norms, skips, activations
    double total() const { return linear + seqMix + other; }
    FlopSplit& operator+=(const FlopSplit& o) {
        linear += o.linear;
        seqMix += o.seqMix;
        other += o.other;
        return *this;
    }
    friend FlopSplit operator*(double s, const FlopSplit& f) { return {s * f.linear, s * f.seqMix, s * f.other}; }
};

// Rows of Tab. flop_counts_mlstm_chunkwise for one head and one chunk (exact column).
struct MlstmChunkTerms {
    double gates = 0, numerator = 0, denominator = 0;             // inter-chunk states
    double cumulativeForgetGates = 0, gateMatrix = 0, intraOutputs = 0;  // intra-chunk outputs
    double interOutputs = 0, outputCombination = 0;
    double total() const {
        return gates + numerator + denominator + cumulativeForgetGates + gateMatrix + intraOutputs + interOutputs +
               outputCombination;
    }
};
MlstmChunkTerms mlstmChunkTerms(double dQk, double dHv, double chunk, const OpFactors& ops);

// Rows of Tab. flop_counts_mlstm_recurrent for one head and one time step (exact column).
struct MlstmStepTerms {
    double gates = 0, cellUpdate = 0, denominatorAndScale = 0, output = 0;
    double total() const { return gates + cellUpdate + denominatorAndScale + output; }
};
MlstmStepTerms mlstmStepTerms(double dQk, double dHv, const OpFactors& ops);

// Number of chunks the chunkwise kernel processes: ceil(T / L) (the last chunk is padded).
double chunkCount(double tokens, double chunk);

// mLSTM cell, chunkwise-parallel, all heads of one layer, one sequence of T tokens.
double mlstmCellChunkwiseFlops(const ModelConfig& config, double tokens, const FlopConvention& convention);
double mlstmCellChunkwiseFlops(double nHeads, double dQk, double dHv, double chunk, double tokens,
                               const FlopConvention& convention);
// mLSTM cell, recurrent, all heads of one layer, one token (Eq. flop_counts_mlstm_recurrent).
double mlstmCellStepFlops(const ModelConfig& config, const FlopConvention& convention);
// Attention core, all query heads of one layer, S queries over T keys (Tab. flop_counts_attention).
double attentionCoreFlops(const ModelConfig& config, double queries, double keys, const OpFactors& ops);

// Forward FLOPs of one sequence of T tokens (training forward pass or prefill), whole model.
FlopSplit forwardFlops(const ModelConfig& config, double tokens, const FlopConvention& convention);
// Training FLOPs per token at context T: trainingMultiplier * forward(T) / T (6nd: 6 N).
double trainingFlopsPerToken(const ModelConfig& config, double context, const FlopConvention& convention);
// Training compute of a run: per-token count x tokens.
double trainingFlops(const ModelConfig& config, double context, double tokens, const FlopConvention& convention);
// Prefill of `batch` sequences of `prefill` tokens.
FlopSplit prefillFlops(const ModelConfig& config, double batch, double prefill, const FlopConvention& convention);
// The t-th generated token (t >= 1) after a prefill of Tp tokens; attention reads Tp + t keys
// (Eq. flop_counts_attention_gen_step), the mLSTM takes one recurrent step.
FlopSplit decodeStepFlops(const ModelConfig& config, double batch, double prefill, double step,
                          const FlopConvention& convention);
// All Tg generated tokens after a prefill of Tp, closed form (Eq. flop_counts_attention_gen_seq).
FlopSplit generationFlops(const ModelConfig& config, double batch, double prefill, double generated,
                          const FlopConvention& convention);

}  // namespace scalex::accounting
