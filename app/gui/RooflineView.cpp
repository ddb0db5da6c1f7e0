#include "app/gui/ChoiceKeys.h"
#include "app/gui/RooflineView.h"
#include "app/gui/FlowLayout.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <cmath>

#include "app/gui/JobPool.h"
#include "app/figures/LogTicks.h"
#include "app/gui/FigureNames.h"
#include "app/gui/PlotView.h"
#include "app/figures/Theme.h"
#include "app/gui/FigureNames.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/inference/Accelerator.h"
#include "gpu/Backend.h"
#include "gpu/BenchJson.h"

namespace scalex::gui {

using accounting::Family;

namespace {

std::vector<double> logGrid(double lo, double hi, int n) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
    return out;
}


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

}  // namespace

RooflineView::RooflineView(QWidget* parent) : ViewPanel(parent) {
    roofChart_ = new PlotChart();
    timeChart_ = new PlotChart();
    roofView_ = new PlotView(roofChart_, this);
    timeView_ = new PlotView(timeChart_, this);
    accelerator_ = new QComboBox(this);
    accelerator_->setObjectName(QStringLiteral("accelerator"));
    for (const auto& a : inference::paperAccelerators()) accelerator_->addItem(QString::fromStdString(a.description), QString::fromStdString(a.name));
    accelerator_->setCurrentIndex(std::max(0, accelerator_->findData(QStringLiteral("H100"))));
    model_ = new QComboBox(this);
    model_->setObjectName(QStringLiteral("model"));
    model_->addItem(tr("7B models, prefill 8192, batch 1"), 1.0);
    model_->addItem(tr("7B models, prefill 8192, batch 64"), 64.0);
    setChoiceKeys(model_, {"batch1", "batch64"});
    run_ = new QPushButton(tr("Run benchmarks"), this);
    run_->setToolTip(tr("Measure GEMM, bandwidth, attention and mLSTM kernels on this machine's CPU (quick sizes)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setEnabled(false);
    load_ = new QPushButton(tr("Load results…"), this);
    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(200);
    progress_->setFormat(tr("%v of %m kernels"));
    progress_->setToolTip(tr("Benchmark progress"));
    progress_->hide();  // shown while benchmarks run: idle, it reads as an empty text box
    status_ = new QLabel(this);
    status_->setWordWrap(true);

    auto* controls = new FlowLayout();
    controls->addLabelled(tr("Accelerator"), accelerator_);
    controls->addLabelled(tr("Operating points"), model_);
    controls->addWidget(run_);
    controls->addWidget(cancel_);
    controls->addWidget(progress_);
    controls->addWidget(load_);
    auto* charts = new QHBoxLayout();
    charts->addWidget(roofView_, 1);
    charts->addWidget(timeView_, 1);
    stackWhenNarrow(charts);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(charts, 1);
    layout->addWidget(status_);

    watcher_ = new QFutureWatcher<gpu::BenchReport>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
        progress_->hide();
        run_->setEnabled(true);
        cancel_->setEnabled(false);
        setReport(watcher_->result());
        emit benchmarksFinished();
    });
    connect(run_, &QPushButton::clicked, this, &RooflineView::runBenchmarks);
    connect(cancel_, &QPushButton::clicked, this, &RooflineView::cancelBenchmarks);
    connect(load_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load benchmark results"), QString(), tr("Benchmark JSON (*.json)"));
        QString error;
        if (!path.isEmpty() && !loadReport(path, &error)) status_->setText(error);
    });
    for (QComboBox* b : {accelerator_, model_}) connect(b, &QComboBox::currentIndexChanged, this, &RooflineView::redraw);
    redraw();
}

RooflineView::~RooflineView() {
    cancelBenchmarks();
    watcher_->waitForFinished();
}

QChart* RooflineView::primaryChart() const { return roofChart_; }
std::vector<QChart*> RooflineView::charts() const { return {roofChart_, timeChart_}; }

