#pragma once
// Parameter counts, App. "Parameter Counts" (Tab. param_counts_mlstm, Tab. param_counts_transformer).
// Embeddings, normalisation layers and the untied LM head are all counted.
#include <cstdint>

#include "core/accounting/ModelConfig.h"

namespace scalex::accounting {

struct ParamBreakdown {
    // Whole model
    std::int64_t embedding = 0;    // n_vocab d_model
    std::int64_t unembedding = 0;  // d_model n_vocab (untied)
    std::int64_t finalNorm = 0;    // d_model
    // One layer of the sequence-mix block (attention or mLSTM)
    std::int64_t seqMixPreNorm = 0;
    std::int64_t qkv = 0;
    std::int64_t gates = 0;       // mLSTM input and forget gates (0 for Transformers)
    std::int64_t outputGate = 0;  // mLSTM only
    std::int64_t outputNorm = 0;  // mLSTM only
    std::int64_t outputProjection = 0;
    // One layer of the feed-forward block
    std::int64_t ffnPreNorm = 0;
    std::int64_t ffnMlp = 0;  // 3 d_model d_ff (SwiGLU)
    std::int64_t nLayers = 0;

    std::int64_t seqMixLayer() const { return seqMixPreNorm + qkv + gates + outputGate + outputNorm + outputProjection; }
    std::int64_t ffnLayer() const { return ffnPreNorm + ffnMlp; }
    std::int64_t perLayer() const { return seqMixLayer() + ffnLayer(); }
    std::int64_t total() const { return nLayers * perLayer() + embedding + unembedding + finalNorm; }
    // Parameters outside the embedding and LM-head matrices.
    std::int64_t nonEmbedding() const { return total() - embedding - unembedding; }
};

ParamBreakdown countParameters(const ModelConfig& config);

}  // namespace scalex::accounting
