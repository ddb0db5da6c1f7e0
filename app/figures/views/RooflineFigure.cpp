#include "app/figures/views/RooflineFigure.h"

#include <QObject>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <algorithm>
#include <cmath>

#include "app/figures/LogTicks.h"
#include "app/figures/PlotChart.h"
#include "app/figures/Theme.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/analysis/Study.h"
#include "gpu/Backend.h"
#include "gpu/BenchJson.h"

namespace scalex::figures {

using accounting::Family;

namespace {

const QString kAccelerator = QStringLiteral("accelerator");
const QString kModel = QStringLiteral("model");

// The 7B models of the study (Tab. xlstm/transformer_tokenparam_hyperparams).
accounting::ModelConfig model7B(Family f) {
    return f == Family::Xlstm ? accounting::makeStudyConfig(Family::Xlstm, 4096, 32, 8)
                              : accounting::makeStudyConfig(Family::Transformer, 4096, 32, 32);
}

// Roofline time of one layer's sequence mix at the paper's kernel shapes (attention 32 x 128,
// mLSTM 16 heads of d_qk 128 / d_hv 256, as `scalex bench` measures them), batch 1, T tokens.
double modelTime(bool mlstm, double T, const inference::Accelerator& a) {
    accounting::ModelConfig c = mlstm ? accounting::makeStudyConfig(Family::Xlstm, 4096, 1, 16)
                                      : accounting::makeStudyConfig(Family::Transformer, 4096, 1, 32);
    if (mlstm) c.dQk = 128, c.dHv = 256;
    const accounting::FlopConvention conv = accounting::appendixConvention();
    const accounting::ByteWidths bytes;
    const double flops = mlstm ? accounting::mlstmCellChunkwiseFlops(c, T, conv) : accounting::attentionCoreFlops(c, T, T, conv.ops);
    const double b = mlstm ? c.nHeads * accounting::chunkCount(T, c.chunk) * accounting::mlstmChunkBytes(128, 256, c.chunk, bytes).total()
                           : accounting::attentionBytes(c, T, T, bytes);
    return std::max(flops / a.flops, b / a.memoryBandwidth);
}

// The same for any spec, its layers averaged: the sequence-mix FLOPs of a T-token forward pass
// (SpecAccounting.h: attention within its window, mLSTM cell, Mamba scan) and the cache or states
// it writes (bf16), batch 1.
double specLayerTime(const accounting::ModelSpec& spec, double T, const inference::Accelerator& a) {
    const double layers = static_cast<double>(std::max<std::size_t>(1, spec.layers.size()));
    const double flops = T * accounting::forwardFlopsPerToken(spec, T, accounting::appendixConvention()).seqMix / layers;
    const double b = accounting::kvCacheBytes(spec, T, 1, 2) / layers;
    return std::max(flops / a.flops, b / a.memoryBandwidth);
}

}  // namespace

QString RooflineFigure::summary() const {
    if (report_) return summary_;
    return summary_ + QObject::tr(" Press <b>Run benchmarks</b> to measure this machine, or load the JSON of `scalex bench`.");
}

std::vector<ViewFigure::Action> RooflineFigure::actions() const {
    return {{QStringLiteral("runBenchmarks"), QObject::tr("Run benchmarks"),
             QObject::tr("Measure GEMM, bandwidth, attention and mLSTM kernels on this machine's CPU (quick sizes)"), QString(),
             QObject::tr("Measuring the CPU kernels…"), QObject::tr("%v of %m kernels")},
            {QStringLiteral("loadResults"), QObject::tr("Load results…"), QString(), QObject::tr("Benchmark JSON (*.json)"), QString(), QString()}};
}

JobOf<ViewFigure::Taking> RooflineFigure::actionJob(const QString& name) {
    if (name != QLatin1String("runBenchmarks")) return {};
    return [this](const fit::FitControl& control) -> Taking {
        auto backend = gpu::makeCpuBackend();
        gpu::BenchOptions options;
        options.quick = true;
        const gpu::BenchProgress progress = [&control](int done, int total, const std::string&) {
            if (control.progress) control.progress(static_cast<std::size_t>(done), static_cast<std::size_t>(total));
        };
        auto report = std::make_shared<gpu::BenchReport>(gpu::runBench(*backend, options, progress, control.cancel));
        return [this, report] { setReport(std::move(*report)); };
    };
}

QString RooflineFigure::openFile(const QString& name, const QString& path) {
    if (name != QLatin1String("loadResults")) return {};
    try {
        setReport(gpu::loadBenchReport(path));
        return {};
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

RooflineFigure::RooflineFigure() : roofChart_(makeChart()), timeChart_(makeChart()) {
    // Each accelerator named by its description, as recipes keep it.
    std::vector<ControlChoice> accelerators;
    QString accelerator;
    for (const auto& a : analysis::paperAccelerators()) {
        accelerators.push_back(textChoice(QString::fromStdString(a.description)));
        if (a.name == "H100" || accelerator.isNull()) accelerator = accelerators.back().key;
    }
    controls().add(choiceControl(kAccelerator, QObject::tr("Accelerator"), std::move(accelerators), accelerator));
    controls().add(choiceControl(kModel, QObject::tr("Operating points"),
                                 {{QStringLiteral("batch1"), QObject::tr("7B models, prefill 8192, batch 1")},
                                  {QStringLiteral("batch64"), QObject::tr("7B models, prefill 8192, batch 64")}},
                                 QStringLiteral("batch1")));
}

std::vector<QChart*> RooflineFigure::charts() const { return {roofChart_, timeChart_}; }

void RooflineFigure::draw(const FigureInput& in) {
    // The accelerators are the paper's; measured roofs come from setReport.
    const Theme& theme = Theme::current();
    const auto accelerators = analysis::paperAccelerators();
    const auto chosen = analysis::paperAcceleratorOr(controls().choice(kAccelerator).toStdString());

    roofChart_->clearSeries();
    roofChart_->setAxes({QObject::tr("Intensity (FLOP/byte)"), true, 0.05, 1e4}, {QObject::tr("Attainable FLOP/s"), true, 1e8, 5e15, true});
    roofChart_->setTitle(QObject::tr("Roofline"));
    const auto grid = logGrid(0.05, 1e4, 120);
    for (std::size_t i = 0; i < accelerators.size(); ++i) {
        const auto& a = accelerators[i];
        std::vector<QPointF> roof;
        for (double I : grid) roof.push_back({I, std::min(a.flops, I * a.memoryBandwidth)});
        roofChart_->addLine(QString::fromStdString(a.name), theme.sequential(static_cast<int>(i), static_cast<int>(accelerators.size())),
                            roof, a.name == chosen.name ? 2.2 : 1.0, a.name == chosen.name ? Qt::SolidLine : Qt::DashLine);
    }
    if (report_ && report_->roofs.computeF32 > 0 && report_->roofs.bandwidth > 0) {
        std::vector<QPointF> roof;
        for (double I : grid) roof.push_back({I, std::min(report_->roofs.computeF32, I * report_->roofs.bandwidth)});
        roofChart_->addLine(QObject::tr("measured: %1").arg(QString::fromStdString(report_->device.name).left(24)), theme.highlight, roof, 2.0);
        // Kernels as points, coloured by kind.
        const std::pair<const char*, QColor> kinds[] = {{gpu::kGemm, theme.muted.darker(140)},
                                                         {gpu::kTriad, theme.grid.darker(180)},
                                                         {gpu::kAttentionPrefill, theme.family(Family::Transformer)},
                                                         {gpu::kAttentionDecode, theme.family(Family::Transformer).lighter(140)},
                                                         {gpu::kMlstmChunkwise, theme.family(Family::Xlstm)},
                                                         {gpu::kMlstmStep, theme.family(Family::Xlstm).lighter(150)}};
        for (const auto& [kind, color] : kinds) {
            std::vector<QPointF> pts;
            for (const auto& m : report_->measurements)
                if (m.kernel == kind && m.intensity > 0 && m.flopRate > 0) pts.push_back({m.intensity, m.flopRate});
            if (!pts.empty()) roofChart_->addScatter(QString::fromLatin1(kind), color, pts, 7);
        }
    }
    // The model's operating points on the chosen accelerator.
    const double batch = controls().choice(kModel) == QLatin1String("batch64") ? 64.0 : 1.0;
    const accounting::FlopConvention conv = accounting::appendixConvention();
    const accounting::ByteWidths bytes;
    int k = 0;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const auto c = model7B(f);
        const double prefillI = accounting::prefillFlops(c, batch, 8192, conv).total() / accounting::forwardBytes(c, batch, 8192, bytes).total();
        const double decodeI = accounting::decodeStepFlops(c, batch, 8192, 1, conv).total() / accounting::decodeStepBytes(c, batch, 8192, 1, bytes).total();
        operating_[static_cast<std::size_t>(k++)] = prefillI;
        operating_[static_cast<std::size_t>(k++)] = decodeI;
        const QString name = QString::fromUtf8(accounting::familyLabel(f).data());
        // Prefill right of the ridge, decode left of it (the Explain pane says which).
        roofChart_->addScatter(name, theme.family(f),
                               {{prefillI, std::min(chosen.flops, prefillI * chosen.memoryBandwidth)},
                                {decodeI, std::min(chosen.flops, decodeI * chosen.memoryBandwidth)}},
                               12, true);
    }
    // The project's models of any architecture at the same operating points (the runtime model's
    // work of a spec: the experts the batch touches, windowed or latent caches, recurrent states).
    QStringList specSteps;
    const analysis::RuntimeFitOptions options;
    const inference::RuntimeRates rates = analysis::acceleratorRates(chosen, options);
    for (std::size_t i = 0; i < in.study->specs().size(); ++i) {
        const auto& spec = in.study->specs()[i];
        const inference::Prediction p = analysis::predictRuntime(spec.spec, batch, 8192, rates, options);
        const QColor color = theme.series(spec.name, static_cast<int>(i));
        const double prefillI = p.prefillIntensity(), decodeI = p.decodeIntensity();
        roofChart_->addScatter(QString::fromStdString(spec.name), color,
                               {{prefillI, std::min(chosen.flops, prefillI * chosen.memoryBandwidth)},
                                {decodeI, std::min(chosen.flops, decodeI * chosen.memoryBandwidth)}},
                               10, false);
        specSteps << QObject::tr("%1: step %2 ms, TTFT %3 s").arg(QString::fromStdString(spec.name))
                         .arg(p.stepTime * 1e3, 0, 'g', 3).arg(p.ttft, 0, 'g', 3);
    }
    roofChart_->setAxes(roofChart_->xSpec(), roofChart_->ySpec());

    // Runtime over T: the roofline model on the chosen accelerator, and the measurements.
    timeChart_->clearSeries();
    timeChart_->setAxes({QObject::tr("Context length T"), true, 256, 131072}, {QObject::tr("Layer time, B = 1 (s)"), true, 1e-6, 10});
    timeChart_->setTitle(in.study->specs().empty() ? QObject::tr("Attention vs mLSTM") : QObject::tr("Attention vs mLSTM and the project's models"));
    const auto tGrid = logGrid(256, 131072, 60);
    std::vector<QPointF> att, mlstm;
    crossover_ = 0;
    for (double T : tGrid) {
        att.push_back({T, modelTime(false, T, chosen)});
        mlstm.push_back({T, modelTime(true, T, chosen)});
        if (crossover_ == 0 && mlstm.back().y() < att.back().y()) crossover_ = T;
    }
    timeChart_->addLine(QObject::tr("attention, %1 roofline").arg(QString::fromStdString(chosen.name)), theme.family(Family::Transformer), att, 2.0,
                        Qt::DashLine);
    timeChart_->addLine(QObject::tr("mLSTM, %1 roofline").arg(QString::fromStdString(chosen.name)), theme.family(Family::Xlstm), mlstm, 2.0,
                        Qt::DashLine);
    // The project's specs, in the colours of their operating points.
    for (std::size_t i = 0; i < in.study->specs().size(); ++i) {
        const auto& spec = in.study->specs()[i];
        std::vector<QPointF> pts;
        for (double T : tGrid) pts.push_back({T, specLayerTime(spec.spec, T, chosen)});
        timeChart_->addLine(QObject::tr("%1, mix per layer").arg(QString::fromStdString(spec.name)), theme.series(spec.name, static_cast<int>(i)),
                            pts, 1.8, Qt::DotLine);
    }
    if (report_) {
        for (const auto& [kind, family] : {std::pair{gpu::kAttentionPrefill, Family::Transformer}, {gpu::kMlstmChunkwise, Family::Xlstm}}) {
            std::vector<QPointF> pts;
            for (const auto& m : report_->measurements)
                if (m.kernel == kind && (m.variant.empty() || m.variant == "mha") && m.seconds > 0)
                    pts.push_back({static_cast<double>(m.tokens), m.seconds});
            std::sort(pts.begin(), pts.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
            if (!pts.empty()) timeChart_->addLine(QObject::tr("%1 measured").arg(QString::fromLatin1(kind)), theme.family(family), pts, 2.5);
        }
    }
    timeChart_->fitRangesToData(0.05);

    summary_ = QObject::tr("Roofline crossover on %1: the mLSTM becomes faster than attention from T ≈ %2.")
                   .arg(QString::fromStdString(chosen.name))
                   .arg(crossover_ > 0 ? QString::number(crossover_, 'f', 0) : QObject::tr("—"));
    if (!specSteps.isEmpty())
        summary_ += QObject::tr(" At prefill 8192, batch %1 on the roofs: %2.").arg(batch).arg(specSteps.join(QStringLiteral("; ")));
    if (report_) {
        const auto measured = gpu::crossoverTokens(*report_);
        summary_ += QObject::tr(" Measured on %1: fp32 GEMM %2 GFLOP/s, triad %3 GB/s%4.")
                        .arg(QString::fromStdString(report_->device.name))
                        .arg(report_->roofs.computeF32 / 1e9, 0, 'f', 1)
                        .arg(report_->roofs.bandwidth / 1e9, 0, 'f', 1)
                        .arg(measured ? QObject::tr(", kernel crossover at T ≈ %1").arg(*measured, 0, 'f', 0) : QString());
    }
}

}  // namespace scalex::figures