void RooflineView::setReport(const gpu::BenchReport& report) {
    report_ = report;
    redraw();
}

bool RooflineView::loadReport(const QString& path, QString* error) {
    try {
        setReport(gpu::loadBenchReport(path));
        return true;
    } catch (const std::exception& e) {
        *error = QString::fromUtf8(e.what());
        return false;
    }
}

void RooflineView::runBenchmarks() {
    if (watcher_->isRunning()) return;
    cancelFlag_ = std::make_unique<std::atomic<bool>>(false);
    run_->setEnabled(false);
    cancel_->setEnabled(true);
    progress_->setValue(0);
    progress_->show();
    status_->setText(tr("Measuring the CPU kernels…"));
    std::atomic<bool>* cancel = cancelFlag_.get();
    QPointer<QProgressBar> bar = progress_;
    watcher_->setFuture(QtConcurrent::run(jobPool(), [cancel, bar] {
        auto backend = gpu::makeCpuBackend();
        gpu::BenchOptions options;
        options.quick = true;
        return gpu::runBench(*backend, options,
                             [bar](int done, int total, const std::string&) {
                                 QMetaObject::invokeMethod(bar, [bar, done, total] {
                                     if (bar) bar->setRange(0, total), bar->setValue(done);
                                 }, Qt::QueuedConnection);
                             },
                             cancel);
    }));
}

void RooflineView::cancelBenchmarks() {
    if (cancelFlag_) cancelFlag_->store(true);
}

void RooflineView::waitForBenchmarks() {
    watcher_->waitForFinished();
    QCoreApplication::processEvents();
}

