#pragma once
// How the compute-optimal model size moves with the context length: the figure of
// app/figures/views/ContextFigure, a slider over T and a budget, the numbers under the charts,
// and the figure's job (analysis::answerContextQuery) run off the UI thread.
#include <QFutureWatcher>
#include <any>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/ContextFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/JobRunner.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/ContextAnalysis.h"
#include "core/analysis/FitTypes.h"

class QLabel;

namespace scalex::gui {

class Session;
class PlotView;

class ContextView : public ViewPanel {
    Q_OBJECT
public:
    explicit ContextView(Session* session, QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("context"); }
    QString title() const override { return tr("Context length"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    // N*, D* at the chosen budget over every context length of the slider.
    std::vector<ViewTable> tables() override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

    double context() const { return figure_->context(); }
    void setContext(double tokens);  // snaps to the slider's grid
    double budget() const { return figure_->budget(); }
    // N* of a family at the current context and budget (what the view shows; 0 before its job ends).
    double optimalParams(bool xlstm) const { return figure_->optimalParams(xlstm); }

    static double contextAt(int sliderPosition) { return figures::ContextFigure::contextAt(sliderPosition); }
    static int positionOf(double context) { return figures::ContextFigure::positionOf(context); }

    // N*(H) refitted from the study's own IsoFLOP runs with their FLOPs recounted at the slider's
    // context (empty when the runs have no IsoFLOP profiles with architectures).
    std::optional<fit::PowerLaw> recostedLaw(bool xlstm) const { return figure_->recostedLaw(xlstm); }
    // The whole answer shown (analysis::answerContextQuery).
    const analysis::ContextAnswer& answer() const { return figure_->answer(); }
    // Starts the job of everything the slider drives (the figure's); the IsoFLOP profiles are
    // refitted only after the runs or settings changed.
    void recompute();
    // Waits for the job and shows its answer.
    void computeNow() override;
    ~ContextView() override;

private:
    void redraw();

    JobRunner<figures::ContextFigure::Answer>* jobs_;

    Session* session_;
    std::unique_ptr<figures::ContextFigure> figure_;
    ControlBinding* controls_;
    QLabel* contextLabel_;
    QLabel* numbers_;
    PlotView* lawView_;
    PlotView* trendView_;
};

}  // namespace scalex::gui
