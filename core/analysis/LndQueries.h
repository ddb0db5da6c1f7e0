#pragma once
// The options of `scalex fit lnd` that shape the fit (--huber-delta, --gamma, --grid, --exhaustive,
// --no-extrapolation) and those of its predicted checkpoints (--from-curves, --checkpoints,
// --cooldown, --curve-law, --replicates; `fit isoflop --from-curves` takes them with --budgets),
// declared once and read here for the program's verbs and the Python module alike:
//   fit lnd --from-curves ... --checkpoints ...   L(N,D) fitted to the end-of-cooldown losses a
//       schedule-aware law predicts from each model's curves (analysis/PredictedCheckpoints.h),
//       beside the measured runs given;
//   fit isoflop --from-curves ... --budgets H1,H2  IsoFLOP profiles and N*(H), D*(H) on the
//       checkpoints predicted at D = H/(6N) per model, the same way.
// Bad input throws UsageError naming the option (analysis/VerbOptions.h).
#include <QCommandLineParser>
#include <QJsonObject>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/PredictedCheckpoints.h"
#include "core/analysis/VerbOptions.h"

namespace scalex::analysis {

void addLndOptions(QCommandLineParser& p);
// The fit settings: --huber-delta and --gamma where given (written into `settings`, else the
// study's), the grid (--grid: paper or a grid file) and --exhaustive.
fit::LossSurfaceSettings lndSettings(const QCommandLineParser& p, AnalysisSettings& settings);

// The options the from-curves fits add to `fit lnd` (with --checkpoints) and `fit isoflop` (without: its --budgets).
void addFromCurvesOptions(QCommandLineParser& p, bool checkpoints = true);

// Why --checkpoints is refused without --from-curves (the verb and the query say it alike).
inline constexpr const char* kCheckpointsNeedCurves = "--checkpoints needs --from-curves (the curves whose law predicts them)";

struct LndFromCurvesAnswer {
    PredictedCheckpointsResult predicted;
    CheckpointSurfaceResult fitted;
    QJsonObject json;  // {"checkpoints", "fit"}: the object `fit lnd --from-curves --json` prints
};
// Predicts the checkpoints and fits L(N,D) to them and `measured`.
LndFromCurvesAnswer lndFromCurvesQuery(const QCommandLineParser& p, const std::vector<fit::LossPoint>& measured,
                                       const fit::LossSurfaceSettings& settings, const fit::FitControl& control = {});

struct IsoFlopFromCurvesAnswer {
    PredictedCheckpointsResult predicted;
    CheckpointIsoFlopResult fitted;
    QJsonObject json;  // {"checkpoints", "fit"}: the object `fit isoflop --from-curves --json` prints
};
// Predicts the checkpoints at --budgets and fits the IsoFLOP profiles and laws to them and
// `measured` (`settings.budgets` are set here from --budgets).
IsoFlopFromCurvesAnswer isoFlopFromCurvesQuery(const QCommandLineParser& p, const std::vector<fit::IsoFlopRun>& measured,
                                               fit::IsoFlopSettings settings, const fit::FitControl& control = {});

}  // namespace scalex::analysis
