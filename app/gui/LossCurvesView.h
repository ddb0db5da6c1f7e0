#pragma once
// Loss curves: the checkpoints of each run along its training, loss over tokens or over compute.
// A curve's end is the run the other views show (and select).
#include <cstdint>
#include <memory>

#include "app/figures/views/LossCurvesFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"

class QComboBox;
class QLabel;

namespace scalex::gui {

class Session;
class PlotView;

class LossCurvesView : public ViewPanel {
    Q_OBJECT
public:
    explicit LossCurvesView(Session* session, QWidget* parent = nullptr);
    ~LossCurvesView() override;
    QString viewId() const override { return QStringLiteral("curves"); }
    QString title() const override { return tr("Loss curves"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    int curveCount() const { return figure_->curveCount(); }
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;
    void computeNow() override { jobs_->finish(); }

    // Studies of fewer rows than this are drawn at once; the curves of larger ones are gathered on
    // a worker thread and drawn when they come (the chart shows the curves it had meanwhile).
    static constexpr std::size_t kDrawAtOnceRows = 100'000;

private:
    // Gathers the curves again (the runs, the settings or the axis changed), once per change of the session.
    void recompute();
    void redraw();
    Session* session_;
    std::unique_ptr<figures::LossCurvesFigure> figure_;
    ControlBinding* controls_;
    PlotView* view_;
    QLabel* summary_;
    JobRunner<figures::LossCurvesFigure::Answer>* jobs_;
    std::uint64_t computedAt_ = ~std::uint64_t{0};  // Session::changeCount() when the curves were last gathered
    std::uint64_t drawnAt_ = ~std::uint64_t{0};     // and when last drawn
};

}  // namespace scalex::gui
