#include "core/accounting/SpecAccounting.h"

#include <algorithm>
#include <cmath>

namespace scalex::accounting {

namespace {

using I = std::int64_t;

// Parameters of one block, split into the weights a token multiplies with (matrices and
// convolution kernels: one multiply-accumulate each per token) and the rest (biases, norm
// weights, per-channel constants), which the FLOP conventions do not count as MACs.
// N is std::int64_t for the exact counts and double for the size check of validate(spec).
template <class N>
struct Count {
    N matrix = 0;
    N vector = 0;
    N total() const { return matrix + vector; }
};

template <class N>
N normWidth(const ModelSpec& s, N width) {
    return s.norm == NormKind::Layer ? 2 * width : width;  // LayerNorm: weight and bias
}

template <class N>
Count<N> attentionCount(const ModelSpec& s) {
    const AttentionSpec& sa = s.attention;
    Count<N> c;
    const struct {
        N nHeads, nKvHeads, dQk, dV, qLoraRank, kvLoraRank, ropeDim;
        bool qkvBias, outputBias;
        QkNorm qkNorm;
        bool latent() const { return kvLoraRank > 0; }
    } a{N(sa.nHeads), N(sa.nKvHeads), N(sa.dQk), N(sa.dV), N(sa.qLoraRank), N(sa.kvLoraRank), N(sa.ropeDim),
        sa.qkvBias, sa.outputBias, sa.qkNorm};
    if (sa.sinks) c.vector += a.nHeads;                    // GptOssAttention.sinks: one logit per head
    if (sa.outputGate) c.matrix += N(s.dModel) * a.nHeads * a.dQk;  // Qwen3NextAttention: q_proj's gate half
    const N d = N(s.dModel);
    if (a.latent()) {
        // Multi-head latent attention, DeepSeek-V2 Sec. 2.1 and the shapes of DeepseekV3Attention
        // (HF modeling_deepseek_v3): q_a_proj d x r_q, q_a_layernorm r_q, q_b_proj r_q x H d_qk
        // (or q_proj d x H d_qk), kv_a_proj_with_mqa d x (d_c + d_rope), kv_a_layernorm d_c,
        // kv_b_proj d_c x H (d_nope + d_v); q_a and kv_a carry attention_bias.
        const N nope = a.dQk - a.ropeDim;
        if (a.qLoraRank > 0) {
            c.matrix += d * a.qLoraRank + a.qLoraRank * a.nHeads * a.dQk;
            c.vector += a.qLoraRank + (a.qkvBias ? a.qLoraRank : 0);
        } else {
            c.matrix += d * a.nHeads * a.dQk;
        }
        c.matrix += d * (a.kvLoraRank + a.ropeDim) + a.kvLoraRank * a.nHeads * (nope + a.dV);
        c.vector += a.kvLoraRank + (a.qkvBias ? a.kvLoraRank + a.ropeDim : 0);
    } else {
        // Tab. param_counts_transformer, QKV: d_model (d_qk n_head,q + (d_qk + d_hv) n_head,kv)
        c.matrix += d * (a.dQk * a.nHeads + (a.dQk + a.dV) * a.nKvHeads);
        if (a.qkvBias) c.vector += a.dQk * a.nHeads + (a.dQk + a.dV) * a.nKvHeads;
        if (a.qkNorm == QkNorm::PerHead) c.vector += 2 * a.dQk;  // Qwen3Attention: q_norm, k_norm = RMSNorm(head_dim)
        if (a.qkNorm == QkNorm::AllHeads)                         // Olmo2Attention: RMSNorm(n_q d_qk), RMSNorm(n_kv d_qk)
            c.vector += a.dQk * (a.nHeads + a.nKvHeads);
    }
    // Output Projection: d_model n_head,q d_hv
    c.matrix += a.nHeads * a.dV * d;
    if (a.outputBias) c.vector += d;
    return c;
}

// Tab. param_counts_mlstm, one mLSTM layer without its PreNorm.
template <class N>
Count<N> mlstmCount(const ModelSpec& s) {
    const struct {
        N nHeads, dQk, dHv;
    } m{N(s.mlstm.nHeads), N(s.mlstm.dQk), N(s.mlstm.dHv)};
    const N d = N(s.dModel);
    Count<N> c;
    c.matrix += d * m.nHeads * (2 * m.dQk + m.dHv);  // QKV: d n_head (2 d_qk + d_hv)
    c.matrix += 2 * d * m.nHeads;                     // Input & Forget Gates: 2 d n_head ...
    c.vector += 2 * m.nHeads;                         // ... + 2 n_head (their biases)
    c.matrix += d * m.nHeads * m.dHv;                 // Output Gate: d n_head d_hv
    c.vector += m.nHeads * m.dHv;                     // Output Norm: n_head d_hv
    c.matrix += d * m.nHeads * m.dHv;                 // Output Projection: d n_head d_hv
    return c;
}

template <class N>
Count<N> mambaCount(const ModelSpec& s) {
    const MambaSpec& sm = s.mamba;
    const struct {
        N dConv, dtRank, nHeads, nGroups;
        int version;
        bool convBias, projBias, innerNorms;
    } m{N(sm.dConv), N(sm.dtRank), N(sm.nHeads), N(sm.nGroups), sm.version, sm.convBias, sm.projBias, sm.innerNorms};
    const N d = N(s.dModel), di = N(sm.dInner), n = N(sm.dState);
    Count<N> c;
    if (m.version == 1) {
        // Mamba (Gu & Dao 2023), shapes of MambaMixer (HF modeling_mamba, mamba_ssm Mamba):
        // in_proj d x 2 d_inner, conv1d d_inner x d_conv (+ bias), x_proj d_inner x (R + 2N),
        // dt_proj R x d_inner + bias, A_log d_inner x N, D d_inner, out_proj d_inner x d.
        c.matrix += d * 2 * di + di * m.dConv + di * (m.dtRank + 2 * n) + m.dtRank * di + di * d;
        c.vector += (m.convBias ? di : 0) + di + di * n + di + (m.projBias ? 2 * di + d : 0);
        if (m.innerNorms) c.vector += m.dtRank + 2 * n;  // JambaMambaMixer: dt, B and C RMSNorms
    } else {
        // Mamba-2 (Dao & Gu 2024, Sec. 7), shapes of Mamba2Mixer (HF modeling_mamba2): conv_dim =
        // d_inner + 2 G N; in_proj d x (d_inner + conv_dim + H), conv1d conv_dim x d_conv (+ bias),
        // dt_bias, A_log and D of H each, the gated RMSNorm d_inner, out_proj d_inner x d.
        const N convDim = di + 2 * m.nGroups * n;
        c.matrix += d * (di + convDim + m.nHeads) + convDim * m.dConv + di * d;
        c.vector += (m.convBias ? convDim : 0) + 3 * m.nHeads + di + (m.projBias ? di + convDim + m.nHeads + d : 0);
    }
    return c;
}

// Gated DeltaNet, the shapes of Qwen3NextGatedDeltaNet (HF modeling_qwen3_next): with key width
// K = H_k d_k and value width V = H_v d_v, in_proj_qkvz d x (2K + 2V), in_proj_ba d x 2 H_v,
// conv1d (2K + V) x d_conv without bias, dt_bias and A_log of H_v each, the gated RMSNorm d_v
// (shared by the heads), out_proj V x d.
template <class N>
Count<N> deltaNetCount(const ModelSpec& s) {
    const DeltaNetSpec& g = s.deltaNet;
    const N d = N(s.dModel), K = N(g.nKeyHeads) * N(g.dKey), V = N(g.nValueHeads) * N(g.dValue), Hv = N(g.nValueHeads);
    Count<N> c;
    c.matrix = d * (2 * K + 2 * V) + d * 2 * Hv + (2 * K + V) * N(g.dConv) + V * d;
    c.vector = 2 * Hv + N(g.dValue);
    return c;
}

// The gated short convolution of Lfm2ShortConv (HF modeling_lfm2): in_proj d x 3d, conv1d
// depthwise d x L_cache, out_proj d x d, each with a bias under conv_bias.
template <class N>
Count<N> shortConvCount(const ModelSpec& s) {
    const N d = N(s.dModel);
    Count<N> c;
    c.matrix = d * 3 * d + d * N(s.shortConv.dConv) + d * d;
    if (s.shortConv.bias) c.vector = 3 * d + d + d;
    return c;
}

template <class N>
Count<N> mixerCount(const ModelSpec& s, MixerKind kind) {
    switch (kind) {
        case MixerKind::Attention: return attentionCount<N>(s);
        case MixerKind::Mlstm: return mlstmCount<N>(s);
        case MixerKind::Mamba: return mambaCount<N>(s);
        case MixerKind::DeltaNet: return deltaNetCount<N>(s);
        case MixerKind::ShortConv: return shortConvCount<N>(s);
    }
    return {};
}

// A gated feed-forward block (SwiGLU, Shazeer 2020): gate and up d x w, down w x d
// (Tab. param_counts_transformer, MLPs: 3 d_model d_ff); a plain one (GPT-2): up and down.
template <class N>
Count<N> denseCount(N d, const FeedForwardSpec& f) {
    const N w = N(f.width);
    Count<N> c;
    c.matrix = N(f.gated ? 3 : 2) * d * w;
    if (f.bias) c.vector = N(f.gated ? 2 : 1) * w + d;
    return c;
}

// The matrices of one routed expert: gate, up and down of in x d_expert (SwiGLU), or up and down
// only (NemotronHExperts); `in` is d_model, or the latent width where the experts have one.
template <class N>
N routedExpertMatrices(N d, const MoeSpec& m) {
    const N in = m.latentWidth > 0 ? N(m.latentWidth) : d;
    return N(m.gatedExperts ? 3 : 2) * in * N(m.expertWidth);
}

// A mixture-of-experts block (Shazeer et al. 2017; Mixtral, DeepSeekMoE): the router d x E (and a
// score bias of E in DeepSeek-V3), E routed and S shared experts. A token passes through
// top-k routed experts and every shared one. Latent experts (Nemotron-H moe_latent_size l) add
// fc1_latent_proj d x l and fc2_latent_proj l x d around the routed experts (HF modeling_nemotron_h
// NemotronHMoE); the shared experts read d_model.
template <class N>
Count<N> moeCount(N d, const MoeSpec& m, bool active) {
    Count<N> c;
    const N routed = N(active ? m.topK : m.nRouted);
    c.matrix = d * N(m.nRouted) + routed * routedExpertMatrices(d, m) +
               N(m.nShared) * N(m.gatedExperts ? 3 : 2) * d * N(m.sharedWidth);
    if (m.latentWidth > 0) c.matrix += 2 * d * N(m.latentWidth);
    if (m.sharedExpertGate) c.matrix += d;
    if (m.routerBias) c.vector += N(m.nRouted);
    if (m.expertBias) c.vector += routed * (2 * N(m.expertWidth) + d);  // GptOssExperts: gate_up and down biases
    return c;
}

template <class N>
Count<N> feedForwardCount(const ModelSpec& s, FeedForwardKind kind, bool active) {
    switch (kind) {
        case FeedForwardKind::None: return {};
        case FeedForwardKind::Dense: return denseCount<N>(N(s.dModel), s.feedForward);
        case FeedForwardKind::Moe: return moeCount<N>(N(s.dModel), s.moe, active);
    }
    return {};
}

// A shared transformer block (SharedBlockSpec; HF modeling_zamba2): Zamba2Attention q_proj
// 2d x H d_qk, k_proj and v_proj 2d x H_kv d_qk, o_proj H d_v x d; Zamba2MLP gate_up_proj
// d x 2 d_ff and down_proj d_ff x d (biases under add_bias_linear); input_layernorm over 2d and
// pre_ff_layernorm over d. `attention` and `mlp` hold one block's weights.
template <class N>
struct SharedCount {
    Count<N> attention, mlp;
    N norms = 0;
    N total() const { return attention.total() + mlp.total() + norms; }
};

template <class N>
SharedCount<N> sharedBlockCount(const ModelSpec& s) {
    const AttentionSpec& a = s.attention;
    const N d = N(s.dModel), H = N(a.nHeads), Hkv = N(a.nKvHeads), dqk = N(a.dQk), dv = N(a.dV);
    SharedCount<N> c;
    c.attention.matrix = 2 * d * (H * dqk + Hkv * (dqk + dv)) + H * dv * d;
    c.mlp = denseCount<N>(d, s.feedForward);
    c.norms = 2 * d + d;
    return c;
}

// What each use of a shared block adds (HF modeling_zamba2): the hybrid layer's linear d x d
// without bias; Zamba2Attention's adapters 2d x r and r x 2d on each of q, k and v; Zamba2MLP's
// gate_up adapter d x r and r x 2 d_ff. `attention` and `mlp` are one use's.
template <class N>
SharedCount<N> sharedUseCount(const ModelSpec& s) {
    const SharedBlockSpec& b = s.sharedBlock;
    const N d = N(s.dModel), r = N(b.adapterRank), w = N(s.feedForward.width);
    SharedCount<N> c;
    c.attention.matrix = d * d + (b.attentionAdapters ? 3 * (2 * d * r + r * 2 * d) : 0);
    c.mlp.matrix = b.mlpAdapters ? d * r + r * 2 * w : 0;
    return c;
}

int blocksOf(const LayerSpec& l) { return l.feedForward == FeedForwardKind::None ? 1 : 2; }

template <class N>
struct Groups {
    N embedding = 0, attention = 0, feedForward = 0, experts = 0, recurrent = 0, norms = 0, head = 0, shared = 0;
};

template <class N>
Groups<N> groups(const ModelSpec& s, bool active) {
    Groups<N> g;
    const N d = N(s.dModel);
    g.embedding = N(s.vocab) * d + N(s.learnedPositions) * d;  // Embeddings: n_vocab d_model
    g.head = s.tiedEmbeddings ? 0 : d * N(s.vocab);             // Unembedding: d_model n_vocab
    if (s.headBias) g.head += N(s.vocab);                        // its bias: n_vocab (PhimoeForCausalLM lm_head)
    g.norms = s.finalNorm ? normWidth(s, d) : 0;                // Output Norm: d_model
    // Every layer of a kind has the same count: count each kind present once (the block specs of
    // kinds no layer has are not looked at).
    auto mixer = [&](MixerKind k) { return s.layerCount(k) > 0 ? mixerCount<N>(s, k) : Count<N>{}; };
    auto ffn = [&](FeedForwardKind k) { return s.layerCount(k) > 0 ? feedForwardCount<N>(s, k, active) : Count<N>{}; };
    const Count<N> mixers[] = {mixer(MixerKind::Attention), mixer(MixerKind::Mlstm), mixer(MixerKind::Mamba),
                               mixer(MixerKind::DeltaNet), mixer(MixerKind::ShortConv)};
    const Count<N> ffns[] = {Count<N>{}, ffn(FeedForwardKind::Dense), ffn(FeedForwardKind::Moe)};
    for (const LayerSpec& l : s.layers) {
        g.norms += N(blocksOf(l) * s.normsPerBlock) * normWidth(s, d);  // PreNorm: d_model, per block
        (l.mixer == MixerKind::Attention ? g.attention : g.recurrent) += mixers[static_cast<int>(l.mixer)].total();
        (l.feedForward == FeedForwardKind::Moe ? g.experts : g.feedForward) += ffns[static_cast<int>(l.feedForward)].total();
    }
    // Shared blocks, a group of their own: a block's weights (attention, MLP, norms) once, each use's
    // linear and adapters per use.
    if (const N uses = N(s.sharedUses()); uses > 0) {
        const SharedCount<N> block = sharedBlockCount<N>(s), use = sharedUseCount<N>(s);
        g.shared = N(s.sharedBlock.blocks) * block.total() + uses * use.total();
    }
    return g;
}

ParamGroups exactGroups(const ModelSpec& s, bool active) {
    const Groups<I> g = groups<I>(s, active);
    return {g.embedding, g.attention, g.feedForward, g.experts, g.recurrent, g.norms, g.head, g.shared};
}

// Keys per query averaged over a causal sequence of T tokens, times the convention's causal
// factor: F_causal T without a window (Tab. flop_counts_attention, S = T), and with a window W < T
// the causal triangle less the triangle beyond the window, F_causal (T^2 - (T - W)^2) / T.
double attendedKeysPerToken(double T, double window, double causal) {
    if (window <= 0 || window >= T) return causal * T;
    return causal * (T * T - (T - window) * (T - window)) / T;
}

// The same for attention within fixed chunks of C tokens (Llama 4's chunked layers): each whole
// chunk is a causal triangle of C, the last partial chunk of r = T mod C one of r,
// F_causal (floor(T / C) C^2 + r^2) / T.
double chunkedKeysPerToken(double T, double chunk, double causal) {
    if (chunk <= 0 || chunk >= T) return causal * T;
    const double whole = std::floor(T / chunk), r = T - whole * chunk;
    return causal * (whole * chunk * chunk + r * r) / T;
}

// The recurrent scan of one Mamba layer per token (mamba_ssm selective_scan_ref and
// selective_state_update_ref), per state element of d_inner x N.
// Version 1: exp(dt A) (1 + F_exp), dt B x (2), h = dA h + dBx (2), y = C h (2); plus D x (2 d_inner).
// Version 2: A is a scalar per head (n_head (1 + F_exp)), dt x (d_inner), (dt x) B (1), h = dA h + dBx (2),
// y = C h (2); plus D x (2 d_inner).
// The chunked kernels used for training do more work than this recurrence; it is not counted.
double mambaScanFlops(const MambaSpec& m, const OpFactors& f) {
    const double di = static_cast<double>(m.dInner), N = static_cast<double>(m.dState);
    if (m.version == 1) return di * N * (7 + f.exp) + 2 * di;
    return 5 * di * N + 3 * di + static_cast<double>(m.nHeads) * (1 + f.exp);
}

}  // namespace

ParamCounts paramCounts(const ModelSpec& spec) { return {exactGroups(spec, false), exactGroups(spec, true)}; }

SharedBlockParams sharedBlockParams(const ModelSpec& spec) {
    if (spec.sharedUses() == 0) return {};
    return {sharedBlockCount<I>(spec).total(), sharedUseCount<I>(spec).total()};
}

double parameterEstimate(const ModelSpec& spec) {
    const Groups<double> g = groups<double>(spec, false);
    return g.embedding + g.attention + g.feedForward + g.experts + g.recurrent + g.norms + g.head + g.shared;
}

namespace {
// One use of a shared block: its matrices, the use's linear and adapters (2 FLOPs a MAC), full
// causal attention over 2d-wide queries, the two RMSNorms (2d and d), the gated MLP's activation and
// the add of its output into the mixer's input.
FlopSplit sharedUseFlops(const ModelSpec& s, double T, const OpFactors& f) {
    const SharedCount<I> block = sharedBlockCount<I>(s), use = sharedUseCount<I>(s);
    const AttentionSpec& a = s.attention;
    const double d = static_cast<double>(s.dModel), w = static_cast<double>(s.feedForward.width);
    FlopSplit out;
    out.linear = 2 * static_cast<double>(block.attention.matrix + block.mlp.matrix + use.attention.matrix + use.mlp.matrix);
    // Tab. flop_counts_attention: 2 F_causal (d_qk + d_hv + 0.5 F_softmax) per query head and key.
    out.seqMix = static_cast<double>(a.nHeads) * 2 * attendedKeysPerToken(T, 0, f.causal) *
                 (static_cast<double>(a.dQk) + static_cast<double>(a.dV) + 0.5 * f.softmax);
    out.other = 3 * d * f.norm + w * (1 + f.swish) + d * f.skip;
    return out;
}
}  // namespace

FlopSplit sharedBlockFlopsPerToken(const ModelSpec& s, double T, const FlopConvention& conv) {
    const double uses = static_cast<double>(s.sharedUses());
    if (conv.sixNd || uses == 0) return {};
    return uses * sharedUseFlops(s, T, conv.ops);
}

FlopSplit forwardFlopsPerToken(const ModelSpec& s, double T, const FlopConvention& conv) {
    if (conv.sixNd) return FlopSplit{2.0 * static_cast<double>(paramCounts(s).activeTotal()), 0, 0};
    const OpFactors& f = conv.ops;
    const double d = static_cast<double>(s.dModel);
    FlopSplit out;
    out.linear = 2 * d * static_cast<double>(s.vocab);  // Unembedding: 2 d_model n_vocab (tied or not)
    out.other = s.finalNorm ? d * f.norm : 0;           // Output Norm: d_model F_norm
    // Tab. flop_counts_attention: 2 F_causal (d_qk + d_hv + 0.5 F_softmax) per query head and key.
    const auto attentionScores = [&](double keys) {
        const AttentionSpec& a = s.attention;
        return static_cast<double>(a.nHeads) * 2 * keys * (static_cast<double>(a.dQk) + static_cast<double>(a.dV) + 0.5 * f.softmax);
    };
    for (const LayerSpec& l : s.layers) {
        if (l.shared) out += sharedUseFlops(s, T, f);
        // Linear layers: 2 FLOPs per multiply-accumulate (Eq. flop_counts_linear).
        out.linear += 2 * static_cast<double>(mixerCount<I>(s, l.mixer).matrix + feedForwardCount<I>(s, l.feedForward, true).matrix);
        // PreNorm & Skip: d_model (F_skip + F_norm), per block (Tab. flop_counts_*_backbone).
        out.other += blocksOf(l) * d * (f.skip + s.normsPerBlock * f.norm);
        switch (l.feedForward) {
            case FeedForwardKind::None: break;
            case FeedForwardKind::Dense: {
                // Activations: d_ff (1 + F_swish) for a gated block; the activation alone otherwise.
                const double w = static_cast<double>(s.feedForward.width);
                out.other += s.feedForward.gated ? w * (1 + f.swish) : w * f.swish;
                break;
            }
            case FeedForwardKind::Moe: {
                // As a dense block: d_ff (1 + F_swish) for gated experts, the activation alone otherwise.
                const double w = static_cast<double>(s.moe.topK * s.moe.expertWidth + s.moe.nShared * s.moe.sharedWidth);
                out.other += s.moe.gatedExperts ? w * (1 + f.swish) : w * f.swish;
                break;
            }
        }
        switch (l.mixer) {
            case MixerKind::Attention: {
                const AttentionSpec& a = s.attention;
                const double window = l.local ? static_cast<double>(a.slidingWindow) : 0;
                const double keys = a.chunked ? chunkedKeysPerToken(T, window, f.causal) : attendedKeysPerToken(T, window, f.causal);
                out.seqMix += attentionScores(keys);
                if (a.sinks) out.seqMix += static_cast<double>(a.nHeads) * f.softmax;  // the sink: one more logit per head
                if (a.outputGate) out.other += static_cast<double>(a.nHeads * a.dV) * (1 + f.sig);  // o * sigmoid(gate)
                if (a.qkNorm == QkNorm::PerHead || a.qkNorm == QkNorm::AllHeads)
                    out.other += static_cast<double>(a.dQk * (a.nHeads + a.nKvHeads)) * f.norm;
                if (a.latent()) out.other += static_cast<double>(a.qLoraRank + a.kvLoraRank) * f.norm;
                break;
            }
            case MixerKind::Mlstm: {
                const MlstmSpec& m = s.mlstm;
                const double H = static_cast<double>(m.nHeads), hv = H * static_cast<double>(m.dHv);
                // Tab. flop_counts_mlstm_backbone prints the gate projections as 2 d n_head + 2 n_head;
                // the study counts them as the matrix product 2 * 2 d n_head (FlopConvention).
                if (!conv.studyGateProjection) out.linear += 2 * d * H + 2 * H - 4 * d * H;
                out.linear += hv * f.sig;   // Output Gate: ... + n_head d_hv F_sig
                out.other += hv * f.norm;   // Output Norm: n_head d_hv F_norm
                out.seqMix += mlstmCellChunkwiseFlops(H, static_cast<double>(m.dQk), static_cast<double>(m.dHv),
                                                      static_cast<double>(m.chunk), T, conv) / T;
                break;
            }
            case MixerKind::Mamba: {
                const double di = static_cast<double>(s.mamba.dInner);
                out.seqMix += mambaScanFlops(s.mamba, f);
                out.other += di * (1 + f.swish);                   // the output gate y * silu(z)
                if (s.mamba.version == 2) out.other += di * f.norm;  // its gated RMSNorm
                break;
            }
            case MixerKind::DeltaNet: {
                // The gated delta rule per value head (HF modeling_qwen3_next torch_recurrent_gated_delta_rule):
                // decay S g (d_k d_v), S^T k (2 d_k d_v), beta (v - S^T k) (2 d_v), S += k delta^T (2 d_k d_v),
                // o = S^T q (2 d_k d_v); l2-norms of q and k; the gated RMSNorm and its silu gate on the output.
                const DeltaNetSpec& g = s.deltaNet;
                const double Hv = static_cast<double>(g.nValueHeads), dk = static_cast<double>(g.dKey), dv = static_cast<double>(g.dValue);
                out.seqMix += Hv * (7 * dk * dv + 2 * dv);
                out.other += 2 * static_cast<double>(g.nKeyHeads) * dk * f.norm + Hv * dv * (f.norm + 1 + f.swish);
                break;
            }
            case MixerKind::ShortConv:
                out.other += 2 * d;  // the two gates B * x and C * conv(Bx) (Lfm2ShortConv.slow_forward)
                break;
        }
    }
    return out;
}

double trainingFlopsPerToken(const ModelSpec& s, double T, const FlopConvention& conv) {
    if (conv.sixNd) return 3.0 * forwardFlopsPerToken(s, T, conv).total();  // 6 N
    return conv.trainingMultiplier * forwardFlopsPerToken(s, T, conv).total();
}

CacheElements cacheElements(const ModelSpec& s, double T) {
    CacheElements e;
    for (const LayerSpec& l : s.layers) {
        // Each use of a shared block keeps its own keys and values (HF Zamba2HybridDynamicCache: a
        // key and value cache per hybrid layer), full attention: 2 n_head,kv d_hv T in the table's terms.
        if (l.shared) {
            const double kv = static_cast<double>(s.attention.nKvHeads) * static_cast<double>(s.attention.dQk + s.attention.dV) * T;
            e.kv += kv;
            e.sharedKv += kv;
        }
        switch (l.mixer) {
            case MixerKind::Attention: {
                const AttentionSpec& a = s.attention;
                // A local layer keeps the last W tokens (Mistral 7B, Sec. 2 "Rolling Buffer Cache").
                // A chunked layer keeps at most the current chunk (Llama 4: HF ChunkedSlidingLayer of attention_chunk_size).
                const double tokens = l.local && a.slidingWindow > 0 ? std::min(T, static_cast<double>(a.slidingWindow)) : T;
                // Tab. memory_state_kv_cache_sizes: GQA 2 n_head,kv d_hv T (keys at d_qk, values at d_hv);
                // MLA keeps the compressed vector and the rope key, (d_c + d_h^R) T (DeepSeek-V2 Sec. 2.1.4),
                // which is the table's 9/2 d_hv T with d_c = 4 d_hv and d_h^R = d_hv / 2.
                const double perToken = a.latent() ? static_cast<double>(a.kvLoraRank) + static_cast<double>(a.ropeDim)
                                                   : static_cast<double>(a.nKvHeads) * (static_cast<double>(a.dQk) + static_cast<double>(a.dV));
                e.kv += perToken * tokens;
                break;
            }
            case MixerKind::Mlstm: {
                // Tab. memory_state_kv_cache_sizes, mLSTM: n_head (d_hv d_qk + d_qk + 1)
                const double H = static_cast<double>(s.mlstm.nHeads), dqk = static_cast<double>(s.mlstm.dQk);
                e.state += H * (static_cast<double>(s.mlstm.dHv) * dqk + dqk + 1);
                break;
            }
            case MixerKind::Mamba: {
                // The shapes of HF MambaCache / Mamba2Cache: the convolution's last d_conv inputs and the
                // SSM state, d_inner x N (version 1) or n_head x head_dim x N (version 2, the same count).
                const MambaSpec& m = s.mamba;
                const double di = static_cast<double>(m.dInner), n = static_cast<double>(m.dState);
                const double convChannels = m.version == 1 ? di : di + 2 * static_cast<double>(m.nGroups) * n;
                e.state += convChannels * static_cast<double>(m.dConv) + di * n;
                break;
            }
            case MixerKind::DeltaNet: {
                // HF Qwen3NextDynamicCache: conv_states (2K + V) x d_conv and recurrent_states H_v x d_k x d_v.
                const DeltaNetSpec& g = s.deltaNet;
                const double K = static_cast<double>(g.nKeyHeads * g.dKey), V = static_cast<double>(g.nValueHeads * g.dValue);
                e.state += (2 * K + V) * static_cast<double>(g.dConv) + V * static_cast<double>(g.dKey);
                break;
            }
            case MixerKind::ShortConv:
                // HF Lfm2HybridConvCache: conv_cache d x L_cache per conv layer.
                e.state += static_cast<double>(s.dModel) * static_cast<double>(s.shortConv.dConv);
                break;
        }
    }
    return e;
}

double kvCacheBytes(const ModelSpec& s, double T, double batch, double bytesPerElement) {
    return batch * cacheElements(s, T).total() * bytesPerElement;
}

double cacheBytes(const ModelSpec& s, double T, double batch, const ByteWidths& b) {
    const CacheElements e = cacheElements(s, T);
    return batch * (e.kv * b.qkv + e.state * b.state);
}

double expertsTouched(const ModelSpec& s, double tokens) {
    if (s.layerCount(FeedForwardKind::Moe) == 0 || s.moe.nRouted <= 0) return 0;
    const double E = static_cast<double>(s.moe.nRouted), k = static_cast<double>(s.moe.topK);
    return E * (1 - std::pow(1 - k / E, std::max(tokens, 0.0)));
}

namespace {
// Parameters of the routed experts of all MoE layers (routedExpertMatrices each).
double routedExpertParams(const ModelSpec& s) {
    return static_cast<double>(s.layerCount(FeedForwardKind::Moe)) * static_cast<double>(s.moe.nRouted) *
           routedExpertMatrices<double>(static_cast<double>(s.dModel), s.moe);
}
}  // namespace

double weightBytes(const ModelSpec& s, const ByteWidths& b) {
    const ParamGroups g = paramCounts(s).all;
    const double matrices = static_cast<double>(g.embedding + g.head);
    return (static_cast<double>(g.total()) - matrices) * b.weights + matrices * b.embedding;
}

double weightBytesRead(const ModelSpec& s, double tokens, const ByteWidths& b) {
    const ParamGroups g = paramCounts(s).all;
    const double routed = routedExpertParams(s);
    const double touched = s.moe.nRouted > 0 ? expertsTouched(s, tokens) / static_cast<double>(s.moe.nRouted) : 0;
    const double rest = static_cast<double>(g.total() - g.embedding - g.head) - routed;
    // A tied head reads the embedding matrix once as the head.
    const double head = static_cast<double>(s.tiedEmbeddings ? g.embedding : g.head);
    const double lookup = std::min(tokens, static_cast<double>(s.vocab)) * static_cast<double>(s.dModel);
    return (rest + routed * touched) * b.weights + (head + (s.tiedEmbeddings ? 0.0 : lookup)) * b.embedding;
}

ByteSplit decodeStepBytes(const ModelSpec& s, double batch, double context, const ByteWidths& b) {
    ByteSplit out;
    out.weights = weightBytesRead(s, batch, b);
    out.linear = out.weights;
    const CacheElements cache = cacheElements(s, context), oneToken = cacheElements(s, 1);
    // Read the cache once (within the windows) and write the new token's keys and values; read and
    // write each recurrent state.
    out.seqMix = batch * (cache.kv + oneToken.kv) * b.qkv + batch * 2 * cache.state * b.state;
    return out;
}

}  // namespace scalex::accounting
