#include "core/fit/LawDefinition.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace scalex::fit {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::optional<double> toNumber(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string number(double v) {
    std::ostringstream o;
    o << v;
    return o.str();
}

}  // namespace

std::pair<std::string, std::string> splitFormula(std::string_view formula) {
    const auto eq = formula.find('=');
    if (eq == std::string_view::npos) return {"", std::string(formula)};
    std::string_view target = trim(formula.substr(0, eq));
    // A column whose name is no identifier is written in backticks, on either side.
    if (target.size() >= 2 && target.front() == '`' && target.back() == '`') target = target.substr(1, target.size() - 2);
    return {std::string(target), std::string(formula.substr(eq + 1))};
}

std::variant<LawParameter, std::string> parseLawParameter(std::string_view text) {
    const std::string expected = "expected NAME=LO:HI or NAME=LO:HI@START, got '" + std::string(text) + "'";
    const auto eq = text.find('=');
    LawParameter p;
    p.name = std::string(trim(text.substr(0, eq)));
    if (p.name.empty()) return expected;
    if (eq == std::string_view::npos) return "parameter '" + p.name + "' has no bounds (" + expected + ")";
    std::string_view rest = text.substr(eq + 1);
    if (const auto at = rest.find('@'); at != std::string_view::npos) {
        const auto start = toNumber(rest.substr(at + 1));
        if (!start) return "parameter '" + p.name + "': the start '" + std::string(trim(rest.substr(at + 1))) + "' is not a number";
        p.start = *start;
        rest = rest.substr(0, at);
    }
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos) return "parameter '" + p.name + "' has no bounds (" + expected + ")";
    const auto lo = toNumber(rest.substr(0, colon)), hi = toNumber(rest.substr(colon + 1));
    if (!lo) return "parameter '" + p.name + "': the lower bound '" + std::string(trim(rest.substr(0, colon))) + "' is not a number";
    if (!hi) return "parameter '" + p.name + "': the upper bound '" + std::string(trim(rest.substr(colon + 1))) + "' is not a number";
    p.lower = *lo;
    p.upper = *hi;
    return p;
}

std::vector<CompiledLaw::LinearTerm> detectLinearCoefficients(const LawExpression& e, std::size_t parameterCount) {
    std::vector<int> uses(parameterCount, 0);
    for (const auto& n : e.nodes)
        if (n.op == LawOp::Parameter) ++uses[static_cast<std::size_t>(n.index)];
    std::vector<CompiledLaw::LinearTerm> terms;
    auto onceParameter = [&](int node) {
        const LawNode& n = e.nodes[static_cast<std::size_t>(node)];
        return n.op == LawOp::Parameter && uses[static_cast<std::size_t>(n.index)] == 1 ? n.index : -1;
    };
    // The top-level sum's terms with their signs: + and − and unary minus split it.
    std::vector<std::pair<int, double>> stack{{e.root(), 1.0}};
    while (!stack.empty()) {
        const auto [node, sign] = stack.back();
        stack.pop_back();
        const LawNode& n = e.nodes[static_cast<std::size_t>(node)];
        if (n.op == LawOp::Add || n.op == LawOp::Subtract) {
            stack.push_back({n.b, n.op == LawOp::Add ? sign : -sign});
            stack.push_back({n.a, sign});
            continue;
        }
        if (n.op == LawOp::Negate) {
            stack.push_back({n.a, -sign});
            continue;
        }
        CompiledLaw::LinearTerm t;
        t.node = node;
        t.sign = sign;
        if (const int c = onceParameter(node); c >= 0) {
            t.parameter = c;
        } else if (n.op == LawOp::Multiply) {
            if (const int ca = onceParameter(n.a); ca >= 0) t.parameter = ca, t.basis = n.b;
            else if (const int cb = onceParameter(n.b); cb >= 0) t.parameter = cb, t.basis = n.a;
        } else if (n.op == LawOp::Divide) {
            if (const int ca = onceParameter(n.a); ca >= 0) t.parameter = ca, t.basis = n.b, t.divides = true;
        }
        if (t.parameter >= 0) terms.push_back(t);
    }
    std::sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) { return x.parameter < y.parameter; });
    return terms;
}

