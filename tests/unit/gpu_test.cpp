// gpu/: the optimised CPU kernels against the plain references, the references against
// hand-computed values, the JSON round trip, and the CUDA kernels where a device exists.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QTemporaryDir>
#include <cmath>

#include "gpu/Bench.h"
#include "gpu/BenchJson.h"
#include "gpu/Kernels.h"

using namespace scalex::gpu;

namespace {

constexpr double kTol = 1e-4;  // fp32 kernels vs double-accumulated references

TEST(GpuReference, RoundsToSixteenBitFormats) {
    EXPECT_EQ(roundToPrecision(0.1f, Precision::F16), 0.0999755859375f);
    EXPECT_EQ(roundToPrecision(0.1f, Precision::BF16), 0.10009765625f);
    EXPECT_EQ(roundToPrecision(1.0f + 1.0f / 4096, Precision::F16), 1.0f);  // half a step rounds to even
    EXPECT_EQ(roundToPrecision(70000.0f, Precision::F16), INFINITY);
    EXPECT_EQ(roundToPrecision(2.0e-8f, Precision::F16), 0.0f);  // below half the smallest subnormal 2^-24
    EXPECT_EQ(roundToPrecision(3.0e-8f, Precision::F16), std::ldexp(1.0f, -24));
    EXPECT_EQ(roundToPrecision(-2.5f, Precision::F32), -2.5f);
}

TEST(GpuReference, AttentionOfOneKeyIsItsValue) {
    // With T = 1 the softmax weight is 1: out = v whatever q and k are.
    const AttentionShape s{1, 2, 1, 4, 1, 1};
    AttentionData in{{1, 2, 3, 4, -1, 0, 5, 2}, {0.5f, -1, 2, 0}, {7, 8, 9, 10}};
    std::vector<float> out;
    referenceAttention(s, in, out);
    EXPECT_EQ(out, (std::vector<float>{7, 8, 9, 10, 7, 8, 9, 10}));
}

TEST(GpuReference, AttentionOfEqualScoresAveragesTheVisibleValues) {
    // q = 0: uniform weights over the keys each position may see (causal).
    const AttentionShape s{1, 1, 1, 2, 3, 3};
    AttentionData in{std::vector<float>(6, 0.0f), {1, 2, 3, 4, 5, 6}, {1, 10, 2, 20, 6, 60}};
    std::vector<float> out;
    referenceAttention(s, in, out);
    EXPECT_FLOAT_EQ(out[0], 1);
    EXPECT_FLOAT_EQ(out[1], 10);
    EXPECT_FLOAT_EQ(out[2], 1.5f);
    EXPECT_FLOAT_EQ(out[3], 15);
    EXPECT_FLOAT_EQ(out[4], 3);
    EXPECT_FLOAT_EQ(out[5], 30);
}

TEST(GpuReference, MlstmFirstStepByHand) {
    // One head, d_qk = d_hv = 1, one token: m_1 = max(log sigmoid(f) + 0, i) ; C_1 = exp(i - m_1) k v,
    // n_1 = exp(i - m_1) k; h = C q' / max(|n q'|, exp(-m_1)) with q' = q / sqrt(1).
    const MlstmShape s{1, 1, 1, 1, 1, 64};
    MlstmData in{{2.0f}, {0.5f}, {3.0f}, {0.7f}, {1.0f}};
    MlstmState st = zeroMlstmState(s);
    std::vector<float> h;
    referenceMlstmRecurrent(s, in, h, st);
    const double logF = std::log(1.0 / (1.0 + std::exp(-1.0)));
    const double m = std::max(logF, 0.7);
    const double C = std::exp(0.7 - m) * 0.5 * 3.0, n = std::exp(0.7 - m) * 0.5;
    EXPECT_NEAR(st.m[0], m, 1e-6);
    EXPECT_NEAR(st.C[0], C, 1e-6);
    EXPECT_NEAR(h[0], C * 2.0 / std::max(std::abs(n * 2.0), std::exp(-m)), 1e-6);
}

TEST(GpuReference, MlstmLowerBoundOfTheDenominator) {
    // A tiny input gate makes |n^T q| < exp(-m): the output is C^T q exp(m), i.e. unnormalised.
    const MlstmShape s{1, 1, 1, 1, 1, 64};
    MlstmData in{{1.0f}, {0.01f}, {1.0f}, {-5.0f}, {-5.0f}};
    MlstmState st = zeroMlstmState(s);
    std::vector<float> h;
    referenceMlstmRecurrent(s, in, h, st);
    const double m = std::max(std::log(1.0 / (1.0 + std::exp(5.0))), -5.0);  // = -5
    EXPECT_NEAR(m, -5.0, 1e-12);
    EXPECT_NEAR(h[0], std::exp(-5.0 - m) * 0.01 * 1.0 / std::exp(-m), 1e-7);
}

class CpuKernels : public ::testing::Test {
protected:
    int threads = 2;
};

TEST_F(CpuKernels, GemmMatchesReferenceAtEveryPrecision) {
    for (Precision p : {Precision::F32, Precision::F16, Precision::BF16})
        for (auto [m, n, k] : {std::tuple{1, 1, 1}, {17, 33, 9}, {64, 3, 100}, {130, 70, 65}}) {
            const GemmShape s{m, n, k, p};
            const auto a = randomVector(static_cast<std::size_t>(m) * k, 1), b = randomVector(static_cast<std::size_t>(k) * n, 2);
            std::vector<float> ref, got;
            referenceGemm(s, a, b, ref);
            cpuGemm(s, a, b, got, threads);
            EXPECT_LT(relativeError(got, ref), kTol) << precisionName(p) << " " << m << "x" << n << "x" << k;
        }
}

TEST_F(CpuKernels, AttentionPrefillAndDecodeMatchReference) {
    const AttentionShape shapes[] = {
        {1, 1, 1, 16, 1, 1},      {1, 2, 2, 32, 64, 64},    {1, 2, 2, 32, 65, 65},  // tile edges
        {2, 4, 2, 16, 130, 130},  // GQA, two batches, T not a multiple of the tile
        {1, 8, 1, 64, 100, 100},  // multi-query
        {1, 4, 2, 32, 7, 200},    // the last 7 positions of 200 (chunked prefill)
        {1, 4, 4, 128, 1, 333},   // MHA decode
        {2, 8, 2, 128, 1, 100},   // GQA decode
    };
    for (const auto& s : shapes) {
        const AttentionData in = randomAttentionData(s, 7);
        std::vector<float> ref, got;
        referenceAttention(s, in, ref);
        cpuAttention(s, in, got, threads);
        EXPECT_LT(relativeError(got, ref), kTol) << "H" << s.heads << "/" << s.kvHeads << " S" << s.queries << " T" << s.keys;
    }
}

TEST_F(CpuKernels, AttentionRejectsInconsistentShapes) {
    std::vector<float> out;
    const AttentionShape badGroups{1, 3, 2, 8, 4, 4};
    EXPECT_THROW(cpuAttention(badGroups, randomAttentionData(badGroups, 1), out, threads), std::invalid_argument);
    const AttentionShape tooManyQueries{1, 1, 1, 8, 5, 4};
    EXPECT_THROW(cpuAttention(tooManyQueries, randomAttentionData(tooManyQueries, 1), out, threads), std::invalid_argument);
}

TEST_F(CpuKernels, ChunkwiseMlstmEqualsRecurrentReference) {
    const MlstmShape shapes[] = {
        {1, 1, 8, 8, 1, 64},     {1, 2, 16, 32, 64, 64},  // exactly one chunk
        {2, 2, 16, 32, 100, 16},  // T not a multiple of L
        {1, 3, 32, 16, 37, 64},   // one partial chunk
        {1, 1, 8, 8, 20, 1},      // L = 1
        {1, 2, 128, 256, 130, 64},  // the paper's head shape
    };
    for (const auto& s : shapes) {
        const MlstmData in = randomMlstmData(s, 9);
        std::vector<float> ref, got;
        MlstmState refState = zeroMlstmState(s), gotState;
        referenceMlstmRecurrent(s, in, ref, refState);
        cpuMlstmChunkwise(s, in, got, gotState, threads);
        const std::string what = "T" + std::to_string(s.tokens) + " L" + std::to_string(s.chunk);
        EXPECT_LT(relativeError(got, ref), kTol) << what;
        EXPECT_LT(relativeError(gotState.C, refState.C), kTol) << what;
        EXPECT_LT(relativeError(gotState.n, refState.n), kTol) << what;
        EXPECT_LT(relativeError(gotState.m, refState.m), 1e-6) << what;  // the same max recursion
    }
}

TEST_F(CpuKernels, ChunkwiseMlstmDoesNotDependOnTheChunkSize) {
    MlstmShape s{1, 2, 16, 16, 90, 8};
    const MlstmData in = randomMlstmData(s, 13);
    std::vector<float> h8, h32;
    MlstmState st;
    cpuMlstmChunkwise(s, in, h8, st, threads);
    s.chunk = 32;
    cpuMlstmChunkwise(s, in, h32, st, threads);
    EXPECT_LT(relativeError(h8, h32), kTol);
}

TEST_F(CpuKernels, RecurrentStepsContinueFromAState) {
    // Chunkwise over the first 40 tokens, then 25 decode steps, equals 65 reference steps.
    const MlstmShape all{1, 2, 16, 32, 65, 16};
    const MlstmData in = randomMlstmData(all, 17);
    std::vector<float> ref;
    MlstmState refState = zeroMlstmState(all);
    referenceMlstmRecurrent(all, in, ref, refState);

    MlstmShape head = all, tail = all;
    head.tokens = 40;
    tail.tokens = 25;
    auto slice = [&](const std::vector<float>& x, int width, int from, int count) {
        std::vector<float> out;
        for (int bh = 0; bh < all.batch * all.heads; ++bh)
            out.insert(out.end(), x.begin() + (static_cast<std::size_t>(bh) * all.tokens + from) * width,
                       x.begin() + (static_cast<std::size_t>(bh) * all.tokens + from + count) * width);
        return out;
    };
    auto part = [&](int from, int count) {
        return MlstmData{slice(in.q, all.dQk, from, count), slice(in.k, all.dQk, from, count), slice(in.v, all.dHv, from, count),
                         slice(in.igate, 1, from, count), slice(in.fgate, 1, from, count)};
    };
    std::vector<float> h1, h2;
    MlstmState st;
    cpuMlstmChunkwise(head, part(0, 40), h1, st, threads);
    cpuMlstmSteps(tail, part(40, 25), h2, st, threads);
    EXPECT_LT(relativeError(h1, slice(ref, all.dHv, 0, 40)), kTol);
    EXPECT_LT(relativeError(h2, slice(ref, all.dHv, 40, 25)), kTol);
    EXPECT_LT(relativeError(st.C, refState.C), kTol);
}

TEST_F(CpuKernels, StreamKernels) {
    std::vector<double> a(1001, 0), b(1001), c(1001);
    for (int i = 0; i < 1001; ++i) b[i] = i, c[i] = 2 * i;
    cpuStream(StreamKernel::Copy, a.data(), b.data(), c.data(), a.size(), threads);
    EXPECT_EQ(a, b);
    cpuStream(StreamKernel::Triad, a.data(), b.data(), c.data(), a.size(), threads);
    for (int i = 0; i < 1001; ++i) ASSERT_EQ(a[i], b[i] + 3.0 * c[i]);
}

TEST(CpuBackend, VerificationPassesEveryKernel) {
    auto backend = makeCpuBackend(2);
    const auto results = verifyBackend(*backend);
    ASSERT_GE(results.size(), 10u);
    for (const auto& r : results) EXPECT_TRUE(r.pass()) << r.kernel << " " << r.shape << " error " << r.error;
}

TEST(CpuBackend, QuickBenchAccountsWithThePaperFormulas) {
    auto backend = makeCpuBackend(2);
    BenchOptions o;
    o.quick = true;
    o.gemm = o.bandwidth = false;
    o.timing = {0, 1, 1, 0.0, 0.0, nullptr};
    const BenchReport r = runBench(*backend, o);
    // 2 decode/prefill x 2 variants x 2 T + 2 mLSTM chunkwise + 1 step.
    ASSERT_EQ(r.measurements.size(), 11u);
    for (const auto& m : r.measurements) {
        EXPECT_GT(m.seconds, 0) << m.kernel;
        EXPECT_DOUBLE_EQ(m.flopRate, m.flops / m.seconds);
        if (m.kernel == kAttentionPrefill && m.variant == "mha" && m.tokens == 256) {
            // Tab. flop_counts_attention: 2 T^2 F_causal (d_qk + d_hv + 0.5 F_sm) n_head, F_causal 0.5, F_sm 5.
            EXPECT_DOUBLE_EQ(m.flops, 2.0 * 256 * 256 * 0.5 * (128 + 128 + 2.5) * 32);
            // Tab. memop_counts_attention, fp32: (T d n_q + 2 T d n_kv + T d n_q) x 4 bytes.
            EXPECT_DOUBLE_EQ(m.bytes, 4.0 * (256 * 128 * 32 + 256 * 256 * 32 + 256 * 128 * 32));
        }
    }
    // No GEMM or triad measured: no roofs, so no fractions.
    EXPECT_EQ(r.roofs.computeF32, 0);
    EXPECT_EQ(r.measurements.front().roofFraction, 0);
}

// The CPU backend, except that attention runs out of memory from T = 256 on.
class AttentionOutOfMemory final : public Backend {
public:
    DeviceInfo device() const override { return cpu->device(); }
    std::vector<double> timeGemm(const GemmShape& s, const TimingPlan& p) override { return cpu->timeGemm(s, p); }
    std::vector<double> timeStream(StreamKernel k, std::size_t n, const TimingPlan& p) override { return cpu->timeStream(k, n, p); }
    std::vector<double> timeAttention(const AttentionShape& s, const TimingPlan& p) override {
        if (s.keys >= 256) throw std::runtime_error("out of memory");
        return cpu->timeAttention(s, p);
    }
    std::vector<double> timeMlstmChunkwise(const MlstmShape& s, const TimingPlan& p) override { return cpu->timeMlstmChunkwise(s, p); }
    std::vector<double> timeMlstmStep(const MlstmShape& s, const TimingPlan& p) override { return cpu->timeMlstmStep(s, p); }
    void gemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) override { cpu->gemm(s, a, b, c); }
    void attention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out) override { cpu->attention(s, in, out); }
    void mlstmChunkwise(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& st) override { cpu->mlstmChunkwise(s, in, h, st); }
    void mlstmSteps(const MlstmShape& s, const MlstmData& in, std::vector<float>& h, MlstmState& st) override { cpu->mlstmSteps(s, in, h, st); }

