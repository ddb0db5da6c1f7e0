#pragma once
// How the compute-optimal model size moves with the context length (the finding of the paper's
// Fig. 5, whose IsoFLOP panels the IsoFLOP view draws): a slider over T recounts the training
// FLOPs per token of both families under the session's convention and re-solves N*(H), D*(H) on
// the loss surface; the study's own per-context IsoFLOP fits are drawn where the paper has them
// (T = 2048, 8192, 16384).
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "app/gui/ViewPanel.h"
#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/ContextAnalysis.h"
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
    // N* of a family at the current context and budget (what the view shows; 0 before its job ends).
    double optimalParams(bool xlstm) const;

    static double contextAt(int sliderPosition);
    static int positionOf(double context);

    // N*(H) refitted from the study's own IsoFLOP runs with their FLOPs recounted at the slider's
    // context (empty when the runs have no IsoFLOP profiles with architectures).
    std::optional<fit::PowerLaw> recostedLaw(bool xlstm) const;
    // The whole answer shown (analysis::answerContextQuery).
    const analysis::ContextAnswer& answer() const { return answer_; }
    // Starts the job of everything the slider drives (analysis::answerContextQuery); the IsoFLOP
    // profiles are refitted only after the runs or settings changed.
    void recompute();
    // Waits for the job and shows its answer.
    void computeNow() override;
    ~ContextView() override;

private:
    void takeAnswer();
    void redraw();

    analysis::ContextAnswer answer_;
    // The IsoFLOP profiles of the last answer, by series name, reused until the runs or settings change.
    std::vector<std::pair<std::string, std::vector<analysis::RecountableProfile>>> profiles_;
    bool profilesStale_ = true;
    QFutureWatcher<analysis::ContextAnswer>* watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    int generation_ = 0;
    int running_ = -1;

    Session* session_;
    QSlider* slider_;
    QLabel* contextLabel_;
    QLabel* numbers_;
    QComboBox* budget_;
    PlotChart* lawChart_;
    PlotChart* trendChart_;
    PlotView* lawView_;
    PlotView* trendView_;
};

}  // namespace scalex::gui
