#pragma once
// The shipped library of published laws, each with its citation, bounds and starts. Variables are
// the study's names: N (parameters), D (tokens), C (training compute), U (unique tokens), and
// columns named in the law's description (experts, vocab_size). Coefficients that span decades
// are fitted as natural logs (a = ln A, ...), as the papers that fit them do; bounds are wide
// enough for language-model studies from 1e6 to 1e12 parameters.
#include <optional>
#include <string_view>
#include <vector>

#include "core/fit/LawDefinition.h"

namespace scalex::fit {

const std::vector<LawDefinition>& shippedLaws();
// A shipped law by its key (case-insensitive); none when there is no such law.
std::optional<LawDefinition> shippedLaw(std::string_view name);

}  // namespace scalex::fit
