#pragma once
// Loss curves: the checkpoints of each run along its training, loss over tokens or over compute.
// A curve's end is the run the other views show (and select).
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
    QString viewId() const override { return QStringLiteral("curves"); }
    QString title() const override { return tr("Loss curves"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    int curveCount() const { return curves_; }

private:
    void redraw();
    Session* session_;
    PlotChart* chart_;
    PlotView* view_;
    QComboBox* axis_;
    QLabel* summary_;
    int curves_ = 0, checkpoints_ = 0;
};

}  // namespace scalex::gui
