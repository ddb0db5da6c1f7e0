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

// --- STREAM ------------------------------------------------------------------------------------

__global__ void copyKernel(double* __restrict__ a, const double* __restrict__ b, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        a[i] = b[i];
}
__global__ void triadKernel(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, std::size_t n) {
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        a[i] = b[i] + 3.0 * c[i];
}

// --- attention ---------------------------------------------------------------------------------

constexpr int kKeyTile = 32;  // keys per shared-memory tile: one per lane

__device__ __forceinline__ float warpMax(float x) {
    for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xFFFFFFFFu, x, o));
    return x;
}
__device__ __forceinline__ float warpSum(float x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xFFFFFFFFu, x, o);
    return x;
}

// Block: WARPS warps x QPW queries of one (batch, query head); blockIdx.z: a key range of
// splitLen keys (split-K for decode). Keys stream through shared memory in tiles of 32; each
// warp keeps, per query, the running max m, sum l and unnormalised output (D/32 per lane):
// the online softmax of FlashAttention, so no S x T matrix exists anywhere.
template <int D, int QPW, int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
    attentionKernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                    float* __restrict__ out, float* __restrict__ partO, float* __restrict__ partML, int heads,
                    int kvHeads, int S, int T, int splitLen, float scale) {
    constexpr int QB = QPW * WARPS, C = D / 32;
    __shared__ float qs[QB][D];
    __shared__ float ks[kKeyTile][D + 1];  // +1: lane j reads row j without bank conflicts
    __shared__ float vs[kKeyTile][D];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int bh = blockIdx.y, b = bh / heads, h = bh % heads;
    const std::size_t kvBase = (static_cast<std::size_t>(b) * kvHeads + h / (heads / kvHeads)) * T * D;
    const int q0 = blockIdx.x * QB;
    const float* qp = q + static_cast<std::size_t>(bh) * S * D;
    for (int idx = threadIdx.x; idx < QB * D; idx += blockDim.x) {
        const int r = idx / D, c = idx % D;
        qs[r][c] = q0 + r < S ? qp[static_cast<std::size_t>(q0 + r) * D + c] * scale : 0.0f;
    }
    const int lastKey = T - S + min(q0 + QB, S) - 1;  // the last key the block's last query sees
    const int kBegin = blockIdx.z * splitLen, kEnd = min(kBegin + splitLen, lastKey + 1);
    float m[QPW], l[QPW], acc[QPW][C];
#pragma unroll
    for (int i = 0; i < QPW; ++i) {
        m[i] = -INFINITY;
        l[i] = 0.0f;
#pragma unroll
        for (int c = 0; c < C; ++c) acc[i][c] = 0.0f;
    }
    for (int j0 = kBegin; j0 < kEnd; j0 += kKeyTile) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < kKeyTile * D; idx += blockDim.x) {
            const int r = idx / D, c = idx % D, key = j0 + r;
            const bool ok = key < kEnd;
            ks[r][c] = ok ? k[kvBase + static_cast<std::size_t>(key) * D + c] : 0.0f;
            vs[r][c] = ok ? v[kvBase + static_cast<std::size_t>(key) * D + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < QPW; ++i) {
            const int row = warp * QPW + i, qi = q0 + row;
            if (qi >= S) continue;  // uniform across the warp
            const int key = j0 + lane;
            float s = -INFINITY;
            if (key < kEnd && key <= T - S + qi) {
                float d = 0.0f;
#pragma unroll 16
                for (int c = 0; c < D; ++c) d += qs[row][c] * ks[lane][c];
                s = d;
            }
            const float mNew = fmaxf(m[i], warpMax(s));
            if (mNew == -INFINITY) continue;  // nothing visible yet in this tile (uniform)
            const float p = s == -INFINITY ? 0.0f : expf(s - mNew);
            const float alpha = expf(m[i] - mNew);  // 0 while m = -inf
            l[i] = l[i] * alpha + warpSum(p);
#pragma unroll
            for (int c = 0; c < C; ++c) acc[i][c] *= alpha;
            for (int j = 0; j < kKeyTile; ++j) {
                const float pj = __shfl_sync(0xFFFFFFFFu, p, j);
#pragma unroll
                for (int c = 0; c < C; ++c) acc[i][c] += pj * vs[j][lane + 32 * c];
            }
            m[i] = mNew;
        }
    }
