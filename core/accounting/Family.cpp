#include "core/accounting/Family.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace scalex::accounting {

std::optional<Family> parseFamily(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static constexpr std::array<std::string_view, 4> transformer{"transformer", "llama", "llama2", "llama3"};
    static constexpr std::array<std::string_view, 3> xlstm{"xlstm", "mlstm", "mlstm_v1"};
    if (std::find(transformer.begin(), transformer.end(), lower) != transformer.end()) return Family::Transformer;
    if (std::find(xlstm.begin(), xlstm.end(), lower) != xlstm.end()) return Family::Xlstm;
    return std::nullopt;
}

std::string_view familyName(Family family) {
    return family == Family::Transformer ? "transformer" : "xlstm";
}

std::string_view familyLabel(Family family) {
    return family == Family::Transformer ? "Transformer" : "xLSTM";
}

}  // namespace scalex::accounting