std::variant<CompiledLaw, LawError> compileLaw(const LawDefinition& law, const std::function<bool(const std::string&)>& isColumn) {
    CompiledLaw c;
    c.definition = law;
    auto [target, text] = splitFormula(law.formula);
    c.target = target;
    const std::size_t offset = law.formula.size() - text.size();  // errors point into the whole formula
    if (law.formula.find('=') != std::string::npos && target.empty()) return LawError{kNoPosition, "no target before '=' (expected TARGET = EXPRESSION)"};
    if (text.find('=') != std::string::npos) return LawError{offset + text.find('='), "a second '=' (expected TARGET = EXPRESSION)"};
    LawError error;
    auto parsed = parseLawExpression(text, &error);
    if (!parsed) {
        error.position += offset;
        return error;
    }
    std::vector<std::string> names;
    for (const auto& p : law.parameters) {
        if (p.name.empty()) return LawError{kNoPosition, "a parameter has no name"};
        if (std::find(names.begin(), names.end(), p.name) != names.end()) return LawError{kNoPosition, "parameter '" + p.name + "' is given twice"};
        if (std::isnan(p.lower) || std::isnan(p.upper)) return LawError{kNoPosition, "parameter '" + p.name + "' has no bounds (give NAME=LO:HI)"};
        if (!std::isfinite(p.lower) || !std::isfinite(p.upper))
            return LawError{kNoPosition, "parameter '" + p.name + "' needs finite bounds, got " + number(p.lower) + ":" + number(p.upper)};
        if (p.lower > p.upper)
            return LawError{kNoPosition, "parameter '" + p.name + "': lower bound above upper (" + number(p.lower) + " > " + number(p.upper) + ")"};
        if (p.start && (!std::isfinite(*p.start) || *p.start < p.lower || *p.start > p.upper))
            return LawError{kNoPosition, "parameter '" + p.name + "': the start " + number(*p.start) + " lies outside its bounds [" + number(p.lower) + ", " +
                                   number(p.upper) + "]"};
        names.push_back(p.name);
        c.lower.push_back(p.lower);
        c.upper.push_back(p.upper);
    }
    if (!bindLawExpression(*parsed, names, isColumn, c.variables, &error)) {
        error.position += offset;
        return error;
    }
    for (std::size_t k = 0; k < names.size(); ++k)
        if (!parsed->uses(LawOp::Parameter, static_cast<int>(k)))
            return LawError{kNoPosition, "parameter '" + names[k] + "' does not appear in the formula"};
    c.expression = std::move(*parsed);
    auto terms = detectLinearCoefficients(c.expression, names.size());
    if (!law.linear.empty()) {
        // Declared: each must be one of the detected terms (a coefficient elsewhere in the formula is not linear).
        std::vector<CompiledLaw::LinearTerm> declared;
        for (const auto& name : law.linear) {
            const auto p = std::find(names.begin(), names.end(), name);
            if (p == names.end()) return LawError{kNoPosition, "linear coefficient '" + name + "' is not a parameter"};
            const int k = static_cast<int>(p - names.begin());
            const auto t = std::find_if(terms.begin(), terms.end(), [k](const auto& x) { return x.parameter == k; });
            if (t == terms.end())
                return LawError{kNoPosition, "'" + name + "' is declared linear but is not a coefficient of a term of the top-level sum"};
            declared.push_back(*t);
        }
        terms = declared;
    }
    c.linearTerms = std::move(terms);
    return c;
}

std::string lawSpaceName(LawSpace space) { return space == LawSpace::Log ? "log" : "linear"; }
std::string lawLossName(LawLoss loss) { return loss == LawLoss::Huber ? "huber" : "squared"; }

std::optional<LawSpace> parseLawSpace(std::string_view text) {
    if (text == "log") return LawSpace::Log;
    if (text == "linear") return LawSpace::Linear;
    return std::nullopt;
}

std::optional<LawLoss> parseLawLoss(std::string_view text) {
    if (text == "huber") return LawLoss::Huber;
    if (text == "squared") return LawLoss::Squared;
    return std::nullopt;
}

}  // namespace scalex::fit
