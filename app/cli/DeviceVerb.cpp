// scalex device: what the microbenchmark backends can run on. Never fails for a missing GPU.
#include <QJsonArray>
#include <QJsonObject>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "gpu/DeviceInfo.h"

namespace scalex::cli {

namespace {
QJsonObject deviceJson(const gpu::DeviceInfo& d) {
    return {{"backend", QString::fromStdString(d.backend)}, {"name", QString::fromStdString(d.name)},
            {"compute_units", d.computeUnits},              {"clock_ghz", d.clockGHz},
            {"memory_bytes", d.memoryBytes},                {"peak_bandwidth", d.peakBandwidth},
            {"compute_capability", QString::fromStdString(d.computeCapability)}};
}
}  // namespace

int verbDevice(const QStringList& args) {
    QCommandLineParser p;
    p.setApplicationDescription("List the CPU and CUDA devices.");
    p.addHelpOption();
    p.addOption({"json", "Print JSON."});
    if (!parseVerbArguments(p, args)) return kExitOk;
    const gpu::DeviceInfo cpu = gpu::queryCpuDevice();
    const gpu::CudaQuery cuda = gpu::queryCudaDevices();
    if (p.isSet("json")) {
        QJsonArray devices{deviceJson(cpu)};
        for (const auto& d : cuda.devices) devices.append(deviceJson(d));
        printJson(QJsonObject{{"devices", devices},
                              {"cuda_compiled", cuda.compiled},
                              {"cuda_error", cuda.errorCode},
                              {"cuda_status", QString::fromStdString(cuda.message)}});
        return kExitOk;
    }
    QString text = QStringLiteral("cpu   %1, %2 hardware threads, %3 GiB\n")
                       .arg(QString::fromStdString(cpu.name))
                       .arg(cpu.computeUnits)
                       .arg(cpu.memoryBytes / (1024.0 * 1024 * 1024), 0, 'f', 1);
    text += QStringLiteral("cuda  %1\n").arg(QString::fromStdString(cuda.message));
    for (const auto& d : cuda.devices)
        text += QStringLiteral("      %1 (sm_%2), %3 SMs, %4 GHz, %5 GiB, %6 GB/s\n")
                    .arg(QString::fromStdString(d.name), QString::fromStdString(d.computeCapability))
                    .arg(d.computeUnits)
                    .arg(d.clockGHz, 0, 'f', 2)
                    .arg(d.memoryBytes / (1024.0 * 1024 * 1024), 0, 'f', 1)
                    .arg(d.peakBandwidth / 1e9, 0, 'f', 0);
    printText(text);
    return kExitOk;
}

}  // namespace scalex::cli
