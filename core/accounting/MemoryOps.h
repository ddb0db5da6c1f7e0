#pragma once
// Memory-operation counts in bytes, App. "Memory Operation Counts": the mLSTM cell
// (Tab. memop_counts_mlstm_chunkwise, Tab. memop_counts_mlstm_recurrent), FlashAttention
// (Tab. memop_counts_attention, Eq. memop_counts_attention_train-pref / _gen_step / _gen_seq)
// and the backbones (Tab. memops_counts_mlstm, Tab. memops_counts_transformer).
// Weights are streamed once per pass, independent of the number of tokens B T.
#include "core/accounting/ModelConfig.h"

namespace scalex::accounting {

// bytes_X of the appendix: bytes per element for each kind of tensor.
struct ByteWidths {
    double weights = 2;      // bytes_W for every projection and feed-forward matrix
    double embedding = 2;    // bytes_W_emb (embedding and LM head)
    double normWeights = 2;  // bytes_W_norm
    double qkv = 2;          // bytes_qkv: q, k, v, hidden outputs and the KV cache
    double gates = 4;        // bytes_if: input and forget gate pre-activations
    double state = 4;        // bytes_Cmn: mLSTM memory C, normaliser n and stabiliser m
    double act = 2;          // bytes_act
    double actNorm = 2;      // bytes_act,norm (0 neglects norm traffic)
    double actFf = 2;        // bytes_act,ff
    friend bool operator==(const ByteWidths&, const ByteWidths&) = default;
};

struct ByteSplit {
    double linear = 0;   // projections, feed-forward, LM head: activations and weights
    double seqMix = 0;   // attention or mLSTM cell kernels
    double other = 0;    // embedding lookup, norms
    double weights = 0;  // of the above, the part that is weights (streamed once)
    double total() const { return linear + seqMix + other; }
};

// Rows of Tab. memop_counts_mlstm_chunkwise, one head and one chunk.
struct MlstmChunkBytes {
    double interLoad = 0, interStore = 0, intraLoad = 0, intraStore = 0;
    double total() const { return interLoad + interStore + intraLoad + intraStore; }
};
MlstmChunkBytes mlstmChunkBytes(double dQk, double dHv, double chunk, const ByteWidths& bytes);

// Rows of Tab. memop_counts_mlstm_recurrent, one head and one step.
struct MlstmStepBytes {
    double load = 0, store = 0;
    double total() const { return load + store; }
};
MlstmStepBytes mlstmStepBytes(double dQk, double dHv, const ByteWidths& bytes);

// FlashAttention traffic of one layer for one sequence: S queries over T keys (Tab. memop_counts_attention).
double attentionBytes(const ModelConfig& config, double queries, double keys, const ByteWidths& bytes);

// One forward pass over `batch` sequences of `tokens` tokens (training forward or prefill).
ByteSplit forwardBytes(const ModelConfig& config, double batch, double tokens, const ByteWidths& bytes);
// The t-th generated token (t >= 1) after a prefill of Tp tokens, for `batch` sequences.
ByteSplit decodeStepBytes(const ModelConfig& config, double batch, double prefill, double step,
                          const ByteWidths& bytes);
// The attention part of generating Tg tokens, closed form (Eq. memop_counts_attention_gen_seq), one layer.
double attentionGenerationBytes(const ModelConfig& config, double prefill, double generated, const ByteWidths& bytes);

}  // namespace scalex::accounting
