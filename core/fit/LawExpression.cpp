// The formula parser (recursive descent, grammar in LawExpression.h) and the reverse-mode
// derivative of the tree.
#include "core/fit/LawExpression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>
#include <tuple>

namespace scalex::fit {

std::string LawError::text() const {
    return position == kNoPosition ? message : "at character " + std::to_string(position + 1) + ": " + message;
}

bool LawExpression::uses(LawOp op, int index) const {
    return std::any_of(nodes.begin(), nodes.end(), [&](const LawNode& n) { return n.op == op && n.index == index; });
}

namespace {

// Deep nesting is refused before it could exhaust the stack (a formula is a line, not a program).
constexpr int kMaxDepth = 200;
constexpr std::size_t kMaxNodes = 100000;

struct Function {
    const char* name;
    LawOp op;
    int arity;
};
constexpr Function kFunctions[] = {{"exp", LawOp::Exp, 1},   {"log", LawOp::Log, 1}, {"ln", LawOp::Log, 1},
                                   {"sqrt", LawOp::Sqrt, 1}, {"abs", LawOp::Abs, 1}, {"pow", LawOp::Power, 2},
                                   {"min", LawOp::Min, 2},   {"max", LawOp::Max, 2}};

class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    std::optional<LawExpression> run(LawError* error) {
        skipSpace();
        if (at_ >= s_.size()) fail(at_, "the formula is empty");
        else if (expression() >= 0) {
            skipSpace();
            if (!failed_ && at_ < s_.size()) {
                if (s_[at_] == ')') fail(at_, "unbalanced parenthesis: ')' without a matching '('");
                else fail(at_, std::string("expected an operator (+ - * / ^) or the end, got '") + s_[at_] + "'");
            }
        }
        if (failed_) {
            if (error) *error = error_;
            return std::nullopt;
        }
        return std::move(e_);
    }

private:
    int fail(std::size_t pos, std::string message) {
        if (!failed_) error_ = {pos, std::move(message)};
        failed_ = true;
        return -1;
    }

    void skipSpace() {
        while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
    }
    bool peek(char c) {
        skipSpace();
        return at_ < s_.size() && s_[at_] == c;
    }

    int add(LawOp op, std::size_t pos, int a = -1, int b = -1) {
        if (e_.nodes.size() >= kMaxNodes) return fail(pos, "the formula is too long");
        LawNode n;
        n.op = op;
        n.a = a;
        n.b = b;
        n.position = pos;
        e_.nodes.push_back(n);
        return static_cast<int>(e_.nodes.size()) - 1;
    }

    int expression() {
        if (++depth_ > kMaxDepth) return fail(at_, "the formula nests too deeply");
        int left = term();
        while (left >= 0) {
            skipSpace();
            if (at_ >= s_.size() || (s_[at_] != '+' && s_[at_] != '-')) break;
            const std::size_t pos = at_;
            const LawOp op = s_[at_++] == '+' ? LawOp::Add : LawOp::Subtract;
            const int right = term();
            if (right < 0) return -1;
            left = add(op, pos, left, right);
        }
        --depth_;
        return left;
    }

    int term() {
        int left = unary();
        while (left >= 0) {
            skipSpace();
            if (at_ >= s_.size() || (s_[at_] != '*' && s_[at_] != '/')) break;
            if (s_.substr(at_, 2) == "**") break;  // power, handled below
            const std::size_t pos = at_;
            const LawOp op = s_[at_++] == '*' ? LawOp::Multiply : LawOp::Divide;
            const int right = unary();
            if (right < 0) return -1;
            left = add(op, pos, left, right);
        }
        return left;
    }

    int unary() {
        if (++depth_ > kMaxDepth) return fail(at_, "the formula nests too deeply");
        skipSpace();
        int out;
        if (at_ < s_.size() && (s_[at_] == '-' || s_[at_] == '+')) {
            const std::size_t pos = at_;
            const bool negate = s_[at_++] == '-';
            const int operand = unary();
            out = operand < 0 ? -1 : negate ? add(LawOp::Negate, pos, operand) : operand;
        } else {
            out = power();
        }
        --depth_;
        return out;
    }

