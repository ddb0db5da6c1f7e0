// Used when the build has no gpu/cuda: the query says so instead of failing.
#ifndef SCALEX_HAVE_CUDA
#include "gpu/DeviceInfo.h"

namespace scalex::gpu {

CudaQuery queryCudaDevices() {
    CudaQuery q;
    q.compiled = false;
    q.message = "this build of Scalex has no CUDA support (nvcc was not found at configure time)";
    return q;
}

}  // namespace scalex::gpu
#endif

#ifndef SCALEX_HAVE_CUDA
#include "gpu/Backend.h"

namespace scalex::gpu {

std::unique_ptr<Backend> makeCudaBackend(int, std::string& why) {
    why = "this build of Scalex has no CUDA support (nvcc was not found at configure time)";
    return nullptr;
}

}  // namespace scalex::gpu
#endif
