#include "core/analysis/LawTables.h"

#include <cmath>

namespace scalex::analysis {

using data::CellStyle;
using data::ExportCell;

namespace {

ExportCell number(double v) { return std::isfinite(v) ? ExportCell{v} : ExportCell{}; }
ExportCell count(std::size_t n) { return ExportCell{static_cast<double>(n)}; }

}  // namespace

data::ExportTable lawComparisonTable(const std::vector<NamedLawAnalysis>& laws) {
    data::ExportTable t;
    t.caption = "Laws fitted on the training runs and scored on the held-out runs";
    t.label = "tab:laws";
    t.columns = {{"law", "Law", CellStyle::Text},
                 {"formula", "Formula", CellStyle::Text},
                 {"space", "Space", CellStyle::Text},
                 {"loss", "Loss", CellStyle::Text},
                 {"objective", "Objective", CellStyle::Scientific},
                 {"aic", "AIC", CellStyle::Fixed1},
                 {"bic", "BIC", CellStyle::Fixed1},
                 {"r2", "$R^2$", CellStyle::Fixed4},
                 {"test_r2", "held-out $R^2$", CellStyle::Fixed4},
                 {"mape", "mean rel. err.", CellStyle::Fixed4},
                 {"max_rel_error", "max rel. err.", CellStyle::Fixed4},
                 {"n_train", "train", CellStyle::Integer},
                 {"n_test", "test", CellStyle::Integer},
                 {"error", "Error", CellStyle::Text}};
    for (const auto& [label, a] : laws) {
        std::vector<ExportCell> row{label, a->law.formula, fit::lawSpaceName(a->law.space), fit::lawLossName(a->law.loss)};
        double objective = 0, aic = 0, bic = 0;
        std::size_t nTrain = 0, nTest = 0, fitted = 0;
        std::string error = a->error.value_or("");
        for (const auto& g : a->groups) {
            nTrain += g.nTrain;
            nTest += g.nTest;
            if (!g.error.empty()) {
                if (error.empty()) error = g.name + ": " + g.error;
                continue;
            }
            ++fitted;
            objective += g.fit.objective;
            aic += g.quality.aic;
            bic += g.quality.bic;
        }
        const bool any = fitted > 0;
        row.push_back(any ? number(objective) : ExportCell{});
        row.push_back(any ? number(aic) : ExportCell{});
        row.push_back(any ? number(bic) : ExportCell{});
        row.push_back(a->groups.size() == 1 && fitted == 1 ? number(a->groups.front().quality.r2) : ExportCell{});
        if (a->test) {
            row.push_back(number(a->test->r2));
            row.push_back(number(a->test->mape));
            row.push_back(number(a->test->maxRelError));
        } else {
            row.insert(row.end(), 3, ExportCell{});
        }
        row.push_back(count(nTrain));
        row.push_back(count(a->test ? a->test->n : nTest));
        row.push_back(error);
        t.rows.push_back(std::move(row));
    }
    return t;
}

data::ExportTable lawParameterTable(const std::vector<NamedLawAnalysis>& laws) {
    data::ExportTable t;
    t.caption = "Fitted parameters of each law and group";
    t.label = "tab:law_params";
    t.columns = {{"law", "Law", CellStyle::Text},        {"group", "Group", CellStyle::Text},
                 {"parameter", "Parameter", CellStyle::Symbol}, {"value", "Value", CellStyle::Fixed4},
                 {"lower", "Lower", CellStyle::Text},     {"upper", "Upper", CellStyle::Text}};
    for (const auto& [label, a] : laws)
        for (const auto& g : a->groups) {
            if (!g.error.empty()) continue;
            for (std::size_t k = 0; k < g.fit.params.size() && k < a->law.parameters.size(); ++k) {
                const auto& p = a->law.parameters[k];
                t.rows.push_back({label, g.name, p.name, number(g.fit.params[k]), number(p.lower), number(p.upper)});
            }
        }
    return t;
}

data::ExportTable lawPredictionTable(const std::vector<NamedLawAnalysis>& laws) {
    data::ExportTable t;
    t.caption = "Held-out runs and each law's prediction with its prediction interval";
    t.label = "tab:law_predictions";
    t.columns = {{"law", "Law", CellStyle::Text},          {"group", "Group", CellStyle::Text},
                 {"run", "Run", CellStyle::Text},          {"observed", "Observed", CellStyle::Fixed4},
                 {"predicted", "Predicted", CellStyle::Fixed4}, {"lower", "Lower", CellStyle::Fixed4},
                 {"upper", "Upper", CellStyle::Fixed4}};
    for (const auto& [label, a] : laws)
        for (const auto& g : a->groups)
            for (const auto& p : g.predictions)
                t.rows.push_back({label, g.name, p.label, number(p.observed), number(p.predicted), number(p.lower), number(p.upper)});
    return t;
}

}  // namespace scalex::analysis
