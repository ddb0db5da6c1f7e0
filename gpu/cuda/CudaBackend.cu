// The CUDA backend: STREAM copy/triad, a FlashAttention-style causal attention (prefill, and
// split-K decode over a KV cache), the chunkwise mLSTM (a sequential inter-chunk state pass and
// a chunk-parallel output pass, as in TFLA) and its recurrent step, plus cuBLAS GEMM.
//
// cuBLAS is opened with dlopen("libcublas.so.13") the first time a GEMM runs, never linked:
// the GUI binary links scalex_gpu, and libcublas pulls in libcublasLt (~500 MB) at start-up
// (DESIGN.md: keep cuBLAS out of the GUI binary). libcublas talks to the driver directly, so
// it coexists with the static runtime linked here; calls use the legacy default stream.
//
// The attention and mLSTM kernels are plain fp32 SIMT kernels (no tensor cores): they are
// written for correctness against the references and for the memory-bound regimes (decode,
// mLSTM step), not to match FlashAttention-3 throughput.
#include <cublas_api.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu/Backend.h"

namespace scalex::gpu {

namespace {

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

struct DeviceBuffer {
    void* ptr = nullptr;
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) { check(cudaMalloc(&ptr, std::max<std::size_t>(bytes, 4)), "cudaMalloc"); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr, o.ptr);
        return *this;
    }
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr);
    }
};

DeviceBuffer upload(const std::vector<float>& v) {
    DeviceBuffer b(v.size() * sizeof(float));
    check(cudaMemcpy(b.ptr, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
    return b;
}

void download(const DeviceBuffer& b, std::vector<float>& v, std::size_t n) {
    v.resize(n);
    check(cudaMemcpy(v.data(), b.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), "download");
}

unsigned blocksFor(std::size_t n, unsigned threads = 256) {
    return static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, 65535u * 16u));
}

// --- fills and conversions ---------------------------------------------------------------------

__device__ __forceinline__ float hashUniform(std::size_t i, unsigned seed) {
    unsigned x = static_cast<unsigned>(i) * 0x9E3779B9u ^ static_cast<unsigned>(i >> 32) * 0x85EBCA6Bu ^ seed * 0xC2B2AE35u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return (x >> 8) * (2.0f / 16777216.0f) - 1.0f;  // uniform in [-1, 1)
}

template <class T>
__global__ void fillKernel(T* p, std::size_t n, unsigned seed, float scale, float offset) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        p[i] = static_cast<T>(offset + scale * hashUniform(i, seed));
}

template <class T>
void fill(T* p, std::size_t n, unsigned seed, float scale = 1.0f, float offset = 0.0f) {
    fillKernel<T><<<blocksFor(n), 256>>>(p, n, seed, scale, offset);
    check(cudaGetLastError(), "fill");
}

__global__ void toHalf(const float* in, __half* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = __float2half_rn(in[i]);
}
__global__ void toBf16(const float* in, __nv_bfloat16* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16_rn(in[i]);
}
__global__ void fromHalf(const __half* in, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = __half2float(in[i]);
}
__global__ void fromBf16(const __nv_bfloat16* in, float* out, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = __bfloat162float(in[i]);
}

}  // namespace

}  // namespace scalex::gpu

#include "gpu/cuda/Kernels.cuh"

namespace scalex::gpu {

namespace {

// --- cuBLAS, opened at run time --------------------------------------------------------------

struct Cublas {
    using CreateFn = cublasStatus_t (*)(cublasHandle_t*);
    using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
    using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                        const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                        cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    void* lib = nullptr;
    CreateFn create = nullptr;
    DestroyFn destroy = nullptr;
    GemmExFn gemmEx = nullptr;
    cublasHandle_t handle = nullptr;

