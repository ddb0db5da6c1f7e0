#pragma once
// An architecture as a value (DESIGN.md "Model spec"): a decoder-only language model as a list
// of layers, each a sequence mixer (attention, mLSTM, Mamba, gated DeltaNet or a short convolution)
// followed by a feed-forward block (dense, a mixture of experts, or none), between token
// embeddings and the LM head. Accounting
// of a spec (SpecAccounting.h) is a pure function of it; the paper's Transformer and mLSTM are
// two specs (fromPaperConfig), not a switch inside a formula.
//
// The block specs hold what all layers of one kind share (every attention layer of a model has
// the same heads); a layer says which kind of mixer and feed-forward block it has and whether its
// attention is local (sliding window). Hybrids are a layer list with several mixer kinds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/ModelConfig.h"

namespace scalex::accounting {

enum class NormKind {
    Rms,    // RMSNorm: a weight per channel
    Layer,  // LayerNorm: a weight and a bias per channel
};

// Norms on the queries and keys before the dot product.
enum class QkNorm {
    None,
    PerHead,   // one RMSNorm over head_dim shared by all heads (Qwen3)
    AllHeads,  // one RMSNorm over n_heads * head_dim for q and n_kv * head_dim for k (OLMo-2)
};

struct AttentionSpec {
    std::int64_t nHeads = 0;    // query heads
    std::int64_t nKvHeads = 0;  // key/value heads: nHeads for MHA, fewer for GQA
    std::int64_t dQk = 0;       // per-head query/key width (latent attention: nope + rope part)
    std::int64_t dV = 0;        // per-head value width
    bool qkvBias = false;       // biases on the q, k, v projections (latent: on q_a and kv_a)
    bool outputBias = false;    // bias on the output projection
    QkNorm qkNorm = QkNorm::None;
    // Multi-head latent attention (DeepSeek-V2, Sec. 2.1): keys and values are up-projected from
    // one compressed vector of kvLoraRank per token, which is what the cache holds, beside a rope
    // key of ropeDim shared by all heads. kvLoraRank 0: ordinary attention.
    std::int64_t qLoraRank = 0;   // queries through a rank-qLoraRank bottleneck; 0: one projection
    std::int64_t kvLoraRank = 0;  // d_c
    std::int64_t ropeDim = 0;     // d_h^R (part of dQk)
    std::int64_t slidingWindow = 0;  // keys a local layer attends to (itself included); 0: none
    // Local layers attend within fixed chunks of slidingWindow tokens instead of a sliding window
    // (Llama 4's attention_chunk_size, HF modeling_llama4 chunked attention mask).
    bool chunked = false;
    // A learned logit per query head that joins the softmax (gpt-oss "sinks", HF modeling_gpt_oss
    // GptOssAttention.sinks: one parameter per head and layer).
    bool sinks = false;
    // The output is gated per channel by sigmoid(x W_g), W_g from q_proj, which is twice as wide
    // (Qwen3-Next, HF modeling_qwen3_next Qwen3NextAttention: q_proj d x 2 H d_qk).
    bool outputGate = false;
    bool latent() const { return kvLoraRank > 0; }
    friend bool operator==(const AttentionSpec&, const AttentionSpec&) = default;
};

struct FeedForwardSpec {
    std::int64_t width = 0;  // d_ff
    bool gated = true;       // SwiGLU / GeGLU: gate, up and down matrices; otherwise up and down
    bool bias = false;
    friend bool operator==(const FeedForwardSpec&, const FeedForwardSpec&) = default;
};

struct MoeSpec {
    std::int64_t nRouted = 0;      // routed experts
    std::int64_t topK = 0;         // routed experts each token passes through
    std::int64_t expertWidth = 0;  // d_ff of a routed expert (no bias)
    std::int64_t nShared = 0;      // experts every token passes through
    std::int64_t sharedWidth = 0;  // d_ff of a shared expert
    bool routerBias = false;       // a per-expert bias on the routing scores (DeepSeek-V3)
    bool sharedExpertGate = false; // a d_model -> 1 gate on the shared expert (Qwen2-MoE)
    // Biases on each expert's gate/up (2 d_ff) and down (d_model) projections (gpt-oss,
    // HF modeling_gpt_oss GptOssExperts gate_up_proj_bias and down_proj_bias).
    bool expertBias = false;
    // Gate, up and down in every expert (SwiGLU); false: up and down only, the shared expert too
    // (Nemotron-H, HF modeling_nemotron_h NemotronHExperts and NemotronHMLP with a squared ReLU).
    bool gatedExperts = true;
    // Routed experts that read and write a narrower latent width through a d x l projection before
    // them and an l x d one after (HF modeling_nemotron_h NemotronHMoE fc1_latent_proj and
    // fc2_latent_proj, moe_latent_size); 0: the experts read d_model.
    std::int64_t latentWidth = 0;
    friend bool operator==(const MoeSpec&, const MoeSpec&) = default;
};

// The paper's mLSTM layer (App. "Parameter Counts", Tab. param_counts_mlstm).
struct MlstmSpec {
    std::int64_t nHeads = 0;
    std::int64_t dQk = 0;
    std::int64_t dHv = 0;
    std::int64_t chunk = kStudyChunkSize;  // chunk size L of the chunkwise kernel
    friend bool operator==(const MlstmSpec&, const MlstmSpec&) = default;
};

// A Mamba mixer: version 1 (selective scan, Gu & Dao 2023) or 2 (SSD, Dao & Gu 2024).
struct MambaSpec {
    int version = 1;
    std::int64_t dInner = 0;   // expand * d_model
    std::int64_t dState = 0;   // N
    std::int64_t dConv = 0;    // width of the depthwise causal convolution
    std::int64_t dtRank = 0;   // version 1: rank of the time-step projection
    std::int64_t nHeads = 0;   // version 2: heads (head dim dInner / nHeads)
    std::int64_t nGroups = 1;  // version 2: groups sharing B and C
    bool convBias = true;
    bool projBias = false;     // biases on in_proj and out_proj
    bool innerNorms = false;   // version 1 in Jamba: RMSNorms on the time step, B and C
    friend bool operator==(const MambaSpec&, const MambaSpec&) = default;
};

// Gated DeltaNet (Yang et al. 2024), the linear attention of Qwen3-Next (HF modeling_qwen3_next
// Qwen3NextGatedDeltaNet): q and k of nKeyHeads x dKey, v of nValueHeads x dValue, a causal
// depthwise convolution of width dConv over q, k and v, a state of dKey x dValue per value head.
struct DeltaNetSpec {
    std::int64_t nKeyHeads = 0;
    std::int64_t nValueHeads = 0;
    std::int64_t dKey = 0;
    std::int64_t dValue = 0;
    std::int64_t dConv = 0;
    friend bool operator==(const DeltaNetSpec&, const DeltaNetSpec&) = default;
};

// A gated short convolution block (LFM2, HF modeling_lfm2 Lfm2ShortConv): in_proj d x 3d to B, C
// and x, a causal depthwise convolution of width dConv over B * x, C times its output, out_proj.
struct ShortConvSpec {
    std::int64_t dConv = 0;  // L_cache
    bool bias = false;       // conv_bias: biases on in_proj, the convolution and out_proj
    friend bool operator==(const ShortConvSpec&, const ShortConvSpec&) = default;
};

// Transformer blocks shared by several layers (Zamba2, HF modeling_zamba2 Zamba2AttentionDecoderLayer;
// Glorioso et al. 2024, arXiv:2411.15242 Fig. 2): `blocks` blocks, used in turn by the layers marked
// `shared` before their own mixer. A block's attention reads the hidden state concatenated with the
// token embeddings (width 2 d_model) with the attention spec's heads and head widths and writes
// d_model; its gated MLP has the feed-forward spec's width. The parameters of a block count once; its
// FLOPs and its key-value cache count at every use. Each use adds its own d x d linear and, with
// adapterRank > 0, low-rank adapters on q, k and v (2d -> r -> 2d) and on gate_up (d -> r -> 2 d_ff).
struct SharedBlockSpec {
    std::int64_t blocks = 0;           // num_mem_blocks; 0: no shared blocks
    std::int64_t adapterRank = 0;      // adapter_rank
    bool attentionAdapters = false;    // use_shared_attention_adapter
    bool mlpAdapters = false;          // the gate_up adapters of Zamba2MLP
    friend bool operator==(const SharedBlockSpec&, const SharedBlockSpec&) = default;
};

enum class MixerKind { Attention, Mlstm, Mamba, DeltaNet, ShortConv };
enum class FeedForwardKind { None, Dense, Moe };

struct LayerSpec {
    MixerKind mixer = MixerKind::Attention;
    bool local = false;  // attention limited to the sliding window
    FeedForwardKind feedForward = FeedForwardKind::Dense;
    bool shared = false;  // runs a shared transformer block (SharedBlockSpec) before its mixer
    friend bool operator==(const LayerSpec&, const LayerSpec&) = default;
};

struct ModelSpec {
    std::string name;  // e.g. the config's model_type; "transformer" or "xlstm" for the paper's
    std::int64_t dModel = 0;
    std::int64_t vocab = 0;
    bool tiedEmbeddings = false;        // the LM head reuses the embedding matrix
    bool headBias = false;              // a bias on the LM head (HF modeling_phimoe: lm_head_bias)
    std::int64_t learnedPositions = 0;  // rows of a learned position table (GPT-2); 0: none
    NormKind norm = NormKind::Rms;
    int normsPerBlock = 1;  // norms around each mixer and feed-forward block (Gemma-2: 2, before and after)
    bool finalNorm = true;
    AttentionSpec attention;
    FeedForwardSpec feedForward;
    MoeSpec moe;
    MlstmSpec mlstm;
    MambaSpec mamba;
    DeltaNetSpec deltaNet;
    ShortConvSpec shortConv;
    SharedBlockSpec sharedBlock;
    std::vector<LayerSpec> layers;

    std::int64_t layerCount(MixerKind kind) const;
    std::int64_t layerCount(FeedForwardKind kind) const;
    std::int64_t sharedUses() const;  // layers that run a shared block
    friend bool operator==(const ModelSpec&, const ModelSpec&) = default;
};

// The paper's two architectures as specs: the Llama-style Transformer of
// Tab. param_counts_transformer and the xLSTM 7B mLSTM of Tab. param_counts_mlstm (RMSNorm
// before each block, SwiGLU feed-forward, untied embeddings, no biases but the mLSTM's gates).
ModelSpec fromPaperConfig(const ModelConfig& config);

// A problem with a spec: the field (as named in the spec, e.g. "attention.n_kv_heads"; "sizes" when
// the sizes together are beyond any model) and why.
struct SpecProblem {
    std::string field;
    std::string message;
};
// Empty when the spec can be accounted; otherwise the first problem found.
std::optional<SpecProblem> validate(const ModelSpec& spec);

}  // namespace scalex::accounting
