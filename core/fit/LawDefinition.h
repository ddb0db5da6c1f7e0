#pragma once
// A law as a user (or the shipped library) states it: `TARGET = EXPRESSION` over the study's
// columns, named parameters with bounds and optional starts, and how residuals are measured.
// compileLaw() checks it and binds its names; the result is what the fit evaluates.
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/fit/LawExpression.h"

namespace scalex::fit {

// Residuals in the target's units (observed − predicted) or in its log (ln observed − ln predicted).
enum class LawSpace { Linear, Log };
// How residuals count: squared, ρ(r) = r²; or Huber_δ as in LossSurface.h (Hoffmann et al. 2022, App. D.2).
enum class LawLoss { Squared, Huber };

struct LawParameter {
    std::string name;
    double lower = std::numeric_limits<double>::quiet_NaN();  // NaN: not given (an error when compiled)
    double upper = std::numeric_limits<double>::quiet_NaN();
    std::optional<double> start;  // tried first, before the space-filling starts
};

struct LawDefinition {
    std::string name;         // a shipped law's key ("chinchilla"); empty for one typed by the user
    std::string formula;      // "L = E + A/N^alpha + B/D^beta", or the expression alone
    std::vector<LawParameter> parameters;
    LawSpace space = LawSpace::Linear;
    LawLoss loss = LawLoss::Squared;
    double huberDelta = 1e-3;
    // Coefficients the law declares linear (solved by least squares inside the search over the
    // others); empty: detected from the formula (detectLinearCoefficients).
    std::vector<std::string> linear;
    std::string citation;     // where the form comes from
    std::string description;  // one line for lists
};

// The target's name and the expression's text: "L = E + ..." → ("L", "E + ..."); no '=' → ("", text).
std::pair<std::string, std::string> splitFormula(std::string_view formula);

// "NAME=LO:HI" or "NAME=LO:HI@START" (the CLI's --param); errors name what is wrong.
std::variant<LawParameter, std::string> parseLawParameter(std::string_view text);

// A checked law: its expression bound to parameters and to the variables (column names) it reads.
struct CompiledLaw {
    LawDefinition definition;
    std::string target;                  // as written; empty: the study's loss
    LawExpression expression;
    std::vector<std::string> variables;  // the columns the expression reads, in order of first use
    std::vector<double> lower, upper;    // per parameter, as definition.parameters
    // Parameters that enter linearly, as terms `c`, `c·f(θ)` or `c/g(θ)` of the top-level sum, c
    // nowhere else (detected or declared); each with its term's node.
    struct LinearTerm {
        int parameter = -1;
        int node = -1;      // the term's root node
        int basis = -1;     // the node f (or g for a quotient); -1: the term is c alone
        bool divides = false;
        double sign = 1;    // −1 for a term subtracted
    };
    std::vector<LinearTerm> linearTerms;

    std::size_t parameterCount() const { return lower.size(); }
    const std::string& parameterName(std::size_t k) const { return definition.parameters[k].name; }
};

// Checks and binds a law: the formula parses, every parameter has finite bounds lower ≤ upper and
// a start inside them, is named once and appears in the formula, every other name is a column
// (`isColumn`; nullptr accepts every name). The error says where and what (LawError::text()).
std::variant<CompiledLaw, LawError> compileLaw(const LawDefinition& law, const std::function<bool(const std::string&)>& isColumn = nullptr);

// The linear terms of a compiled law's expression (see CompiledLaw::linearTerms).
std::vector<CompiledLaw::LinearTerm> detectLinearCoefficients(const LawExpression& expression, std::size_t parameterCount);

std::string lawSpaceName(LawSpace space);   // "linear", "log"
std::string lawLossName(LawLoss loss);      // "squared", "huber"
std::optional<LawSpace> parseLawSpace(std::string_view text);
std::optional<LawLoss> parseLawLoss(std::string_view text);

}  // namespace scalex::fit
