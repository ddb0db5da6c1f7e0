#include "core/accounting/MemoryOps.h"

#include "core/accounting/FlopCount.h"

namespace scalex::accounting {

MlstmChunkBytes mlstmChunkBytes(double dqk, double dhv, double L, const ByteWidths& b) {
    // Tab. memop_counts_mlstm_chunkwise. (Eq. memop_counts_mlstm_chunkwise carries an extra
    // factor n_head on the state term that the table rows do not; the rows are followed.)
    const double state = dqk * dhv + dqk + 1;
    MlstmChunkBytes r;
    r.interLoad = L * (dqk + dhv) * b.qkv + 2 * L * b.gates;
    r.interStore = state * b.state;
    r.intraLoad = L * (2 * dqk + dhv) * b.qkv + 2 * L * b.gates + state * b.state;
    r.intraStore = L * dhv * b.qkv + 2 * L * b.state;
    return r;
}

MlstmStepBytes mlstmStepBytes(double dqk, double dhv, const ByteWidths& b) {
    // Tab. memop_counts_mlstm_recurrent; the states are read and written every step.
    const double state = dqk * dhv + dqk + 1;
    MlstmStepBytes r;
    r.load = (2 * dqk + dhv) * b.qkv + 2 * b.gates + state * b.state;
    r.store = dhv * b.qkv + state * b.state;
    return r;
}

double attentionBytes(const ModelConfig& c, double S, double T, const ByteWidths& b) {
    // Load S d_qk n_head,q + T (d_qk + d_hv) n_head,kv, store S d_hv n_head,q.
    const double dqk = static_cast<double>(c.dQk), dhv = static_cast<double>(c.dHv);
    return (S * dqk * static_cast<double>(c.nHeads) + T * (dqk + dhv) * static_cast<double>(c.nKvHeads) +
            S * dhv * static_cast<double>(c.nHeads)) *
           b.qkv;
}

double attentionGenerationBytes(const ModelConfig& c, double Tp, double Tg, const ByteWidths& b) {
    const double dd = static_cast<double>(c.dQk + c.dHv);
    return b.qkv * (Tg * dd * static_cast<double>(c.nHeads) +
                    (Tp * Tg + 0.5 * Tg * (Tg + 1)) * dd * static_cast<double>(c.nKvHeads));
}

namespace {

// Backbone traffic for BT tokens (Tab. memops_counts_mlstm / memops_counts_transformer), without
// the sequence-mix kernel. The embedding lookup reads one row of d_model per token (the table
// prints B T n_vocab d_model, which would read the whole matrix for every token).
ByteSplit backboneBytes(const ModelConfig& c, double BT, const ByteWidths& b) {
    const double d = static_cast<double>(c.dModel), H = static_cast<double>(c.nHeads);
    const double Hkv = static_cast<double>(c.nKvHeads), dqk = static_cast<double>(c.dQk);
    const double dhv = static_cast<double>(c.dHv), dff = static_cast<double>(c.dFf);
    const double V = static_cast<double>(c.vocab), layers = static_cast<double>(c.nLayers);

    double linAct = 0, linW = 0, otherAct = 0, otherW = 0;  // per layer
    otherAct += 2 * BT * d * b.actNorm;  // PreNorm of both blocks
    otherW += 2 * d * b.normWeights;
    linAct += 3 * BT * (d + dff) * b.actFf;  // MLPs
    linW += 3 * d * dff * b.weights;
    if (c.family == Family::Xlstm) {
        linAct += BT * (d + H * (2 * dqk + dhv)) * b.qkv;  // QKV
        linW += d * H * (2 * dqk + dhv) * b.weights;
        linAct += 2 * BT * (d + H) * b.gates;  // Input & Forget Gates
        linW += (2 * d * H + 2 * H) * b.weights;
        linAct += 2 * BT * (d + H * dhv) * b.act;  // Output Gate and Output Projection
        linW += 2 * d * H * dhv * b.weights;
        otherAct += BT * H * dhv * b.actNorm;  // Output Norm
        otherW += H * dhv * b.normWeights;
    } else {
        linAct += BT * (d + dqk * H + (dqk + dhv) * Hkv) * b.qkv;  // QKV
        linW += d * (dqk * H + (dqk + dhv) * Hkv) * b.weights;
        linAct += BT * (d + H * dhv) * b.act;  // Output Projection
        linW += d * H * dhv * b.weights;
    }
    ByteSplit s;
    s.linear = layers * (linAct + linW) + BT * (d + V) * b.act + d * V * b.embedding;  // + Unembedding
    s.other = layers * (otherAct + otherW) + BT * d * b.embedding                       // Embeddings
              + BT * d * b.actNorm + d * b.normWeights;                                 // Output Norm
    s.weights = layers * (linW + otherW) + d * V * b.embedding + d * b.normWeights;
    return s;
}

}  // namespace

ByteSplit forwardBytes(const ModelConfig& c, double batch, double T, const ByteWidths& b) {
    ByteSplit s = backboneBytes(c, batch * T, b);
    const double layers = static_cast<double>(c.nLayers);
    if (c.family == Family::Xlstm) {
        const double L = static_cast<double>(c.chunk);
        const double perHeadChunk = mlstmChunkBytes(static_cast<double>(c.dQk), static_cast<double>(c.dHv), L, b).total();
        s.seqMix = layers * batch * static_cast<double>(c.nHeads) * chunkCount(T, L) * perHeadChunk;
    } else {
        s.seqMix = layers * batch * attentionBytes(c, T, T, b);
    }
    return s;
}

ByteSplit decodeStepBytes(const ModelConfig& c, double batch, double prefill, double step, const ByteWidths& b) {
    ByteSplit s = backboneBytes(c, batch, b);
    const double layers = static_cast<double>(c.nLayers);
    if (c.family == Family::Xlstm) {
        s.seqMix = layers * batch * static_cast<double>(c.nHeads) *
                   mlstmStepBytes(static_cast<double>(c.dQk), static_cast<double>(c.dHv), b).total();
    } else {
        s.seqMix = layers * batch * attentionBytes(c, 1, prefill + step, b);
    }
    return s;
}

}  // namespace scalex::accounting