    void open() {
        if (handle) return;
        for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
            if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
        if (!lib) throw std::runtime_error(std::string("cannot load cuBLAS (libcublas.so): ") + dlerror());
        create = reinterpret_cast<CreateFn>(dlsym(lib, "cublasCreate_v2"));
        destroy = reinterpret_cast<DestroyFn>(dlsym(lib, "cublasDestroy_v2"));
        gemmEx = reinterpret_cast<GemmExFn>(dlsym(lib, "cublasGemmEx"));
        if (!create || !destroy || !gemmEx) throw std::runtime_error("cuBLAS lacks cublasCreate_v2/cublasGemmEx");
        if (create(&handle) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    }
    ~Cublas() {
        if (handle) destroy(handle);
        // The library stays loaded: unloading it while the runtime is live is not worth the risk.
    }
    // C = A B, column-major; operands of `type`, fp32 accumulation (tensor cores for 16-bit types).
    void gemm(const GemmShape& s, const void* a, const void* b, void* c) {
        const cudaDataType type = s.precision == Precision::F32 ? CUDA_R_32F : s.precision == Precision::F16 ? CUDA_R_16F : CUDA_R_16BF;
        const float one = 1.0f, zero = 0.0f;
        const cublasStatus_t st = gemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, a, type, s.m, b, type, s.k,
                                         &zero, c, type, s.m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        if (st != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx failed with status " + std::to_string(st));
    }
};

// --- the backend ---------------------------------------------------------------------------------

class CudaBackend final : public Backend {
public:
    CudaBackend(int index, DeviceInfo info) : index_(index), info_(std::move(info)) {
        check(cudaSetDevice(index_), "cudaSetDevice");
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&stop_), "cudaEventCreate");
        check(cudaDeviceGetAttribute(&maxShared_, cudaDevAttrMaxSharedMemoryPerBlockOptin, index_), "shared memory limit");
    }
    ~CudaBackend() override {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }

    DeviceInfo device() const override { return info_; }

    template <class F>
    std::vector<double> time(const TimingPlan& plan, F&& run) {
        auto cancelled = [&] { return plan.cancel && plan.cancel->load(); };
        for (int i = 0; i < plan.warmup && !cancelled(); ++i) run();
        check(cudaDeviceSynchronize(), "warm-up");
        std::vector<double> times;
        double total = 0;
        while (!cancelled() && static_cast<int>(times.size()) < plan.maxReps &&
               (times.empty() || (static_cast<int>(times.size()) < plan.minReps && total < plan.maxSeconds) ||
            total < plan.minSeconds)) {
            check(cudaEventRecord(start_), "cudaEventRecord");
            run();
            check(cudaEventRecord(stop_), "cudaEventRecord");
            check(cudaEventSynchronize(stop_), "kernel");
            float ms = 0;
            check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
            times.push_back(ms * 1e-3);
            total += ms * 1e-3;
        }
        return times;
    }

    std::vector<double> timeGemm(const GemmShape& s, const TimingPlan& plan) override {
        cublas_.open();
        const std::size_t e = static_cast<std::size_t>(precisionBytes(s.precision));
        const std::size_t na = static_cast<std::size_t>(s.m) * s.k, nb = static_cast<std::size_t>(s.k) * s.n;
        DeviceBuffer a(na * e), b(nb * e), c(static_cast<std::size_t>(s.m) * s.n * e);
        fillAs(s.precision, a, na, 1);
        fillAs(s.precision, b, nb, 2);
        return time(plan, [&] { cublas_.gemm(s, a.ptr, b.ptr, c.ptr); });
    }

    std::vector<double> timeStream(StreamKernel kind, std::size_t n, const TimingPlan& plan) override {
        DeviceBuffer a(n * 8), b(n * 8), c(n * 8);
        fill(a.as<double>(), n, 1);
        fill(b.as<double>(), n, 2);
        fill(c.as<double>(), n, 3);
        const unsigned blocks = static_cast<unsigned>(info_.computeUnits * 8);
        return time(plan, [&] {
            if (kind == StreamKernel::Copy)
                copyKernel<<<blocks, 256>>>(a.as<double>(), b.as<double>(), n);
            else
                triadKernel<<<blocks, 256>>>(a.as<double>(), b.as<double>(), c.as<double>(), n);
        });
    }

