#include "core/accounting/CacheSize.h"

namespace scalex::accounting {

SequenceMix defaultSequenceMix(const ModelConfig& c) {
    if (c.family == Family::Xlstm) return SequenceMix::Mlstm;
    return c.nKvHeads == c.nHeads ? SequenceMix::MultiHead : SequenceMix::GroupedQuery;
}

std::optional<SequenceMix> parseSequenceMix(std::string_view t) {
    if (t == "mha") return SequenceMix::MultiHead;
    if (t == "gqa") return SequenceMix::GroupedQuery;
    if (t == "mla") return SequenceMix::MultiHeadLatent;
    if (t == "mlstm") return SequenceMix::Mlstm;
    return std::nullopt;
}

std::string_view sequenceMixName(SequenceMix m) {
    switch (m) {
        case SequenceMix::MultiHead: return "mha";
        case SequenceMix::GroupedQuery: return "gqa";
        case SequenceMix::MultiHeadLatent: return "mla";
        case SequenceMix::Mlstm: return "mlstm";
    }
    return "mha";
}

double cacheElementsPerLayer(const ModelConfig& c, SequenceMix mix, double T) {
    const double dqk = static_cast<double>(c.dQk), dhv = static_cast<double>(c.dHv);
    switch (mix) {
        case SequenceMix::MultiHead: return static_cast<double>(c.nHeads) * (dqk + dhv) * T;
        case SequenceMix::GroupedQuery: return static_cast<double>(c.nKvHeads) * (dqk + dhv) * T;
        case SequenceMix::MultiHeadLatent: return 4.5 * dhv * T;
        case SequenceMix::Mlstm: return static_cast<double>(c.nHeads) * (dhv * dqk + dqk + 1);
    }
    return 0;
}

double cacheBytes(const ModelConfig& c, SequenceMix mix, double batch, double T, const ByteWidths& b) {
    const double perElement = mix == SequenceMix::Mlstm ? b.state : b.qkv;
    return static_cast<double>(c.nLayers) * batch * cacheElementsPerLayer(c, mix, T) * perElement;
}

}  // namespace scalex::accounting
