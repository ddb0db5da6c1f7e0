// CUDA device query. Linked against the static CUDA runtime, so it starts on machines
// without a CUDA installation; without a driver cudaGetDeviceCount returns
// cudaErrorInsufficientDriver (35), which is reported, not fatal.
#include <cuda_runtime.h>

#include <string>

#include "gpu/DeviceInfo.h"

namespace scalex::gpu {

CudaQuery queryCudaDevices() {
    CudaQuery q;
    q.compiled = true;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    q.errorCode = static_cast<int>(err);
    if (err != cudaSuccess) {
        q.message = std::string("no usable CUDA device: ") + cudaGetErrorName(err) + " (" + std::to_string(q.errorCode) +
                    "): " + cudaGetErrorString(err);
        cudaGetLastError();  // clear the sticky error state
        return q;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
        DeviceInfo info;
        info.backend = "cuda";
        info.name = prop.name;
        info.computeUnits = prop.multiProcessorCount;
        info.memoryBytes = static_cast<double>(prop.totalGlobalMem);
        info.computeCapability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
        int clockKHz = 0, memClockKHz = 0, busBits = 0;
        cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, i);
        cudaDeviceGetAttribute(&memClockKHz, cudaDevAttrMemoryClockRate, i);
        cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, i);
        info.clockGHz = clockKHz / 1e6;
        // Double data rate: two transfers per memory clock.
        info.peakBandwidth = 2.0 * memClockKHz * 1e3 * (busBits / 8.0);
        q.devices.push_back(info);
    }
    q.message = std::to_string(count) + " CUDA device(s)";
    return q;
}

}  // namespace scalex::gpu
