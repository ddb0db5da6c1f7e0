#pragma once
// A study designed from nothing (issue 33, item 4): for a study budget, a target budget H and a
// prior law L(N,D), IsoFLOP budgets log-spaced below the largest the study can afford (every run
// of a budget costs 6ND = that budget), sizes per budget log-spaced around the prior's N*(C)
// (snapped to a ladder of sizes where one is given), and the interval the design would give on
// the exponents of N* ∝ C^a, D* ∝ C^b and on N*(H): losses drawn from the prior plus Gaussian
// noise, the usual IsoFLOP procedure (parabola per budget in log10 N, power laws through the
// optima: fit::fitIsoFlop), repeated over seeds; the median and the central percentiles.
#include <QJsonObject>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/Family.h"
#include "core/data/LoadError.h"
#include "core/data/PaperTables.h"
#include "core/fit/LawDefinition.h"

namespace scalex::analysis {

// The law the design believes before any run: a law in N and D with a value per parameter.
struct DesignPrior {
    fit::LawDefinition law;
    std::vector<double> values;  // per law.parameters, in order
    std::string source;          // where the values come from, for the report
};

// The xLSTM paper's L(N,D) of a family (Tab. lnd_fit_params, Huber δ = 1e-3) as the shipped law "xlstm".
data::Expected<DesignPrior> paperDesignPrior(const data::PaperTables& paper, accounting::Family family);
// A shipped law (fit::shippedLaw) with each parameter's value from `values`, else its start value
// (the published fit the library starts from). The error names an unknown law, an unknown
// parameter or one with neither a value nor a start.
data::Expected<DesignPrior> shippedDesignPrior(const std::string& name, const std::map<std::string, double>& values);

struct StudyDesignOptions {
    double studyBudget = 0;   // Σ 6ND over the planned runs may not exceed it
    double targetBudget = 0;  // H: the budget whose N*(H) the study is for
    DesignPrior prior;
    std::vector<double> ladder;     // model sizes that can be trained; empty: any size
    std::size_t budgets = 5;        // IsoFLOP budgets
    std::size_t sizesPerBudget = 7;
    double width = 1.0;        // log10 N from the smallest to the largest size of a budget, centred on N*(C)
    double budgetSpan = 2.0;   // log10 C from the smallest budget to the largest
    double sigma = 0.01;       // standard deviation of a run's loss about the prior
    std::size_t seeds = 200;   // simulated studies
    std::uint64_t seed = 1;
    double level = 0.95;       // central interval
};

struct PlannedRun {
    std::string name;  // "design_C1e+20_N3.2e+08"
    double params = 0, tokens = 0, budget = 0;
};

// The prior's value, and the median and central interval of the simulated studies' estimates.
struct DesignEstimate {
    double prior = 0, median = 0, lower = 0, upper = 0;
};

// What one simulated study gives: NaN where its IsoFLOP fit gave no power law.
struct DesignOutcome {
    double exponentN = 0, exponentD = 0, nOptTarget = 0;
};

struct StudyDesign {
    StudyDesignOptions options;
    std::vector<double> budgets;     // ascending
    std::vector<double> nOptPrior;   // the prior's N*(C) per budget
    std::vector<PlannedRun> runs;    // by budget, then size
    double cost = 0;                 // Σ 6ND
    DesignEstimate exponentN, exponentD, nOptTarget;
    std::size_t simulated = 0, failed = 0;  // simulated studies, and those whose fit gave no law
    std::optional<std::string> error;       // why no design (one line); nothing else is set
};

StudyDesign designStudy(const StudyDesignOptions& options);

// One study of the design simulated: each run's loss drawn from `truth` (a law in N and D) plus
// Gaussian noise σ, seeded by `seed`, and fitted as designStudy does. `truth` may differ from
// the prior the design was made with (a wrong prior biases the estimates).
DesignOutcome simulateDesign(const StudyDesign& design, const DesignPrior& truth, double sigma, std::uint64_t seed);

// The planned runs as a run table's CSV: name, params, tokens, flops, budget, loss (empty).
std::string plannedRunsCsv(const StudyDesign& design);

// {study_budget, target_budget, prior{law, formula, values{...}, source}, budgets[{budget, n_opt_prior,
// runs}], runs, cost, sigma, seeds, simulated, failed, level, exponent_n{prior, median, lower, upper},
// exponent_d{...}, n_opt_target{...}}
QJsonObject toJson(const StudyDesign& design);

}  // namespace scalex::analysis