#pragma unroll
    for (int i = 0; i < QPW; ++i) {
        const int qi = q0 + warp * QPW + i;
        if (qi >= S) continue;
        if (gridDim.z == 1) {
            const float inv = 1.0f / l[i];
#pragma unroll
            for (int c = 0; c < C; ++c) out[(static_cast<std::size_t>(bh) * S + qi) * D + lane + 32 * c] = acc[i][c] * inv;
        } else {
            const std::size_t slot = (static_cast<std::size_t>(blockIdx.z) * gridDim.y + bh) * S + qi;
#pragma unroll
            for (int c = 0; c < C; ++c) partO[slot * D + lane + 32 * c] = acc[i][c];
            if (lane == 0) {
                partML[slot * 2] = m[i];
                partML[slot * 2 + 1] = l[i];
            }
        }
    }
}

// Merges the split-K partial results: rescale each split to the common max and normalise.
__global__ void attentionCombine(const float* __restrict__ partO, const float* __restrict__ partML, float* __restrict__ out,
                                 int rows, int splits, int D) {
    const int row = blockIdx.x;
    float M = -INFINITY;
    for (int z = 0; z < splits; ++z) M = fmaxf(M, partML[(static_cast<std::size_t>(z) * rows + row) * 2]);
    for (int c = threadIdx.x; c < D; c += blockDim.x) {
        float L = 0.0f, o = 0.0f;
        for (int z = 0; z < splits; ++z) {
            const std::size_t slot = static_cast<std::size_t>(z) * rows + row;
            const float w = expf(partML[slot * 2] - M);  // 0 for splits that saw no key
            L += w * partML[slot * 2 + 1];
            o += w * partO[slot * D + c];
        }
        out[static_cast<std::size_t>(row) * D + c] = o / L;
    }
}

// --- mLSTM -------------------------------------------------------------------------------------

constexpr int kStateTile = 32;   // d_hv columns of C per block in the state pass
constexpr int kOutputTile = 32;  // d_hv columns per block in the output pass
constexpr int kMlstmThreads = 256;

__device__ __forceinline__ float logSigmoid(float x) { return x >= 0 ? -log1pf(expf(-x)) : x - log1pf(expf(x)); }

