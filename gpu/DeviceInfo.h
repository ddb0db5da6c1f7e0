#pragma once
// What a microbenchmark backend knows about the device it runs on.
#include <string>
#include <vector>

namespace scalex::gpu {

struct DeviceInfo {
    std::string backend;          // "cpu" or "cuda"
    std::string name;
    int computeUnits = 0;         // CUDA: SMs; CPU: hardware threads
    double clockGHz = 0;          // peak core clock where queryable
    double memoryBytes = 0;       // device memory (CPU: physical RAM)
    double peakBandwidth = 0;     // bytes/s from clocks and bus width where queryable, else 0
    std::string computeCapability;  // CUDA only, e.g. "9.0"
};

// Result of asking the CUDA runtime for devices. A binary built without CUDA, or run on a
// machine without a driver, reports that in `message` and carries on.
struct CudaQuery {
    bool compiled = false;   // this binary contains gpu/cuda
    int errorCode = 0;       // cudaError_t of cudaGetDeviceCount (0 = success)
    std::string message;     // human-readable status
    std::vector<DeviceInfo> devices;
};

CudaQuery queryCudaDevices();

// The CPU this process runs on (name from /proc/cpuinfo, hardware threads, RAM).
DeviceInfo queryCpuDevice();

}  // namespace scalex::gpu
