#include "core/accounting/ParamCount.h"

namespace scalex::accounting {

ParamBreakdown countParameters(const ModelConfig& c) {
    ParamBreakdown p;
    const std::int64_t d = c.dModel;
    p.embedding = c.vocab * d;    // Embeddings: n_vocab d_model
    p.unembedding = d * c.vocab;  // Unembedding: d_model n_vocab
    p.finalNorm = d;              // Output Norm: d_model
    p.nLayers = c.nLayers;
    p.seqMixPreNorm = d;          // PreNorm: d_model
    p.ffnPreNorm = d;             // PreNorm: d_model
    p.ffnMlp = 3 * d * c.dFf;     // MLPs: 3 d_model d_ff
    if (c.family == Family::Xlstm) {
        // Tab. param_counts_mlstm
        p.qkv = d * c.nHeads * (2 * c.dQk + c.dHv);       // QKV: d n_head (2 d_qk + d_hv)
        p.gates = 2 * d * c.nHeads + 2 * c.nHeads;        // Input & Forget Gates: 2 d n_head + 2 n_head
        p.outputGate = d * c.nHeads * c.dHv;              // Output Gate: d n_head d_hv
        p.outputNorm = c.nHeads * c.dHv;                  // Output Norm: n_head d_hv
        p.outputProjection = d * c.nHeads * c.dHv;        // Output Projection: d n_head d_hv
    } else {
        // Tab. param_counts_transformer (grouped-query attention)
        p.qkv = d * (c.dQk * c.nHeads + (c.dQk + c.dHv) * c.nKvHeads);  // QKV
        p.outputProjection = d * c.nHeads * c.dHv;                       // Output Projection
    }
    return p;
}

}  // namespace scalex::accounting
