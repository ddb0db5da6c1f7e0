#pragma once
// A model configuration as the paper's appendix describes it (Tab. "Notation"),
// and the architecture rules of the study that derive the dependent sizes.
#include <cstdint>
#include <optional>
#include <string>

#include "core/accounting/Family.h"

namespace scalex::accounting {

inline constexpr std::int64_t kStudyVocabulary = 50304;  // padded GPT-NeoX vocabulary
inline constexpr std::int64_t kStudyChunkSize = 64;      // mLSTM kernel chunk L

struct ModelConfig {
    Family family = Family::Transformer;
    std::int64_t dModel = 0;
    std::int64_t nLayers = 0;
    std::int64_t nHeads = 0;    // query heads (mLSTM: heads)
    std::int64_t nKvHeads = 0;  // key/value heads; equals nHeads for MHA and for the mLSTM
    std::int64_t dQk = 0;       // per-head query/key dimension
    std::int64_t dHv = 0;       // per-head value/hidden dimension
    std::int64_t dFf = 0;       // feed-forward width
    std::int64_t vocab = kStudyVocabulary;
    std::int64_t chunk = kStudyChunkSize;  // mLSTM chunk size L (unused by Transformers)

    friend bool operator==(const ModelConfig&, const ModelConfig&) = default;
};

// Optional overrides for makeStudyConfig: anything left empty follows the study's rules.
struct ConfigOverrides {
    std::optional<std::int64_t> nKvHeads;
    std::optional<std::int64_t> dQk;
    std::optional<std::int64_t> dHv;
    std::optional<std::int64_t> dFf;
    std::optional<std::int64_t> vocab;
    std::optional<std::int64_t> chunk;
};

// Feed-forward width of the study (reference README (c)): proj factor 2.667, multiple of 64.
// Transformer: 64*ceil(floor(2.667 d)/64); xLSTM: 64*ceil(ceil(2.667 d)/64).
std::int64_t studyFeedForwardWidth(Family family, std::int64_t dModel);

// Builds a configuration with the study's rules: Transformer heads of width d/H (d_qk = d_hv);
// mLSTM d_qk = (d/2)/H and d_hv = d/H; d_ff from studyFeedForwardWidth; vocabulary 50304.
ModelConfig makeStudyConfig(Family family, std::int64_t dModel, std::int64_t nLayers, std::int64_t nHeads,
                            const ConfigOverrides& overrides = {});

// Empty when the configuration is usable, otherwise a one-line reason naming the field.
std::optional<std::string> validate(const ModelConfig& config);

}  // namespace scalex::accounting
