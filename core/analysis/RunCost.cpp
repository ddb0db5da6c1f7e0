#include "core/analysis/RunCost.h"

#include <cmath>

#include "core/analysis/LawVariables.h"

namespace scalex::analysis {

data::Expected<RunCostExpression> parseRunCost(const std::string& text, const std::vector<const data::Run*>& runs) {
    RunCostExpression c;
    c.text = text;
    fit::LawError error;
    auto parsed = fit::parseLawExpression(text, &error);
    if (!parsed) return data::LoadError{"cost", 0, "cost", "'" + text + "': " + error.text()};
    c.expression = std::move(*parsed);
    if (!fit::bindLawExpression(c.expression, {}, lawColumnTest(runs), c.columns, &error))
        return data::LoadError{"cost", 0, "cost", "'" + text + "': " + error.text()};
    return c;
}

std::optional<double> runCost(const RunCostExpression& cost, const std::vector<double>& values) {
    std::vector<double> scratch;
    const double v = fit::lawValue(cost.expression, {}, values, scratch);
    if (!std::isfinite(v) || !(v > 0)) return std::nullopt;
    return v;
}

std::optional<double> runCost(const RunCostExpression& cost, const data::Run& run) {
    std::vector<double> values;
    for (const auto& name : cost.columns) {
        const auto v = lawVariableOf(run, name);
        if (!v || !std::isfinite(*v)) return std::nullopt;
        values.push_back(*v);
    }
    return runCost(cost, values);
}

}  // namespace scalex::analysis
