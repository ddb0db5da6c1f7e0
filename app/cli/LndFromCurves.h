#pragma once
// `scalex fit lnd --from-curves ... --checkpoints ...`: L(N,D) fitted to the end-of-cooldown
// losses a schedule-aware law predicts from each model's curves (analysis/PredictedCheckpoints.h),
// beside the measured runs of --data where given; predicted points are marked in the text and JSON.
// `scalex fit isoflop --from-curves ... --budgets H1,H2`: IsoFLOP profiles and N*(H), D*(H) on the
// checkpoints predicted at D = H/(6N) per model, the same way.
#include <QCommandLineParser>
#include <vector>

#include "core/analysis/LndQueries.h"

namespace scalex::cli {

// The options the verb adds to `fit lnd` and `fit isoflop` (analysis/LndQueries.h).
using analysis::addFromCurvesOptions;
// Predicts the checkpoints, fits L(N,D) to them and `measured`, prints; returns the exit code.
int runLndFromCurves(const QCommandLineParser& p, const std::vector<fit::LossPoint>& measured, const fit::LossSurfaceSettings& settings);
// Predicts the checkpoints at --budgets, fits the IsoFLOP profiles and laws to them and `measured`
// (`settings.budgets` are set here from --budgets), prints; returns the exit code.
int runIsoFlopFromCurves(const QCommandLineParser& p, const std::vector<fit::IsoFlopRun>& measured, fit::IsoFlopSettings settings);

}  // namespace scalex::cli