void RooflineView::redraw() {
    const Theme& theme = Theme::current();
    const auto accelerators = inference::paperAccelerators();
    const auto chosen = inference::paperAccelerator(accelerator_->currentData().toString().toStdString()).value_or(accelerators.back());

    roofChart_->clearSeries();
    roofChart_->setAxes({tr("Intensity (FLOP/byte)"), true, 0.05, 1e4}, {tr("Attainable FLOP/s"), true, 1e8, 5e15, true});
    roofChart_->setTitle(tr("Roofline"));
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
        roofChart_->addLine(tr("measured: %1").arg(QString::fromStdString(report_->device.name).left(24)), theme.highlight, roof, 2.0);
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
    const double batch = model_->currentData().toDouble();
    const accounting::FlopConvention conv = accounting::appendixConvention();
    const accounting::ByteWidths bytes;
    int k = 0;
    for (Family f : {Family::Transformer, Family::Xlstm}) {
        const auto c = model7B(f);
        const double prefillI = accounting::prefillFlops(c, batch, 8192, conv).total() / accounting::forwardBytes(c, batch, 8192, bytes).total();
        const double decodeI = accounting::decodeStepFlops(c, batch, 8192, 1, conv).total() / accounting::decodeStepBytes(c, batch, 8192, 1, bytes).total();
        operating_[k++] = prefillI;
        operating_[k++] = decodeI;
        const QString name = QString::fromUtf8(accounting::familyLabel(f).data());
        // Prefill right of the ridge, decode left of it (the Explain pane says which).
        roofChart_->addScatter(name, theme.family(f),
                               {{prefillI, std::min(chosen.flops, prefillI * chosen.memoryBandwidth)},
                                {decodeI, std::min(chosen.flops, decodeI * chosen.memoryBandwidth)}},
                               12, true);
    }
    roofChart_->setAxes(roofChart_->xSpec(), roofChart_->ySpec());

    // Runtime over T: the roofline model on the chosen accelerator, and the measurements.
    timeChart_->clearSeries();
    timeChart_->setAxes({tr("Context length T"), true, 256, 131072}, {tr("Layer time, B = 1 (s)"), true, 1e-6, 10});
    timeChart_->setTitle(tr("Attention vs mLSTM"));
    const auto tGrid = logGrid(256, 131072, 60);
    std::vector<QPointF> att, mlstm;
    crossover_ = 0;
    for (double T : tGrid) {
        att.push_back({T, modelTime(false, T, chosen)});
        mlstm.push_back({T, modelTime(true, T, chosen)});
        if (crossover_ == 0 && mlstm.back().y() < att.back().y()) crossover_ = T;
    }
    timeChart_->addLine(tr("attention, %1 roofline").arg(QString::fromStdString(chosen.name)), theme.family(Family::Transformer), att, 2.0, Qt::DashLine);
    timeChart_->addLine(tr("mLSTM, %1 roofline").arg(QString::fromStdString(chosen.name)), theme.family(Family::Xlstm), mlstm, 2.0, Qt::DashLine);
    if (report_) {
        for (const auto& [kind, family] : {std::pair{gpu::kAttentionPrefill, Family::Transformer}, {gpu::kMlstmChunkwise, Family::Xlstm}}) {
            std::vector<QPointF> pts;
            for (const auto& m : report_->measurements)
                if (m.kernel == kind && (m.variant.empty() || m.variant == "mha") && m.seconds > 0)
                    pts.push_back({static_cast<double>(m.tokens), m.seconds * (kind == std::string(gpu::kAttentionPrefill) ? 1.0 : 1.0)});
            std::sort(pts.begin(), pts.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
            if (!pts.empty()) timeChart_->addLine(tr("%1 measured").arg(QString::fromLatin1(kind)), theme.family(family), pts, 2.5);
        }
    }
    timeChart_->fitRangesToData(0.05);

    QString text = tr("Roofline crossover on %1: the mLSTM becomes faster than attention from T ≈ %2.")
                       .arg(QString::fromStdString(chosen.name))
                       .arg(crossover_ > 0 ? QString::number(crossover_, 'f', 0) : tr("—"));
    if (report_) {
        const auto measured = gpu::crossoverTokens(*report_);
        text += tr(" Measured on %1: fp32 GEMM %2 GFLOP/s, triad %3 GB/s%4.")
                    .arg(QString::fromStdString(report_->device.name))
                    .arg(report_->roofs.computeF32 / 1e9, 0, 'f', 1)
                    .arg(report_->roofs.bandwidth / 1e9, 0, 'f', 1)
                    .arg(measured ? tr(", kernel crossover at T ≈ %1").arg(*measured, 0, 'f', 0) : QString());
    } else {
        text += tr(" Press <b>Run benchmarks</b> to measure this machine, or load the JSON of `scalex bench`.");
    }
    status_->setText(text);
    emit explainChanged();
}

QString RooflineView::explainHtml() const {
    return tr("<h3>The roofline model</h3>"
              "<p>A kernel's speed is capped twice: by the accelerator's arithmetic rate α (FLOP/s) and by its "
              "memory bandwidth β (bytes/s). With <b>arithmetic intensity</b> I = FLOPs / bytes moved, the "
              "attainable rate is</p><p style='font-size:large'>min(α, I·β)</p>"
              "<p>Left of the ridge (I = α/β, about 295 FLOP/byte on an H100) a kernel waits for memory; right "
              "of it, for arithmetic.</p>"
              "<p>Prefill processes many tokens per weight read: high intensity, compute-bound "
              "(Transformer %1, xLSTM %2 FLOP/byte here). A decode step reads every weight — and the "
              "Transformer its whole KV cache — for one token: intensity near 1, memory-bound "
              "(Transformer %3, xLSTM %4).</p>"
              "<p>Right: time of one layer's attention and mLSTM cell over the context length. Attention grows "
              "as T², the chunkwise mLSTM as T; they cross at T ≈ %5 on the chosen accelerator.</p>")
        .arg(operating_[0], 0, 'f', 0)
        .arg(operating_[2], 0, 'f', 0)
        .arg(operating_[1], 0, 'f', 2)
        .arg(operating_[3], 0, 'f', 2)
        .arg(crossover_, 0, 'f', 0);
}

}  // namespace scalex::gui
