#include "core/accounting/ModelConfig.h"

#include <cmath>
#include <cstdio>

namespace scalex::accounting {

std::int64_t studyFeedForwardWidth(Family family, std::int64_t dModel) {
    // The study's factor is the literal 2.667 (not 8/3); the two families round the
    // product differently before rounding up to a multiple of 64.
    const double raw = 2.667 * static_cast<double>(dModel);
    const double rounded = family == Family::Transformer ? std::floor(raw) : std::ceil(raw);
    return 64 * static_cast<std::int64_t>(std::ceil(rounded / 64.0));
}

ModelConfig makeStudyConfig(Family family, std::int64_t dModel, std::int64_t nLayers, std::int64_t nHeads,
                            const ConfigOverrides& overrides) {
    ModelConfig c;
    c.family = family;
    c.dModel = dModel;
    c.nLayers = nLayers;
    c.nHeads = nHeads;
    c.nKvHeads = overrides.nKvHeads.value_or(nHeads);
    const std::int64_t heads = nHeads > 0 ? nHeads : 1;
    if (family == Family::Transformer) {
        c.dQk = overrides.dQk.value_or(dModel / heads);
        c.dHv = overrides.dHv.value_or(dModel / heads);
    } else {
        c.dQk = overrides.dQk.value_or((dModel / 2) / heads);
        c.dHv = overrides.dHv.value_or(dModel / heads);
    }
    c.dFf = overrides.dFf.value_or(studyFeedForwardWidth(family, dModel));
    c.vocab = overrides.vocab.value_or(kStudyVocabulary);
    c.chunk = overrides.chunk.value_or(kStudyChunkSize);
    return c;
}

std::optional<std::string> validate(const ModelConfig& c) {
    auto positive = [](std::int64_t v, const char* name) -> std::optional<std::string> {
        if (v <= 0) return std::string(name) + " must be a positive integer, got " + std::to_string(v);
        return std::nullopt;
    };
    for (auto check : {positive(c.dModel, "d_model"), positive(c.nLayers, "n_layers"), positive(c.nHeads, "n_heads"),
                       positive(c.nKvHeads, "n_kv_heads"), positive(c.dQk, "d_qk"), positive(c.dHv, "d_hv"),
                       positive(c.dFf, "d_ff"), positive(c.vocab, "vocab"), positive(c.chunk, "chunk")}) {
        if (check) return check;
    }
    // Parameter counts are 64-bit integers; refuse sizes beyond any model before they overflow.
    const double d = static_cast<double>(c.dModel), L = static_cast<double>(c.nLayers);
    const double approx = L * (d * static_cast<double>(c.nHeads) * static_cast<double>(2 * c.dQk + c.dHv + 2) +
                               2.0 * d * static_cast<double>(c.nHeads) * static_cast<double>(c.dHv) + 3.0 * d * static_cast<double>(c.dFf)) +
                          2.0 * static_cast<double>(c.vocab) * d;
    if (!(approx < 1e15)) {
        char text[160];
        std::snprintf(text, sizeof text, "d_model and n_layers give about %.2g parameters, beyond any model (limit 1e15)", approx);
        return std::string(text);
    }
    if (c.nHeads % c.nKvHeads != 0)
        return "n_heads (" + std::to_string(c.nHeads) + ") must be a multiple of n_kv_heads (" +
               std::to_string(c.nKvHeads) + ")";
    if (c.family == Family::Xlstm && c.nKvHeads != c.nHeads)
        return "n_kv_heads applies to Transformers only; an mLSTM has one key/value per head";
    return std::nullopt;
}

}  // namespace scalex::accounting