private:
    std::unique_ptr<Backend> cpu = makeCpuBackend(2);
};

TEST(CpuBackend, AFailedSizeIsRecordedAndTheSweepGoesOn) {
    AttentionOutOfMemory backend;
    BenchOptions o;
    o.quick = true;
    o.gemm = o.bandwidth = false;
    o.timing = {0, 1, 1, 0.0, 0.0, nullptr};
    const BenchReport r = runBench(backend, o);
    EXPECT_EQ(r.measurements.size(), 7u);  // attention at T 128 (4 kinds), mLSTM chunkwise x 2, step
    ASSERT_EQ(r.errors.size(), 4u);
    EXPECT_EQ(r.errors.front(), "attention_prefill mha T 256: out of memory");
}

TEST(CpuBackend, CancelStopsTheSweep) {
    auto backend = makeCpuBackend(1);
    std::atomic<bool> cancel{true};
    BenchOptions o;
    o.quick = true;
    const BenchReport r = runBench(*backend, o, {}, &cancel);
    EXPECT_TRUE(r.measurements.empty());
}

BenchReport sampleReport() {
    BenchReport r;
    r.device = {"cpu", "Test CPU \"quoted\"", 2, 2.45, 8.0e9, 0, ""};
    r.threads = 2;
    r.quick = true;
    r.created = "2026-11-22T02:00:00Z";
    r.roofs.theoreticalF32 = 1.568e11;
    r.roofs.peakFormula = "2 cores x 2.45 GHz";
    Measurement g;
    g.kernel = kGemm;
    g.precision = "fp32";
    g.m = g.n = g.k = 256;
    g.flops = 2.0 * 256 * 256 * 256;
    g.bytes = 4.0 * 3 * 256 * 256;
    g.seconds = 3.3e-4;
    g.reps = 7;
    Measurement t;
    t.kernel = kTriad;
    t.precision = "fp64";
    t.elements = 1 << 20;
    t.flops = 2.0 * (1 << 20);
    t.bytes = 24.0 * (1 << 20);
    t.seconds = 1.234567e-3;
    t.reps = 5;
    Measurement a;
    a.kernel = kAttentionPrefill;
    a.precision = "fp32";
    a.variant = "gqa";
    a.batch = 1, a.heads = 32, a.kvHeads = 8, a.dQk = a.dHv = 128, a.tokens = 512;
    a.flops = 1.1e10 / 3;
    a.bytes = 1.0e7 / 7;
    a.seconds = 0.1;
    a.reps = 3;
    r.measurements = {g, t, a};
    r.verification = {{"gemm_fp32", "m67", 1.5e-7, 1e-4}, {"mlstm_step", "T1", 2e-3, 1e-4}};
    r.errors = {"attention_prefill mha T 65536: CUDA cudaMalloc: out of memory"};
    finishReport(r);
    return r;
}

