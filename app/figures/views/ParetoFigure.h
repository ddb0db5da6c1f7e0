#pragma once
// Pareto front (the paper's Fig. 1): loss over training compute, a frontier per series at one
// context length, the loss surface along constant tokens per parameter, and the comparison of two
// frontiers (the compute ratio at equal loss); one chart, or the frontiers beside the L(N,D) fit of
// each family's own runs.
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "app/figures/ViewFigure.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/SurfaceFits.h"
#include "core/data/Export.h"
#include "core/analysis/FitTypes.h"

namespace scalex::figures {

class ParetoFigure : public FigureWithAnswer<ParetoFigure> {
public:
    // The analyses and the runs they point into.
    struct Answer {
        std::shared_ptr<const data::RunTable> table;
        std::vector<analysis::ParetoAnalysis> analyses;
        bool withSurfaces = false;  // the surfaces below were asked for (L̂(N,D) drawn)
        double surfaceContext = std::numeric_limits<double>::quiet_NaN();
        std::vector<std::pair<accounting::Family, analysis::FamilySurface>> surfaces;
        // Some are still to be fitted (surfaceJob), from these settings and the paper's surfaces.
        bool surfacesPending = false;
        analysis::AnalysisSettings settings;
        std::vector<std::optional<fit::LossSurfaceParams>> paper;
    };
    // What surfaceJob() answers: the surfaces of the answer's runs at its context.
    struct Surfaces {
        std::shared_ptr<const data::RunTable> table;
        double context = 0;
        std::vector<std::pair<accounting::Family, analysis::FamilySurface>> surfaces;
    };

    ParetoFigure();
    QString viewId() const override { return QStringLiteral("pareto"); }
    void refresh(const FigureInput& in) override;
    // The Pareto analyses of every series and context length (frontiers of 20,000 runs take a
    // while), on a copy of the runs; and where L̂(N,D) is drawn, the L(N,D) fit of each family's
    // runs at the context shown where it is kept (analysis::keptFamilySurface: the paper's surface
    // stands in on the paper's study where the runs give none). Fits still to be made are the
    // second job (surfaceJob()), so that the frontiers need not wait for them.
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    // The L(N,D) fits the answer taken last waits for, as a job (takeSurfaces() takes its answer); empty
    // when it waits for none.
    JobOf<Surfaces> surfaceJob() const;
    void takeSurfaces(Surfaces surfaces);
    // The analyses, then the fits they wait for.
    void compute(const FigureInput& in, const fit::FitControl& control = {}) override;
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    TablesJob tablesJob(const FigureInput& in) const override;
    QString problem() const override;

    // The frontiers beside the fitted loss surface (Fig. 1) rather than one chart.
    bool sideBySide() const;
    // The controls draw L̂(N,D) at a context whose surfaces the last job did not fit: a new job is
    // needed before drawing (a redraw alone would leave the curves out).
    bool surfacesMissing() const;
    // The surface drawn for a family at the context shown; null when none was fitted for it.
    const analysis::FamilySurface* surfaceOf(accounting::Family family) const;
    // What the last draw showed: the analyses at the context shown, the comparison of the pair
    // compared (A and B, their labels).
    const std::vector<analysis::ParetoAnalysis>& shown() const { return shown_; }
    const fit::FrontierComparison& comparison() const { return comparison_; }
    const std::pair<QString, QString>& compared() const { return compared_; }
    // ", T = 8192" (empty when the runs give no context length).
    QString scope() const { return scope_; }
    // The points of the pair compared (A, then B), empty when no two frontiers overlap.
    std::pair<std::vector<fit::ComputeLossPoint>, std::vector<fit::ComputeLossPoint>> comparedPoints() const;
    // The 95 % bootstrap interval of the pair's geometric-mean compute ratio (1000 resamples of the
    // runs, as `scalex fit pareto` reports it), as a job holding a copy of the pair's points; empty
    // when there is no pair.
    using IntervalJob = std::function<std::optional<fit::BootstrapInterval>(const fit::FitControl& control)>;
    IntervalJob intervalJob() const;

    // For the window's view: the frontiers rerun when the surfaces drawn need a context not fitted,
    // the L(N,D) fits follow them (surfaceJob()), and the interval of the pair compared follows
    // each draw that compares another pair (intervalJob(): the same points reuse the interval
    // known or under way).
    QJsonObject jobControls() const override;
    JobOf<Taking> followUpJob() override;
    JobOf<Taking> afterDrawJob() override;
    // The interval stated with the comparison drawn: none until it is known (afterDrawJob()).
    const std::optional<fit::BootstrapInterval>& computeRatioInterval() const { return intervalShown_; }
    // The comparison in words, with its interval or "interval: computing…" while it is computed.
    QString summary() const override;

private:
    double contextShown() const;  // NaN: runs that give none
    bool surfacesDrawn() const;
    void drawSurfaceCurves(PlotChart* chart, const FigureInput& in, double context);
    Answer answer_;
    PlotChart* chart_;
    PlotChart* fitChart_;
    std::vector<analysis::ParetoAnalysis> shown_;
    fit::FrontierComparison comparison_;
    std::pair<QString, QString> compared_;
    data::ExportTable frontierTable_;
    QString scope_;
    // The points the interval is (being) computed for, A then B; the interval once known; the one shown.
    std::pair<std::vector<fit::ComputeLossPoint>, std::vector<fit::ComputeLossPoint>> intervalKey_;
    std::optional<fit::BootstrapInterval> intervalOfKey_;
    std::optional<fit::BootstrapInterval> intervalShown_;
    bool intervalPending_ = false;
    int intervalGeneration_ = 0;  // of the last interval asked for: an older one's answer is dropped
};

}  // namespace scalex::figures
