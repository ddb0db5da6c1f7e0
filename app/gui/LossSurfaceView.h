#pragma once
// The fitted loss surface L̂(N, D) = E + (A N^-α + B D^-β)^γ over (N, D): a colour map with
// iso-loss contours, iso-FLOP lines and the compute-optimal path, the runs on top; the fit's
// settings at hand with a Fit button, progress and cancel. The fit runs off the UI thread.
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>

#include "app/gui/ViewPanel.h"
#include "core/fit/Bootstrap.h"
#include "core/accounting/Family.h"
#include "core/analysis/RunSelection.h"
#include "core/fit/LossSurface.h"

class QComboBox;
class QPushButton;
class QProgressBar;
class QLabel;
class QCheckBox;

namespace scalex::gui {

class Session;
class PlotChart;
class PlotView;

class LossSurfaceView : public ViewPanel {
    Q_OBJECT
public:
    explicit LossSurfaceView(Session* session, QWidget* parent = nullptr);
    ~LossSurfaceView() override;

    QString viewId() const override { return QStringLiteral("surface"); }
    QString title() const override { return tr("Loss surface"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    void computeNow() override;
    // The fitted parameters of every family with 95 % bootstrap intervals: the current family's
    // fit, and the others fitted with the same settings on their own runs (200 resamples of the
    // runs, each refitted from the fit's best starts; the current family's are kept until it is
    // fitted again).
    std::vector<ViewTable> tables() override;

    // Starts a fit of the current family with the current settings (no-op while one runs).
    void startFit();
    void cancelFit();
    bool fitting() const;
    const std::optional<fit::LossSurfaceFit>& result() const { return fit_; }
    accounting::Family family() const;
    // Waits for a running fit to finish (tests and headless rendering).
    void waitForFit();
    // 0: the paper's 8000 starts; 1: the quick grid (every other value of each axis, 216 starts).
    void setGrid(int index);

signals:
    void fitFinished();

private:
    void redraw();
    void onFitDone();
    std::vector<fit::LossPoint> points() const;
    analysis::RunFilter filter() const;
    analysis::RunFilter filter(accounting::Family family) const;

    Session* session_;
    PlotChart* chart_;
    PlotView* view_;
    QComboBox* family_;
    QComboBox* delta_;
    QComboBox* gamma_;
    QComboBox* grid_;
    QComboBox* set_;
    QPushButton* fitButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* summary_;
    std::optional<fit::LossSurfaceFit> fit_;
    fit::LossSurfaceSettings fitSettings_;
    std::vector<fit::LossPoint> fitPoints_;
    std::optional<fit::BootstrapResult> intervals_;  // of fit_, computed on demand
    accounting::Family fitFamily_ = accounting::Family::Transformer;
    std::unique_ptr<std::atomic<bool>> cancel_;
    QFutureWatcher<fit::LossSurfaceFit>* watcher_;
    QString error_;
};

}  // namespace scalex::gui
