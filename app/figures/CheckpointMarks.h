#pragma once
// Predicted checkpoints in the L(N,D) and IsoFLOP views: when the study has loss curves, each
// model's end-of-cooldown losses its schedule-aware law predicts (analysis::predictStudyCheckpoints,
// the code and defaults of `scalex fit lnd|isoflop --from-curves`), offered by a control, predicted
// by a job on a worker thread and drawn as hollow markers ("predicted from curves"), with their
// interval as error bars where the chart's vertical axis is the loss.
#include <QColor>
#include <QPointF>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "app/figures/ViewFigure.h"
#include "core/analysis/PredictedCheckpoints.h"

namespace scalex::figures {

class PlotChart;

// The control's key: "curves" (predicted from the study's loss curves, the default) or "none".
inline const QString kCheckpointsControl = QStringLiteral("checkpoints");
Control checkpointsControl();

// What the job gives: the checkpoints, or why there are none (no error and no result: not asked).
struct StudyCheckpoints {
    std::shared_ptr<const analysis::PredictedCheckpointsResult> result;
    QString error;
};

// What the prediction reads, copied on the calling thread for a worker's: none when the control
// says none or the study has no loss curves.
struct CheckpointInputs {
    std::vector<data::ProjectCurves> sets;
    std::shared_ptr<const data::RunTable> table;
    // At `budgets` where given, else placed by `placement` (predictStudyCheckpoints).
    StudyCheckpoints predict(analysis::CheckpointPlacement placement, std::vector<double> budgets, const fit::FitControl& control) const;
};
std::optional<CheckpointInputs> checkpointInputs(const FigureInput& in, const Controls& controls);

// The job predicting the study's checkpoints at token counts placed by predictStudyCheckpoints;
// empty where checkpointInputs() gives none.
JobOf<StudyCheckpoints> checkpointsJob(const FigureInput& in, const Controls& controls);

// Hollow markers at at(c) for every checkpoint, in colourOf(c) (where given, e.g. its budget's;
// else the text's colour), one legend entry "predicted from curves"; with `bars`, a vertical bar
// from at(c) with the loss at c.lower to the same with c.upper (at() is called with the
// checkpoint's loss replaced). Adds nothing without checkpoints.
void drawCheckpoints(PlotChart* chart, const StudyCheckpoints& checkpoints,
                     const std::function<QPointF(const analysis::PredictedCheckpoint&)>& at, bool bars,
                     const std::function<QColor(const analysis::PredictedCheckpoint&)>& colourOf = {});

// A sentence for the summary: how many checkpoints of how many models are drawn, or why none.
QString checkpointsSummary(const StudyCheckpoints& checkpoints);

// The Explain pane's paragraph on them (empty when the study has no loss curves or they are off).
QString checkpointsExplain(const StudyCheckpoints& checkpoints);

}  // namespace scalex::figures
