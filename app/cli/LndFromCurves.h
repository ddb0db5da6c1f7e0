#pragma once
// `scalex fit lnd --from-curves ... --checkpoints ...`: L(N,D) fitted to the end-of-cooldown
// losses a schedule-aware law predicts from each model's curves (analysis/PredictedCheckpoints.h),
// beside the measured runs of --data where given; predicted points are marked in the text and JSON.
#include <QCommandLineParser>
#include <vector>

#include "core/analysis/PredictedCheckpoints.h"

namespace scalex::cli {

// The options the verb adds to `fit lnd`.
void addFromCurvesOptions(QCommandLineParser& p);
// Predicts the checkpoints, fits L(N,D) to them and `measured`, prints; returns the exit code.
int runLndFromCurves(const QCommandLineParser& p, const std::vector<fit::LossPoint>& measured, const fit::LossSurfaceSettings& settings);

}  // namespace scalex::cli
