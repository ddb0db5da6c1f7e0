#pragma once
// KV-cache and mLSTM memory-state sizes, App. "Memory State and KV-Cache Size"
// (Tab. memory_state_kv_cache_sizes).
#include <optional>
#include <string_view>

#include "core/accounting/MemoryOps.h"
#include "core/accounting/ModelConfig.h"

namespace scalex::accounting {

enum class SequenceMix { MultiHead, GroupedQuery, MultiHeadLatent, Mlstm };

// MHA or GQA for Transformers (by n_kv_heads), mLSTM for xLSTM.
SequenceMix defaultSequenceMix(const ModelConfig& config);
std::optional<SequenceMix> parseSequenceMix(std::string_view text);  // mha | gqa | mla | mlstm
std::string_view sequenceMixName(SequenceMix mix);

// Elements of one layer's cache for one sequence of T tokens:
// MHA 2 n_head,q d_hv T, GQA 2 n_head,kv d_hv T, MLA 9/2 d_hv T, mLSTM n_head (d_hv d_qk + d_qk + 1).
// (Keys are counted with d_qk and values with d_hv; with d_qk = d_hv this is the table's 2 d_hv.)
double cacheElementsPerLayer(const ModelConfig& config, SequenceMix mix, double tokens);

// Bytes of the whole model's cache for `batch` sequences: KV caches at bytes_qkv, the mLSTM state at bytes_Cmn.
double cacheBytes(const ModelConfig& config, SequenceMix mix, double batch, double tokens, const ByteWidths& bytes);

}  // namespace scalex::accounting
