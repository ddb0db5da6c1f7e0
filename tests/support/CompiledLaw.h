// A law compiled from its formula and parameter texts (`NAME=LO:HI`), as a test writes it.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "core/fit/LawDefinition.h"
#include "core/fit/LawExpression.h"

namespace scalex::test {

inline fit::CompiledLaw compiledLaw(const std::string& formula, const std::vector<std::string>& params) {
    fit::LawDefinition law;
    law.formula = formula;
    for (const auto& p : params) law.parameters.push_back(std::get<fit::LawParameter>(fit::parseLawParameter(p)));
    auto r = fit::compileLaw(law);
    if (auto* e = std::get_if<fit::LawError>(&r)) ADD_FAILURE() << e->text();
    return std::get<fit::CompiledLaw>(r);
}

}  // namespace scalex::test
