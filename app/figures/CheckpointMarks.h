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

// The control's key: "curves" (predicted from the study's loss curves and drawn, the default),
// "fitted" (drawn, and the view's fit takes them beside the measured runs, as `fit lnd|isoflop
// --from-curves` does) or "none".
inline const QString kCheckpointsControl = QStringLiteral("checkpoints");
Control checkpointsControl();
// Whether the controls ask the view's fit to take the predicted checkpoints.
bool checkpointsFitted(const Controls& controls);

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
    // Whether run `runId` has a loss curve here: its curve speaks through the checkpoints predicted
    // from it, so the fits that take them leave the run's own last loss out (a constant-rate run's
    // is no end-of-cooldown loss).
    bool hasCurve(const std::string& runId) const;
    // L(N,D) on `measured` and the checkpoints predicted at token counts (analysis::fitSurfaceWithCheckpoints
    // with the CLI's replicates and level, as `fit lnd --from-curves` fits them), or the IsoFLOP
    // profiles and laws on them at `settings.budgets` (fitIsoFlopWithCheckpoints, as `fit isoflop
    // --from-curves`). One fit per study, runs and settings (analysis::ResultCache). The error
    // names why there is none (the prediction's, or the fit's).
    template <class Result>
    struct Fitted {
        StudyCheckpoints checkpoints;
        std::shared_ptr<const Result> result;
        QString error;
    };
    Fitted<analysis::CheckpointSurfaceResult> fitSurface(std::vector<fit::LossPoint> measured, const fit::LossSurfaceSettings& settings,
                                                         const fit::FitControl& control) const;
    Fitted<analysis::CheckpointIsoFlopResult> fitIsoFlop(std::vector<fit::IsoFlopRun> measured, fit::IsoFlopSettings settings,
                                                         const fit::FitControl& control) const;
};
std::optional<CheckpointInputs> checkpointInputs(const FigureInput& in, const Controls& controls);
// Whether run `runId` has a loss curve among `sets` (CheckpointInputs::hasCurve).
bool runHasCurve(const std::vector<data::ProjectCurves>& sets, const std::string& runId);

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
