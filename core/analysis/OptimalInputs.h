#pragma once
// The series a compute-optimal query (ComputeOptimal.h) answers for, read from a study: each of
// the study's series with the IsoFLOP laws and the L(N,D) surface of its own runs, fitted by the
// same analyses as the IsoFLOP and loss-surface views (SeriesAnalyses.h), and the paper's models
// where the query asks for them. The figure and the verb make the same call, so a series' answer
// depends on the study, the analysis settings and the query alone (not on which view fitted first).
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"
#include "core/fit/FitControl.h"

namespace scalex::analysis {

// For each (series, context) group of the runs in the settings' scope (seriesGroups), in order:
//  - its IsoFLOP laws N*(H), D*(H): isoFlopAnalysis of its IsoFLOP runs (studySet), with the runs
//    behind them for the bootstrap intervals; or why there are none (no profiles, one budget);
//  - its surface: groupSurface (SurfaceFits.h), lossSurfaceAnalysis of its token/param runs at the
//    settings' Huber δ and γ over query.surfaceFit's grid, with query.fitSurfaces; else the fit
//    kept for the same runs and settings, or left pending for fitOptimalSurfaces;
//  - c(N) from its runs' own C/D (computePerTokenOfRuns), so C follows the table's FLOP convention;
//    where every run of the series names a spec (data/RunSpecs.h), c_T(N) of those specs
//    (seriesSpecLadder, ladderComputePerToken) at the runs' context.
// Then, with query.paperModels, the paper's Transformer and xLSTM: the surfaces of Tab.
// lnd_fit_params at the settings' Huber δ (1e-3 where the paper has no other), the IsoFLOP laws
// at query.context (paperOptimalLaws) and the exact count c_T(N) of the paper's model
// configurations under the settings' FLOP convention. Beside another study's series they are named
// "Transformer (paper)", "xLSTM (paper)"; on the paper's study (query.paperStudy) they answer for
// its Transformer and xLSTM series, under those names, in place of fits to its runs. Last, each of
// query.ladders as "<name> (ladder, Transformer surface)": c_T(N) of its rungs
// (ladderComputePerToken) on the paper's surface of query.ladderSurface.
std::vector<OptimalSeriesInput> optimalInputs(const data::RunTable& table, const AnalysisSettings& settings,
                                              const data::PaperTables& paper, const OptimalQuery& query,
                                              const fit::FitControl& control = {});

// Fits the surfaces optimalInputs left pending (query.fitSurfaces false): the same fits it makes
// otherwise, kept for the next query of the same runs and settings. Each fit reports
// its group as a phase of `control`.
void fitOptimalSurfaces(std::vector<OptimalSeriesInput>& inputs, const data::RunTable& table, const AnalysisSettings& settings,
                        const OptimalQuery& query, const fit::FitControl& control = {});

// optimalInputs, then answerOptimalQuery.
OptimalAnswer answerOptimalQuery(const data::RunTable& table, const AnalysisSettings& settings, const data::PaperTables& paper,
                                 const OptimalQuery& query, const fit::FitControl& control = {});

}  // namespace scalex::analysis