TEST(BenchJson, RoundTripsEveryField) {
    const BenchReport r = sampleReport();
    EXPECT_DOUBLE_EQ(r.roofs.computeF32, 2.0 * 256 * 256 * 256 / 3.3e-4);
    EXPECT_DOUBLE_EQ(r.roofs.bandwidth, 24.0 * (1 << 20) / 1.234567e-3);
    const BenchReport back = benchReportFromJson(toJson(r));
    EXPECT_TRUE(back == r);
    EXPECT_FALSE(back.verification[1].pass());

    QTemporaryDir dir;
    const QString path = dir.filePath("bench.json");
    saveBenchReport(r, path);
    EXPECT_TRUE(loadBenchReport(path) == r);
}

TEST(BenchJson, ErrorsNameTheKey) {
    QJsonObject o = toJson(sampleReport());
    QJsonArray rows = o["measurements"].toArray();
    QJsonObject row = rows[1].toObject();
    row["seconds"] = "fast";
    rows[1] = row;
    o["measurements"] = rows;
    try {
        benchReportFromJson(o);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "measurements[1].seconds: expected a number");
    }
    o = toJson(sampleReport());
    o.remove("errors");  // files written before the key existed
    EXPECT_TRUE(benchReportFromJson(o).errors.empty());
    o["errors"] = QJsonArray{1};
    try {
        benchReportFromJson(o);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "errors[0]: expected a string");
    }
    o["format"] = "other";
    EXPECT_THROW(benchReportFromJson(o), std::runtime_error);
    EXPECT_THROW(loadBenchReport("/nonexistent/bench.json"), std::runtime_error);
}

