#pragma once
// How the compute-optimal model size moves with the context length (the paper's Fig. 5): a
// slider over T recounts the training FLOPs per token of both families under the session's
// convention and re-solves N*(H), D*(H) on the loss surface; the study's own per-context
// IsoFLOP fits are drawn where the paper has them (T = 2048, 8192, 16384).
#include "app/gui/ViewPanel.h"

class QSlider;
class QLabel;
class QComboBox;

namespace scalex::gui {

class Session;
class PlotChart;
class PlotView;

class ContextView : public ViewPanel {
    Q_OBJECT
public:
    explicit ContextView(Session* session, QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("context"); }
    QString title() const override { return tr("Context length"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;

    double context() const;
    void setContext(double tokens);  // snaps to the slider's grid
    double budget() const;
    // N* of a family at the current context and budget (what the view shows).
    double optimalParams(bool xlstm) const;

    static double contextAt(int sliderPosition);
    static int positionOf(double context);

private:
    void recompute();

    Session* session_;
    QSlider* slider_;
    QLabel* contextLabel_;
    QLabel* numbers_;
    QComboBox* budget_;
    PlotChart* lawChart_;
    PlotChart* trendChart_;
    PlotView* lawView_;
    PlotView* trendView_;
    double optimal_[2] = {0, 0};
    double optimalTokens_[2] = {0, 0};
};

}  // namespace scalex::gui
