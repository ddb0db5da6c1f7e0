#pragma once
// The context-length analysis of a study (Sec. "Compute-optimal models across context lengths"),
// as the context view and `scalex fit context` run it: each family's L(N,D) fitted to its own runs
// (SurfaceFits.h: the paper's surface stands in on the paper's study alone), its IsoFLOP profiles
// recounted at each context, N*(H) at T and the trend of N*, D* over context lengths at a budget.
// The options' defaults are written here once.
#include <optional>
#include <utility>
#include <vector>

#include "core/accounting/Family.h"
#include "core/analysis/ContextAnalysis.h"
#include "core/analysis/SurfaceFits.h"

namespace scalex::analysis {

class Study;

// The contexts of the trend: 512 to 131072 tokens, kContextStepsPerOctave per octave, each the
// nearest multiple of 64.
inline constexpr int kContextStepsPerOctave = 4;
inline constexpr double kMinTrendContext = 512;
inline constexpr int kTrendOctaves = 8;
std::vector<double> contextTrendGrid();

struct ContextOptions {
    double context = 8192;                          // T of N*(H) and of the recounted law
    double budget = 1e22;                           // H of the trend over contexts
    std::vector<double> contexts = contextTrendGrid();  // of the trend
};

// What the analysis reads besides the runs, copied from the study (on the calling thread; the
// analysis may then run on a worker thread with a copy of the runs).
struct ContextRequest {
    std::vector<ContextSeriesInput> inputs;  // Transformer, xLSTM: their IsoFLOP runs (no surface yet)
    std::vector<std::optional<fit::LossSurfaceParams>> paper;  // per input: the paper's surface on the paper's study
    // The project's model specs, each as a ladder whose c_T(N) moves N* on the Transformer's surface.
    std::vector<ContextSeriesInput> ladders;
    // The series of no family whose runs name their specs (data/RunSpecs.h): each on its own
    // surface (groupSurface of surfaceGroup) with c_T(N) of its runs' specs.
    std::vector<ContextSeriesInput> seriesLadders;
    ContextQuery query;
};
ContextRequest contextRequest(const Study& study, const ContextOptions& options);

struct ContextResult {
    ContextAnswer answer;  // the families with a surface
    std::vector<std::pair<accounting::Family, FamilySurface>> surfaces;  // every family's, or why none
    std::vector<std::pair<std::string, GroupSurface>> seriesSurfaces;     // every seriesLadders' one, or why none
    bool cancelled = false;
};
ContextResult contextAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const ContextRequest& request,
                              const fit::FitControl& control = {});

}  // namespace scalex::analysis