TEST(CudaBackend, MatchesTheReferencesWhenADeviceIsPresent) {
    std::string why;
    auto backend = makeCudaBackend(0, why);
    if (!backend) GTEST_SKIP() << "no CUDA device to check: " << why;
    for (const auto& r : verifyBackend(*backend)) EXPECT_TRUE(r.pass()) << r.kernel << " " << r.shape << " error " << r.error;
}

TEST(CudaBackend, WithoutADeviceExplainsWhy) {
    std::string why;
    auto backend = makeCudaBackend(0, why);
    if (backend) GTEST_SKIP() << "a CUDA device is present";
    EXPECT_FALSE(why.empty());
}

}  // namespace

namespace {

Measurement timing(const char* kernel, int tokens, double seconds) {
    Measurement m;
    m.kernel = kernel;
    m.variant = std::string(kernel) == kAttentionPrefill ? "mha" : "";
    m.batch = 1;
    m.tokens = tokens;
    m.seconds = seconds;
    return m;
}

TEST(Crossover, InterpolatesWhereTheTimeRatioCrossesOne) {
    BenchReport r;
    // attention / mLSTM time: 0.5 at T 512, 2 at T 2048: the log-log line crosses 1 at T 1024.
    r.measurements = {timing(kAttentionPrefill, 512, 1.0), timing(kMlstmChunkwise, 512, 2.0),
                      timing(kAttentionPrefill, 2048, 4.0), timing(kMlstmChunkwise, 2048, 2.0)};
    ASSERT_TRUE(crossoverTokens(r, "mha").has_value());
    EXPECT_NEAR(*crossoverTokens(r, "mha"), 1024.0, 1e-9);
    EXPECT_FALSE(crossoverTokens(r, "gqa").has_value());  // no GQA rows
    r.measurements[2].seconds = 1.5;  // attention faster everywhere
    EXPECT_FALSE(crossoverTokens(r, "mha").has_value());
}

}  // namespace
