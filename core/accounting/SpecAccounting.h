#pragma once
// Exact accounting of any model spec (ModelSpec.h): parameters (total and active per token),
// forward FLOPs per token at context T, and the KV cache or recurrent state in bytes.
//
// For the paper's two specs (fromPaperConfig) every count equals the appendix's
// (ParamCount.h, FlopCount.h, CacheSize.h); the other blocks count the parameter shapes of the
// model's paper or of its Hugging Face modeling code, each named where it is counted.
// Call these on a spec that validate(spec) accepts.
#include <cstdint>

#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ModelSpec.h"

namespace scalex::accounting {

// Parameters by what they belong to.
struct ParamGroups {
    std::int64_t embedding = 0;    // token embeddings and a learned position table
    std::int64_t attention = 0;    // attention projections, their biases, q/k and latent norms
    std::int64_t feedForward = 0;  // dense feed-forward blocks
    std::int64_t experts = 0;      // routed and shared experts and their routers
    std::int64_t recurrent = 0;    // mLSTM and Mamba mixers
    std::int64_t norms = 0;        // the norms around each block and the final norm
    std::int64_t head = 0;         // the LM head; 0 when tied to the embeddings
    // Shared transformer blocks (Zamba2, SharedBlockSpec): each block's attention, MLP and norms
    // once, however many layers use it, and each use's own linear and adapters.
    std::int64_t shared = 0;
    std::int64_t total() const { return embedding + attention + feedForward + experts + recurrent + norms + head + shared; }
    // Everything outside the embedding and LM-head matrices.
    std::int64_t nonEmbedding() const { return total() - embedding - head; }
    friend bool operator==(const ParamGroups&, const ParamGroups&) = default;
};

struct ParamCounts {
    ParamGroups all;     // every parameter of the model
    ParamGroups active;  // those one token uses: top-k of the routed experts, everything else
    std::int64_t total() const { return all.total(); }
    std::int64_t activeTotal() const { return active.total(); }
};

ParamCounts paramCounts(const ModelSpec& spec);

// The parameters of one shared transformer block (its attention, MLP and norms, counted once
// however many layers use it) and of one use (the using layer's linear and adapters); ParamGroups::shared
// is blocks x perBlock + uses x perUse. Zeros for a spec without shared blocks.
struct SharedBlockParams {
    std::int64_t perBlock = 0;
    std::int64_t perUse = 0;
};
SharedBlockParams sharedBlockParams(const ModelSpec& spec);

// The total parameter count in floating point, which cannot overflow: validate(spec) refuses specs
// beyond any model with it before the exact counts are taken.
double parameterEstimate(const ModelSpec& spec);

// Forward FLOPs per token of a sequence of T tokens (training forward pass or prefill), under a
// FLOP convention (FlopCount.h): 2 per multiply-accumulate of the weights a token uses (the LM
// head counted even when tied, the embedding lookup not), the sequence mix (attention's
// QK^T, softmax and AV with the convention's causal factor, over at most the sliding window;
// the mLSTM cell of the paper; the Mamba scan), and the convention's norms, skips and activations.
FlopSplit forwardFlopsPerToken(const ModelSpec& spec, double context, const FlopConvention& convention = studyConvention());

// The part of forwardFlopsPerToken that the uses of shared transformer blocks (Zamba2) make: each
// use's block and own matrices, its attention over the whole context, its norms and activation.
// Zero parts for a spec without shared blocks.
FlopSplit sharedBlockFlopsPerToken(const ModelSpec& spec, double context, const FlopConvention& convention = studyConvention());

// Training FLOPs per token at context T: the convention's multiplier times the forward pass
// (6nd: 6 N with N the active parameters).
double trainingFlopsPerToken(const ModelSpec& spec, double context, const FlopConvention& convention = studyConvention());

// Elements one sequence keeps between decoding steps after `context` tokens.
struct CacheElements {
    double kv = 0;     // attention keys and values (or latent vectors): grows with T up to a window
    double state = 0;  // mLSTM and Mamba states: constant in T
    double sharedKv = 0;  // the part of kv that the uses of shared transformer blocks keep
    double total() const { return kv + state; }
};
CacheElements cacheElements(const ModelSpec& spec, double context);

// Bytes of the KV cache and recurrent states of `batch` sequences at context T, every element
// at bytesPerElement.
double kvCacheBytes(const ModelSpec& spec, double context, double batch, double bytesPerElement);
// The same with the appendix's widths: the KV cache at bytes_qkv, recurrent states at bytes_Cmn.
double cacheBytes(const ModelSpec& spec, double context, double batch, const ByteWidths& bytes);

// ---- memory traffic of inference (the roofline's decode stage) ----

// Routed experts a batch of `tokens` tokens is expected to touch in one MoE layer, each token
// choosing top-k of E uniformly: E (1 - (1 - k/E)^tokens). 0 for a spec without experts.
double expertsTouched(const ModelSpec& spec, double tokens);

// Bytes of all weights at rest: the embedding and LM-head matrices at bytes_W_emb, the rest at bytes_W.
double weightBytes(const ModelSpec& spec, const ByteWidths& bytes);

// Bytes one forward step of `tokens` tokens reads from the weights: every weight but the routed
// experts, and of those the expected touched experts (expertsTouched); the embedding table is
// looked up, `tokens` rows of it.
double weightBytesRead(const ModelSpec& spec, double tokens, const ByteWidths& bytes);

// Bytes of one decoding step of `batch` sequences at context T (the roofline's decode work): the
// weights read (weightBytesRead of `batch` tokens), the cache read (the KV cache within windows or
// latent vectors at bytes_qkv) and its new token written, and recurrent states read and written
// (at bytes_Cmn). Activations between layers stay on chip and are not counted.
ByteSplit decodeStepBytes(const ModelSpec& spec, double batch, double context, const ByteWidths& bytes);

}  // namespace scalex::accounting
