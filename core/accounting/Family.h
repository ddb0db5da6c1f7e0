#pragma once
// Model families and their accepted spellings (DESIGN.md "Conventions").
#include <optional>
#include <string>
#include <string_view>

namespace scalex::accounting {

enum class Family { Transformer, Xlstm };

// Accepts the canonical names and their aliases, case-insensitively:
// transformer | llama | llama2 | llama3, and xlstm | mlstm | mlstm_v1.
std::optional<Family> parseFamily(std::string_view text);

// Canonical output name: "transformer" or "xlstm".
std::string_view familyName(Family family);

// Human-readable label for figures and tables: "Transformer" or "xLSTM".
std::string_view familyLabel(Family family);

}  // namespace scalex::accounting
