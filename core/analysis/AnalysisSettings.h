#pragma once
// One settings value for every analysis (DESIGN.md "Scope and settings"): what the analyses look
// at (series, context length, experiment set, the study's selection or all runs, row conditions)
// and how (FLOP convention, budget range, fit options). Its JSON form is the "common" object of
// a project's settings.json, and the GUI, the CLI and recipes read and write that one form, with
// one set of defaults.
#include <QJsonObject>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/Condition.h"
#include "core/analysis/RunSelection.h"
#include "core/data/LoadError.h"
#include "core/data/ProjectSettings.h"

namespace scalex::analysis {

struct Scope {
    std::vector<std::string> series;               // empty: every series
    std::optional<double> context;                 // training context of the runs; empty: each context apart
    std::optional<data::ExperimentSet> experimentSet;
    bool allRuns = false;                          // also the runs a table's selected_in_paper column leaves out
    bool includeCheckpoints = false;               // intermediate checkpoints count as runs
    // Every run of a hyperparameter sweep counts; by default only the best of each (data/Sweeps.h).
    bool allSweepRuns = false;
    std::vector<RowCondition> where;

    // The filter of one series (or all in scope) at one context (or the scope's).
    RunFilter filter(std::optional<std::string> oneSeries = std::nullopt, std::optional<double> atContext = std::nullopt) const;
    bool containsSeries(const std::string& name) const;
    friend bool operator==(const Scope&, const Scope&) = default;
};

struct AnalysisSettings {
    Scope scope;
    std::vector<std::string> seriesBy;             // group runs by these columns; empty: each table's default
    std::string convention = "study";              // FLOP convention (accounting::conventionByName)
    double contextLength = 8192;                   // T at which accounting views count FLOPs
    std::optional<std::pair<double, double>> budgetRange;  // IsoFLOP budgets in the power laws; empty: all
    double huberDelta = 1e-3;                      // L(N,D) fit (Tab. lnd_fit_params)
    bool fitGamma = true;                          // false: gamma fixed at 1 (Hoffmann et al.)
    // Runs far from their IsoFLOP profile (fit/Outliers.h) stay in the fits; by default they are
    // left out and listed, unless the user ticked the run in.
    bool keepOutliers = false;
    // IsoFLOP budgets taken back into the power laws although their optimum is extrapolated
    // (fit::IsoFlopSettings::keptBudgets).
    std::vector<double> keptBudgets;
    // The user's roles of columns (analysis/StudyReading.h): column -> role name; the others are read
    // from the values.
    std::map<std::string, std::string> roles;

    QJsonObject toJson() const;
    // Unknown keys are left alone (newer versions); a known key of the wrong type is an error naming it.
    static data::Expected<AnalysisSettings> fromJson(const QJsonObject& common, const std::string& file = "settings.json");
    static data::Expected<AnalysisSettings> fromProject(const data::ProjectSettings& settings);
    void storeIn(data::ProjectSettings& settings) const;
    friend bool operator==(const AnalysisSettings&, const AnalysisSettings&) = default;
};

// γ of L(N,D) as every input spells it: "free" -> true (fitted); "fixed_1", "fixed", "1" -> false
// (held at 1, Hoffmann et al.); empty optional for anything else. Output writes "free" or "fixed_1".
std::optional<bool> parseFitGamma(const std::string& text);

// "isoflop" -> IsoFlop, ...; empty optional for anything else.
std::optional<data::ExperimentSet> parseExperimentSet(const std::string& name);
std::string experimentSetName(data::ExperimentSet set);

}  // namespace scalex::analysis
