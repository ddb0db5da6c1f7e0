#pragma once
// Loss curves: the checkpoints of each run along its training, loss over tokens or over compute,
// and the curves of the study's loss-curve files. A curve's end is the run the other views show.
#include <QPointF>
#include <string>
#include <vector>

#include "app/figures/ViewFigure.h"

namespace scalex::figures {

class LossCurvesFigure : public FigureWithAnswer<LossCurvesFigure> {
public:
    // The runs' curves ready to draw: gathered from every checkpoint of the runs in scope and
    // decimated for drawing (a million checkpoints take a few hundred milliseconds: the window
    // gets them on a worker thread), from the smallest model to the largest.
    struct Curve {
        std::string series, run;
        std::vector<QPointF> line;  // data units over the axis asked for, decimated
        QPointF end;                // the last checkpoint (the run the other views show)
        int endRun = -1;            // its index in the study's runs
        int checkpoints = 0;        // before decimation
    };
    struct Answer {
        std::vector<Curve> curves;
    };

    LossCurvesFigure();
    QString viewId() const override { return QStringLiteral("curves"); }
    // The curves of the runs in scope over the axis the controls choose, as a job holding a copy
    // of what it reads.
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer) { answer_ = std::move(answer); }
    // The curves are gathered again for another axis.
    QJsonObject jobControls() const override;
    // Studies of fewer rows than this are drawn at once; the curves of larger ones are gathered on
    // a worker thread and drawn when they come (the chart shows the curves it had meanwhile).
    static constexpr std::size_t kDrawAtOnceRows = 100'000;
    bool answersAtOnce(const FigureInput& in) const override;
    // Draws the answer taken last and the study's curve sets.
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    QString problem() const override;

    // What the last draw showed: curves, checkpoints, and the words under the chart.
    int curveCount() const { return curves_; }
    int checkpointCount() const { return checkpoints_; }
    QString summary() const override { return summary_; }

private:
    PlotChart* chart_;
    Answer answer_;
    int curves_ = 0, checkpoints_ = 0;
    QString summary_;
};

}  // namespace scalex::figures
