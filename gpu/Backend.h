#pragma once
// A microbenchmark backend: one device (the CPU, or one CUDA GPU) that runs the kernels the
// roofline and the mLSTM-vs-attention comparison need. Shapes and layouts are shared by every
// backend and by the plain references in gpu/Kernels.h, so results and errors compare 1:1.
//
// Kept to C++17: gpu/cuda/*.cu includes this header under nvcc with CUDA_STANDARD 17.
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpu/DeviceInfo.h"

namespace scalex::gpu {

enum class Precision { F32, F16, BF16 };
const char* precisionName(Precision p);  // "fp32", "fp16", "bf16"
inline int precisionBytes(Precision p) { return p == Precision::F32 ? 4 : 2; }

// C (m x n) = A (m x k) B (k x n).
struct GemmShape {
    int m = 0, n = 0, k = 0;
    Precision precision = Precision::F32;
};

enum class StreamKernel { Copy, Triad };  // a = b; a = b + s c (STREAM), doubles

// Causal attention of S queries over T keys; the queries are the last S positions (S = T for
// prefill, S = 1 for a decode step over a KV cache of T). Layout, row-major:
//   q, out [batch][heads][S][headDim], k, v [batch][kvHeads][T][headDim].
// Query head h reads key/value head h / (heads / kvHeads) (GQA; MHA when kvHeads == heads).
struct AttentionShape {
    int batch = 1, heads = 1, kvHeads = 1, headDim = 128;
    int queries = 1;  // S
    int keys = 1;     // T
};

// mLSTM cell of xLSTM-7B over T tokens (chunkwise) or one step. Layout, row-major:
//   q, k [batch][heads][T][dQk], v, h [batch][heads][T][dHv], igate, fgate [batch][heads][T]
//   (pre-activations; log f = logsigmoid(fgate)); state C [batch][heads][dQk][dHv],
//   n [batch][heads][dQk], m [batch][heads]. The state is the stabilised one (C = exp(-m) C_hat).
struct MlstmShape {
    int batch = 1, heads = 1, dQk = 128, dHv = 256;
    int tokens = 1;  // T (1 for a step)
    int chunk = 64;  // L of the chunkwise form
};

// How long to time one kernel: `warmup` untimed runs, then at least `minReps` timed runs and
// more until `minSeconds` have passed (at most `maxReps`); once `maxSeconds` have passed, one
// timed run is enough (long kernels at large T). The median is reported.
struct TimingPlan {
    int warmup = 1;
    int minReps = 3;
    int maxReps = 50;
    double minSeconds = 0.2;
    double maxSeconds = 2.0;
    const std::atomic<bool>* cancel = nullptr;  // stops the repetitions early when set
};

// Host tensors of one attention problem (sizes from AttentionShape).
struct AttentionData {
    std::vector<float> q, k, v;
};
struct MlstmState {
    std::vector<float> C, n, m;
};
struct MlstmData {
    std::vector<float> q, k, v, igate, fgate;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual DeviceInfo device() const = 0;
    virtual int threads() const { return 1; }

    // Timed runs: each returns the seconds of every timed repetition (empty when cancelled
    // before the first). Inputs are random and allocated on the device before timing.
    virtual std::vector<double> timeGemm(const GemmShape& shape, const TimingPlan& plan) = 0;
    virtual std::vector<double> timeStream(StreamKernel kernel, std::size_t elements, const TimingPlan& plan) = 0;
    virtual std::vector<double> timeAttention(const AttentionShape& shape, const TimingPlan& plan) = 0;
    virtual std::vector<double> timeMlstmChunkwise(const MlstmShape& shape, const TimingPlan& plan) = 0;
    virtual std::vector<double> timeMlstmStep(const MlstmShape& shape, const TimingPlan& plan) = 0;

    // The optimised kernels on host data, for checks against the references in gpu/Kernels.h.
    virtual void gemm(const GemmShape& shape, const std::vector<float>& a, const std::vector<float>& b,
                      std::vector<float>& c) = 0;  // column-major; 16-bit precisions round the inputs
    virtual void attention(const AttentionShape& shape, const AttentionData& in, std::vector<float>& out) = 0;
    // Chunkwise forward from a zero state: h, and the state after the last token.
    virtual void mlstmChunkwise(const MlstmShape& shape, const MlstmData& in, std::vector<float>& h,
                                MlstmState& finalState) = 0;
    // `shape.tokens` recurrent steps from `state` (updated in place), one token at a time.
    virtual void mlstmSteps(const MlstmShape& shape, const MlstmData& in, std::vector<float>& h,
                            MlstmState& state) = 0;
};

// The CPU backend: std::thread across `threads` workers (0: all hardware threads).
std::unique_ptr<Backend> makeCpuBackend(int threads = 0);

// The CUDA backend on device `index`, or nullptr with the reason in `why` when this build has no
// CUDA or no device is usable. Never throws for a missing driver.
std::unique_ptr<Backend> makeCudaBackend(int index, std::string& why);

}  // namespace scalex::gpu
