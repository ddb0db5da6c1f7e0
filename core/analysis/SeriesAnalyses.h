#pragma once
// The analyses of a study, one per series and training context length in scope (DESIGN.md "The
// shape"): IsoFLOP laws, L(N,D) fits, over-training slopes and Pareto frontiers. The window, the
// verbs and the figure recipes call these, so the same runs and settings give the same numbers by
// every path. No analysis mixes context lengths: a series whose runs were trained at several
// contexts is analysed at each apart (runs with no context given form a group of their own).
#include <QJsonObject>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelConfig.h"
#include "core/accounting/ModelSpec.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/KeptRuns.h"
#include "core/analysis/RunSelection.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/Extrapolation.h"
#include "core/fit/FitControl.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LossSurface.h"
#include "core/fit/Outliers.h"
#include "core/fit/OvertrainingSlopes.h"
#include "core/fit/Pareto.h"
#include "core/fit/PowerLaw.h"

namespace scalex::analysis {

// One group of runs an analysis looks at.
struct SeriesGroup {
    std::string series;
    double context = data::kUnknown;  // NaN: the runs give no context length
    RunFilter filter;                 // the runs of the group
    // "Transformer, T = 8192": the series as people read it and the context where known.
    std::string label() const;
};

// The (series, context) groups with runs in the settings' scope, series in order of first
// appearance, contexts ascending. `set` narrows them to one experiment set where the scope names none.
std::vector<SeriesGroup> seriesGroups(const data::RunTable& table, const AnalysisSettings& settings,
                                      std::optional<data::ExperimentSet> set = std::nullopt);

// A run left out of a fit as an outlier, with the reason.
struct FlaggedRun {
    const data::Run* run = nullptr;
    fit::RunOutlier outlier;
};

// The runs of `filter` (or a group), narrowed to the run set an analysis is made for (IsoFLOP
// profiles: the IsoFLOP runs; L(N,D) and over-training: the token/param runs) where the study
// names that set among them and the scope names none, as the paper does. A study that names no
// sets is analysed whole. The plural analyses below (and the verbs) apply it; the per-group ones
// take the group as given.
RunFilter studySet(const data::RunTable& table, RunFilter filter, data::ExperimentSet set);
SeriesGroup studySet(const data::RunTable& table, SeriesGroup group, data::ExperimentSet set);

// ---- IsoFLOP --------------------------------------------------------------------------------

struct IsoFlopAnalysis {
    SeriesGroup group;
    fit::IsoFlopSettings settings;          // as used: the budgets of the runs, the settings' range
    fit::IsoFlopResult result;
    std::vector<const data::Run*> runs;     // the run behind each input point (outliers not among them)
    std::vector<std::string> skipped;       // in scope but lacking N, D, C or loss
    std::vector<FlaggedRun> outliers;       // far from their profile, left out (keepOutliers: none)
    // How well the laws extrapolate: refitted without the largest budget, predicting its optimum.
    fit::IsoFlopExtrapolation extrapolation;
    std::vector<const data::Run*> notBestOfSweep;  // in scope, left out for their sweep's best (Run::sweepLeftOut)
};

// The IsoFLOP settings for a set of runs: the nominal budgets the runs carry (their file's budget
// column, else the study's buckets of C) unless `base` lists budgets; the budget range of
// `settings`; the tolerance widened (up to 0.5) so that every run keeps its file's budget.
fit::IsoFlopSettings isoFlopSettingsFor(const std::vector<const data::Run*>& runs, const AnalysisSettings& settings,
                                        const fit::IsoFlopSettings& base = {}, bool budgetsGiven = false);
// Kept in ResultCache by the group's runs and the settings (KeptRuns.h): asked again for the same
// runs and settings, by any view, export or verb, it is not computed again.
IsoFlopAnalysis isoFlopAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                const fit::IsoFlopSettings& base = {}, bool budgetsGiven = false);
// The same computed afresh and not kept (what the kept result is, to the last digit).
IsoFlopAnalysis computeIsoFlopAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                       const fit::IsoFlopSettings& base = {}, bool budgetsGiven = false);
std::vector<IsoFlopAnalysis> isoFlopAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                             const fit::IsoFlopSettings& base = {}, bool budgetsGiven = false);

