#pragma once
// The roofline view: the figure of app/figures/views/RooflineFigure (spec roofs of the paper's
// accelerators, the operating points of the 7B models, attention against mLSTM over the context
// length), its controls, and benchmarks of this machine run or loaded here and drawn with it.
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>

#include "app/figures/views/RooflineFigure.h"
#include "app/gui/ControlWidgets.h"
#include "app/gui/ViewPanel.h"
#include "gpu/Bench.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace scalex::gui {

class PlotView;
class Session;

class RooflineView : public ViewPanel {
    Q_OBJECT
public:
    explicit RooflineView(Session* session, QWidget* parent = nullptr);
    ~RooflineView() override;

    QString viewId() const override { return QStringLiteral("roofline"); }
    QString title() const override { return tr("Roofline"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;
    figures::ViewFigure* figure() const override { return figure_.get(); }
    QStringList applyControls(const QJsonObject& values) override;

    void setReport(const gpu::BenchReport& report);
    const std::optional<gpu::BenchReport>& report() const { return figure_->report(); }
    // Runs the CPU microbenchmarks (quick sizes) off the UI thread.
    void runBenchmarks();
    void cancelBenchmarks();
    void waitForBenchmarks();
    bool loadReport(const QString& path, QString* error);
    // Draws the charts again (a changed theme, presentation mode or zoom).
    void refresh() { redraw(); }

signals:
    void benchmarksFinished();

private:
    void redraw();

    Session* session_;
    std::unique_ptr<figures::RooflineFigure> figure_;
    ControlBinding* controls_;
    PlotView* roofView_;
    PlotView* timeView_;
    QPushButton* run_;
    QPushButton* cancel_;
    QPushButton* load_;
    QProgressBar* progress_;
    QLabel* status_;
    std::unique_ptr<std::atomic<bool>> cancelFlag_;
    QFutureWatcher<gpu::BenchReport>* watcher_;
};

}  // namespace scalex::gui
