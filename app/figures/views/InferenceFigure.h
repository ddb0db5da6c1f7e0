#pragma once
// Inference-time scaling (Sec. 4, App. "Modeling Inference Characteristics"): time to first token
// and decode step time over the prefill length, the study's measured points and the fitted
// runtime model TTFT = FLOPs/α_eff + ε, step = bytes/β_eff + ε (+ κ·B), a Transformer and an
// xLSTM side by side; α_eff/α_acc over model size; and the answers to the deployment questions.
// "TTFT and step time (Fig. 6)" lays the charts out as the paper's Fig. 6: both stages, several
// model sizes. Without measurements the curves are roofline estimates of the appendix's models.
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "app/figures/ViewFigure.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/data/InferenceMeasurements.h"

namespace scalex::figures {

class InferenceFigure : public FigureWithAnswer<InferenceFigure> {
public:
    struct Answer {
        std::optional<data::InferenceData> data;
        analysis::RuntimeFitAnalysis fits;
    };

    InferenceFigure();
    QString viewId() const override { return QStringLiteral("inference"); }
    // Refills the batch sizes and models from the study's measurements; a new set of measurements
    // shows every batch size and the largest model of each family first.
    void refresh(const FigureInput& in) override;
    // Fits the runtime model of every measured model and stage (analysis::runtimeFitAnalysis).
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    void draw(const FigureInput& in) override;
    // fits: the runtime model of every measured model and stage (analysis::runtimeFitTable).
    TablesJob tablesJob(const FigureInput& in) const override;
    // The utilisation chart joins the two stage charts once there are measurements.
    std::vector<QChart*> charts() const override;
    // The window shows the utilisation chart also without measurements (the rate it assumes).
    std::vector<QChart*> windowCharts() const override;
    // The fit's residuals ("loss") are the analyses' only control; the others redraw.
    QJsonObject jobControls() const override;
    // The few fits run at once, as soon as the measurements or the fit's options change.
    bool answersAtOnce(const FigureInput& in) const override {
        (void)in;
        return true;
    }
    // One model per family does not apply to the Fig. 6 layout.
    void enableControls() override;
    // "Load measurements…": the study's measurement CSV (its df_dict files beside it give the
    // architectures), kept by the project, which shows one set of measurements at a time.
    std::vector<Action> actions() const override;
    // The answers to the deployment questions, beside their controls.
    QString asideText() const override { return deploymentAnswer_; }
    // The measurements shown: "NAME: P points of M models"; empty without measurements.
    QString summary() const override { return summary_; }
    // The utilisation chart, shown beside the deployment questions (also without measurements).
    QChart* utilisationChart() const;

    // The measurements the fits are of (architectures attached), none without measurements.
    const std::optional<data::InferenceData>& measurements() const { return data_; }
    // The fit of one model and stage.
    const inference::StageFit* fitOf(const std::string& model, inference::Stage stage) const;
    // The answers to the deployment questions (HTML), as of the last draw.
    QString deploymentAnswer() const { return deploymentAnswer_; }
    // The Fig. 6 layout: both stages for several model sizes.
    bool sizesLayout() const;

    // The runtime fit's options as the controls set them (the rest the analysis' defaults, the
    // verbs' defaults): the fits, and the rates without fits.
    analysis::RuntimeFitOptions options() const;

private:
    // What tells one set of measurements from another (none: no measurements).
    struct DataKey {
        std::string name, source;
        QByteArray csv;
        std::size_t points = 0;
        bool operator==(const DataKey&) const = default;
    };
    void drawModel(PlotChart* chart, const std::string& model, accounting::Family family);
    // The paper's Fig. 6: one stage over the prefill length for several model sizes of both
    // families at the chosen batch size (1 when "all").
    void drawSizes(PlotChart* chart, inference::Stage stage);
    // The stage the charts of one model, the utilisation and the deployment questions show
    // (time to first token in the Fig. 6 layout).
    inference::Stage stage() const;
    // The chosen batch size; 0 for every batch size.
    double batch() const;
    void answerDeployment();

    PlotChart* charts_[3];
    std::optional<data::InferenceData> data_;
    analysis::RuntimeFitAnalysis fits_;
    std::optional<DataKey> shownKey_;  // the measurements the batch and model choices are of
    std::vector<ControlChoice> batches_, transformers_, xlstms_;
    QString deploymentAnswer_;
    QString summary_;
};

}  // namespace scalex::figures