// Pass 1, sequential over chunks: the stabilised state (C, n, m) at the start of every chunk,
// C_new = exp(b_L + m_prev - m_new) C + sum_j exp(b_L - b_j + i_j - m_new) k_j v_j^T with
// m_new = max(b_L + m_prev, max_j b_L - b_j + i_j). Grid (batch*heads, d_hv / kStateTile).
__global__ void __launch_bounds__(kMlstmThreads)
    mlstmStateKernel(const float* __restrict__ k, const float* __restrict__ v, const float* __restrict__ ig,
                     const float* __restrict__ fg, float* __restrict__ chunkC, float* __restrict__ chunkN,
                     float* __restrict__ chunkM, float* __restrict__ finalC, float* __restrict__ finalN,
                     float* __restrict__ finalM, int T, int K, int V, int L, int nChunks) {
    extern __shared__ float sm[];
    float* Ct = sm;                  // K x kStateTile
    float* vt = Ct + K * kStateTile;  // L x kStateTile
    float* g = vt + L * kStateTile;   // L
    float* bcum = g + L;              // L
    float* n = bcum + L;              // K
    const int bh = blockIdx.x, c0 = blockIdx.y * kStateTile, tid = threadIdx.x;
    const bool writesN = blockIdx.y == 0;
    for (int i = tid; i < K * kStateTile; i += blockDim.x) Ct[i] = 0.0f;
    for (int i = tid; i < K; i += blockDim.x) n[i] = 0.0f;
    float mPrev = 0.0f;
    for (int ch = 0; ch < nChunks; ++ch) {
        const int t0 = ch * L, Lc = min(L, T - t0);
        const std::size_t tok = static_cast<std::size_t>(bh) * T + t0;
        const std::size_t slot = static_cast<std::size_t>(bh) * nChunks + ch;
        __syncthreads();
        for (int i = tid; i < K * kStateTile; i += blockDim.x) {
            const int r = i / kStateTile, c = i % kStateTile;
            if (c0 + c < V) chunkC[(slot * K + r) * V + c0 + c] = Ct[i];
        }
        if (writesN) {
            for (int r = tid; r < K; r += blockDim.x) chunkN[slot * K + r] = n[r];
            if (tid == 0) chunkM[slot] = mPrev;
        }
        if (tid == 0) {
            float a = 0.0f;
            for (int j = 0; j < Lc; ++j) bcum[j] = (a += logSigmoid(fg[tok + j]));
        }
        for (int i = tid; i < Lc * kStateTile; i += blockDim.x) {
            const int j = i / kStateTile, c = i % kStateTile;
            vt[i] = c0 + c < V ? v[(tok + j) * V + c0 + c] : 0.0f;
        }
        __syncthreads();
        const float bL = bcum[Lc - 1];
        float mNew = bL + mPrev;
        for (int j = 0; j < Lc; ++j) mNew = fmaxf(mNew, bL - bcum[j] + ig[tok + j]);
        for (int j = tid; j < Lc; j += blockDim.x) g[j] = expf(bL - bcum[j] + ig[tok + j] - mNew);
        const float decay = expf(bL + mPrev - mNew);
        __syncthreads();
        for (int i = tid; i < K * kStateTile; i += blockDim.x) {
            const int r = i / kStateTile, c = i % kStateTile;
            float a = decay * Ct[i];
            for (int j = 0; j < Lc; ++j) a += k[(tok + j) * K + r] * g[j] * vt[j * kStateTile + c];
            Ct[i] = a;
        }
        for (int r = tid; r < K; r += blockDim.x) {
            float a = decay * n[r];
            for (int j = 0; j < Lc; ++j) a += k[(tok + j) * K + r] * g[j];
            n[r] = a;
        }
        mPrev = mNew;
    }
    __syncthreads();
    for (int i = tid; i < K * kStateTile; i += blockDim.x) {
        const int r = i / kStateTile, c = i % kStateTile;
        if (c0 + c < V) finalC[(static_cast<std::size_t>(bh) * K + r) * V + c0 + c] = Ct[i];
    }
    if (writesN) {
        for (int r = tid; r < K; r += blockDim.x) finalN[static_cast<std::size_t>(bh) * K + r] = n[r];
        if (tid == 0) finalM[bh] = mPrev;
    }
}

std::size_t mlstmOutputSharedFloats(int K, int L) {
    const std::size_t Kp = K + 1;
    return L * Kp + std::max<std::size_t>(L * Kp, static_cast<std::size_t>(L) * kOutputTile + static_cast<std::size_t>(K) * kOutputTile) +
           static_cast<std::size_t>(L) * L + 6 * static_cast<std::size_t>(L);
}

