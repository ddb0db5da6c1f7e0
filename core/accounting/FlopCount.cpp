#include "core/accounting/FlopCount.h"

#include <cmath>

#include "core/accounting/ParamCount.h"

namespace scalex::accounting {

FlopConvention studyConvention() {
    FlopConvention c;
    c.name = "study";
    c.ops.causal = 0.5;
    c.ops.softmax = 5.0;
    c.ops.norm = 0.0;  // norms, skips and embeddings are not counted by the study
    c.ops.skip = 0.0;
    c.cell = MlstmCellCount::Study;
    c.studyGateProjection = true;
    return c;
}

FlopConvention appendixConvention() {
    FlopConvention c;
    c.name = "appendix";
    c.ops = OpFactors{};  // F_causal 0.5, F_softmax 5, F_norm 3, F_skip 1, every other F_OP 1
    c.cell = MlstmCellCount::Appendix;
    c.studyGateProjection = false;
    return c;
}

FlopConvention chinchillaConvention() {
    FlopConvention c = studyConvention();
    c.name = "chinchilla";
    c.ops.causal = 1.0;   // the full T x T attention matrix, as Hoffmann et al. count it
    c.ops.softmax = 3.0;
    return c;
}

FlopConvention sixNdConvention() {
    FlopConvention c = studyConvention();
    c.name = "6nd";
    c.sixNd = true;
    return c;
}

std::optional<FlopConvention> conventionByName(std::string_view name) {
    if (name == "study") return studyConvention();
    if (name == "appendix") return appendixConvention();
    if (name == "chinchilla") return chinchillaConvention();
    if (name == "6nd" || name == "6ND") return sixNdConvention();
    return std::nullopt;
}

std::vector<std::string> conventionNames() { return {"study", "appendix", "chinchilla", "6nd"}; }

MlstmChunkTerms mlstmChunkTerms(double dqk, double dhv, double L, const OpFactors& f) {
    // Tab. flop_counts_mlstm_chunkwise, column "Exact", per head and chunk.
    MlstmChunkTerms t;
    t.gates = 2 * L + 0.5 * L * (L + 1) + L * (1 + f.exp + f.log + f.sig) + 3 + f.max + f.exp;
    t.numerator = 2 * dqk * dhv + 2 * L * dqk * dhv + L * dqk;
    t.denominator = 2 * dqk + 2 * L * dqk;
    t.cumulativeForgetGates = 0.5 * L * (L + 1) + L * (f.log + f.sig);
    t.gateMatrix = f.causal * (L * L * (3 + f.exp + f.max) + L * (1 + f.max));
    t.intraOutputs = f.causal * (2 * L * L * (dqk + dhv) + 3 * L * L);
    t.interOutputs = 2 * L * dqk * dhv + 3 * L * dqk;
    t.outputCombination = 2 * L * dhv + L * (1 + f.max + f.abs + f.exp);
    return t;
}

MlstmStepTerms mlstmStepTerms(double dqk, double dhv, const OpFactors& f) {
    // Tab. flop_counts_mlstm_recurrent, column "Exact", per head and time step.
    MlstmStepTerms t;
    t.gates = 4 + 2 * f.exp + f.log + f.sig + f.max;
    t.cellUpdate = 4 * dqk * dhv;
    t.denominatorAndScale = 6 * dqk + dhv + 1 + f.abs + f.max;
    t.output = 2 * dhv * dqk + dqk;
    return t;
}

double chunkCount(double tokens, double chunk) { return std::ceil(tokens / chunk); }

namespace {

// The study's own chunkwise count (reference README (c), cell mode "first", op factors 1),
// per head and chunk. It groups the work differently from the appendix table.
double studyChunkFlops(double dqk, double dhv, double c) {
    return (0.5 * c * (c + 1) + 2 * c) + (5 + 5 * c) + (2 * dqk * dhv + 4 * c * dqk * dhv + 3 * c * dqk) +
           (2 * dqk + 4 * c * dqk) +
           (0.5 * c * (c + 1) + 6 * c * c + 2 * c + 2 * c * c * dqk + 2 * c * c + 2 * c * c * dhv + 2 * c * c) +
           (7 * c + 2 * c * dhv);
}

// Per-token FLOPs of everything but the sequence-mix core (Tab. flop_counts_*_backbone).
FlopSplit backbonePerToken(const ModelConfig& c, const FlopConvention& conv) {
    const auto& f = conv.ops;
    const double d = static_cast<double>(c.dModel), H = static_cast<double>(c.nHeads);
    const double Hkv = static_cast<double>(c.nKvHeads), dqk = static_cast<double>(c.dQk);
    const double dhv = static_cast<double>(c.dHv), dff = static_cast<double>(c.dFf);
    const double V = static_cast<double>(c.vocab), layers = static_cast<double>(c.nLayers);

    double linearLayer = 0, otherLayer = 0;
    const double ffnLinear = 6 * d * dff;             // MLPs: 6 d_model d_ff
    const double ffnOther = dff * (1 + f.swish);      // Activations: d_ff (1 + F_swish)
    const double preNormSkip = d * (f.skip + f.norm); // PreNorm & Skip, once per block
    if (c.family == Family::Xlstm) {
        const double qkv = 2 * d * H * (2 * dqk + dhv);                             // QKV
        const double gates = conv.studyGateProjection ? 4 * d * H : 2 * d * H + 2 * H;  // Input & Forget Gates
        const double outGate = 2 * d * H * dhv + H * dhv * f.sig;                   // Output Gate
        const double outProj = 2 * d * H * dhv;                                      // Output Projection
        linearLayer = qkv + gates + outGate + outProj + ffnLinear;
        otherLayer = 2 * preNormSkip + H * dhv * f.norm + ffnOther;                  // + Output Norm
    } else {
        const double qkv = 2 * d * (dqk * H + dqk * Hkv + dhv * Hkv);  // QKV
        const double outProj = 2 * d * H * dhv;                        // Output Projection
        linearLayer = qkv + outProj + ffnLinear;
        otherLayer = 2 * preNormSkip + ffnOther;
    }
    FlopSplit s;
    s.linear = layers * linearLayer + 2 * d * V;  // Unembedding: 2 d_model n_vocab
    s.other = layers * otherLayer + d * f.norm;   // Output Norm: d_model F_norm
    return s;
}

double twoN(const ModelConfig& c) { return 2.0 * static_cast<double>(countParameters(c).total()); }

}  // namespace

double mlstmCellChunkwiseFlops(double nHeads, double dqk, double dhv, double L, double tokens, const FlopConvention& conv) {
    const double perChunk = conv.cell == MlstmCellCount::Study ? studyChunkFlops(dqk, dhv, L)
                                                               : mlstmChunkTerms(dqk, dhv, L, conv.ops).total();
    return nHeads * chunkCount(tokens, L) * perChunk;  // x n_head x n_chunk
}

double mlstmCellChunkwiseFlops(const ModelConfig& c, double tokens, const FlopConvention& conv) {
    return mlstmCellChunkwiseFlops(static_cast<double>(c.nHeads), static_cast<double>(c.dQk), static_cast<double>(c.dHv),
                                   static_cast<double>(c.chunk), tokens, conv);
}

double mlstmCellStepFlops(const ModelConfig& c, const FlopConvention& conv) {
    return static_cast<double>(c.nHeads) *
           mlstmStepTerms(static_cast<double>(c.dQk), static_cast<double>(c.dHv), conv.ops).total();
}

double attentionCoreFlops(const ModelConfig& c, double S, double T, const OpFactors& f) {
    // 2 S T F_causal (d_qk + d_hv + 0.5 F_softmax) per query head.
    return static_cast<double>(c.nHeads) * 2 * S * T * f.causal *
           (static_cast<double>(c.dQk) + static_cast<double>(c.dHv) + 0.5 * f.softmax);
}

FlopSplit forwardFlops(const ModelConfig& c, double T, const FlopConvention& conv) {
    if (conv.sixNd) return FlopSplit{twoN(c) * T, 0, 0};
    FlopSplit s = T * backbonePerToken(c, conv);
    const double layers = static_cast<double>(c.nLayers);
    s.seqMix = c.family == Family::Xlstm ? layers * mlstmCellChunkwiseFlops(c, T, conv)
                                         : layers * attentionCoreFlops(c, T, T, conv.ops);
    return s;
}

double trainingFlopsPerToken(const ModelConfig& c, double context, const FlopConvention& conv) {
    if (conv.sixNd) return 3.0 * twoN(c);
    return conv.trainingMultiplier * forwardFlops(c, context, conv).total() / context;
}

double trainingFlops(const ModelConfig& c, double context, double tokens, const FlopConvention& conv) {
    return trainingFlopsPerToken(c, context, conv) * tokens;
}

FlopSplit prefillFlops(const ModelConfig& c, double batch, double prefill, const FlopConvention& conv) {
    return batch * forwardFlops(c, prefill, conv);
}

FlopSplit decodeStepFlops(const ModelConfig& c, double batch, double prefill, double step,
                          const FlopConvention& conv) {
    if (conv.sixNd) return FlopSplit{batch * twoN(c), 0, 0};
    FlopSplit s = backbonePerToken(c, conv);
    const double layers = static_cast<double>(c.nLayers);
    s.seqMix = c.family == Family::Xlstm ? layers * mlstmCellStepFlops(c, conv)
                                         : layers * attentionCoreFlops(c, 1, prefill + step, conv.ops);
    return batch * s;
}

FlopSplit generationFlops(const ModelConfig& c, double batch, double prefill, double generated,
                          const FlopConvention& conv) {
    if (conv.sixNd) return FlopSplit{batch * generated * twoN(c), 0, 0};
    FlopSplit s = generated * backbonePerToken(c, conv);
    const double layers = static_cast<double>(c.nLayers);
    if (c.family == Family::Xlstm) {
        s.seqMix = layers * generated * mlstmCellStepFlops(c, conv);
    } else {
        // a (T_p T_g + T_g (T_g + 1) / 2) with a the per-key cost of one query.
        const double a = attentionCoreFlops(c, 1, 1, conv.ops);
        s.seqMix = layers * a * (prefill * generated + 0.5 * generated * (generated + 1));
    }
    return batch * s;
}

}  // namespace scalex::accounting
