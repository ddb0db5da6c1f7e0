#pragma once
// The fitted loss surface L̂(N, D) = E + (A N^-α + B D^-β)^γ over (N, D): a colour map with
// iso-loss contours, iso-FLOP lines and the compute-optimal path, the runs on top (those the fit
// left out as outliers hollow); one series at one context length at a time. The fit
// (analysis::lossSurfaceAnalysis, then its extrapolation check) is the figure's job: seconds, with
// progress and cancel through the job's FitControl.
#include <QImage>
#include <QMetaObject>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "app/figures/CheckpointMarks.h"
#include "app/figures/ViewFigure.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/FitTypes.h"

namespace scalex::figures {

class LossSurfaceFigure : public FigureWithAnswer<LossSurfaceFigure> {
public:
    // What a fit gives: the analysis points into `table`, a copy of the study's runs taken when
    // it started (same order, so indices carry over); the settings it used; the export tables of
    // it once computed.
    struct TablesCache {
        std::mutex mutex;
        std::optional<std::vector<FigureTable>> tables;
    };
    struct Fitted {
        std::shared_ptr<const data::RunTable> table;
        analysis::LossSurfaceAnalysis analysis;  // with its extrapolation check
        analysis::AnalysisSettings common;
        // Always set on a fit (optional: a default would build the paper's grid in app code).
        std::optional<fit::LossSurfaceSettings> settings;
        QString error;  // could not fit
        std::shared_ptr<TablesCache> tables;
        // With the Checkpoints control at "predicted, and fitted": the fit on the measured runs
        // (those without a loss curve) and the checkpoints predicted from the curves, as `fit lnd
        // --from-curves` fits them; `analysis` then holds its fit and measured runs, unchecked.
        std::shared_ptr<const analysis::CheckpointSurfaceResult> withCheckpoints;
    };
    using Answer = Fitted;

    LossSurfaceFigure();
    ~LossSurfaceFigure() override;
    QString viewId() const override { return QStringLiteral("surface"); }
    void refresh(const FigureInput& in) override;
    // Fits the chosen series at the chosen context with the chosen settings; the answer holds why
    // it could not (too few runs) instead.
    JobOf<Answer> job(const FigureInput& in) const;
    void take(Answer answer);
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;
    QString problem() const override { return error_; }
    // The fitted parameters of every series in scope with 95 % bootstrap intervals
    // (analysis::lossSurfaceParameterTable): the series shown is the figure's fit, the others are
    // fitted with the same settings on their own runs, each at the context this figure would
    // choose for it. Kept with the fit, so a second export reuses it. Fits first when there is no fit.
    TablesJob tablesJob(const FigureInput& in) const override;
    // The same for the fit `answer` gives (what job() returns; run on the worker thread, so it
    // may wait for a fit under way).
    TablesJob tablesJobOf(const FigureInput& in, JobOf<std::optional<Fitted>> answer) const;

    // The series and context chosen ("Transformer, T = 8192"); none when no runs are in scope.
    std::optional<analysis::SeriesGroup> group(const FigureInput& in) const;
    // The fit settings chosen: the study's, with the chosen Huber δ, γ and grid of starts.
    fit::LossSurfaceSettings settingsChosen(const FigureInput& in) const;
    // Why the chosen runs cannot be fitted (none in scope, fewer than the surface's parameters;
    // with the checkpoints fitted, the fit says it); empty when they can.
    QString fitProblem(const FigureInput& in) const;
    // "Fitting 96 runs from 8000 starts…" and the number of starts, for a progress display.
    QString fittingText(const FigureInput& in) const;
    std::size_t starts(const FigureInput& in) const;

    // Drops the fit (the runs or the choice of series changed).
    void forget();
    const std::optional<fit::LossSurfaceFit>& result() const { return fit_; }
    // The analysis behind result(): its group, the runs fitted and those left out as outliers.
    const std::optional<analysis::LossSurfaceAnalysis>& analysis() const { return analysis_; }
    // The words under the chart: the fit, the runs left out, the extrapolation check, the paper's
    // fit beside it; or why there is none; "Fitting …" while a fit runs.
    QString summary() const override { return summary_; }

    // For the window's view: the fit is the action "fit" (its button, progress and Cancel), which
    // computeNow() and the export tables start when there is no fit of the controls; another
    // series, context or run set, or a change of the study, drops the fit and the one under way.
    // The fit's own settings (δ, γ, starts) take effect with the next fit.
    QJsonObject jobControls() const override;
    // The window fits when asked (the action); its own job predicts the study's checkpoints from
    // its loss curves (CheckpointMarks.h, at token counts), drawn over the runs. Headless, compute()
    // does both.
    JobOf<Taking> takingJob(const FigureInput& in) override;
    void compute(const FigureInput& in, const fit::FitControl& control = {}) override;
    bool analysesReadCurves() const override { return true; }
    // The checkpoints predicted last (no result: none asked, or the study has no loss curves).
    const StudyCheckpoints& checkpoints() const { return checkpoints_; }
    // The fit on the measured runs and the checkpoints, when the control asks for it (else none).
    const std::shared_ptr<const analysis::CheckpointSurfaceResult>& fitWithCheckpoints() const { return withCheckpoints_; }
    // The predicted checkpoints drawn: model, N, D, loss and its interval.
    QStringList shownHeaders() const override;
    std::vector<QStringList> shownRows() const override;
    std::vector<Action> actions() const override;
    JobOf<Taking> studyActionJob(const QString& name, const FigureInput& in) override;
    QString demandedAction() const override;
    void studyChanged() override { forget(); }

private:
    std::vector<analysis::SeriesGroup> groups(const FigureInput& in) const;
    // What the colour map shows (set by draw(); empty: no map): the N and D box, the fit and the
    // colours. drawColourMap() paints it at the plot area's pixel size and returns the lowest and
    // highest loss in it; the images of the last two sizes are kept while the key stays.
    std::pair<double, double> drawColourMap();
    struct MapImage {
        QImage image;
        double lo = 0, hi = 0;
    };

    PlotChart* chart_;
    QMetaObject::Connection plotAreaChanged_;
    std::vector<double> mapKey_;
    std::vector<MapImage> mapImages_;
    std::optional<Fitted> fitted_;
    std::optional<fit::LossSurfaceFit> fit_;
    std::optional<analysis::LossSurfaceAnalysis> analysis_;  // its run pointers point into fitted_->table
    std::optional<fit::LossSurfaceExtrapolation> extrapolation_;
    std::shared_ptr<const analysis::CheckpointSurfaceResult> withCheckpoints_;
    QString error_;
    QString summary_;
    StudyCheckpoints checkpoints_;
    // The series and run set the context choices were made for: another gets its own default context.
    std::pair<QString, QString> contextsFor_;
    // The study the run-set choice was made for: another starts with its token/param runs.
    std::optional<std::string> source_;
    // The fit under way for the window (its answer, for export tables that wait for it), the
    // controls it was started with, and the count of fits asked for (a dropped one's answer is not taken).
    struct FitUnderWay;
    std::shared_ptr<FitUnderWay> underWay_;
    QJsonObject fitControls_;
    QJsonObject fitChoice_;  // its jobControls()
    int fitGeneration_ = 0;
};

}  // namespace scalex::figures