// Pass 2, parallel over chunks: h_t = (sum_j W_tj v_j + e_t q_t^T C_prev) / max(|den_t|, exp(-m_t)),
// W_tj = q_t.k_j exp(b_t - b_j + i_j - m_t) (j <= t), e_t = exp(b_t + m_prev - m_t),
// den_t = sum_j W_tj + e_t q_t.n_prev. Grid (batch*heads, chunks, d_hv / kOutputTile).
__global__ void __launch_bounds__(kMlstmThreads)
    mlstmOutputKernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                      const float* __restrict__ ig, const float* __restrict__ fg, const float* __restrict__ chunkC,
                      const float* __restrict__ chunkN, const float* __restrict__ chunkM, float* __restrict__ h, int T,
                      int K, int V, int L, int nChunks, float qScale) {
    extern __shared__ float sm[];
    const int Kp = K + 1;  // padded rows: threads of a warp read different rows without conflicts
    float* Qs = sm;
    float* R2 = Qs + L * Kp;  // first K rows (L x Kp), later C tile (K x tile) and V tile (L x tile)
    float* W = R2 + max(L * Kp, L * kOutputTile + K * kOutputTile);
    float* bcum = W + L * L;
    float* igs = bcum + L;
    float* mrow = igs + L;
    float* inter = mrow + L;
    float* qn = inter + L;
    float* den = qn + L;
    const int bh = blockIdx.x, ch = blockIdx.y, c0 = blockIdx.z * kOutputTile, tid = threadIdx.x;
    const int t0 = ch * L, Lc = min(L, T - t0);
    const std::size_t tok = static_cast<std::size_t>(bh) * T + t0;
    const std::size_t slot = static_cast<std::size_t>(bh) * nChunks + ch;
    float* Ks = R2;
    for (int i = tid; i < Lc * K; i += blockDim.x) {
        const int t = i / K, r = i % K;
        Qs[t * Kp + r] = q[(tok + t) * K + r] * qScale;
        Ks[t * Kp + r] = k[(tok + t) * K + r];
    }
    for (int j = tid; j < Lc; j += blockDim.x) igs[j] = ig[tok + j];
    if (tid == 0) {
        float a = 0.0f;
        for (int j = 0; j < Lc; ++j) bcum[j] = (a += logSigmoid(fg[tok + j]));
    }
    __syncthreads();
    const float mPrev = chunkM[slot];
    for (int t = tid; t < Lc; t += blockDim.x) {
        float mt = bcum[t] + mPrev;
        for (int j = 0; j <= t; ++j) mt = fmaxf(mt, bcum[t] - bcum[j] + igs[j]);
        mrow[t] = mt;
        inter[t] = expf(bcum[t] + mPrev - mt);
        float d = 0.0f;
        for (int r = 0; r < K; ++r) d += Qs[t * Kp + r] * chunkN[slot * K + r];
        qn[t] = d;
    }
    __syncthreads();
    for (int i = tid; i < Lc * Lc; i += blockDim.x) {
        const int t = i / Lc, j = i % Lc;
        float w = 0.0f;
        if (j <= t) {
            for (int r = 0; r < K; ++r) w += Qs[t * Kp + r] * Ks[j * Kp + r];
            w *= expf(bcum[t] - bcum[j] + igs[j] - mrow[t]);
        }
        W[t * L + j] = w;
    }
    __syncthreads();
    for (int t = tid; t < Lc; t += blockDim.x) {
        float s = 0.0f;
        for (int j = 0; j <= t; ++j) s += W[t * L + j];
        den[t] = s + inter[t] * qn[t];
    }
    float* Ct = R2;                      // K x tile
    float* Vt = R2 + K * kOutputTile;    // L x tile
    for (int i = tid; i < K * kOutputTile; i += blockDim.x) {
        const int r = i / kOutputTile, c = i % kOutputTile;
        Ct[i] = c0 + c < V ? chunkC[(slot * K + r) * V + c0 + c] : 0.0f;
    }
    for (int i = tid; i < Lc * kOutputTile; i += blockDim.x) {
        const int j = i / kOutputTile, c = i % kOutputTile;
        Vt[i] = c0 + c < V ? v[(tok + j) * V + c0 + c] : 0.0f;
    }
    __syncthreads();
    for (int i = tid; i < Lc * kOutputTile; i += blockDim.x) {
        const int t = i / kOutputTile, c = i % kOutputTile;
        if (c0 + c >= V) continue;
        float intra = 0.0f, interPart = 0.0f;
        for (int j = 0; j <= t; ++j) intra += W[t * L + j] * Vt[j * kOutputTile + c];
        for (int r = 0; r < K; ++r) interPart += Qs[t * Kp + r] * Ct[r * kOutputTile + c];
        h[(tok + t) * V + c0 + c] = (intra + inter[t] * interPart) / fmaxf(fabsf(den[t]), expf(-mrow[t]));
    }
}

