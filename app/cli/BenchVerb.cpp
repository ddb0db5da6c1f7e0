// scalex bench: on-device microbenchmarks (GEMM, STREAM, causal attention, mLSTM) for the
// roofline and the mLSTM-vs-attention comparison. Prints a table, optionally writes JSON.
#include <QJsonArray>
#include <QTextStream>
#include <atomic>
#include <csignal>
#include <cstdio>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "gpu/Bench.h"
#include "gpu/BenchJson.h"

namespace scalex::cli {

namespace {

std::atomic<bool> gCancel{false};
extern "C" void onInterrupt(int) { gCancel.store(true); }

QString shapeText(const gpu::Measurement& m) {
    if (m.kernel == gpu::kGemm) return QStringLiteral("%1^3").arg(m.m);
    if (m.kernel == gpu::kCopy || m.kernel == gpu::kTriad)
        return QStringLiteral("%1 MiB x %2").arg(m.elements * 8 / (1024.0 * 1024.0), 0, 'f', 0).arg(m.kernel == gpu::kCopy ? 2 : 3);
    if (m.kernel == gpu::kMlstmChunkwise) return QStringLiteral("H%1 %2/%3 T%4 L%5").arg(m.heads).arg(m.dQk).arg(m.dHv).arg(m.tokens).arg(m.chunk);
    if (m.kernel == gpu::kMlstmStep) return QStringLiteral("H%1 %2/%3 B%4").arg(m.heads).arg(m.dQk).arg(m.dHv).arg(m.batch);
    return QStringLiteral("H%1/%2 D%3 T%4").arg(m.heads).arg(m.kvHeads).arg(m.dQk).arg(m.tokens);
}

QString table(const gpu::BenchReport& r) {
    QString out;
    QTextStream s(&out);
    s << "device  " << QString::fromStdString(r.device.backend) << ": " << QString::fromStdString(r.device.name) << ", "
      << r.threads << (r.device.backend == "cpu" ? " threads" : " stream") << "\n";
    s << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
             .arg("kernel", -18).arg("prec", -9).arg("shape", -22).arg("time ms", 12).arg("GFLOP/s", 10).arg("GB/s", 9)
             .arg("FLOP/B", 8).arg("roof %", 7);
    for (const auto& m : r.measurements)
        s << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8\n")
                 .arg(QString::fromStdString(m.kernel), -18)
                 .arg(QString::fromStdString(m.precision + (m.variant.empty() ? "" : " " + m.variant)), -9)
                 .arg(shapeText(m), -22)
                 .arg(m.seconds * 1e3, 12, 'f', 3)
                 .arg(m.flopRate / 1e9, 10, 'f', 1)
                 .arg(m.byteRate / 1e9, 9, 'f', 1)
                 .arg(m.intensity, 8, 'f', 1)
                 .arg(m.roofFraction * 100, 7, 'f', 1);
    const auto& f = r.roofs;
    if (f.computeF32 > 0) s << "compute roof fp32   " << QString::number(f.computeF32 / 1e9, 'f', 1) << " GFLOP/s (best GEMM)\n";
    if (f.compute16 > 0) s << "compute roof 16-bit " << QString::number(f.compute16 / 1e9, 'f', 1) << " GFLOP/s (best GEMM)\n";
    if (f.bandwidth > 0) s << "memory roof         " << QString::number(f.bandwidth / 1e9, 'f', 1) << " GB/s (triad, largest array)\n";
    if (f.theoreticalF32 > 0) {
        s << "theoretical fp32    " << QString::number(f.theoreticalF32 / 1e9, 'f', 1) << " GFLOP/s = "
          << QString::fromStdString(f.peakFormula) << "\n";
        if (f.computeF32 > 0)
            s << "GEMM fp32 / peak    " << QString::number(100 * f.computeF32 / f.theoreticalF32, 'f', 1) << " %\n";
    }
    for (const char* variant : {"mha", "gqa"})
        if (auto t = gpu::crossoverTokens(r, variant))
            s << "mLSTM faster than " << variant << " attention prefill from T ~ " << QString::number(*t, 'f', 0) << "\n";
    for (const auto& e : r.errors) s << "failed   " << QString::fromStdString(e) << "\n";
    for (const auto& v : r.verification)
        s << (v.pass() ? "verified " : "FAILED   ") << QString::fromStdString(v.kernel) << " [" << QString::fromStdString(v.shape)
          << "] error " << QString::number(v.error, 'g', 3) << " (tolerance " << QString::number(v.tolerance, 'g', 2) << ")\n";
    return out;
}

}  // namespace

int verbBench(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription(
        "On-device microbenchmarks: GEMM (fp32, fp16, bf16) and STREAM copy/triad for the roofs, causal "
        "attention prefill/decode (MHA and GQA, head dim 128) and the xLSTM-7B mLSTM cell (chunkwise and "
        "recurrent step, d_qk 128, d_hv 256) over T. FLOPs and bytes follow the paper's accounting.\n"
        "The T sweep doubles from --min-tokens to --max-tokens (default 512..65536 on CUDA; the CPU default "
        "stops at 4096, where one attention prefill of 32 heads already takes seconds).");
    p.addHelpOption();
    p.addOptions({
        {"backend", "cpu, cuda or auto (CUDA when a device is usable, else CPU).", "name", "auto"},
        {"kernels", "Comma-separated subset of gemm,bandwidth,attention,mlstm.", "list", "gemm,bandwidth,attention,mlstm"},
        {"quick", "Small sizes only (a CPU run takes seconds)."},
        {"threads", "CPU worker threads (default: all hardware threads).", "n"},
        {"min-tokens", "Shortest T of the attention/mLSTM sweep.", "n", "512"},
        {"max-tokens", "Longest T of the attention/mLSTM sweep.", "n"},
        {"chunk", "mLSTM chunk size L of the chunkwise kernel.", "n", "64"},
        {"device", "CUDA device index.", "n", "0"},
        {"verify", "Check the backend's kernels against the plain references first (exit 1 on a mismatch)."},
        {"out", "Write the results as JSON to this file.", "file"},
        {"json", "Print the results as JSON instead of a table."},
    });
    if (!parseVerbArguments(p, args)) return kExitOk;

    gpu::BenchOptions o;
    o.quick = p.isSet("quick");
    o.verify = p.isSet("verify");
    o.gemm = o.bandwidth = o.attention = o.mlstm = false;
    for (const QString& k : p.value("kernels").split(',', Qt::SkipEmptyParts)) {
        const QString name = k.trimmed();
        if (name == "gemm") o.gemm = true;
        else if (name == "bandwidth") o.bandwidth = true;
        else if (name == "attention") o.attention = true;
        else if (name == "mlstm") o.mlstm = true;
        else throw UsageError(("--kernels: unknown kernel '" + name + "' (expected gemm, bandwidth, attention or mlstm)").toStdString());
    }
    if (!o.gemm && !o.bandwidth && !o.attention && !o.mlstm) throw UsageError("--kernels: no kernel selected");
    const int threads = static_cast<int>(intOption(p, "threads").value_or(0));
    if (threads > 4096) throw UsageError("--threads: at most 4096");
    o.minTokens = static_cast<int>(*intOption(p, "min-tokens"));
    o.chunk = static_cast<int>(*intOption(p, "chunk"));
    if (o.chunk > 1024) throw UsageError("--chunk: at most 1024");
    const int deviceIndex = static_cast<int>(*intOption(p, "device", 0));

    const QString backendName = p.value("backend");
    if (backendName != "cpu" && backendName != "cuda" && backendName != "auto")
        throw UsageError(("--backend: unknown backend '" + backendName + "' (expected cpu, cuda or auto)").toStdString());
    std::unique_ptr<gpu::Backend> backend;
    std::string why;
    if (backendName != "cpu") {
        backend = gpu::makeCudaBackend(deviceIndex, why);
        if (!backend && backendName == "cuda") throw UsageError("--backend cuda: " + why);
    }
    if (!backend) backend = gpu::makeCpuBackend(threads);
    const bool onGpu = backend->device().backend == "cuda";
    o.maxTokens = static_cast<int>(intOption(p, "max-tokens").value_or(onGpu ? 65536 : 4096));
    if (o.maxTokens > (1 << 20)) throw UsageError("--max-tokens: at most 1048576");
    if (o.minTokens > o.maxTokens) throw UsageError("--min-tokens must not exceed --max-tokens");
    if (o.quick) o.timing = {1, 2, 20, 0.02, 0.5, nullptr};

    if (!onGpu && backendName == "auto") std::fprintf(stderr, "scalex bench: using the CPU (%s)\n", why.c_str());
    gCancel.store(false);
    auto previous = std::signal(SIGINT, onInterrupt);
    const gpu::BenchReport report = gpu::runBench(
        *backend, o,
        [](int done, int total, const std::string& what) {
            std::fprintf(stderr, "[%d/%d] %s\n", done, total, what.c_str());
            std::fflush(stderr);
        },
        &gCancel);
    std::signal(SIGINT, previous);

    if (p.isSet("out")) gpu::saveBenchReport(report, p.value("out"));
    if (p.isSet("json"))
        printJson(gpu::toJson(report));
    else
        printText(table(report));
    if (gCancel.load()) {
        std::fprintf(stderr, "scalex bench: interrupted; %zu measurements kept\n", report.measurements.size());
        return 130;
    }
    for (const auto& v : report.verification)
        if (!v.pass()) return kExitUnusable;
    if (!report.errors.empty()) return kExitUnusable;
    return kExitOk;
}

}  // namespace scalex::cli
