#pragma once
// Inference-time scaling (Sec. 4, App. "Modeling Inference Characteristics"): time to first token
// and decode step time over the prefill length, measured points and the fitted runtime model
// TTFT = FLOPs/α_eff + ε, step = bytes/β_eff + ε (+ κ·B), a Transformer and an xLSTM side by side;
// α_eff/α_acc over model size; and the deployment questions as a small form. "TTFT and step
// time (Fig. 6)" lays the charts out as the paper's Fig. 6: both stages, several model sizes.
#include <map>
#include <optional>
#include <string>

#include "app/gui/ViewPanel.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/Project.h"
#include "core/inference/RuntimeFit.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace scalex::gui {

class PlotView;

class InferenceView : public ViewPanel {
    Q_OBJECT
public:
    explicit InferenceView(QWidget* parent = nullptr);

    QString viewId() const override { return QStringLiteral("inference"); }
    QString title() const override { return tr("Inference"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;

    // Loads the study's measurement CSV (its df_dict files beside it give the architectures) and
    // emits measurementsLoaded with the set, for the project to keep.
    bool loadMeasurements(const QString& path, QString* error);
    // Shows a set of measurements (as a project holds them); nullptr: none, the roofline estimates.
    void showMeasurements(const data::ProjectInference* set);
    const std::optional<data::InferenceData>& measurements() const { return data_; }
    // The fit of one model and stage (after loading).
    const inference::StageFit* fitOf(const std::string& model, inference::Stage stage) const;
    QString deploymentAnswer() const;

    // Draws the charts again (a changed theme, presentation mode or zoom).
    void refresh() { redraw(); }

signals:
    void measurementsLoaded(const data::ProjectInference& set);

private:
    void setMeasurements(data::InferenceData data, const QString& label);
    void refit();
    void redraw();
    void drawModel(PlotChart* chart, const std::string& model, accounting::Family family);
    // The paper's Fig. 6: one stage over the prefill length for several model sizes of both
    // families at the chosen batch size (1 when "all").
    void drawSizes(PlotChart* chart, inference::Stage stage);
    // The stage the charts of one model, the utilisation and the deployment questions show
    // (time to first token in the Fig. 6 layout).
    inference::Stage stage() const;
    bool sizesLayout() const;
    void answerDeployment();

    PlotChart* charts_[3];
    PlotView* views_[3];
    QComboBox* stage_;
    QComboBox* batch_;
    QComboBox* transformer_;
    QComboBox* xlstm_;
    QComboBox* accelerator_;
    QPushButton* load_;
    QLineEdit* budget_;
    QLineEdit* prefill_;
    QLineEdit* factor_;
    QLabel* answer_;
    QLabel* status_;
    std::optional<data::InferenceData> data_;
    std::map<std::pair<std::string, int>, inference::StageFit> fits_;  // (model, stage) -> fit
};

}  // namespace scalex::gui
