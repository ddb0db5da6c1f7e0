#pragma once
// The microbenchmark suite: sweeps, FLOP/byte accounting (core/accounting, the paper's
// formulas), roofs, verification against the references, and a plain result struct that the
// CLI prints, the JSON file stores (gpu/BenchJson.h) and the roofline view draws.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpu/Backend.h"

namespace scalex::gpu {

// Kernel names as they appear in results and JSON.
inline constexpr const char* kGemm = "gemm";
inline constexpr const char* kCopy = "copy";
inline constexpr const char* kTriad = "triad";
inline constexpr const char* kAttentionPrefill = "attention_prefill";
inline constexpr const char* kAttentionDecode = "attention_decode";
inline constexpr const char* kMlstmChunkwise = "mlstm_chunkwise";
inline constexpr const char* kMlstmStep = "mlstm_step";

struct Measurement {
    std::string kernel;     // one of the names above
    std::string precision;  // fp32, fp16, bf16 (attention and mLSTM kernels run in fp32)
    std::string variant;    // attention: "mha" or "gqa"; otherwise empty
    // Shape: GEMM m, n, k; STREAM elements per array; attention/mLSTM the rest (tokens = T).
    int m = 0, n = 0, k = 0;
    double elements = 0;
    int batch = 0, heads = 0, kvHeads = 0, dQk = 0, dHv = 0, tokens = 0, chunk = 0;
    double flops = 0;    // per run, from core/accounting (GEMM: 2 m n k)
    double bytes = 0;    // per run, from core/accounting (STREAM: 2 or 3 arrays of doubles)
    double seconds = 0;  // median of the timed repetitions
    int reps = 0;
    double flopRate = 0;      // flops / seconds
    double byteRate = 0;      // bytes / seconds
    double intensity = 0;     // flops / bytes
    double roofFraction = 0;  // attained / min(compute roof, intensity x memory roof); 0 without roofs
    friend bool operator==(const Measurement&, const Measurement&) = default;
};

// Roofs measured in the same run: the best GEMM rate per precision class and the triad
// bandwidth on the largest array. The theoretical peak is the vendor formula (see peakFormula).
struct Roofs {
    double computeF32 = 0;    // FLOP/s, best fp32 GEMM
    double compute16 = 0;     // FLOP/s, best fp16/bf16 GEMM
    double bandwidth = 0;     // bytes/s, triad on the largest array
    double theoreticalF32 = 0;  // FLOP/s, from clock x cores x FMA width (CPU) or 0 if unknown
    std::string peakFormula;
    friend bool operator==(const Roofs&, const Roofs&) = default;
};

struct VerifyResult {
    std::string kernel;  // kernel name (gemm_fp16 etc. for GEMM precisions)
    std::string shape;   // human-readable
    double error = 0;    // relative error vs the reference (gpu/Kernels.h relativeError)
    double tolerance = 0;
    bool pass() const { return error <= tolerance; }
    friend bool operator==(const VerifyResult&, const VerifyResult&) = default;
};

struct BenchReport {
    DeviceInfo device;
    int threads = 0;
    bool quick = false;
    std::string created;  // ISO 8601 UTC
    Roofs roofs;
    std::vector<Measurement> measurements;
    std::vector<VerifyResult> verification;
    std::vector<std::string> errors;  // measurements that failed (e.g. out of device memory), one line each
};
bool operator==(const DeviceInfo& a, const DeviceInfo& b);
bool operator==(const BenchReport& a, const BenchReport& b);

struct BenchOptions {
    bool gemm = true, bandwidth = true, attention = true, mlstm = true;
    bool quick = false;  // small sizes: a CPU run takes seconds
    bool verify = false;  // check the backend's kernels against the references first
    int minTokens = 512;
    int maxTokens = 65536;
    // The paper's head shapes: attention heads of width 128 (32 query heads, 8 KV heads for
    // GQA, as at d_model 4096); mLSTM d_qk 128, d_hv 256 (16 heads at d_model 4096).
    int attentionHeads = 32, gqaKvHeads = 8, headDim = 128;
    int mlstmHeads = 16, dQk = 128, dHv = 256, chunk = 64;
    TimingPlan timing;
};

// done / total measurements and what runs next; called from the calling thread.
using BenchProgress = std::function<void(int done, int total, const std::string& what)>;

// Runs the selected sweeps. Stops early (returning what it has) when `cancel` becomes true.
BenchReport runBench(Backend& backend, const BenchOptions& options, const BenchProgress& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

// Runs every kernel of `backend` on small shapes (MHA, GQA, decode, T not a multiple of the
// chunk, the paper's mLSTM head shape) and compares with the plain references.
std::vector<VerifyResult> verifyBackend(Backend& backend);

// Fills the derived fields (rates, intensity, roofs, fractions) from flops, bytes and seconds.
void finishReport(BenchReport& report);

// T where the chunkwise mLSTM forward becomes faster than causal attention prefill (variant
// "mha" or "gqa"): log-log interpolation between the sweep points around the first sign change;
// the shortest T measured when the mLSTM is already faster there (an upper bound); nullopt when
// attention is faster over the whole sweep.
std::optional<double> crossoverTokens(const BenchReport& report, const std::string& variant = "mha");

// Theoretical fp32 peak of this CPU: cores x clock x FMA pipes (2) x lanes x 2, lanes from
// /proc/cpuinfo flags (avx512f: 16, avx2+fma: 8, else 4). Formula text in `formula`.
double cpuTheoreticalPeak(const DeviceInfo& cpu, std::string& formula);

}  // namespace scalex::gpu
