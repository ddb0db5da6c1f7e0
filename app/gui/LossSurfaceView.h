#pragma once
#include <QImage>
// The fitted loss surface L̂(N, D) = E + (A N^-α + B D^-β)^γ over (N, D): a colour map with
// iso-loss contours, iso-FLOP lines and the compute-optimal path, the runs on top (those the fit
// left out as outliers hollow); one series at one context length at a time; the fit's settings
// at hand with a Fit button, progress and cancel. The fit (analysis::lossSurfaceAnalysis) runs
// off the UI thread.
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "app/gui/ViewPanel.h"
#include "core/fit/Bootstrap.h"
#include "core/accounting/Family.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/fit/Extrapolation.h"
#include "core/fit/LossSurface.h"

class QComboBox;
class QPushButton;
class QProgressBar;
class QLabel;
class QCheckBox;

namespace scalex::gui {

class Session;
class PlotView;

class LossSurfaceView : public ViewPanel {
    Q_OBJECT
public:
    explicit LossSurfaceView(Session* session, QWidget* parent = nullptr);
    ~LossSurfaceView() override;

    QString viewId() const override { return QStringLiteral("surface"); }
    QString title() const override { return tr("Loss surface"); }
    QString explainHtml() const override;
    QString problem() const override { return error_; }
    QChart* primaryChart() const override;
    void computeNow() override;
    // The fitted parameters of every series in scope with 95 % bootstrap intervals
    // (analysis::lossSurfaceParameterTable): the series on screen is the view's fit, the others
    // are fitted with the same settings on their own runs, each at the context this view would
    // choose for it.
    std::vector<ViewTable> tables() override;
    // The same off the UI thread: waits for the view's fit (starting it when there is none), then
    // bootstraps it and fits the other series; kept for the fit, so a second export reuses it.
    TablesJob tablesJob() override;

    // Starts a fit of the current series with the current settings (no-op while one runs).
    void startFit();
    void cancelFit();
    bool fitting() const;
    const std::optional<fit::LossSurfaceFit>& result() const { return fit_; }
    // The analysis behind result(): its group, the runs fitted and those left out as outliers.
    const std::optional<analysis::LossSurfaceAnalysis>& analysis() const { return analysis_; }
    // The series and context shown ("Transformer, T = 8192").
    std::optional<analysis::SeriesGroup> group() const;
    // Waits for a running fit to finish (tests and headless rendering).
    void waitForFit();
    // 0: the paper's 8000 starts; 1: the quick grid (every other value of each axis, 216 starts).
    void setGrid(int index);

signals:
    void fitFinished();

private:
    // The result of a fit off the UI thread: the analysis points into `table`, a copy of the
    // session's runs taken when the fit started (same order, so indices carry over).
    struct Outcome {
        std::shared_ptr<const data::RunTable> table;
        analysis::LossSurfaceAnalysis analysis;  // with its extrapolation check
        int generation = 0;
    };
    void redraw();
    void refillChoices();
    void onFitDone();
    void forgetFit();
    std::vector<analysis::SeriesGroup> groups() const;
    // The context this view fits a series at: 8192 (the paper's) where present, else the largest.
    static std::optional<analysis::SeriesGroup> defaultGroup(const std::vector<analysis::SeriesGroup>& groups, const std::string& series);
    fit::LossSurfaceSettings settingsChosen() const;

    Session* session_;
    PlotChart* chart_;
    PlotView* view_;
    QComboBox* series_;
    QComboBox* context_;
    QComboBox* delta_;
    QComboBox* gamma_;
    QComboBox* grid_;
    QComboBox* set_;
    QPushButton* fitButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* summary_;
    std::optional<fit::LossSurfaceFit> fit_;
    // What the colour map shows (set by redraw(); empty: no map): the N and D box, the fit and the
    // colours. drawColourMap() paints it at the plot area's pixel size and returns the lowest and
    // highest loss in it; the images of the last two sizes are kept while the key stays.
    std::vector<double> mapKey_;
    std::pair<double, double> drawColourMap();
    struct MapImage {
        QImage image;
        double lo = 0, hi = 0;
    };
    std::vector<MapImage> mapImages_;
    std::optional<analysis::LossSurfaceAnalysis> analysis_;  // its run pointers point into table_
    std::shared_ptr<const data::RunTable> table_;
    fit::LossSurfaceSettings fitSettings_;
    // The tables of the fit started last (tablesJob), filled by the job that computed them.
    struct TablesCache {
        std::mutex mutex;
        std::optional<std::vector<ViewTable>> tables;
    };
    std::shared_ptr<TablesCache> tablesCache_;
    std::optional<fit::LossSurfaceExtrapolation> extrapolation_;
    std::unique_ptr<std::atomic<bool>> cancel_;
    QFutureWatcher<Outcome>* watcher_;
    int generation_ = 0;  // bumped whenever the runs or the choice change: older fits are dropped
    QString error_;
    QString source_;  // the study the run-set choice was made for
};

}  // namespace scalex::gui
