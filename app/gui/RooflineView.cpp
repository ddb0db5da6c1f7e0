#include "app/gui/RooflineView.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include "app/gui/FlowLayout.h"
#include "app/gui/JobPool.h"
#include "app/gui/PlotView.h"
#include "app/gui/RunPoints.h"
#include "app/gui/Session.h"
#include "gpu/Backend.h"
#include "gpu/BenchJson.h"

namespace scalex::gui {

RooflineView::RooflineView(Session* session, QWidget* parent)
    : ViewPanel(parent), session_(session), figure_(std::make_unique<figures::RooflineFigure>()) {
    const std::vector<QChart*> charts = figure_->charts();
    roofView_ = new PlotView(static_cast<PlotChart*>(charts[0]), this);
    timeView_ = new PlotView(static_cast<PlotChart*>(charts[1]), this);
    controls_ = new ControlBinding(&figure_->controls(), [this] { redraw(); }, this);
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
    const figures::Controls& c = figure_->controls();
    for (const QString name : {"accelerator", "model"}) controls->addLabelled(c.at(name).label, controls_->make(name, this));
    controls->addWidget(run_);
    controls->addWidget(cancel_);
    controls->addWidget(progress_);
    controls->addWidget(load_);
    auto* row = new QHBoxLayout();
    row->addWidget(roofView_, 1);
    row->addWidget(timeView_, 1);
    stackWhenNarrow(row);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(row, 1);
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
    // The project's specs are drawn as operating points and over T.
    for (auto signal : {&Session::specsChanged, &Session::styleChanged}) connect(session_, signal, this, &RooflineView::redraw);
    redraw();
}

RooflineView::~RooflineView() {
    cancelBenchmarks();
    watcher_->waitForFinished();
}

QChart* RooflineView::primaryChart() const { return figure_->charts().front(); }
std::vector<QChart*> RooflineView::charts() const { return figure_->charts(); }

QStringList RooflineView::applyControls(const QJsonObject& values) {
    const QStringList notes = figure_->setControls(values, figureInput(session_));
    controls_->showAll();
    redraw();
    return notes;
}

void RooflineView::setReport(const gpu::BenchReport& report) {
    figure_->setReport(report);
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
    figure_->draw(figureInput(session_));
    QString text = figure_->summary();
    if (!figure_->report()) text += tr(" Press <b>Run benchmarks</b> to measure this machine, or load the JSON of `scalex bench`.");
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
        .arg(figure_->operatingPoints()[0], 0, 'f', 0)
        .arg(figure_->operatingPoints()[2], 0, 'f', 0)
        .arg(figure_->operatingPoints()[1], 0, 'f', 2)
        .arg(figure_->operatingPoints()[3], 0, 'f', 2)
        .arg(figure_->crossover(), 0, 'f', 0);
}

}  // namespace scalex::gui
