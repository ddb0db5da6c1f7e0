#include "core/accounting/ModelLadder.h"

#include <algorithm>
#include <cmath>

namespace scalex::accounting {

namespace {

// v scaled by d / d0, at least `multiple`, rounded to a multiple of `multiple` (of 64 where v is a
// multiple of 64, else of 1); v itself at d0, and 0 stays 0.
std::int64_t scaled(std::int64_t v, std::int64_t d, std::int64_t d0) {
    if (v == 0 || d == d0) return v;
    const std::int64_t multiple = v % 64 == 0 ? 64 : 1;
    const double x = static_cast<double>(v) * static_cast<double>(d) / static_cast<double>(d0) / static_cast<double>(multiple);
    return multiple * std::max<std::int64_t>(1, std::llround(x));
}

}  // namespace

const std::vector<std::int64_t>& defaultLadderWidths() {
    static const std::vector<std::int64_t> widths = {256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
    return widths;
}

ModelSpec scaleSpec(const ModelSpec& base, std::int64_t d) {
    const std::int64_t d0 = base.dModel;
    if (d == d0 || d0 <= 0 || base.layers.empty()) return base;
    ModelSpec s = base;
    s.dModel = d;
    // Layers: the aspect ratio d_model / n_layers kept, the pattern stretched.
    const auto L = static_cast<std::int64_t>(base.layers.size());
    const std::int64_t layers = std::max<std::int64_t>(1, std::llround(static_cast<double>(L) * static_cast<double>(d) / static_cast<double>(d0)));
    s.layers.clear();
    for (std::int64_t i = 0; i < layers; ++i) s.layers.push_back(base.layers[static_cast<std::size_t>(i * L / layers)]);
    // Attention: heads of fixed width, the grouping of query heads per key/value head kept.
    AttentionSpec& a = s.attention;
    if (a.nKvHeads > 0 && a.nHeads % a.nKvHeads == 0) {
        const std::int64_t group = a.nHeads / a.nKvHeads;
        a.nKvHeads = std::max<std::int64_t>(1, std::llround(static_cast<double>(a.nHeads) * static_cast<double>(d) /
                                                            static_cast<double>(d0) / static_cast<double>(group)));
        a.nHeads = a.nKvHeads * group;
    }
    a.qLoraRank = scaled(a.qLoraRank, d, d0);
    a.kvLoraRank = scaled(a.kvLoraRank, d, d0);
    s.feedForward.width = scaled(s.feedForward.width, d, d0);
    s.moe.expertWidth = scaled(s.moe.expertWidth, d, d0);
    s.moe.sharedWidth = scaled(s.moe.sharedWidth, d, d0);
    s.moe.latentWidth = scaled(s.moe.latentWidth, d, d0);
    s.mlstm.nHeads = s.mlstm.nHeads > 0 ? scaled(s.mlstm.nHeads, d, d0) : 0;
    // Mamba: expand kept; version 2 heads of the base's head width; version 1's time-step rank
    // ceil(d/16) where the base follows that default, else in proportion.
    MambaSpec& m = s.mamba;
    if (m.dInner > 0) {
        const std::int64_t headDim = m.version == 2 && m.nHeads > 0 ? m.dInner / m.nHeads : 0;
        m.dInner = scaled(m.dInner, d, d0);
        if (headDim > 0) {
            m.nHeads = std::max<std::int64_t>(1, std::llround(static_cast<double>(m.dInner) / static_cast<double>(headDim)));
            m.dInner = m.nHeads * headDim;
            if (m.nGroups > 0 && m.nHeads % m.nGroups != 0) m.nGroups = 1;
        }
        m.dtRank = m.dtRank == (d0 + 15) / 16 ? (d + 15) / 16 : scaled(m.dtRank, d, d0);
    }
    // Shared transformer blocks (Zamba2): the stretched pattern may have fewer uses than the base has
    // blocks; never more blocks than uses.
    if (s.sharedBlock.blocks > 0) s.sharedBlock.blocks = std::min(s.sharedBlock.blocks, std::max<std::int64_t>(1, s.sharedUses()));
    // Gated DeltaNet: heads of fixed width, as attention's, value heads per key head kept. The short
    // convolution's width is the same at every size.
    DeltaNetSpec& g = s.deltaNet;
    if (g.nKeyHeads > 0 && g.nValueHeads % g.nKeyHeads == 0) {
        const std::int64_t group = g.nValueHeads / g.nKeyHeads;
        g.nKeyHeads = std::max<std::int64_t>(1, std::llround(static_cast<double>(g.nKeyHeads) * static_cast<double>(d) / static_cast<double>(d0)));
        g.nValueHeads = g.nKeyHeads * group;
    }
    return s;
}

ModelLadder specLadder(const ModelSpec& base, const std::vector<std::int64_t>& widths) {
    ModelLadder ladder{base.name, {}};
    for (std::int64_t d : widths) {
        ModelSpec s = scaleSpec(base, d);
        s.name = base.name + " d=" + std::to_string(d);
        ladder.rungs.push_back(std::move(s));
    }
    return ladder;
}

}  // namespace scalex::accounting
