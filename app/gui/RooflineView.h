#pragma once
// The roofline: attainable FLOP/s over arithmetic intensity. The spec roofs of the paper's
// accelerators (Tab. accelerator_specs), the roofs measured on this machine by `scalex bench`, the
// measured kernels as points, and where a model's prefill and decode step sit; next to it the
// runtime of attention and mLSTM over the context length, and where the mLSTM becomes faster.
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>

#include "app/gui/ViewPanel.h"
#include "gpu/Bench.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace scalex::gui {

class PlotView;

class RooflineView : public ViewPanel {
    Q_OBJECT
public:
    explicit RooflineView(QWidget* parent = nullptr);
    ~RooflineView() override;

    QString viewId() const override { return QStringLiteral("roofline"); }
    QString title() const override { return tr("Roofline"); }
    QString explainHtml() const override;
    QChart* primaryChart() const override;
    std::vector<QChart*> charts() const override;

    void setReport(const gpu::BenchReport& report);
    const std::optional<gpu::BenchReport>& report() const { return report_; }
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

    PlotChart* roofChart_;
    PlotChart* timeChart_;
    PlotView* roofView_;
    PlotView* timeView_;
    QComboBox* accelerator_;
    QComboBox* model_;
    QPushButton* run_;
    QPushButton* cancel_;
    QPushButton* load_;
    QProgressBar* progress_;
    QLabel* status_;
    std::optional<gpu::BenchReport> report_;
    std::unique_ptr<std::atomic<bool>> cancelFlag_;
    QFutureWatcher<gpu::BenchReport>* watcher_;
    double crossover_ = 0;     // predicted on the chosen accelerator
    double operating_[4] = {}; // prefill / decode intensity, Transformer and xLSTM
};

}  // namespace scalex::gui