    std::vector<double> timeAttention(const AttentionShape& s, const TimingPlan& plan) override {
        const std::size_t nq = static_cast<std::size_t>(s.batch) * s.heads * s.queries * s.headDim;
        const std::size_t nk = static_cast<std::size_t>(s.batch) * s.kvHeads * s.keys * s.headDim;
        DeviceBuffer q(nq * 4), k(nk * 4), v(nk * 4), o(nq * 4);
        fill(q.as<float>(), nq, 1);
        fill(k.as<float>(), nk, 2);
        fill(v.as<float>(), nk, 3);
        AttentionScratch scratch;
        return time(plan, [&] { runAttention(s, q.as<float>(), k.as<float>(), v.as<float>(), o.as<float>(), scratch); });
    }

    std::vector<double> timeMlstmChunkwise(const MlstmShape& s, const TimingPlan& plan) override {
        MlstmDevice d(s);
        d.randomise(s);
        return time(plan, [&] { runMlstmChunkwise(s, d); });
    }

    std::vector<double> timeMlstmStep(const MlstmShape& shape, const TimingPlan& plan) override {
        MlstmShape s = shape;
        s.tokens = 1;
        MlstmDevice d(s);
        d.randomise(s);
        return time(plan, [&] { runMlstmStep(s, d, 0); });
    }

    void gemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) override {
        cublas_.open();
        const std::size_t na = a.size(), nb = b.size(), nc = static_cast<std::size_t>(s.m) * s.n;
        DeviceBuffer a32 = upload(a), b32 = upload(b), c32(nc * 4);
        if (s.precision == Precision::F32) {
            cublas_.gemm(s, a32.ptr, b32.ptr, c32.ptr);
        } else {
            DeviceBuffer a16(na * 2), b16(nb * 2), c16(nc * 2);
            if (s.precision == Precision::F16) {
                toHalf<<<blocksFor(na), 256>>>(a32.as<float>(), a16.as<__half>(), na);
                toHalf<<<blocksFor(nb), 256>>>(b32.as<float>(), b16.as<__half>(), nb);
                cublas_.gemm(s, a16.ptr, b16.ptr, c16.ptr);
                fromHalf<<<blocksFor(nc), 256>>>(c16.as<__half>(), c32.as<float>(), nc);
            } else {
                toBf16<<<blocksFor(na), 256>>>(a32.as<float>(), a16.as<__nv_bfloat16>(), na);
                toBf16<<<blocksFor(nb), 256>>>(b32.as<float>(), b16.as<__nv_bfloat16>(), nb);
                cublas_.gemm(s, a16.ptr, b16.ptr, c16.ptr);
                fromBf16<<<blocksFor(nc), 256>>>(c16.as<__nv_bfloat16>(), c32.as<float>(), nc);
            }
            check(cudaGetLastError(), "conversion");
        }
        check(cudaDeviceSynchronize(), "gemm");
        download(c32, c, nc);
    }

    void attention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out) override {
        DeviceBuffer q = upload(in.q), k = upload(in.k), v = upload(in.v);
        const std::size_t nq = in.q.size();
        DeviceBuffer o(nq * 4);
        AttentionScratch scratch;
        runAttention(s, q.as<float>(), k.as<float>(), v.as<float>(), o.as<float>(), scratch);
        check(cudaDeviceSynchronize(), "attention");
        download(o, out, nq);
    }

    void mlstmChunkwise(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& st) override {
        MlstmDevice d(s);
        d.upload(in);
        runMlstmChunkwise(s, d);
        check(cudaDeviceSynchronize(), "mLSTM chunkwise");
        const std::size_t bh = static_cast<std::size_t>(s.batch) * s.heads;
        download(d.h, h, bh * s.tokens * s.dHv);
        download(d.C, st.C, bh * s.dQk * s.dHv);
        download(d.n[0], st.n, bh * s.dQk);
        download(d.m[0], st.m, bh);
    }