    int power() {
        const int base = primary();
        if (base < 0) return -1;
        skipSpace();
        if (at_ < s_.size() && (s_[at_] == '^' || s_.substr(at_, 2) == "**")) {
            const std::size_t pos = at_;
            at_ += s_[at_] == '^' ? 1 : 2;
            const int exponent = unary();
            if (exponent < 0) return -1;
            return add(LawOp::Power, pos, base, exponent);
        }
        return base;
    }

    static bool nameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
    static bool nameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

    int primary() {
        skipSpace();
        if (at_ >= s_.size()) return fail(at_, "expected a number, a name or '(' but the formula ends");
        const std::size_t pos = at_;
        const char c = s_[at_];
        if (c == '(') {
            ++at_;
            const int inner = expression();
            if (inner < 0) return -1;
            if (!peek(')')) return fail(pos, "unbalanced parenthesis: '(' is never closed");
            ++at_;
            return inner;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
        if (c == '`') {
            const std::size_t close = s_.find('`', at_ + 1);
            if (close == std::string_view::npos) return fail(pos, "unbalanced backtick: '`' is never closed");
            const std::string name(s_.substr(at_ + 1, close - at_ - 1));
            if (name.empty()) return fail(pos, "empty name between backticks");
            at_ = close + 1;
            return nameNode(name, pos);
        }
        if (!nameStart(c)) {
            if (c == ')') return fail(pos, "unbalanced parenthesis: ')' without a matching '(' or an empty '()'");
            return fail(pos, std::string("expected a number, a name or '(', got '") + c + "'");
        }
        while (at_ < s_.size() && nameChar(s_[at_])) ++at_;
        const std::string name(s_.substr(pos, at_ - pos));
        if (peek('(')) return call(name, pos);
        return nameNode(name, pos);
    }

    int number() {
        const std::size_t pos = at_;
        // Digits, one '.', an exponent: what from_chars reads (it has no leading '+').
        double v = 0;
        const char* begin = s_.data() + at_;
        const auto [end, ec] = std::from_chars(begin, s_.data() + s_.size(), v);
        if (ec != std::errc() || end == begin) return fail(pos, "expected a number");
        at_ += static_cast<std::size_t>(end - begin);
        if (!std::isfinite(v)) return fail(pos, "the number is out of range");
        if (at_ < s_.size() && nameStart(s_[at_]))
            return fail(at_, std::string("expected an operator after the number, got '") + s_[at_] + "'");
        const int n = add(LawOp::Constant, pos);
        if (n >= 0) e_.nodes[static_cast<std::size_t>(n)].value = v;
        return n;
    }

    int nameNode(const std::string& name, std::size_t pos) {
        auto it = std::find(e_.names.begin(), e_.names.end(), name);
        int index = static_cast<int>(it - e_.names.begin());
        if (it == e_.names.end()) {
            e_.names.push_back(name);
            e_.namePositions.push_back(pos);
        }
        const int n = add(LawOp::Variable, pos);
        if (n >= 0) e_.nodes[static_cast<std::size_t>(n)].index = index;
        return n;
    }

    int call(const std::string& name, std::size_t pos) {
        const Function* f = nullptr;
        for (const auto& fn : kFunctions)
            if (name == fn.name) f = &fn;
        if (!f) return fail(pos, "unknown function '" + name + "' (functions: exp, log, sqrt, abs, pow, min, max)");
        ++at_;  // '('
        std::vector<int> args;
        for (;;) {
            if (peek(')') && args.empty()) break;
            const int arg = expression();
            if (arg < 0) return -1;
            args.push_back(arg);
            if (peek(',')) {
                ++at_;
                continue;
            }
            break;
        }
        if (!peek(')')) return fail(pos + name.size(), "unbalanced parenthesis: '(' of " + name + "( is never closed");
        ++at_;
        if (static_cast<int>(args.size()) != f->arity)
            return fail(pos, name + "() takes " + std::to_string(f->arity) + (f->arity == 1 ? " argument" : " arguments") + ", got " +
                                 std::to_string(args.size()));
        return add(f->op, pos, args[0], f->arity == 2 ? args[1] : -1);
    }

    std::string_view s_;
    std::size_t at_ = 0;
    int depth_ = 0;
    bool failed_ = false;
    LawError error_;
    LawExpression e_;
};

}  // namespace

std::optional<LawExpression> parseLawExpression(std::string_view text, LawError* error) { return Parser(text).run(error); }

bool bindLawExpression(LawExpression& e, const std::vector<std::string>& parameters,
                       const std::function<bool(const std::string&)>& isVariable, std::vector<std::string>& variables,
                       LawError* error) {
    std::vector<LawOp> kind(e.names.size(), LawOp::Variable);
    std::vector<int> index(e.names.size(), -1);
    for (std::size_t k = 0; k < e.names.size(); ++k) {
        const std::string& name = e.names[k];
        if (auto p = std::find(parameters.begin(), parameters.end(), name); p != parameters.end()) {
            kind[k] = LawOp::Parameter;
            index[k] = static_cast<int>(p - parameters.begin());
            continue;
        }
        if (isVariable && !isVariable(name)) {
            if (error) *error = {e.namePositions[k], "unknown name '" + name + "': neither a parameter (give it bounds) nor a column of the runs"};
            return false;
        }
        auto v = std::find(variables.begin(), variables.end(), name);
        if (v == variables.end()) v = variables.insert(variables.end(), name);
        index[k] = static_cast<int>(v - variables.begin());
    }
    for (auto& n : e.nodes) {
        if (n.op == LawOp::Variable) {
            const auto k = static_cast<std::size_t>(n.index);
            n.op = kind[k];
            n.index = index[k];
        }
        n.dependsOnParameters = n.op == LawOp::Parameter;
    }
    // Children come first, so one pass in order propagates the flag upwards.
    for (auto& n : e.nodes) {
        if (n.a >= 0 && e.nodes[static_cast<std::size_t>(n.a)].dependsOnParameters) n.dependsOnParameters = true;
        if (n.b >= 0 && e.nodes[static_cast<std::size_t>(n.b)].dependsOnParameters) n.dependsOnParameters = true;
    }
    // Slots of the per-run constants: parameter-free children of nodes with parameters (and the
    // root, should the law have no parameter in it), and logs of parameter-free bases.
    e.constantCount = 0;
    for (auto& n : e.nodes) n.constantSlot = n.logSlot = -1;
    auto keep = [&e](int child) {
        auto& c = e.nodes[static_cast<std::size_t>(child)];
        if (!c.dependsOnParameters && c.constantSlot < 0) c.constantSlot = e.constantCount++;
    };
    for (auto& n : e.nodes) {
        if (!n.dependsOnParameters) continue;
        if (n.a >= 0) keep(n.a);
        if (n.b >= 0) keep(n.b);
        if (n.op == LawOp::Power && !e.nodes[static_cast<std::size_t>(n.a)].dependsOnParameters) n.logSlot = e.constantCount++;
    }
    if (!e.nodes.empty()) keep(e.root());
    // Repeated subexpressions: an operation is the same as the first earlier node of its kind whose
    // operands are the same (a parameter, column or number the same as its first occurrence).
    // Leaves are not copied, so that a parameter's derivative adds up as before.
    std::map<std::tuple<int, int, int, double, int>, int> first;
    std::vector<int> canonical(e.nodes.size());
    for (std::size_t i = 0; i < e.nodes.size(); ++i) {
        auto& n = e.nodes[i];
        const auto operand = [&canonical](int c) { return c < 0 ? c : canonical[static_cast<std::size_t>(c)]; };
        const auto key = std::make_tuple(static_cast<int>(n.op), operand(n.a), operand(n.b), n.op == LawOp::Constant ? n.value : 0.0, n.index);
        canonical[i] = first.emplace(key, static_cast<int>(i)).first->second;
        const bool leaf = n.op == LawOp::Constant || n.op == LawOp::Parameter || n.op == LawOp::Variable;
        n.same = leaf || canonical[i] == static_cast<int>(i) ? -1 : canonical[i];
    }
    return true;
}

namespace {

// Every node's value into v; for powers whose exponent has parameters, ln(base) into aux (the
// backward sweep's d a^b / db = a^b ln a).
void forward(const LawExpression& e, std::span<const double> params, std::span<const double> variables, double* v, double* aux) {
    const std::size_t count = e.nodes.size();
    for (std::size_t i = 0; i < count; ++i) {
        const LawNode& n = e.nodes[i];
        const double a = n.a >= 0 ? v[n.a] : 0, b = n.b >= 0 ? v[n.b] : 0;
        switch (n.op) {
            case LawOp::Constant: v[i] = n.value; break;
            case LawOp::Parameter: v[i] = params[static_cast<std::size_t>(n.index)]; break;
            case LawOp::Variable: v[i] = variables[static_cast<std::size_t>(n.index)]; break;
            case LawOp::Negate: v[i] = -a; break;
            case LawOp::Add: v[i] = a + b; break;
            case LawOp::Subtract: v[i] = a - b; break;
            case LawOp::Multiply: v[i] = a * b; break;
            case LawOp::Divide: v[i] = a / b; break;
            case LawOp::Power:
                v[i] = std::pow(a, b);
                if (aux && n.b >= 0 && e.nodes[static_cast<std::size_t>(n.b)].dependsOnParameters) aux[i] = std::log(a);
                break;
            case LawOp::Exp: v[i] = std::exp(a); break;
            case LawOp::Log: v[i] = std::log(a); break;
            case LawOp::Sqrt: v[i] = std::sqrt(a); break;
            case LawOp::Abs: v[i] = std::abs(a); break;
            case LawOp::Min: v[i] = b < a ? b : a; break;
            case LawOp::Max: v[i] = a < b ? b : a; break;
        }
    }
}

}  // namespace

void lawConstants(const LawExpression& e, std::span<const double> variables, std::span<double> out) {
    // The parameters' values do not matter to the parameter-free nodes read here: zeros.
    int parameters = 0;
    for (const auto& n : e.nodes)
        if (n.op == LawOp::Parameter) parameters = std::max(parameters, n.index + 1);
    const std::vector<double> zeros(static_cast<std::size_t>(parameters), 0.0);
    std::vector<double> v(e.nodes.size());
    forward(e, zeros, variables, v.data(), nullptr);
    for (std::size_t i = 0; i < e.nodes.size(); ++i) {
        const LawNode& n = e.nodes[i];
        if (n.constantSlot >= 0) out[static_cast<std::size_t>(n.constantSlot)] = v[i];
        if (n.logSlot >= 0) out[static_cast<std::size_t>(n.logSlot)] = std::log(v[static_cast<std::size_t>(n.a)]);
    }
}

double lawValue(const LawExpression& e, std::span<const double> params, std::span<const double> variables, std::vector<double>& scratch) {
    if (scratch.size() < e.nodes.size()) scratch.resize(e.nodes.size());
    forward(e, params, variables, scratch.data(), nullptr);
    return scratch[e.nodes.size() - 1];
}

double lawForward(const LawExpression& e, std::span<const double> params, std::span<const double> variables, std::vector<double>& scratch) {
    const std::size_t count = e.nodes.size();
    if (scratch.size() < 3 * count) scratch.resize(3 * count);
    forward(e, params, variables, scratch.data(), scratch.data() + 2 * count);
    return scratch[count - 1];
}

double lawValueAndGradient(const LawExpression& e, std::span<const double> params, std::span<const double> variables, double weight,
                           std::span<double> gradient, std::vector<double>& scratch) {
    const double value = lawForward(e, params, variables, scratch);
    lawBackward(e, weight, gradient, scratch);
    return value;
}

void lawBackward(const LawExpression& e, double weight, std::span<double> gradient, std::vector<double>& scratch) {
    const std::size_t count = e.nodes.size();
    double* v = scratch.data();
    double* adj = v + count;
    const double* aux = v + 2 * count;
    std::fill(adj, adj + count, 0.0);
    adj[count - 1] = weight;
    // Children have smaller indices, so a backward pass in reverse order sees every parent first.
    for (std::size_t i = count; i-- > 0;) {
        const LawNode& n = e.nodes[i];
        const double g = adj[i];
        if (g == 0 || !n.dependsOnParameters) continue;
        const bool da = n.a >= 0 && e.nodes[static_cast<std::size_t>(n.a)].dependsOnParameters;
        const bool db = n.b >= 0 && e.nodes[static_cast<std::size_t>(n.b)].dependsOnParameters;
        const double a = n.a >= 0 ? v[n.a] : 0, b = n.b >= 0 ? v[n.b] : 0;
        switch (n.op) {
            case LawOp::Constant:
            case LawOp::Variable: break;
            case LawOp::Parameter: gradient[static_cast<std::size_t>(n.index)] += g; break;
            case LawOp::Negate: adj[n.a] -= g; break;
            case LawOp::Add:
                if (da) adj[n.a] += g;
                if (db) adj[n.b] += g;
                break;
            case LawOp::Subtract:
                if (da) adj[n.a] += g;
                if (db) adj[n.b] -= g;
                break;
            case LawOp::Multiply:
                if (da) adj[n.a] += g * b;
                if (db) adj[n.b] += g * a;
                break;
            case LawOp::Divide:
                if (da) adj[n.a] += g / b;
                if (db) adj[n.b] -= g * v[i] / b;
                break;
            case LawOp::Power:
                // d a^b / da = b a^(b-1); d a^b / db = a^b ln a
                if (da) adj[n.a] += g * (a != 0 ? b * v[i] / a : b * std::pow(a, b - 1));
                if (db) adj[n.b] += g * (v[i] == 0 ? 0.0 : v[i] * aux[i]);
                break;
            case LawOp::Exp: adj[n.a] += g * v[i]; break;
            case LawOp::Log: adj[n.a] += g / a; break;
            case LawOp::Sqrt: adj[n.a] += g * 0.5 / v[i]; break;
            case LawOp::Abs: adj[n.a] += a < 0 ? -g : g; break;
            case LawOp::Min:
                if (b < a) {
                    if (db) adj[n.b] += g;
                } else if (da) {
                    adj[n.a] += g;
                }
                break;
            case LawOp::Max:
                if (a < b) {
                    if (db) adj[n.b] += g;
                } else if (da) {
                    adj[n.a] += g;
                }
                break;
        }
    }
}

}  // namespace scalex::fit