// Intervals of the laws (a, A, b, B) and of N*, D* at each query budget: the runs resampled within
// each budget (fit::bootstrapIsoFlop); kept in ResultCache by the runs' values and the settings. Takes the fit's input, so it can run off a GUI thread on a copy.
fit::BootstrapResult isoFlopIntervals(std::span<const fit::IsoFlopRun> runs, const fit::IsoFlopSettings& settings,
                                      std::span<const double> queryBudgets, const fit::BootstrapSettings& bootstrap);

// Context length moves a Transformer's compute and not its runs: the IsoFLOP profiles of a group
// (its optimum N* and the runs, as architecture and tokens, behind its compute), so that the
// budgets can be recounted at another context with the same N*.
struct RecountableProfile {
    double nOpt = 0;
    std::vector<std::pair<accounting::ModelSpec, double>> runs;  // architecture, tokens
};
// The group's profiles (isoFlopAnalysis: outliers left out unless kept) whose runs name an
// architecture the accounting knows: the spec a run names (data/RunSpecs.h), else its family's
// configuration from its columns (data::runArchitecture).
std::vector<RecountableProfile> recountableProfiles(const data::RunTable& table, const AnalysisSettings& settings,
                                                    const SeriesGroup& group);
// The profiles' budgets recounted at context T (each the mean training FLOPs of its runs), their
// optima, and the law N*(H) through them (two profiles or more).
struct RecountedLaw {
    std::vector<double> budgets, optima;
    std::optional<fit::PowerLaw> law;
};
RecountedLaw recountAtContext(const std::vector<RecountableProfile>& profiles, double context,
                              const accounting::FlopConvention& convention);

// The paper's observation that the compute-optimal models of several series lie close to one
// curve of loss over size: L* = λ N*^(−η) (or over D*) through every fitted profile minimum of
// `results`. None with fewer than three minima.
std::optional<fit::PowerLaw> sharedMinimaLaw(const std::vector<const fit::IsoFlopResult*>& results, bool overTokens);

// The IsoFLOP profile at any budget H, from the fitted ones: its minimum from the power laws
// N*(H), D*(H), the loss there from a power law of the profiles' minimum losses over their
// compute, and the curvature interpolated in log H between the fitted profiles (held at the
// nearest one outside them). The parabola is loss over log10 N (or log10 D for `overTokens`).
// None without both laws or with fewer than two fitted profiles.
struct BudgetProfile {
    double budget = 0, nOpt = 0, dOpt = 0, lossAtOpt = 0;
    fit::Parabola parabola;
};
std::optional<BudgetProfile> profileAtBudget(const fit::IsoFlopResult& result, double budget, bool overTokens);

// Planned runs (N and D known, no loss yet: what `plan --out` and `plan --design --out` write) of
// `series`, as indices into `runs`.
std::vector<int> plannedRuns(const data::RunTable& runs, const std::string& series);

// The planned runs of `series` placed on the IsoFLOP profiles: each at its budget (its C, else
// 6ND), and the loss the profile at that budget (profileAtBudget) predicts at its N (or D for
// `overTokens`); NaN where there is no profile at its budget (too few fitted profiles).
struct PlannedProfilePoint {
    int run = -1;  // index into the run table
    double budget = 0, n = 0, d = 0, loss = std::numeric_limits<double>::quiet_NaN();
};
std::vector<PlannedProfilePoint> plannedOnProfiles(const data::RunTable& runs, const std::string& series, const fit::IsoFlopResult& result, bool overTokens);

// ---- L(N,D) ---------------------------------------------------------------------------------

struct LossSurfaceAnalysis {
    SeriesGroup group;
    fit::LossSurfaceFit fit;
    std::vector<fit::LossPoint> points;
    std::vector<const data::Run*> runs;
    std::vector<std::string> skipped;
    std::vector<FlaggedRun> outliers;  // far from the surface fitted to every run, left out (keepOutliers: none)
    std::optional<std::string> error;  // too few runs to fit
    // How well the surface extrapolates (checkExtrapolation): none until checked.
    std::optional<fit::LossSurfaceExtrapolation> extrapolation;
    std::vector<const data::Run*> notBestOfSweep;  // in scope, left out for their sweep's best (Run::sweepLeftOut)
};

