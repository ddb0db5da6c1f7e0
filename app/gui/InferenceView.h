#pragma once
// Inference-time scaling: the figure of app/figures/views/InferenceFigure (time to first token and
// decode step time over the prefill length, measured and fitted, α_eff/α_acc over model size, and
// "TTFT and step time (Fig. 6)" as the paper's Fig. 6), its controls, the deployment questions,
// and measurements loaded into the project.
#include <memory>
#include <optional>
#include <string>

#include "app/figures/views/InferenceFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/ViewPanel.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/data/InferenceMeasurements.h"

class QLabel;
class QPushButton;

namespace scalex::gui {

class PlotView;
class Session;

class InferenceView : public ViewPanel {
    Q_OBJECT
public:
    explicit InferenceView(Session* session, QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("inference"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;
    std::vector<ViewTable> tables() override;

    // Loads the study's measurement CSV (its df_dict files beside it give the architectures) into
    // the project, which shows one set of measurements at a time.
    bool loadMeasurements(const QString& path, QString* error);
    // The project's measurements the view shows (architectures attached); none: the roofline estimates.
    const std::optional<data::InferenceData>& measurements() const { return figure_->measurements(); }
    // The fit of one model and stage.
    const inference::StageFit* fitOf(const std::string& model, inference::Stage stage) const { return figure_->fitOf(model, stage); }
    QString deploymentAnswer() const;

    // Draws the charts again (a changed theme, presentation mode or zoom).
    void refresh() { redraw(); }

private:
    // A change of the controls: the fit's options refit, any other redraws.
    void controlsChanged();
    QString fittedWith_;  // the fit options (the "loss" control) of the fits shown
    // Fits the project's measurements (the few fits run at once, on this thread) and draws them.
    void refit();
    void redraw();

    Session* session_;
    std::unique_ptr<figures::InferenceFigure> figure_;
    ControlBinding* controls_;
    PlotView* views_[3];
    QPushButton* load_;
    QLabel* answer_;
    QLabel* status_;
};

}  // namespace scalex::gui
