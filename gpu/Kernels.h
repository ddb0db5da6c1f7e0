#pragma once
// Plain references (naive, obviously correct, double accumulation) and the optimised CPU
// kernels, on host float tensors in the layouts of gpu/Backend.h.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/Backend.h"

namespace scalex::gpu {

// Element counts of each tensor.
std::size_t attentionQueryElements(const AttentionShape& s);  // q and out
std::size_t attentionKeyElements(const AttentionShape& s);    // k and v
std::size_t mlstmQkElements(const MlstmShape& s);
std::size_t mlstmVElements(const MlstmShape& s);  // v and h
std::size_t mlstmGateElements(const MlstmShape& s);
MlstmState zeroMlstmState(const MlstmShape& s);

// Deterministic random inputs. Gates follow xLSTM-7B's initialisation regime: input gate
// pre-activations around -1 (with spread), forget gate pre-activations around +3 (f ~ 0.95).
AttentionData randomAttentionData(const AttentionShape& s, std::uint32_t seed);
MlstmData randomMlstmData(const MlstmShape& s, std::uint32_t seed);
std::vector<float> randomVector(std::size_t n, std::uint32_t seed, float scale = 1.0f);

// max |x - ref| / max |ref|: a norm-wise relative error that stays meaningful where single
// reference entries are near zero.
double relativeError(const std::vector<float>& x, const std::vector<float>& ref);

// Rounds to the nearest fp16 / bf16 value (round to nearest even) and back.
float roundToPrecision(float x, Precision p);

// --- references ----------------------------------------------------------------------------
// C = A B, column-major A (m x k), B (k x n), C (m x n); 16-bit precisions round A and B first.
void referenceGemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c);
// Full S x T score matrix per head, causal mask, softmax, weighted sum (scale 1/sqrt(headDim)).
void referenceAttention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out);
// One recurrent step per token, xLSTM-7B cell:
//   m_t = max(log f_t + m_{t-1}, i_t)
//   C_t = exp(log f_t + m_{t-1} - m_t) C_{t-1} + exp(i_t - m_t) k_t v_t^T,  n_t likewise with k_t
//   h_t = C_t^T q_t / max(|n_t^T q_t|, exp(-m_t)),  q_t scaled by 1/sqrt(d_qk), log f = logsigmoid.
void referenceMlstmRecurrent(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& state);

// --- optimised CPU kernels (threads: worker count, >= 1) ---------------------------------------
void cpuGemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
             int threads);
// Prefill (S == T or any S >= 2): FlashAttention-style tiles with an online softmax over key
// blocks; never forms S x T. Decode (S == 1): one pass over the cache per GQA group.
void cpuAttention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out, int threads);
// Chunkwise-parallel mLSTM (TFLA form) from a zero state; fills the final state.
void cpuMlstmChunkwise(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& state,
                       int threads);
// Recurrent steps (the decode kernel), threads across batch x heads.
void cpuMlstmSteps(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& state, int threads);
// STREAM copy / triad over doubles, threads over contiguous slices.
void cpuStream(StreamKernel k, double* a, const double* b, const double* c, std::size_t n, int threads);

// Runs fn(i) for i in [0, n) on `threads` workers, dynamic scheduling.
template <class F>
void parallelFor(std::size_t n, int threads, F&& fn);

}  // namespace scalex::gpu

#include <algorithm>
#include <atomic>
#include <thread>

template <class F>
void scalex::gpu::parallelFor(std::size_t n, int threads, F&& fn) {
    const int workers = static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(std::max(threads, 1))));
    if (workers <= 1) {
        for (std::size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    };
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(workers - 1));
    for (int w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
}