// The fit settings the analysis settings give (Huber delta, gamma), over `base` (grid, stops); without
// a base, over the paper's grid and stops (made here, so that app code that asks builds no grid).
fit::LossSurfaceSettings lossSurfaceSettings(const AnalysisSettings& settings, fit::LossSurfaceSettings base);
fit::LossSurfaceSettings lossSurfaceSettings(const AnalysisSettings& settings);
// Kept in ResultCache by the group's runs, the settings and the fit settings, as isoFlopAnalysis (a
// cancelled fit is handed back and not kept); computeLossSurfaceAnalysis afresh.
LossSurfaceAnalysis lossSurfaceAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                        const fit::LossSurfaceSettings& fitSettings, const fit::FitControl& control = {});
LossSurfaceAnalysis computeLossSurfaceAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                               const fit::LossSurfaceSettings& fitSettings, const fit::FitControl& control = {});
// The fit settings as the key of a kept result (ResultCache.h).
QJsonObject lossSurfaceSettingsJson(const fit::LossSurfaceSettings& settings);
std::vector<LossSurfaceAnalysis> lossSurfaceAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                                     const fit::LossSurfaceSettings& fitSettings,
                                                     const fit::FitControl& control = {});

// Checks how well the analysis' surface extrapolates: the same fit without the largest model size,
// predicting its runs (fit::extrapolateLossSurface with the fit's settings). Costs a second fit, so
// it is asked for apart; nothing when the analysis has no fit or was cancelled.
void checkExtrapolation(LossSurfaceAnalysis& analysis, const fit::LossSurfaceSettings& fitSettings,
                        const fit::FitControl& control = {});

// The runs a loss-surface view draws for one series group: those in `filter` with N and D,
// split into the fitted and those the fit left out (`leftOut`, indices into `runs`), and the box
// that holds them with a factor of two to spare on each side (that of 1e8..1e9 x 1e9..1e10 when
// there are none).
// The runs the loss surface draws: fitted, left out as outliers, and planned (runs of the series
// with N and D but no loss yet, as `plan --out` and `plan --design --out` write them); the box
// spans all three.
struct SurfaceRunPoints {
    std::vector<int> fitted, leftOut, planned;
    double nLo = 5e7, nHi = 2e9, dLo = 5e8, dHi = 2e10;
};
SurfaceRunPoints surfaceRunPoints(const data::RunTable& runs, const RunFilter& filter, const std::vector<int>& leftOut);

// L̂(N, D) at the centres of a `width` x `height` grid over [nLo, nHi] x [dLo, dHi], both axes
// logarithmic: N grows along a row, D shrinks down a column (row 0 is dHi, as an image is drawn).
// `values` is row-major; `lo` and `hi` are the smallest and largest finite value.
struct LossGrid {
    int width = 0, height = 0;
    std::vector<double> values;
    double lo = 0, hi = 0;
};
LossGrid lossGrid(const fit::LossSurfaceParams& surface, double nLo, double nHi, double dLo, double dHi, int width, int height);

// What the loss surface view draws over the surface in the N-D plane: iso-FLOP lines c(N)·D = H at
// the given budgets, and the compute-optimal path (N*, D*) for budgets across the plane, each
// clipped to the box [nLo, nHi] x [dLo, dHi]. Points are (N, D).
struct SurfaceGuides {
    struct Line {
        double budget = 0;
        std::vector<std::pair<double, double>> points;
    };
    std::vector<Line> isoFlopLines;                      // the budgets with two points or more in the box
    std::vector<std::pair<double, double>> optimalPath;  // ascending budget
};
SurfaceGuides surfaceGuides(const fit::LossSurfaceParams& surface, const fit::PowerLaw& computePerToken,
                            std::span<const double> budgets, double nLo, double nHi, double dLo, double dHi);

// Training compute per token as a function of N, from the runs themselves (C / D, a power law
// fitted over the runs of `filter` with both), so iso-FLOP lines follow the table's own FLOP
// convention; 6N where no run carries both.
fit::PowerLaw computePerTokenOfRuns(const data::RunTable& table, const RunFilter& filter);

// 95 % (settings.level) intervals of the surface's parameters: the analysis' runs resampled and
// refitted (fit::bootstrapLossSurface), "logA" … "gamma"; kept in ResultCache by the fit's points
// and optimum and the settings (cancelled: none, not kept).
fit::BootstrapResult surfaceIntervals(const LossSurfaceAnalysis& analysis, const fit::LossSurfaceSettings& fitSettings,
                                      const fit::BootstrapSettings& bootstrap, const fit::FitControl& control = {});

// ---- over-training slopes -------------------------------------------------------------------

