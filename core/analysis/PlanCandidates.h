#pragma once
// Which runs to train next for a new study (issue 33, items 1–2): the law fitted on the study's
// runs in scope, each candidate (a table of planned runs, or a log-spaced N × D grid) scored by the
// expected drop of the target's squared error per unit cost (fit/RunDesign.h, V-optimal on the
// law's linearisation with an allowance for its misfit; where rival multi-start fits disagree at
// the target, plus what a run would remove of that disagreement by telling them apart), and a
// batch picked greedily: each pick joins the information matrix before the next is scored, up to
// `pick` runs or `budget` of total cost. The target is a list of points (N=7e9,D=2e12) or the rows
// of the planned-runs table a condition names (those rows are targets, not candidates).
#include <QJsonObject>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/Condition.h"
#include "core/data/LoadError.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"
#include "core/fit/LawDefinition.h"
#include "core/fit/LawFit.h"
#include "core/fit/RunDesign.h"

namespace scalex::analysis {

// One log-spaced axis of the candidate grid: `count` values from lo to hi.
struct GridAxis {
    double lo = 0, hi = 0;
    std::size_t count = 0;
};
// "LO:HI:K" with 0 < LO <= HI and K >= 1 (K = 1 needs LO = HI); the error says what is wrong.
data::Expected<GridAxis> parseGridAxis(const std::string& text);

// A target point: "N=7e9,D=2e12" (names as the law's formula reads them).
using TargetPoint = std::map<std::string, double>;
data::Expected<TargetPoint> parseTargetPoint(const std::string& text);

struct PlanCandidatesOptions {
    std::optional<std::string> groupColumn;  // one plan per value; none: one plan on every run in scope
    std::vector<TargetPoint> targetPoints;     // the target: points ...
    std::vector<RowCondition> targetRows;    // ... or the planned runs meeting all of these
    std::optional<GridAxis> gridN, gridD;    // the candidates when no planned-runs table is given
    std::string cost;                        // expression over columns; empty: the table's cost column, else 6*N*D
    std::optional<double> budget;            // total cost of the batch, per group
    std::optional<std::size_t> pick;         // runs per batch; none: 5, or as many as the budget allows
    // Simulate the batch before spending (item 3): this many seeds (0: no simulation), each drawing
    // the law's parameters from the fit's uncertainty (a bootstrap replicate) and the batch's
    // losses from them plus the residual noise, refitting, and scoring the target against the drawn law; beside random and
    // cheapest-first batches of the same cost on the same draws.
    std::size_t simulate = 0;
    std::uint64_t seed = 1;
    // Rival fits: refined multi-start optima whose objective lies within this fraction of the best's
    // and whose predictions differ from it (the runs do not decide between them).
    double rivalTolerance = 0.05;
    fit::DesignModel design;  // what the ranking assumes beyond the law (its misfit)
    fit::LawFitSettings fit;
};

struct CandidatePick {
    std::string run;     // the planned run's label, or "N=…,D=…" on the grid
    double n = 0, d = 0; // NaN where the planned run has none
    double cost = 0;
    // The drop of the target's expected squared error (fit/RunDesign.h, with the law's misfit) plus
    // what the run removes of the rival fits' disagreement at the target, per unit cost, when picked.
    double score = 0;
    double reduction = 0;  // that drop as a fraction of the error and disagreement before the batch
    double separated = 0;  // the part of `reduction` that separating the rival fits removes
    std::vector<double> halfWidthAfter;  // per target point, with the picks so far
    // How far apart the best fit and its most distant rival predict at this run, in residual
    // standard deviations (in the law's space); 0 without rivals. One run here separates them by that.
    double separation = 0;
    std::string why;
};

struct RivalFit {
    double objectiveRatio = 1;  // its objective over the best's
    std::vector<double> params;
    std::vector<double> predicted;  // per target point
};

// What a batch left in the simulation, over the seeds: the median of each quantity, and the spread
// (quartiles) of the target's error.
struct SimulatedBatch {
    std::string strategy;        // planner, random, cheapest
    double runs = 0, spent = 0;  // medians (random batches differ by seed)
    // Per target point: the 95 % half-width of the refitted law's prediction (its curvature), and
    // |prediction − the drawn law's value| with its quartiles.
    std::vector<double> halfWidth, error, errorLow, errorHigh;
    std::size_t failed = 0;  // seeds whose refit did not converge (left out of the medians)
};

struct CandidateTarget {
    std::string label;
    double predicted = 0;                       // the law's prediction at the current fit
    double halfWidthBefore = 0, halfWidthAfter = 0;  // 95 % interval half-widths (linearisation)
};

struct PlanCandidatesGroup {
    std::string name;
    std::size_t runs = 0, candidates = 0;
    std::vector<double> params;
    std::vector<CandidateTarget> targets;
    std::vector<CandidatePick> picks;
    double spent = 0;
    double misfit = 0;                          // τ / σ the ranking assumed (--misfit, or estimated from the runs)
    std::vector<RivalFit> rivals;               // most alike first
    // With rivals: the cheapest affordable candidate that separates them by 3 residual SDs or more,
    // else the one that separates them most.
    std::optional<CandidatePick> separating;
    std::vector<SimulatedBatch> simulated;  // planner, random, cheapest (options.simulate > 0 and a batch picked)
    std::string error;  // the group could not be planned; nothing else is set
};

struct PlanCandidates {
    fit::LawDefinition law;
    std::string target;  // the column the law predicts
    std::string cost;
    PlanCandidatesOptions options;
    std::vector<PlanCandidatesGroup> groups;
    std::vector<std::string> skipped;  // study runs or planned runs without a number the law or the cost needs
    std::optional<std::string> error;  // why nothing could be planned (one line)
};

// `planned`: the table of planned runs (their losses are not read); null: the grid of the options.
PlanCandidates planCandidates(const data::RunTable& study, const AnalysisSettings& settings, const fit::LawDefinition& law,
                              const PlanCandidatesOptions& options, const data::RunTable* planned = nullptr,
                              const fit::FitControl& control = {});

// {law, target, cost, budget, pick, groups: [{name, runs, candidates, params, spent, targets: [{label,
// predicted, halfwidth_before, halfwidth_after}], picks: [{run, N, D, cost, score, reduction,
// separated, halfwidth_after, separation, why}], rivals: [{objective_ratio, params{}, predicted[]}], separating:
// {run, N, D, cost, separation, why} (with rivals), simulated: [{strategy, runs, spent, halfwidth[], error[], error_low[],
// error_high[], failed}], error}], skipped, simulate, seed}
QJsonObject toJson(const PlanCandidates& plan);

// The picks as a table of planned runs, to load beside the study (the views draw a run with N and D
// and no loss yet as planned): name (group, order, N, D), the group column (`groupColumn`, when the
// plan was grouped by one) with the group's name, params, tokens, cost, the target's 95 %
// half-width after the pick (first target), and an empty loss.
std::string pickedRunsCsv(const PlanCandidates& plan);

}  // namespace scalex::analysis
