#pragma once
// Laws typed as formulas, fitted to a study's runs and judged by what they predict (issue "Laws
// that predict"): the runs in the settings' scope (series, --where, sweeps, selection as for every
// analysis), optionally split into training and held-out runs by row conditions, optionally in
// groups (one parameter vector per group): each series at each context length, as every fit of
// the study, or each value of a column. Per group: the fit (fit/LawFit.h), its
// objective, AIC/BIC and R² on the training runs, and every held-out run's prediction with a
// bootstrap prediction interval; pooled over groups, the held-out R², mean and max relative error.
// A view calls fitLawAnalysis for each law it compares and lays the results side by side.
#include <QJsonArray>
#include <QJsonObject>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/Condition.h"
#include "core/analysis/LawQueries.h"
#include "core/data/LoadError.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"
#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"

namespace scalex::analysis {

class Study;

struct LawFitOptions {
    std::optional<std::string> groupColumn;  // one fit per value of this column; none: per series and context
    // Parameters with one value for every group (e.g. the exponents), the others per group: the
    // groups are fitted at once (fit::fitLawJoint). Empty: each group apart.
    std::vector<std::string> shared;
    // The split. Only `train`: the held-out runs are the others; only `test`: training on the
    // others; neither: every run trains and nothing is held out.
    std::optional<std::vector<RowCondition>> train, test;
    // Held-out rows of another file (`scalex fit law --holdout FILE`): the runs at this index of the
    // table and after are scored, never fitted; the runs before it train. Excludes train/test.
    std::optional<std::size_t> heldOutFrom;
    // Leave one out: each value of this column (e.g. the IsoFLOP budget) held out in turn, the
    // law refitted on the others and the held-out runs predicted; the reported fit is on every run.
    std::optional<std::string> leaveOneOut;
    fit::LawFitSettings fit;
    int resamples = 50;  // bootstrap replicates of the prediction intervals (0: none)
    double level = 0.95;
    std::uint64_t seed = 20250601;
    // Asked of each group's fit (LawQueries.h), with intervals by the bootstrap over the training
    // runs (`resamples` replicates) or by the curvature at the optimum.
    std::vector<LawQuerySpec> queries;
    fit::LawIntervalMethod interval = fit::LawIntervalMethod::Bootstrap;
};

// A held-out run, what the law predicts for it and the interval of that prediction.
struct LawPrediction {
    int run = -1;       // index into the table's runs
    std::string label;  // the run's id, or "line L"
    int line = 0;
    double observed = 0, predicted = 0;
    double lower = data::kUnknown, upper = data::kUnknown;  // NaN without intervals
    std::string fold;   // leave one out: the value of the column held out; empty otherwise
};

struct LawGroupFit {
    std::string name;  // the group column's value, else the series and context ("Transformer, T = 8192")
    std::size_t nTrain = 0, nTest = 0;
    fit::LawFitResult fit;
    fit::LawFitQuality quality;             // on the training runs
    std::optional<fit::HeldOutScore> test;  // on this group's held-out runs
    std::vector<LawPrediction> predictions;
    int intervalResamples = 0;
    std::string error;  // the group could not be fitted (too few runs, ...); nothing else is set
    std::vector<std::string> foldErrors;  // leave one out: the held-out values whose refit failed, and why
    std::vector<LawQueryAnswer> queries;  // as LawFitOptions::queries
    int queryResamples = 0;               // bootstrap replicates behind the queries' intervals
};

struct LawAnalysis {
    fit::LawDefinition law;
    std::string target;                    // the column fitted ("loss" for the study's loss)
    std::vector<std::string> variables;    // the columns the law reads
    std::vector<LawGroupFit> groups;
    bool split = false;                    // a held-out set was asked for
    std::optional<fit::HeldOutScore> test;  // pooled over groups
    std::vector<std::string> skipped;      // runs in scope without a number the law needs
    // The law reads a knob (a column the sweeps tune), so every run of the sweeps was fitted.
    bool everySweepRun = false;
    // Held-out rows of another file (LawFitOptions::heldOutFrom): how many there are and how many
    // the scope leaves out (not the best of their sweep, --where, ...), so that none goes unscored unsaid.
    std::size_t heldOutRows = 0, heldOutOutsideScope = 0;
    std::optional<std::string> error;      // nothing could be fitted: why (a bad formula names the place)
    double level = 0.95;
    fit::LawIntervalMethod interval = fit::LawIntervalMethod::Bootstrap;  // of the queries
};

// Kept in ResultCache by the law, the settings, the options and every cell of the runs: the laws
// view, its export and `scalex fit law` fit the same law once (a cancelled fit is not kept and
// says "cancelled").
LawAnalysis fitLawAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                           const LawFitOptions& options = {}, const fit::FitControl& control = {});
// The same computed afresh and not kept.
LawAnalysis computeLawAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                               const LawFitOptions& options = {}, const fit::FitControl& control = {});
LawAnalysis fitLawAnalysis(const Study& study, const fit::LawDefinition& law, const LawFitOptions& options = {},
                           const fit::FitControl& control = {});

// A formula checked against a study's columns, as a view shows it under the field while typing:
// empty when it compiles, else the error text ("at character 7: unknown name 'X' ...").
std::string checkLaw(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law);

// The JSON of the result (what `scalex fit law --json` prints): law, target, variables, groups
// [{name, objective, params{...}, n_train, r2, aic, bic, ..., test{...}, predictions[...]}],
// queries [...] per group when asked (lawQueryJson), test {r2, mape, max_rel_error, n} when split, skipped.
QJsonObject toJson(const LawAnalysis& analysis);

// Why the held-out score may rest on an optimum that is not the law's best (fit::LawFitResult::doubt),
// group by group ("NAME: ..." with several groups); empty when every group's optimum is sure. The
// text and JSON of `fit law` and the Laws view mark a held-out score with it.
std::string lawAnalysisDoubt(const LawAnalysis& analysis);
// A law definition as JSON and back (projects and recipes save laws): {name, formula, parameters:
// [{name, lower, upper, start}], space, loss, huber_delta, linear, citation, description}.
QJsonObject lawToJson(const fit::LawDefinition& law);
data::Expected<fit::LawDefinition> lawFromJson(const QJsonObject& object);

// The shipped library: [{name, formula, citation, description, parameters, space, loss}], and as
// text (name, description, formula, bounds, source per law).
QJsonArray shippedLawsJson();
std::string shippedLawsText();

// A law as the CLI and recipes name it in words: a shipped law (`law`, its parameters' bounds
// replaced by any of `parameters`) or a `formula` with its `parameters` ("NAME=LO:HI[@START]"),
// then loss ("squared"/"huber"), space ("linear"/"log") and Huber δ on top. The error names the
// option at fault (column: "law", "formula", "param", "loss", "space", "huber-delta").
struct LawRequest {
    std::string law;
    std::string formula;
    std::vector<std::string> parameters;
    std::string loss, space;  // empty: the law's own
    std::optional<double> huberDelta;
};
data::Expected<fit::LawDefinition> lawFromRequest(const LawRequest& request);
// "L = E + A/N^alpha  (linear space, squared)"
std::string lawSummary(const fit::LawDefinition& law);

}  // namespace scalex::analysis
