#pragma once
// A law's right-hand side as a tree: the formula text read by a recursive-descent parser into a
// flat list of nodes (children before parents), with its names bound to parameters or columns.
//
// Why our own parser and not muparser / exprtk: the optimiser needs exact derivatives, and those
// libraries evaluate doubles only. The tree here is evaluated two ways from one definition:
//   - evaluate<T>() for any scalar T with the usual math functions (double, Eigen's
//     AutoDiffScalar, a dual number): predictions, and a check of the derivatives in the tests;
//   - valueAndGradient(): reverse-mode differentiation of the tree, one forward and one backward
//     sweep per run, so the gradient costs the same whatever the number of parameters.
//
// Grammar (precedence low to high; '^' binds right and tighter than unary minus, as in maths:
// -x^2 = -(x^2), N^-alpha = N^(-alpha)):
//   expression := term (('+' | '-') term)*
//   term       := unary (('*' | '/') unary)*
//   unary      := ('-' | '+') unary | power
//   power      := primary (('^' | '**') unary)?
//   primary    := number | name | name '(' expression (',' expression)* ')' | '(' expression ')'
// Numbers as in C (1, 0.5, 1e19, 2.5E-3). Names: letters, digits, '_' and '.', not starting with a
// digit, or any text between backticks (`Model Size`) for columns whose names are no identifiers.
// Functions: exp, log (natural), sqrt, abs, pow(x, y), min(x, y), max(x, y).
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scalex::fit {

// Where a formula is wrong: a 0-based character offset into the text and what is wrong there.
inline constexpr std::size_t kNoPosition = static_cast<std::size_t>(-1);

struct LawError {
    std::size_t position = kNoPosition;  // kNoPosition: the error is not at one place of the text
    std::string message;
    // "at character 12: unknown name 'X' ..." (1-based for people); the message alone without a position.
    std::string text() const;
};

enum class LawOp { Constant, Parameter, Variable, Negate, Add, Subtract, Multiply, Divide, Power, Exp, Log, Sqrt, Abs, Min, Max };

struct LawNode {
    LawOp op = LawOp::Constant;
    int a = -1, b = -1;        // children (indices of earlier nodes)
    double value = 0;          // Constant
    int index = -1;            // Parameter / Variable: its index; a name before binding: into names
    std::size_t position = 0;  // where in the text it starts
    bool dependsOnParameters = false;  // set by binding: the backward sweep skips subtrees without
    // Set by binding: where this node's value (constantSlot: a parameter-free node that a node
    // with parameters reads) or the log of its base (logSlot: a power whose base has no
    // parameters and whose exponent has) sits in a run's row of lawConstants; -1 for none.
    int constantSlot = -1, logSlot = -1;
    // Set by binding: an earlier node that computes the same value (same operation on the same
    // operands, as a formula repeats a subexpression), whose value the block sweeps copy; -1 for none.
    int same = -1;
};

// A parsed expression. Before binding every name is a Variable whose index points into `names`;
// bind() turns them into Parameters or Variables.
struct LawExpression {
    std::vector<LawNode> nodes;  // children first; the root is the last node
    std::vector<std::string> names;
    std::vector<std::size_t> namePositions;  // first place each name appears

    int constantCount = 0;  // slots of a run's row of lawConstants

    int root() const { return static_cast<int>(nodes.size()) - 1; }
    bool uses(LawOp op, int index) const;  // whether a node of kind op with this index is in the tree
};

// The text as an expression, or the first error (position and what was expected).
std::optional<LawExpression> parseLawExpression(std::string_view text, LawError* error = nullptr);

// Binds names: each name is the parameter of that name (index into `parameters`) when there is
// one, else a variable (index into `variables`, appended in order of first use) when `isVariable`
// accepts it (nullptr accepts every name). Otherwise an error "unknown name 'X'" at its place.
bool bindLawExpression(LawExpression& expression, const std::vector<std::string>& parameters,
                       const std::function<bool(const std::string&)>& isVariable, std::vector<std::string>& variables,
                       LawError* error = nullptr);

// The tree at one point, for any scalar type with +, -, *, /, exp, log, sqrt, abs, pow and ordering.
template <class T>
T evaluateLaw(const LawExpression& e, std::span<const T> params, std::span<const double> variables) {
    using std::abs, std::exp, std::log, std::pow, std::sqrt;
    std::vector<T> v(e.nodes.size());
    for (std::size_t i = 0; i < e.nodes.size(); ++i) {
        const LawNode& n = e.nodes[i];
        switch (n.op) {
            case LawOp::Constant: v[i] = T(n.value); break;
            case LawOp::Parameter: v[i] = params[static_cast<std::size_t>(n.index)]; break;
            case LawOp::Variable: v[i] = T(variables[static_cast<std::size_t>(n.index)]); break;
            case LawOp::Negate: v[i] = -v[n.a]; break;
            case LawOp::Add: v[i] = v[n.a] + v[n.b]; break;
            case LawOp::Subtract: v[i] = v[n.a] - v[n.b]; break;
            case LawOp::Multiply: v[i] = v[n.a] * v[n.b]; break;
            case LawOp::Divide: v[i] = v[n.a] / v[n.b]; break;
            case LawOp::Power: v[i] = pow(v[n.a], v[n.b]); break;
            case LawOp::Exp: v[i] = exp(v[n.a]); break;
            case LawOp::Log: v[i] = log(v[n.a]); break;
            case LawOp::Sqrt: v[i] = sqrt(v[n.a]); break;
            case LawOp::Abs: v[i] = abs(v[n.a]); break;
            case LawOp::Min: v[i] = v[n.b] < v[n.a] ? v[n.b] : v[n.a]; break;
            case LawOp::Max: v[i] = v[n.a] < v[n.b] ? v[n.b] : v[n.a]; break;
        }
    }
    return v.back();
}

// Reverse mode in two steps, so that the weight of a run may depend on its value (a loss's
// derivative at the residual): lawForward() evaluates every node into `scratch` (2 × nodes
// doubles, reused between calls) and returns the value; lawBackward() then adds weight × the
// value's derivative with respect to every parameter into `gradient`.
double lawForward(const LawExpression& e, std::span<const double> params, std::span<const double> variables,
                  std::vector<double>& scratch);
void lawBackward(const LawExpression& e, double weight, std::span<double> gradient, std::vector<double>& scratch);
// What does not change with the parameters, once per run: the values of the parameter-free
// subtrees the rest reads, and the logs of the parameter-free bases of powers (so that N^-alpha
// costs one exp and no log per evaluation). `out` has constantCount entries.
void lawConstants(const LawExpression& e, std::span<const double> variables, std::span<double> out);
// Both: the value, and weight × its gradient added into `gradient`.
double lawValueAndGradient(const LawExpression& e, std::span<const double> params, std::span<const double> variables,
                           double weight, std::span<double> gradient, std::vector<double>& scratch);
// The value alone (evaluateLaw<double> without allocating: `scratch` is reused).
double lawValue(const LawExpression& e, std::span<const double> params, std::span<const double> variables,
                std::vector<double>& scratch);

}  // namespace scalex::fit

namespace scalex::fit {

// The same sweeps over a block of runs at once (node by node, each over every run of the block:
// the tree is walked once per block instead of once per run). `constants` holds the runs'
// lawConstants column by column: slot s of run i at constants[s · stride + i]. `values`, `aux`
// and `adjoint` hold nodes × rows doubles each (node n's run i at n · rows + i); the root's values
// are at values[root · rows …].
inline constexpr std::size_t kLawBlock = 64;  // runs per block the fit uses
void lawForwardBlock(const LawExpression& e, std::span<const double> params, const double* constants, std::size_t stride, std::size_t rows,
                     double* values, double* aux);
// Adds Σ_i weights[i] × ∂value_i/∂params into `gradient` or, where `perRun` is given, weights[i] ×
// ∂value_i/∂param_p into perRun[p · rows + i] (zeroed first, parameterCount × rows doubles).
void lawBackwardBlock(const LawExpression& e, const double* weights, std::size_t rows, const double* values, const double* aux,
                      double* adjoint, std::span<double> gradient, double* perRun = nullptr);

}  // namespace scalex::fit