constexpr int kStepThreads = 128;

// One recurrent step for token t of every (batch, head): C updated in place (disjoint column
// tiles per block); n and m are read from nIn/mIn and written to nOut/mOut (other blocks of the
// same head still read the old values). Grid (batch*heads, d_hv / kStepThreads).
__global__ void __launch_bounds__(kStepThreads)
    mlstmStepKernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                    const float* __restrict__ ig, const float* __restrict__ fg, float* __restrict__ C,
                    const float* __restrict__ nIn, const float* __restrict__ mIn, float* __restrict__ nOut,
                    float* __restrict__ mOut, float* __restrict__ h, int T, int t, int K, int V, float qScale) {
    extern __shared__ float sm[];
    float* qs = sm;
    float* ks = qs + K;
    float* nn = ks + K;
    __shared__ float red[kStepThreads / 32];
    const int bh = blockIdx.x, tid = threadIdx.x;
    const std::size_t tok = static_cast<std::size_t>(bh) * T + t;
    const float logF = logSigmoid(fg[tok]), it = ig[tok], m = mIn[bh];
    const float mNew = fmaxf(logF + m, it);
    const float fa = expf(logF + m - mNew), ia = expf(it - mNew);
    float part = 0.0f;
    for (int r = tid; r < K; r += blockDim.x) {
        qs[r] = q[tok * K + r] * qScale;
        ks[r] = k[tok * K + r];
        nn[r] = fa * nIn[static_cast<std::size_t>(bh) * K + r] + ia * ks[r];
        part += qs[r] * nn[r];
    }
    part = warpSum(part);
    if ((tid & 31) == 0) red[tid >> 5] = part;
    __syncthreads();
    float dot = 0.0f;
    for (int w = 0; w < kStepThreads / 32; ++w) dot += red[w];
    const float den = fmaxf(fabsf(dot), expf(-mNew));
    if (blockIdx.y == 0) {
        for (int r = tid; r < K; r += blockDim.x) nOut[static_cast<std::size_t>(bh) * K + r] = nn[r];
        if (tid == 0) mOut[bh] = mNew;
    }
    const int c = blockIdx.y * kStepThreads + tid;
    if (c >= V) return;
    const float vc = v[tok * V + c];
    float num = 0.0f;
    float* Cp = C + static_cast<std::size_t>(bh) * K * V + c;
    for (int r = 0; r < K; ++r) {
        const float x = fa * Cp[static_cast<std::size_t>(r) * V] + ia * ks[r] * vc;
        Cp[static_cast<std::size_t>(r) * V] = x;
        num += x * qs[r];
    }
    h[tok * V + c] = num / den;
}

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
        if (s.headDim != 128) throw std::runtime_error("CUDA attention supports head dimension 128 only");
        if (s.heads % s.kvHeads != 0 || s.queries < 1 || s.queries > s.keys) throw std::runtime_error("attention: bad shape");
        const float scale = 1.0f / std::sqrt(static_cast<float>(s.headDim));
        const unsigned bh = static_cast<unsigned>(s.batch * s.heads);
        if (s.queries > 1) {
            constexpr int QPW = 4, WARPS = 4;
            const dim3 grid((s.queries + QPW * WARPS - 1) / (QPW * WARPS), bh, 1);
            attentionKernel<128, QPW, WARPS><<<grid, WARPS * 32>>>(q, k, v, out, nullptr, nullptr, s.heads, s.kvHeads,
                                                                    s.queries, s.keys, s.keys, scale);
            check(cudaGetLastError(), "attention prefill");
            return;
        }
        // Decode: one query per head; split the cache so that every SM has blocks to run.
        const int target = std::max(1, (info_.computeUnits * 8) / static_cast<int>(bh));
        int splitLen = (s.keys + target - 1) / target;
        splitLen = std::max(kKeyTile * 4, (splitLen + kKeyTile - 1) / kKeyTile * kKeyTile);
        const int splits = (s.keys + splitLen - 1) / splitLen;
        const std::size_t floats = static_cast<std::size_t>(splits) * bh * s.headDim;
        if (splits > 1 && scratch.floats < floats) {
            scratch.partO = DeviceBuffer(floats * 4);
            scratch.partML = DeviceBuffer(static_cast<std::size_t>(splits) * bh * 2 * 4);
            scratch.floats = floats;
        }
        const dim3 grid(1, bh, splits);
        attentionKernel<128, 1, 1><<<grid, 32>>>(q, k, v, out, scratch.partO.as<float>(), scratch.partML.as<float>(),
                                                 s.heads, s.kvHeads, 1, s.keys, splitLen, scale);
        if (splits > 1) attentionCombine<<<bh, 128>>>(scratch.partO.as<float>(), scratch.partML.as<float>(), out, bh, splits, s.headDim);
        check(cudaGetLastError(), "attention decode");
    }

    void runMlstmChunkwise(const MlstmShape& s, MlstmDevice& d) {
        const int bh = s.batch * s.heads, K = s.dQk, V = s.dHv, L = s.chunk, T = s.tokens;
        const int chunks = (T + L - 1) / L;
        if (L < 1 || T < 1) throw std::runtime_error("mLSTM: chunk size and tokens must be positive");
        const std::size_t stateBytes = (static_cast<std::size_t>(K) * kStateTile + static_cast<std::size_t>(L) * kStateTile + 2 * L + K) * 4;
        const std::size_t outBytes = mlstmOutputSharedFloats(K, L) * 4;
        if (static_cast<int>(std::max(stateBytes, outBytes)) > maxShared_)
            throw std::runtime_error("mLSTM chunk " + std::to_string(L) + " with d_qk " + std::to_string(K) + " needs " +
                                     std::to_string(std::max(stateBytes, outBytes)) + " bytes of shared memory; the device has " +
                                     std::to_string(maxShared_));
        check(cudaFuncSetAttribute(mlstmStateKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(stateBytes)), "smem");
        check(cudaFuncSetAttribute(mlstmOutputKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(outBytes)), "smem");
        const dim3 stateGrid(bh, (V + kStateTile - 1) / kStateTile);
        mlstmStateKernel<<<stateGrid, kMlstmThreads, stateBytes>>>(d.k.as<float>(), d.v.as<float>(), d.ig.as<float>(), d.fg.as<float>(),
                                                                  d.chunkC.as<float>(), d.chunkN.as<float>(), d.chunkM.as<float>(),
                                                                  d.C.as<float>(), d.n[0].as<float>(), d.m[0].as<float>(), T, K, V, L, chunks);
        check(cudaGetLastError(), "mLSTM state pass");
        const dim3 outGrid(bh, chunks, (V + kOutputTile - 1) / kOutputTile);
        mlstmOutputKernel<<<outGrid, kMlstmThreads, outBytes>>>(d.q.as<float>(), d.k.as<float>(), d.v.as<float>(), d.ig.as<float>(),
                                                               d.fg.as<float>(), d.chunkC.as<float>(), d.chunkN.as<float>(),
                                                               d.chunkM.as<float>(), d.h.as<float>(), T, K, V, L, chunks,
                                                               1.0f / std::sqrt(static_cast<float>(K)));
        check(cudaGetLastError(), "mLSTM output pass");
    }

    void runMlstmStep(const MlstmShape& s, MlstmDevice& d, int t) {
        const int bh = s.batch * s.heads, K = s.dQk, V = s.dHv;
        const dim3 grid(bh, (V + kStepThreads - 1) / kStepThreads);
        mlstmStepKernel<<<grid, kStepThreads, 3 * K * 4>>>(d.q.as<float>(), d.k.as<float>(), d.v.as<float>(), d.ig.as<float>(),
                                                           d.fg.as<float>(), d.C.as<float>(), d.n[0].as<float>(), d.m[0].as<float>(),
                                                           d.n[1].as<float>(), d.m[1].as<float>(), d.h.as<float>(), s.tokens, t, K, V,
                                                           1.0f / std::sqrt(static_cast<float>(K)));
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
