#include "app/figures/BenchRoofs.h"

#include "gpu/BenchJson.h"

namespace scalex::figures {

analysis::MeasuredRoofs readBenchRoofs(const QString& path) {
    const gpu::BenchReport r = gpu::loadBenchReport(path);
    return {r.device.name, r.device.backend, r.roofs.compute16, r.roofs.computeF32, r.roofs.bandwidth};
}

}  // namespace scalex::figures
