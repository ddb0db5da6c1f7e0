#include "core/accounting/ModelSpec.h"

#include "core/accounting/SpecAccounting.h"

#include <algorithm>
#include <cstdio>

namespace scalex::accounting {

std::int64_t ModelSpec::layerCount(MixerKind kind) const {
    return std::count_if(layers.begin(), layers.end(), [&](const LayerSpec& l) { return l.mixer == kind; });
}

std::int64_t ModelSpec::layerCount(FeedForwardKind kind) const {
    return std::count_if(layers.begin(), layers.end(), [&](const LayerSpec& l) { return l.feedForward == kind; });
}

std::int64_t ModelSpec::sharedUses() const {
    return std::count_if(layers.begin(), layers.end(), [](const LayerSpec& l) { return l.shared; });
}

ModelSpec fromPaperConfig(const ModelConfig& c) {
    ModelSpec s;
    s.name = std::string(familyName(c.family));
    s.dModel = c.dModel;
    s.vocab = c.vocab;
    s.tiedEmbeddings = false;  // Embeddings and Unembedding are separate rows of both tables
    s.norm = NormKind::Rms;    // PreNorm: d_model (a weight only)
    s.normsPerBlock = 1;
    s.finalNorm = true;        // Output Norm: d_model
    s.feedForward = {c.dFf, /*gated=*/true, /*bias=*/false};  // MLPs: 3 d_model d_ff
    const MixerKind mixer = c.family == Family::Xlstm ? MixerKind::Mlstm : MixerKind::Attention;
    if (mixer == MixerKind::Mlstm) {
        s.mlstm = {c.nHeads, c.dQk, c.dHv, c.chunk};
    } else {
        s.attention.nHeads = c.nHeads;
        s.attention.nKvHeads = c.nKvHeads;
        s.attention.dQk = c.dQk;
        s.attention.dV = c.dHv;
    }
    s.layers.assign(static_cast<std::size_t>(std::max<std::int64_t>(c.nLayers, 0)),
                    LayerSpec{mixer, false, FeedForwardKind::Dense});
    return s;
}

namespace {

std::optional<SpecProblem> positive(std::int64_t v, const char* field) {
    if (v <= 0) return SpecProblem{field, std::string(field) + " must be a positive integer, got " + std::to_string(v)};
    return std::nullopt;
}

std::optional<SpecProblem> notNegative(std::int64_t v, const char* field) {
    if (v < 0) return SpecProblem{field, std::string(field) + " must not be negative, got " + std::to_string(v)};
    return std::nullopt;
}

std::optional<SpecProblem> firstOf(std::initializer_list<std::optional<SpecProblem>> checks) {
    for (const auto& c : checks)
        if (c) return c;
    return std::nullopt;
}

std::optional<SpecProblem> validateAttention(const AttentionSpec& a, bool anyLocal) {
    if (auto p = firstOf({positive(a.nHeads, "attention.n_heads"), positive(a.nKvHeads, "attention.n_kv_heads"),
                          positive(a.dQk, "attention.d_qk"), positive(a.dV, "attention.d_v"),
                          notNegative(a.qLoraRank, "attention.q_lora_rank"), notNegative(a.kvLoraRank, "attention.kv_lora_rank"),
                          notNegative(a.ropeDim, "attention.rope_dim"), notNegative(a.slidingWindow, "attention.sliding_window")}))
        return p;
    if (a.nHeads % a.nKvHeads != 0)
        return SpecProblem{"attention.n_kv_heads", "the " + std::to_string(a.nHeads) + " query heads must be a multiple of the " +
                                                       std::to_string(a.nKvHeads) + " key/value heads"};
    if (a.latent() && a.ropeDim >= a.dQk)
        return SpecProblem{"attention.rope_dim", "the rope part (" + std::to_string(a.ropeDim) +
                                                     ") must be smaller than the query/key head width (" + std::to_string(a.dQk) + ")"};
    if (anyLocal && a.slidingWindow <= 0)
        return SpecProblem{"attention.sliding_window", "local attention layers need a sliding window"};
    return std::nullopt;
}

std::optional<SpecProblem> validateMamba(const MambaSpec& m) {
    if (m.version != 1 && m.version != 2)
        return SpecProblem{"mamba.version", "Mamba version must be 1 or 2, got " + std::to_string(m.version)};
    if (auto p = firstOf({positive(m.dInner, "mamba.d_inner"), positive(m.dState, "mamba.d_state"),
                          positive(m.dConv, "mamba.d_conv")}))
        return p;
    if (m.version == 1) return positive(m.dtRank, "mamba.dt_rank");
    if (auto p = firstOf({positive(m.nHeads, "mamba.n_heads"), positive(m.nGroups, "mamba.n_groups")})) return p;
    if (m.dInner % m.nHeads != 0)
        return SpecProblem{"mamba.n_heads", "the inner width " + std::to_string(m.dInner) + " must be a multiple of the " +
                                                std::to_string(m.nHeads) + " heads"};
    if (m.nHeads % m.nGroups != 0)
        return SpecProblem{"mamba.n_groups", "the " + std::to_string(m.nHeads) + " heads must be a multiple of the " +
                                                 std::to_string(m.nGroups) + " groups"};
    return std::nullopt;
}

}  // namespace

std::optional<SpecProblem> validate(const ModelSpec& s) {
    if (auto p = firstOf({positive(s.dModel, "d_model"), positive(s.vocab, "vocab"),
                          notNegative(s.learnedPositions, "learned_positions")}))
        return p;
    if (s.layers.empty()) return SpecProblem{"layers", "a model needs at least one layer"};
    if (s.normsPerBlock < 0 || s.normsPerBlock > 2)
        return SpecProblem{"norms_per_block", "norms per block must be 0, 1 or 2, got " + std::to_string(s.normsPerBlock)};
    const bool anyLocal = std::any_of(s.layers.begin(), s.layers.end(),
                                      [](const LayerSpec& l) { return l.mixer == MixerKind::Attention && l.local; });
    if (s.layerCount(MixerKind::Attention) > 0 || s.sharedUses() > 0)
        if (auto p = validateAttention(s.attention, anyLocal)) return p;
    if (s.sharedUses() > 0) {
        const SharedBlockSpec& b = s.sharedBlock;
        if (auto p = firstOf({positive(b.blocks, "shared_block.blocks"), notNegative(b.adapterRank, "shared_block.adapter_rank"),
                              positive(s.feedForward.width, "feed_forward.width")}))
            return p;
        if (b.blocks > s.sharedUses())
            return SpecProblem{"shared_block.blocks", "the " + std::to_string(b.blocks) + " shared blocks are more than the " +
                                                          std::to_string(s.sharedUses()) + " layers that use them"};
    }
    if (s.layerCount(MixerKind::Mlstm) > 0)
        if (auto p = firstOf({positive(s.mlstm.nHeads, "mlstm.n_heads"), positive(s.mlstm.dQk, "mlstm.d_qk"),
                              positive(s.mlstm.dHv, "mlstm.d_hv"), positive(s.mlstm.chunk, "mlstm.chunk")}))
            return p;
    if (s.layerCount(MixerKind::Mamba) > 0)
        if (auto p = validateMamba(s.mamba)) return p;
    if (s.layerCount(MixerKind::DeltaNet) > 0) {
        const DeltaNetSpec& g = s.deltaNet;
        if (auto p = firstOf({positive(g.nKeyHeads, "delta_net.n_key_heads"), positive(g.nValueHeads, "delta_net.n_value_heads"),
                              positive(g.dKey, "delta_net.d_key"), positive(g.dValue, "delta_net.d_value"),
                              positive(g.dConv, "delta_net.d_conv")}))
            return p;
        if (g.nValueHeads % g.nKeyHeads != 0)
            return SpecProblem{"delta_net.n_value_heads", "the " + std::to_string(g.nValueHeads) + " value heads must be a multiple of the " +
                                                              std::to_string(g.nKeyHeads) + " key heads"};
    }
    if (s.layerCount(MixerKind::ShortConv) > 0)
        if (auto p = positive(s.shortConv.dConv, "short_conv.d_conv")) return p;
    if (s.layerCount(FeedForwardKind::Dense) > 0)
        if (auto p = positive(s.feedForward.width, "feed_forward.width")) return p;
    if (s.layerCount(FeedForwardKind::Moe) > 0) {
        const MoeSpec& m = s.moe;
        if (auto p = firstOf({positive(m.nRouted, "moe.n_routed"), positive(m.topK, "moe.top_k"),
                              positive(m.expertWidth, "moe.expert_width"), notNegative(m.nShared, "moe.n_shared"),
                              notNegative(m.latentWidth, "moe.latent_width")}))
            return p;
        if (m.topK > m.nRouted)
            return SpecProblem{"moe.top_k", "top-k (" + std::to_string(m.topK) + ") must not exceed the " +
                                                std::to_string(m.nRouted) + " routed experts"};
        if (m.nShared > 0)
            if (auto p = positive(m.sharedWidth, "moe.shared_width")) return p;
    }
    // Parameter counts are 64-bit integers: refuse sizes beyond any model before they overflow.
    const double approx = parameterEstimate(s);
    if (!(approx < 1e15)) {
        char text[160];
        std::snprintf(text, sizeof text, "the sizes give about %.2g parameters, beyond any model (limit 1e15)", approx);
        return SpecProblem{"sizes", text};
    }
    return std::nullopt;
}

}  // namespace scalex::accounting
