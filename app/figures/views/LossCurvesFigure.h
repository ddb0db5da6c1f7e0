#pragma once
// Loss curves: the checkpoints of each run along its training, loss over tokens or over compute,
// and the curves of the study's loss-curve files. A curve's end is the run the other views show.
#include "app/figures/ViewFigure.h"

namespace scalex::figures {

class LossCurvesFigure : public ViewFigure {
public:
    LossCurvesFigure();
    QString viewId() const override { return QStringLiteral("curves"); }
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    QString problem() const override;

    // What the last draw showed: curves, checkpoints, and the words under the chart.
    int curveCount() const { return curves_; }
    int checkpointCount() const { return checkpoints_; }
    QString summary() const override { return summary_; }

private:
    PlotChart* chart_;
    int curves_ = 0, checkpoints_ = 0;
    QString summary_;
};

}  // namespace scalex::figures
