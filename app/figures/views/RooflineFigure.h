#pragma once
// The roofline: attainable FLOP/s over arithmetic intensity. The spec roofs of the paper's
// accelerators (Tab. accelerator_specs), the roofs of benchmark results when the window has some
// (measured there or loaded), the measured kernels as points, and where a model's prefill and
// decode step sit; next to it the runtime of attention and mLSTM over the context length, and
// where the mLSTM becomes faster.
#include <array>
#include <optional>

#include "app/figures/ViewFigure.h"
#include "gpu/Bench.h"

namespace scalex::figures {

class RooflineFigure : public ViewFigure {
public:
    RooflineFigure();
    QString viewId() const override { return QStringLiteral("roofline"); }
    void draw(const FigureInput& in) override;
    std::vector<QChart*> charts() const override;

    // Benchmark results drawn with the spec roofs (none: the spec roofs only).
    void setReport(std::optional<gpu::BenchReport> report) { report_ = std::move(report); }
    const std::optional<gpu::BenchReport>& report() const { return report_; }

    // What the last draw showed: the roofline crossover on the chosen accelerator (0: none below
    // 128k tokens), the operating points' intensities (prefill and decode of the Transformer, then
    // of the xLSTM), and the words under the charts.
    double crossover() const { return crossover_; }
    const std::array<double, 4>& operatingPoints() const { return operating_; }
    QString summary() const override;

    // "Run benchmarks" (the CPU kernels at quick sizes, off the UI thread) and "Load results…" (the
    // JSON of `scalex bench`).
    std::vector<Action> actions() const override;
    JobOf<Taking> actionJob(const QString& name) override;
    QString openFile(const QString& name, const QString& path) override;

private:
    PlotChart* roofChart_;
    PlotChart* timeChart_;
    std::optional<gpu::BenchReport> report_;
    double crossover_ = 0;
    std::array<double, 4> operating_ = {};
    QString summary_;
};

}  // namespace scalex::figures