    void mlstmSteps(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& st) override {
        MlstmDevice d(s);
        d.upload(in);
        check(cudaMemcpy(d.C.ptr, st.C.data(), st.C.size() * 4, cudaMemcpyHostToDevice), "upload");
        check(cudaMemcpy(d.n[0].ptr, st.n.data(), st.n.size() * 4, cudaMemcpyHostToDevice), "upload");
        check(cudaMemcpy(d.m[0].ptr, st.m.data(), st.m.size() * 4, cudaMemcpyHostToDevice), "upload");
        for (int t = 0; t < s.tokens; ++t) runMlstmStep(s, d, t);  // each step swaps n/m buffers
        check(cudaDeviceSynchronize(), "mLSTM steps");
        const std::size_t bh = static_cast<std::size_t>(s.batch) * s.heads;
        download(d.h, h, bh * s.tokens * s.dHv);
        download(d.C, st.C, bh * s.dQk * s.dHv);
        download(d.n[0], st.n, bh * s.dQk);
        download(d.m[0], st.m, bh);
    }

private:
    struct AttentionScratch {
        DeviceBuffer partO, partML;
        std::size_t floats = 0;
    };

    struct MlstmDevice {
        DeviceBuffer q, k, v, ig, fg, h, C, n[2], m[2], chunkC, chunkN, chunkM;
        explicit MlstmDevice(const MlstmShape& s) {
            const std::size_t bh = static_cast<std::size_t>(s.batch) * s.heads, T = s.tokens;
            q = DeviceBuffer(bh * T * s.dQk * 4);
            k = DeviceBuffer(bh * T * s.dQk * 4);
            v = DeviceBuffer(bh * T * s.dHv * 4);
            ig = DeviceBuffer(bh * T * 4);
            fg = DeviceBuffer(bh * T * 4);
            h = DeviceBuffer(bh * T * s.dHv * 4);
            C = DeviceBuffer(bh * s.dQk * s.dHv * 4);
            for (int i = 0; i < 2; ++i) {
                n[i] = DeviceBuffer(bh * s.dQk * 4);
                m[i] = DeviceBuffer(bh * 4);
            }
            check(cudaMemset(C.ptr, 0, bh * s.dQk * s.dHv * 4), "memset");
            check(cudaMemset(n[0].ptr, 0, bh * s.dQk * 4), "memset");
            check(cudaMemset(m[0].ptr, 0, bh * 4), "memset");
            // Per-chunk start states of the chunkwise form.
            const std::size_t chunks = (T + s.chunk - 1) / s.chunk;
            chunkC = DeviceBuffer(bh * chunks * s.dQk * s.dHv * 4);
            chunkN = DeviceBuffer(bh * chunks * s.dQk * 4);
            chunkM = DeviceBuffer(bh * chunks * 4);
        }
        void randomise(const MlstmShape& s) {
            const std::size_t bh = static_cast<std::size_t>(s.batch) * s.heads, T = s.tokens;
            fill(q.as<float>(), bh * T * s.dQk, 1);
            fill(k.as<float>(), bh * T * s.dQk, 2);
            fill(v.as<float>(), bh * T * s.dHv, 3);
            fill(ig.as<float>(), bh * T, 4, 2.0f, -1.0f);
            fill(fg.as<float>(), bh * T, 5, 1.5f, 3.0f);
        }
        void upload(const MlstmData& in) {
            auto put = [](DeviceBuffer& b, const std::vector<float>& x) {
                check(cudaMemcpy(b.ptr, x.data(), x.size() * 4, cudaMemcpyHostToDevice), "upload");
            };
            put(q, in.q);
            put(k, in.k);
            put(v, in.v);
            put(ig, in.igate);
            put(fg, in.fgate);
        }
    };