namespace scalex::fit {

void lawForwardBlock(const LawExpression& e, std::span<const double> params, const double* constants, std::size_t stride, std::size_t rows,
                     double* values, double* aux) {
    const std::size_t count = e.nodes.size();
    for (std::size_t i = 0; i < count; ++i) {
        const LawNode& n = e.nodes[i];
        double* v = values + i * rows;
        if (n.constantSlot >= 0) {
            std::copy(constants + static_cast<std::size_t>(n.constantSlot) * stride, constants + static_cast<std::size_t>(n.constantSlot) * stride + rows, v);
            continue;
        }
        if (!n.dependsOnParameters) continue;  // read by nobody: its parent has no parameters either
        if (n.same >= 0) {
            std::copy(values + static_cast<std::size_t>(n.same) * rows, values + static_cast<std::size_t>(n.same) * rows + rows, v);
            continue;
        }
        const double* a = n.a >= 0 ? values + static_cast<std::size_t>(n.a) * rows : nullptr;
        const double* b = n.b >= 0 ? values + static_cast<std::size_t>(n.b) * rows : nullptr;
        double* x = aux + i * rows;
        switch (n.op) {
            case LawOp::Parameter: std::fill(v, v + rows, params[static_cast<std::size_t>(n.index)]); break;
            case LawOp::Negate: for (std::size_t r = 0; r < rows; ++r) v[r] = -a[r]; break;
            case LawOp::Add: for (std::size_t r = 0; r < rows; ++r) v[r] = a[r] + b[r]; break;
            case LawOp::Subtract: for (std::size_t r = 0; r < rows; ++r) v[r] = a[r] - b[r]; break;
            case LawOp::Multiply: for (std::size_t r = 0; r < rows; ++r) v[r] = a[r] * b[r]; break;
            case LawOp::Divide: for (std::size_t r = 0; r < rows; ++r) v[r] = a[r] / b[r]; break;
            case LawOp::Power:
                if (n.logSlot >= 0) {
                    // a^b = e^(b ln a) for a > 0: one exp instead of pow; pow keeps the sign rules otherwise
                    const double* logs = constants + static_cast<std::size_t>(n.logSlot) * stride;
                    for (std::size_t r = 0; r < rows; ++r) {
                        x[r] = logs[r];
                        v[r] = a[r] > 0 ? std::exp(b[r] * x[r]) : std::pow(a[r], b[r]);
                    }
                } else {
                    const bool logs = e.nodes[static_cast<std::size_t>(n.b)].dependsOnParameters;
                    for (std::size_t r = 0; r < rows; ++r) {
                        v[r] = std::pow(a[r], b[r]);
                        if (logs) x[r] = std::log(a[r]);
                    }
                }
                break;
            case LawOp::Exp: for (std::size_t r = 0; r < rows; ++r) v[r] = std::exp(a[r]); break;
            case LawOp::Log: for (std::size_t r = 0; r < rows; ++r) v[r] = std::log(a[r]); break;
            case LawOp::Sqrt: for (std::size_t r = 0; r < rows; ++r) v[r] = std::sqrt(a[r]); break;
            case LawOp::Abs: for (std::size_t r = 0; r < rows; ++r) v[r] = std::abs(a[r]); break;
            case LawOp::Min: for (std::size_t r = 0; r < rows; ++r) v[r] = b[r] < a[r] ? b[r] : a[r]; break;
            case LawOp::Max: for (std::size_t r = 0; r < rows; ++r) v[r] = a[r] < b[r] ? b[r] : a[r]; break;
            case LawOp::Constant:
            case LawOp::Variable: break;
        }
    }
}

void lawBackwardBlock(const LawExpression& e, const double* weights, std::size_t rows, const double* values, const double* aux,
                      double* adjoint, std::span<double> gradient, double* perRun) {
    const std::size_t count = e.nodes.size();
    std::fill(adjoint, adjoint + count * rows, 0.0);
    std::copy(weights, weights + rows, adjoint + (count - 1) * rows);
    if (perRun) {
        int parameters = 0;
        for (const auto& n : e.nodes)
            if (n.op == LawOp::Parameter) parameters = std::max(parameters, n.index + 1);
        std::fill(perRun, perRun + static_cast<std::size_t>(parameters) * rows, 0.0);
    }
    // As lawBackward, run by run: a run whose adjoint at a node is 0 adds nothing below it (so
    // that 0 × ∞ never turns into NaN).
    for (std::size_t i = count; i-- > 0;) {
        const LawNode& n = e.nodes[i];
        if (!n.dependsOnParameters) continue;
        const double* g = adjoint + i * rows;
        if (n.same >= 0) {  // its operands receive their part through the node it copies
            double* to = adjoint + static_cast<std::size_t>(n.same) * rows;
            for (std::size_t r = 0; r < rows; ++r) to[r] += g[r];
            continue;
        }
        const double* v = values + i * rows;
        const bool da = n.a >= 0 && e.nodes[static_cast<std::size_t>(n.a)].dependsOnParameters;
        const bool db = n.b >= 0 && e.nodes[static_cast<std::size_t>(n.b)].dependsOnParameters;
        const double* a = n.a >= 0 ? values + static_cast<std::size_t>(n.a) * rows : nullptr;
        const double* b = n.b >= 0 ? values + static_cast<std::size_t>(n.b) * rows : nullptr;
        double* ga = da ? adjoint + static_cast<std::size_t>(n.a) * rows : nullptr;
        double* gb = db ? adjoint + static_cast<std::size_t>(n.b) * rows : nullptr;
        const double* x = aux + i * rows;
        switch (n.op) {
            case LawOp::Constant:
            case LawOp::Variable: break;
            case LawOp::Parameter:
                if (perRun) {
                    double* out = perRun + static_cast<std::size_t>(n.index) * rows;
                    for (std::size_t r = 0; r < rows; ++r) out[r] += g[r];
                } else {
                    double sum = 0;
                    for (std::size_t r = 0; r < rows; ++r) sum += g[r];
                    gradient[static_cast<std::size_t>(n.index)] += sum;
                }
                break;
            case LawOp::Negate:
                for (std::size_t r = 0; r < rows; ++r) ga[r] -= g[r];
                break;
            case LawOp::Add:
            case LawOp::Subtract: {
                const double sb = n.op == LawOp::Add ? 1.0 : -1.0;
                if (da)
                    for (std::size_t r = 0; r < rows; ++r) ga[r] += g[r];
                if (db)
                    for (std::size_t r = 0; r < rows; ++r) gb[r] += sb * g[r];
                break;
            }
            case LawOp::Multiply:
                for (std::size_t r = 0; r < rows; ++r) {
                    if (g[r] == 0) continue;
                    if (da) ga[r] += g[r] * b[r];
                    if (db) gb[r] += g[r] * a[r];
                }
                break;
            case LawOp::Divide:
                for (std::size_t r = 0; r < rows; ++r) {
                    if (g[r] == 0) continue;
                    if (da) ga[r] += g[r] / b[r];
                    if (db) gb[r] -= g[r] * v[r] / b[r];
                }
                break;
            case LawOp::Power:
                // d a^b / da = b a^(b-1); d a^b / db = a^b ln a
                for (std::size_t r = 0; r < rows; ++r) {
                    if (g[r] == 0) continue;
                    if (da) ga[r] += g[r] * (a[r] != 0 ? b[r] * v[r] / a[r] : b[r] * std::pow(a[r], b[r] - 1));
                    if (db) gb[r] += g[r] * (v[r] == 0 ? 0.0 : v[r] * x[r]);
                }
                break;
            case LawOp::Exp:
                for (std::size_t r = 0; r < rows; ++r)
                    if (g[r] != 0) ga[r] += g[r] * v[r];
                break;
            case LawOp::Log:
                for (std::size_t r = 0; r < rows; ++r)
                    if (g[r] != 0) ga[r] += g[r] / a[r];
                break;
            case LawOp::Sqrt:
                for (std::size_t r = 0; r < rows; ++r)
                    if (g[r] != 0) ga[r] += g[r] * 0.5 / v[r];
                break;
            case LawOp::Abs:
                for (std::size_t r = 0; r < rows; ++r) ga[r] += a[r] < 0 ? -g[r] : g[r];
                break;
            case LawOp::Min:
            case LawOp::Max:
                for (std::size_t r = 0; r < rows; ++r) {
                    const bool second = n.op == LawOp::Min ? b[r] < a[r] : a[r] < b[r];
                    if (second) {
                        if (db) gb[r] += g[r];
                    } else if (da) {
                        ga[r] += g[r];
                    }
                }
                break;
        }
    }
}

}  // namespace scalex::fit
