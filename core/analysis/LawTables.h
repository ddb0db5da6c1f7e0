#pragma once
// Export tables of laws compared side by side (the Laws view, `scalex render --view laws --table`):
// one row per law with its training objective, AIC, BIC, R² and held-out scores, and one row per
// fitted parameter of each law and group. The numbers are those of toJson(LawAnalysis), which
// `scalex fit law --json` prints, so that a table and a fit of the same law and split agree.
#include <string>
#include <vector>

#include "core/analysis/LawAnalysis.h"
#include "core/data/Export.h"

namespace scalex::analysis {

// A law as a comparison names it ("chinchilla", "law 3") and its analysis.
struct NamedLawAnalysis {
    std::string label;
    const LawAnalysis* analysis = nullptr;
};

// law, formula, space, loss, objective, aic, bic, r2, test_r2, mape, max_rel_error, n_train, n_test,
// error. With groups (one fit each) the objective, AIC and BIC are sums over the groups (their
// likelihoods multiply) and R² is that of the one group only (empty with several); held-out scores
// are pooled over groups as toJson's `test`.
data::ExportTable lawComparisonTable(const std::vector<NamedLawAnalysis>& laws);

// law, group, parameter, value, lower, upper: every fitted parameter of every group.
data::ExportTable lawParameterTable(const std::vector<NamedLawAnalysis>& laws);

// law, group, run, observed, predicted, lower, upper: every held-out run's prediction.
data::ExportTable lawPredictionTable(const std::vector<NamedLawAnalysis>& laws);

}  // namespace scalex::analysis
