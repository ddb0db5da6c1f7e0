#pragma once
// How the compute-optimal model size moves with the context length (the finding of the paper's
// Fig. 5, whose IsoFLOP panels the IsoFLOP view draws): a slider over T recounts the training
// FLOPs per token of both families under the session's convention and re-solves N*(H), D*(H) on
// the loss surface; the study's own per-context IsoFLOP fits are drawn where the paper has them
// (T = 2048, 8192, 16384).
#include <optional>
#include <utility>
#include <vector>

#include "app/gui/ViewPanel.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/fit/ComputeOptimal.h"
#include "core/accounting/ModelConfig.h"
#include "core/fit/PowerLaw.h"

class QSlider;
class QLabel;
class QComboBox;

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

    double context() const;
    void setContext(double tokens);  // snaps to the slider's grid
    double budget() const;
    // N* of a family at the current context and budget (what the view shows).
    double optimalParams(bool xlstm) const;

    static double contextAt(int sliderPosition);
    static int positionOf(double context);

    // N*(H) refitted from the study's own IsoFLOP runs with their FLOPs recounted at the slider's
    // context (empty when the runs have no IsoFLOP profiles with architectures).
    std::optional<fit::PowerLaw> recostedLaw(bool xlstm) const { return recostedLaw_[xlstm ? 1 : 0]; }
    // Recomputes everything the slider drives (public for the benchmark).
    void recompute();

private:
    void refitProfiles();

    // IsoFLOP profiles of the session's runs at their own context (analysis::recountableProfiles).
    std::vector<analysis::RecountableProfile> profiles_[2];
    std::optional<fit::PowerLaw> recostedLaw_[2];

    Session* session_;
    QSlider* slider_;
    QLabel* contextLabel_;
    QLabel* numbers_;
    QComboBox* budget_;
    PlotChart* lawChart_;
    PlotChart* trendChart_;
    PlotView* lawView_;
    PlotView* trendView_;
    std::vector<double> trendContexts_;
    std::vector<fit::OptimalPoint> trend_[2];  // at trendContexts_
    double optimal_[2] = {0, 0};
    double optimalTokens_[2] = {0, 0};
};

}  // namespace scalex::gui
