#pragma once
// How the compute-optimal model size moves with the context length (the finding of the paper's
// Fig. 5, whose IsoFLOP panels the IsoFLOP view draws): the training FLOPs per token of both
// families recounted at a context T under the study's convention and N*(H), D*(H) re-solved on the
// loss surface; the study's own IsoFLOP runs recounted at T, and the paper's per-context IsoFLOP
// laws where it has them (T = 2048, 8192, 16384). Each family's surface is the L(N,D) fit of its
// own runs (analysis::familySurface, in the job), the paper's where the study is the paper's and
// its runs give none: never one fitted in another view.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/figures/ViewFigure.h"
#include "core/analysis/ContextAnalysis.h"
#include "core/analysis/ContextStudy.h"
#include "core/analysis/SurfaceFits.h"
#include "core/analysis/FitTypes.h"

namespace scalex::figures {

class ContextFigure : public FigureWithAnswer<ContextFigure> {
public:
    // An answer and the number of refits asked for when its job was made.
    struct Answer {
        analysis::ContextAnswer answer;
        int refits = 0;
        std::vector<std::pair<accounting::Family, analysis::FamilySurface>> surfaces;
    };

    ContextFigure();
    QString viewId() const override { return QStringLiteral("context"); }
    // Everything the controls drive (analysis::answerContextQuery); the IsoFLOP profiles are
    // fitted only in the first job and after refitProfiles(), the others recount the last ones;
    // the loss surfaces are fitted once for the runs and settings (kept by analysis::groupSurface).
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    // Neither family has a loss surface (no runs to fit, and the study is not the paper's).
    QString problem() const override;
    // N*, D* at the chosen budget over every context length of the slider.
    TablesJob tablesJob(const FigureInput& in) const override;

    // The runs or settings changed: the next job fits the IsoFLOP profiles anew.
    void refitProfiles() { ++refits_; }
    void studyChanged() override { refitProfiles(); }
    // Every control drives the job; the slider reads "T = 8,192" over a scale of its octaves.
    QJsonObject jobControls() const override { return controls().values(); }
    QString readout(const QString& name) const override;
    std::vector<ScaleMark> scale(const QString& name) const override;

    // The context length and the budget chosen.
    double context() const;
    double budget() const;
    // The context lengths of the slider: 512 to 131072, four steps an octave, multiples of 64.
    static constexpr int kStepsPerOctave = analysis::kContextStepsPerOctave;
    static constexpr double kMinContext = analysis::kMinTrendContext;
    static constexpr int kOctaves = analysis::kTrendOctaves;  // 512 ... 131072
    static int positions();
    static double contextAt(int position);
    static int positionOf(double context);

    // The whole answer shown (analysis::answerContextQuery).
    const analysis::ContextAnswer& answer() const { return answer_; }
    // N* of a family at the answer's context and budget (0 before the first answer).
    double optimalParams(bool xlstm) const;
    // N*(H) refitted from the study's own IsoFLOP runs with their FLOPs recounted at the context
    // (none when the runs have no IsoFLOP profiles with architectures).
    std::optional<fit::PowerLaw> recostedLaw(bool xlstm) const;
    // The words under the charts: N*, D* of each family at the context and budget.
    QString summary() const override { return summary_; }
    // Where a family's loss surface comes from: "fitted to the runs of Transformer, T = 8192", the
    // paper's and why, or none and why.
    QString surfaceNote(bool xlstm) const;

private:
    PlotChart* lawChart_;
    PlotChart* trendChart_;
    analysis::ContextAnswer answer_;
    std::vector<std::pair<accounting::Family, analysis::FamilySurface>> surfaces_;  // of the answer
    // The IsoFLOP profiles of the last answer, by series name, reused while `fittedAt_` is `refits_`.
    std::vector<std::pair<std::string, std::vector<analysis::RecountableProfile>>> profiles_;
    int refits_ = 0;
    int fittedAt_ = -1;
    QString summary_;
};

}  // namespace scalex::figures
