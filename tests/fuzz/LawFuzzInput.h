#pragma once
// The text the law fuzz targets (law_formula, law_fit) read: the first line a formula
// `TARGET = EXPRESSION`, every further line a parameter `NAME=LO:HI[@START]` as the CLI's --param
// reads it. A line that is no parameter is skipped; a refusal without a message aborts (every
// refusal must say why).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "core/fit/LawDefinition.h"

inline scalex::fit::LawDefinition lawFromFuzzText(std::string_view text) {
    using namespace scalex::fit;
    const auto firstEnd = std::min(text.find('\n'), text.size());
    LawDefinition law;
    law.formula = std::string(text.substr(0, firstEnd));
    std::size_t pos = firstEnd + 1;
    while (pos < text.size()) {
        const auto end = std::min(text.find('\n', pos), text.size());
        auto parsed = parseLawParameter(text.substr(pos, end - pos));
        if (auto* p = std::get_if<LawParameter>(&parsed)) law.parameters.push_back(*p);
        else if (std::get<std::string>(parsed).empty()) std::abort();
        pos = end + 1;
    }
    return law;
}
