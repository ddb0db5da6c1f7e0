#pragma once
// Kernels of the CUDA backend and their launch logic. Compiled by nvcc from CudaBackend.cu and,
// without a GPU, as plain C++ under gpu/cuda/Emulation.h (one std::thread per CUDA thread,
// barriers for __syncthreads and warp shuffles), so that tests check these very kernels
// against the references on machines without a device.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "gpu/Backend.h"

#ifdef __CUDACC__
#define SCALEX_UNROLL _Pragma("unroll")
#define SCALEX_DYNAMIC_SHARED(T, name) extern __shared__ T name[]
#define SCALEX_LAUNCH(kernel, grid, block, smem, ...) kernel<<<grid, block, smem>>>(__VA_ARGS__)
#endif

namespace scalex::gpu {

namespace {

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
SCALEX_UNROLL
    for (int i = 0; i < QPW; ++i) {
        m[i] = -INFINITY;
        l[i] = 0.0f;
SCALEX_UNROLL
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
SCALEX_UNROLL
        for (int i = 0; i < QPW; ++i) {
            const int row = warp * QPW + i, qi = q0 + row;
            if (qi >= S) continue;  // uniform across the warp
            const int key = j0 + lane;
            float s = -INFINITY;
            if (key < kEnd && key <= T - S + qi) {
                float d = 0.0f;
SCALEX_UNROLL
                for (int c = 0; c < D; ++c) d += qs[row][c] * ks[lane][c];
                s = d;
            }
            const float mNew = fmaxf(m[i], warpMax(s));
            if (mNew == -INFINITY) continue;  // nothing visible yet in this tile (uniform)
            const float p = s == -INFINITY ? 0.0f : expf(s - mNew);
            const float alpha = expf(m[i] - mNew);  // 0 while m = -inf
            l[i] = l[i] * alpha + warpSum(p);
SCALEX_UNROLL
            for (int c = 0; c < C; ++c) acc[i][c] *= alpha;
            for (int j = 0; j < kKeyTile; ++j) {
                const float pj = __shfl_sync(0xFFFFFFFFu, p, j);
SCALEX_UNROLL
                for (int c = 0; c < C; ++c) acc[i][c] += pj * vs[j][lane + 32 * c];
            }
            m[i] = mNew;
        }
    }
SCALEX_UNROLL
    for (int i = 0; i < QPW; ++i) {
        const int qi = q0 + warp * QPW + i;
        if (qi >= S) continue;
        if (gridDim.z == 1) {
            const float inv = 1.0f / l[i];
SCALEX_UNROLL
            for (int c = 0; c < C; ++c) out[(static_cast<std::size_t>(bh) * S + qi) * D + lane + 32 * c] = acc[i][c] * inv;
        } else {
            const std::size_t slot = (static_cast<std::size_t>(blockIdx.z) * gridDim.y + bh) * S + qi;
SCALEX_UNROLL
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
    SCALEX_DYNAMIC_SHARED(float, sm);
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
    SCALEX_DYNAMIC_SHARED(float, sm);
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
    SCALEX_DYNAMIC_SHARED(float, sm);
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

// --- launch logic ------------------------------------------------------------------------------

struct AttentionSplit {
    int splits = 1;
    int splitLen = 0;
};

// Prefill: one key range. Decode (one query per head): split the cache so that every SM has
// blocks to run (`multiprocessors` x 8 blocks in all), at least 4 key tiles per split.
AttentionSplit attentionSplit(const AttentionShape& s, int multiprocessors) {
    if (s.queries > 1) return {1, s.keys};
    const int bh = s.batch * s.heads;
    const int target = std::max(1, (multiprocessors * 8) / bh);
    int splitLen = (s.keys + target - 1) / target;
    splitLen = std::max(kKeyTile * 4, (splitLen + kKeyTile - 1) / kKeyTile * kKeyTile);
    return {(s.keys + splitLen - 1) / splitLen, splitLen};
}

// partO: splits x batch*heads x headDim floats, partML: splits x batch*heads x 2 (decode with
// more than one split only).
void launchAttention(const AttentionShape& s, const AttentionSplit& split, const float* q, const float* k, const float* v,
                     float* out, float* partO, float* partML) {
    if (s.headDim != 128) throw std::runtime_error("CUDA attention supports head dimension 128 only");
    if (s.heads % s.kvHeads != 0 || s.queries < 1 || s.queries > s.keys) throw std::runtime_error("attention: bad shape");
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.headDim));
    const unsigned bh = static_cast<unsigned>(s.batch * s.heads);
    if (s.queries > 1) {
        constexpr int QPW = 4, WARPS = 4;
        auto* kernel = attentionKernel<128, QPW, WARPS>;
        const dim3 grid((s.queries + QPW * WARPS - 1) / (QPW * WARPS), bh, 1);
        SCALEX_LAUNCH(kernel, grid, dim3(WARPS * 32), 0, q, k, v, out, nullptr, nullptr, s.heads, s.kvHeads, s.queries,
                      s.keys, s.keys, scale);
        return;
    }
    auto* kernel = attentionKernel<128, 1, 1>;
    SCALEX_LAUNCH(kernel, dim3(1, bh, split.splits), dim3(32), 0, q, k, v, out, partO, partML, s.heads, s.kvHeads, 1,
                  s.keys, split.splitLen, scale);
    if (split.splits > 1)
        SCALEX_LAUNCH(attentionCombine, dim3(bh), dim3(128), 0, partO, partML, out, static_cast<int>(bh), split.splits,
                      s.headDim);
}

std::size_t mlstmStateSharedBytes(const MlstmShape& s) {
    return (static_cast<std::size_t>(s.dQk) * kStateTile + static_cast<std::size_t>(s.chunk) * kStateTile + 2 * s.chunk +
            s.dQk) * sizeof(float);
}
std::size_t mlstmOutputSharedBytes(const MlstmShape& s) { return mlstmOutputSharedFloats(s.dQk, s.chunk) * sizeof(float); }

// Pointers to device tensors of one chunkwise forward (layouts of gpu/Backend.h); chunkC/N/M
// hold batch*heads x chunks start states; C, n, m receive the final state.
struct MlstmBuffers {
    const float *q, *k, *v, *ig, *fg;
    float *h, *C, *n, *m, *chunkC, *chunkN, *chunkM;
};

void launchMlstmChunkwise(const MlstmShape& s, const MlstmBuffers& b) {
    if (s.chunk < 1 || s.tokens < 1) throw std::runtime_error("mLSTM: chunk size and tokens must be positive");
    const int bh = s.batch * s.heads, chunks = (s.tokens + s.chunk - 1) / s.chunk;
    const dim3 stateGrid(bh, (s.dHv + kStateTile - 1) / kStateTile);
    SCALEX_LAUNCH(mlstmStateKernel, stateGrid, dim3(kMlstmThreads), mlstmStateSharedBytes(s), b.k, b.v, b.ig, b.fg,
                  b.chunkC, b.chunkN, b.chunkM, b.C, b.n, b.m, s.tokens, s.dQk, s.dHv, s.chunk, chunks);
    const dim3 outGrid(bh, chunks, (s.dHv + kOutputTile - 1) / kOutputTile);
    SCALEX_LAUNCH(mlstmOutputKernel, outGrid, dim3(kMlstmThreads), mlstmOutputSharedBytes(s), b.q, b.k, b.v, b.ig, b.fg,
                  b.chunkC, b.chunkN, b.chunkM, b.h, s.tokens, s.dQk, s.dHv, s.chunk, chunks,
                  1.0f / std::sqrt(static_cast<float>(s.dQk)));
}

// Step t of `s.tokens` (inputs and h indexed as [batch*heads][tokens][...]); C in place, n/m
// from nIn/mIn to nOut/mOut.
void launchMlstmStep(const MlstmShape& s, int t, const float* q, const float* k, const float* v, const float* ig,
                     const float* fg, float* C, const float* nIn, const float* mIn, float* nOut, float* mOut, float* h) {
    const dim3 grid(s.batch * s.heads, (s.dHv + kStepThreads - 1) / kStepThreads);
    SCALEX_LAUNCH(mlstmStepKernel, grid, dim3(kStepThreads), 3 * s.dQk * sizeof(float), q, k, v, ig, fg, C, nIn, mIn, nOut,
                  mOut, h, s.tokens, t, s.dQk, s.dHv, 1.0f / std::sqrt(static_cast<float>(s.dQk)));
}

}  // namespace

}  // namespace scalex::gpu
