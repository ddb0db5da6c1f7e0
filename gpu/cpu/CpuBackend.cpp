// The CPU backend: times the kernels of gpu/cpu/CpuKernels.cpp with a steady clock.
//
// fp16 / bf16 GEMM: x86 CPUs without AVX512-FP16 / AVX512-BF16 have no 16-bit FMA, and Eigen's
// GEMM on Eigen::half / Eigen::bfloat16 runs scalar emulation (orders of magnitude slower than
// the hardware can do). The timed 16-bit GEMM therefore stores A, B and C in 16 bits, converts
// the operands to fp32, multiplies in fp32 and rounds C back: the mixed-precision path a CPU
// inference library takes, conversion cost included.
#include <Eigen/Core>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "gpu/Kernels.h"

namespace scalex::gpu {

namespace {

template <class F>
std::vector<double> timeRuns(const TimingPlan& plan, F&& run) {
    auto cancelled = [&] { return plan.cancel && plan.cancel->load(); };
    for (int i = 0; i < plan.warmup && !cancelled(); ++i) run();
    std::vector<double> times;
    double total = 0;
    while (!cancelled() && static_cast<int>(times.size()) < plan.maxReps &&
           (times.empty() || (static_cast<int>(times.size()) < plan.minReps && total < plan.maxSeconds) ||
            total < plan.minSeconds)) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        times.push_back(dt);
        total += dt;
    }
    return times;
}

template <class Half>
void timed16BitGemm(const GemmShape& s, int threads, std::vector<float>& a32, std::vector<float>& b32,
                    std::vector<float>& c32, std::vector<Half>& a16, std::vector<Half>& b16, std::vector<Half>& c16) {
    // Convert in parallel slices, multiply in fp32, round C to 16 bits.
    auto convertIn = [&](std::size_t p) {
        const std::size_t na = a16.size(), nb = b16.size(), parts = static_cast<std::size_t>(threads);
        for (std::size_t i = p * na / parts; i < (p + 1) * na / parts; ++i) a32[i] = static_cast<float>(a16[i]);
        for (std::size_t i = p * nb / parts; i < (p + 1) * nb / parts; ++i) b32[i] = static_cast<float>(b16[i]);
    };
    parallelFor(static_cast<std::size_t>(threads), threads, convertIn);
    GemmShape f32 = s;
    f32.precision = Precision::F32;
    cpuGemm(f32, a32, b32, c32, threads);
    parallelFor(static_cast<std::size_t>(threads), threads, [&](std::size_t p) {
        const std::size_t nc = c16.size(), parts = static_cast<std::size_t>(threads);
        for (std::size_t i = p * nc / parts; i < (p + 1) * nc / parts; ++i) c16[i] = static_cast<Half>(c32[i]);
    });
}

template <class Half>
std::vector<Half> toHalf(const std::vector<float>& v) {
    std::vector<Half> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<Half>(v[i]);
    return out;
}

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads)
        : threads_(threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

    DeviceInfo device() const override { return queryCpuDevice(); }
    int threads() const override { return threads_; }

    std::vector<double> timeGemm(const GemmShape& s, const TimingPlan& plan) override {
        std::vector<float> a = randomVector(static_cast<std::size_t>(s.m) * s.k, 1), b = randomVector(static_cast<std::size_t>(s.k) * s.n, 2), c;
        if (s.precision == Precision::F32) return timeRuns(plan, [&] { cpuGemm(s, a, b, c, threads_); });
        c.resize(static_cast<std::size_t>(s.m) * s.n);
        if (s.precision == Precision::F16) {
            auto a16 = toHalf<Eigen::half>(a), b16 = toHalf<Eigen::half>(b);
            std::vector<Eigen::half> c16(c.size());
            return timeRuns(plan, [&] { timed16BitGemm(s, threads_, a, b, c, a16, b16, c16); });
        }
        auto a16 = toHalf<Eigen::bfloat16>(a), b16 = toHalf<Eigen::bfloat16>(b);
        std::vector<Eigen::bfloat16> c16(c.size());
        return timeRuns(plan, [&] { timed16BitGemm(s, threads_, a, b, c, a16, b16, c16); });
    }

    std::vector<double> timeStream(StreamKernel k, std::size_t n, const TimingPlan& plan) override {
        std::vector<double> a(n), b(n), c(n);
        // First touch from the workers, so pages land where the threads run.
        parallelFor(static_cast<std::size_t>(threads_), threads_, [&](std::size_t p) {
            for (std::size_t i = p * n / threads_; i < (p + 1) * n / threads_; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
        });
        return timeRuns(plan, [&] { cpuStream(k, a.data(), b.data(), c.data(), n, threads_); });
    }

    std::vector<double> timeAttention(const AttentionShape& s, const TimingPlan& plan) override {
        const AttentionData in = randomAttentionData(s, 3);
        std::vector<float> out;
        return timeRuns(plan, [&] { cpuAttention(s, in, out, threads_); });
    }

    std::vector<double> timeMlstmChunkwise(const MlstmShape& s, const TimingPlan& plan) override {
        const MlstmData in = randomMlstmData(s, 4);
        std::vector<float> h;
        MlstmState st;
        return timeRuns(plan, [&] { cpuMlstmChunkwise(s, in, h, st, threads_); });
    }

    std::vector<double> timeMlstmStep(const MlstmShape& shape, const TimingPlan& plan) override {
        MlstmShape s = shape;
        s.tokens = 1;
        const MlstmData in = randomMlstmData(s, 5);
        MlstmState st = zeroMlstmState(s);
        std::vector<float> h;
        return timeRuns(plan, [&] { cpuMlstmSteps(s, in, h, st, threads_); });
    }

    void gemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b,
              std::vector<float>& c) override {
        cpuGemm(s, a, b, c, threads_);
    }
    void attention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out) override {
        cpuAttention(s, in, out, threads_);
    }
    void mlstmChunkwise(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& st) override {
        cpuMlstmChunkwise(s, in, h, st, threads_);
    }
    void mlstmSteps(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& st) override {
        cpuMlstmSteps(s, in, h, st, threads_);
    }

private:
    int threads_;
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend(int threads) { return std::make_unique<CpuBackend>(threads); }

}  // namespace scalex::gpu