struct SlopeAnalysis {
    SeriesGroup group;
    fit::SlopeResult result;
    std::vector<fit::ComputeLossPoint> points;  // the runs fitted (outliers not among them)
    std::vector<const data::Run*> runs;
    std::vector<FlaggedRun> outliers;  // off their ratio group's line, left out (keepOutliers: none)
    // How well each line extrapolates: fitted without its largest-compute run, predicting it.
    std::vector<fit::SlopePrediction> extrapolation;
    std::vector<const data::Run*> notBestOfSweep;  // in scope, left out for their sweep's best (Run::sweepLeftOut)
};
// Intervals of η per ratio ("eta(M)"), the runs resampled within each ratio group; kept in
// ResultCache by the analysis' points and the settings.
fit::BootstrapResult slopeIntervals(const SlopeAnalysis& analysis, const fit::SlopeSettings& settings,
                                    const fit::BootstrapSettings& bootstrap);
// Kept in ResultCache by the runs and settings, as isoFlopAnalysis; computeSlopeAnalyses afresh.
std::vector<SlopeAnalysis> slopeAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                         const fit::SlopeSettings& slopeSettings = {});
std::vector<SlopeAnalysis> computeSlopeAnalyses(const data::RunTable& table, const AnalysisSettings& settings,
                                                const fit::SlopeSettings& slopeSettings = {});

// ---- Pareto ---------------------------------------------------------------------------------

struct ParetoAnalysis {
    SeriesGroup group;
    std::vector<fit::ComputeLossPoint> points;
    std::vector<const data::Run*> runs;
    std::vector<fit::FrontierPoint> frontier;  // indices into points / runs
    std::vector<const data::Run*> notBestOfSweep;  // in scope, left out for their sweep's best (Run::sweepLeftOut)
};
// Kept in ResultCache by the runs and settings, as isoFlopAnalysis; computeParetoAnalyses afresh.
std::vector<ParetoAnalysis> paretoAnalyses(const data::RunTable& table, const AnalysisSettings& settings);
std::vector<ParetoAnalysis> computeParetoAnalyses(const data::RunTable& table, const AnalysisSettings& settings);

// Which two frontiers a comparison sets side by side: the study's families as the paper does
// (A = xLSTM, B = Transformer), else the first two groups. Empty when there are fewer than two.
std::optional<std::pair<std::size_t, std::size_t>> comparedPair(const std::vector<ParetoAnalysis>& analyses);

// The comparison the Pareto view and `fit pareto` report: the compared pair's frontiers
// (fit::compareFrontiers) and, with resamples, the bootstrap intervals of the ratios
// (fit::bootstrapParetoRatio). Empty when fewer than two groups.
struct SeriesComparison {
    std::size_t a = 0, b = 0;  // into the analyses (comparedPair)
    fit::FrontierComparison comparison;
    fit::BootstrapResult intervals;  // none when bootstrap.resamples is 0
};
// Kept in ResultCache by the pair's points and the settings (a cancelled comparison is not kept).
std::optional<SeriesComparison> compareSeries(const std::vector<ParetoAnalysis>& analyses, const fit::BootstrapSettings& bootstrap,
                                              int samples = 50, const fit::FitControl& control = {});
// The comparison of `pair` computed afresh and not kept.
SeriesComparison compareSeriesUncached(const std::vector<ParetoAnalysis>& analyses, std::pair<std::size_t, std::size_t> pair,
                                       const fit::BootstrapSettings& bootstrap, int samples = 50, const fit::FitControl& control = {});

// The run pointers each result holds, in one fixed order: a result kept in ResultCache keeps them
// as indices (KeptRuns.h).
void visitRuns(IsoFlopAnalysis& analysis, const RunVisitor& visit);
void visitRuns(LossSurfaceAnalysis& analysis, const RunVisitor& visit);
void visitRuns(SlopeAnalysis& analysis, const RunVisitor& visit);
void visitRuns(ParetoAnalysis& analysis, const RunVisitor& visit);

// ---- loss curves ----------------------------------------------------------------------------

// A run's training curve from a table of checkpoints: its rows in step order, the last being the
// run the other analyses use.
struct LossCurve {
    std::string series;
    std::string run;  // run id, else name
    struct Point {
        double step, tokens, flops, loss;
        const data::Run* row;  // the row where it is a full run; null for a compact checkpoint
    };
    std::vector<Point> checkpoints;        // ascending step; back() is the run itself
    const data::Run* lastRun = nullptr;     // the full run of the latest checkpoint
    const data::Run* last() const { return lastRun; }
};
// The curves of the runs in scope that have more than one checkpoint, in order of first appearance.
std::vector<LossCurve> lossCurves(const data::RunTable& table, const AnalysisSettings& settings);

}  // namespace scalex::analysis