    void fillAs(Precision p, DeviceBuffer& b, std::size_t n, unsigned seed) {
        if (p == Precision::F32)
            fill(b.as<float>(), n, seed);
        else if (p == Precision::F16)
            fill(b.as<__half>(), n, seed);
        else
            fill(b.as<__nv_bfloat16>(), n, seed);
    }

    void runAttention(const AttentionShape& s, const float* q, const float* k, const float* v, float* out,
                      AttentionScratch& scratch) {
        const AttentionSplit split = attentionSplit(s, info_.computeUnits);
        const std::size_t floats = static_cast<std::size_t>(split.splits) * s.batch * s.heads * s.headDim;
        if (split.splits > 1 && scratch.floats < floats) {
            scratch.partO = DeviceBuffer(floats * 4);
            scratch.partML = DeviceBuffer(static_cast<std::size_t>(split.splits) * s.batch * s.heads * 2 * 4);
            scratch.floats = floats;
        }
        launchAttention(s, split, q, k, v, out, scratch.partO.as<float>(), scratch.partML.as<float>());
        check(cudaGetLastError(), "attention");
    }

    void runMlstmChunkwise(const MlstmShape& s, MlstmDevice& d) {
        const std::size_t stateBytes = mlstmStateSharedBytes(s), outBytes = mlstmOutputSharedBytes(s);
        if (static_cast<int>(std::max(stateBytes, outBytes)) > maxShared_)
            throw std::runtime_error("mLSTM chunk " + std::to_string(s.chunk) + " with d_qk " + std::to_string(s.dQk) + " needs " +
                                     std::to_string(std::max(stateBytes, outBytes)) +
                                     " bytes of shared memory per block; the device allows " + std::to_string(maxShared_));
        check(cudaFuncSetAttribute(mlstmStateKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(stateBytes)), "smem");
        check(cudaFuncSetAttribute(mlstmOutputKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(outBytes)), "smem");
        launchMlstmChunkwise(s, {d.q.as<float>(), d.k.as<float>(), d.v.as<float>(), d.ig.as<float>(), d.fg.as<float>(),
                                 d.h.as<float>(), d.C.as<float>(), d.n[0].as<float>(), d.m[0].as<float>(),
                                 d.chunkC.as<float>(), d.chunkN.as<float>(), d.chunkM.as<float>()});
        check(cudaGetLastError(), "mLSTM chunkwise");
    }

    void runMlstmStep(const MlstmShape& s, MlstmDevice& d, int t) {
        launchMlstmStep(s, t, d.q.as<float>(), d.k.as<float>(), d.v.as<float>(), d.ig.as<float>(), d.fg.as<float>(),
                        d.C.as<float>(), d.n[0].as<float>(), d.m[0].as<float>(), d.n[1].as<float>(), d.m[1].as<float>(),
                        d.h.as<float>());
        check(cudaGetLastError(), "mLSTM step");
        std::swap(d.n[0], d.n[1]);  // the new state becomes the input of the next step
        std::swap(d.m[0], d.m[1]);
    }

    int index_;
    DeviceInfo info_;
    cudaEvent_t start_{}, stop_{};
    int maxShared_ = 48 * 1024;
    Cublas cublas_;
};

}  // namespace

std::unique_ptr<Backend> makeCudaBackend(int index, std::string& why) {
    const CudaQuery query = queryCudaDevices();
    if (query.devices.empty()) {
        why = query.message.empty() ? "no CUDA device found" : query.message;
        return nullptr;
    }
    if (index < 0 || index >= static_cast<int>(query.devices.size())) {
        why = "no CUDA device " + std::to_string(index) + " (" + std::to_string(query.devices.size()) + " present)";
        return nullptr;
    }
    try {
        return std::make_unique<CudaBackend>(index, query.devices[index]);
    } catch (const std::exception& e) {
        why = e.what();
        return nullptr;
    }
}

}  // namespace scalex::gpu
