#include "gpu/Bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>

#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "gpu/Kernels.h"

namespace scalex::gpu {

namespace acc = scalex::accounting;

bool operator==(const DeviceInfo& a, const DeviceInfo& b) {
    return a.backend == b.backend && a.name == b.name && a.computeUnits == b.computeUnits && a.clockGHz == b.clockGHz &&
           a.memoryBytes == b.memoryBytes && a.peakBandwidth == b.peakBandwidth &&
           a.computeCapability == b.computeCapability;
}

bool operator==(const BenchReport& a, const BenchReport& b) {
    return a.device == b.device && a.threads == b.threads && a.quick == b.quick && a.created == b.created &&
           a.roofs == b.roofs && a.measurements == b.measurements && a.verification == b.verification &&
           a.errors == b.errors;
}

namespace {

// The attention and mLSTM kernels run in fp32: every q/k/v/h element is 4 bytes
// (ByteWidths of Tab. memop_counts_*; gates and states are fp32 already).
acc::ByteWidths fp32Widths() {
    acc::ByteWidths b;
    b.qkv = 4;
    b.gates = 4;
    b.state = 4;
    return b;
}

acc::ModelConfig attentionConfig(const AttentionShape& s) {
    acc::ModelConfig c;
    c.family = acc::Family::Transformer;
    c.nHeads = s.heads;
    c.nKvHeads = s.kvHeads;
    c.dQk = c.dHv = s.headDim;
    return c;
}

acc::ModelConfig mlstmConfig(const MlstmShape& s) {
    acc::ModelConfig c;
    c.family = acc::Family::Xlstm;
    c.nHeads = c.nKvHeads = s.heads;
    c.dQk = s.dQk;
    c.dHv = s.dHv;
    c.chunk = s.chunk;
    return c;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string nowUtc() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string attentionShapeText(const AttentionShape& s) {
    std::ostringstream o;
    o << "B" << s.batch << " H" << s.heads << "/" << s.kvHeads << " D" << s.headDim << " S" << s.queries << " T" << s.keys;
    return o.str();
}

std::string mlstmShapeText(const MlstmShape& s) {
    std::ostringstream o;
    o << "B" << s.batch << " H" << s.heads << " dqk" << s.dQk << " dhv" << s.dHv << " T" << s.tokens << " L" << s.chunk;
    return o.str();
}

// A unit of work of the sweep: a label for progress and a closure that times and fills one row.
struct Job {
    std::string what;
    std::function<std::optional<Measurement>()> run;
};

}  // namespace

double cpuTheoreticalPeak(const DeviceInfo& cpu, std::string& formula) {
    std::ifstream in("/proc/cpuinfo");
    std::string flags;
    for (std::string line; std::getline(in, line);)
        if (line.rfind("flags", 0) == 0) {
            flags = line + " ";
            break;
        }
    const bool avx512 = flags.find(" avx512f ") != std::string::npos;
    const bool avx2 = flags.find(" avx2 ") != std::string::npos && flags.find(" fma ") != std::string::npos;
    const int lanes = avx512 ? 16 : avx2 ? 8 : 4;
    const char* isa = avx512 ? "AVX-512 FMA" : avx2 ? "AVX2 FMA" : "SSE";
    // Two FMA pipes per core (Zen 2-4, Skylake-SP and later server cores); an FMA is 2 FLOPs.
    const double peak = cpu.computeUnits * cpu.clockGHz * 1e9 * 2 * lanes * 2;
    std::ostringstream o;
    o << cpu.computeUnits << " cores x " << cpu.clockGHz << " GHz x 2 FMA pipes x " << lanes << " fp32 lanes (" << isa
      << ") x 2 FLOP/FMA";
    formula = o.str();
    return peak;
}

void finishReport(BenchReport& r) {
    Roofs& roofs = r.roofs;
    roofs.computeF32 = roofs.compute16 = roofs.bandwidth = 0;
    double largestTriad = -1;
    for (auto& m : r.measurements) {
        m.flopRate = m.seconds > 0 ? m.flops / m.seconds : 0;
        m.byteRate = m.seconds > 0 ? m.bytes / m.seconds : 0;
        m.intensity = m.bytes > 0 ? m.flops / m.bytes : 0;
        if (m.kernel == kGemm) {
            double& roof = m.precision == "fp32" ? roofs.computeF32 : roofs.compute16;
            roof = std::max(roof, m.flopRate);
        } else if (m.kernel == kTriad && m.elements >= largestTriad) {
            largestTriad = m.elements;
            roofs.bandwidth = m.byteRate;
        }
    }
    for (auto& m : r.measurements) {
        m.roofFraction = 0;
        if (m.kernel == kGemm) {
            const double roof = m.precision == "fp32" ? roofs.computeF32 : roofs.compute16;
            if (roof > 0) m.roofFraction = m.flopRate / roof;
        } else if (m.kernel == kCopy || m.kernel == kTriad) {
            if (roofs.bandwidth > 0) m.roofFraction = m.byteRate / roofs.bandwidth;
        } else if (roofs.computeF32 > 0 && roofs.bandwidth > 0) {
            // Roofline: the attainable rate at this intensity.
            const double bound = std::min(roofs.computeF32, m.intensity * roofs.bandwidth);
            if (bound > 0) m.roofFraction = m.flopRate / bound;
        }
    }
}

std::vector<VerifyResult> verifyBackend(Backend& backend) {
    std::vector<VerifyResult> out;
    auto add = [&](std::string kernel, std::string shape, double err, double tol) {
        out.push_back({std::move(kernel), std::move(shape), err, tol});
    };
    // GEMM: odd sizes; 16-bit results are rounded to 16 bits on devices that store C in 16 bits.
    for (Precision p : {Precision::F32, Precision::F16, Precision::BF16}) {
        const GemmShape s{67, 45, 131, p};
        const auto a = randomVector(static_cast<std::size_t>(s.m) * s.k, 11), b = randomVector(static_cast<std::size_t>(s.k) * s.n, 12);
        std::vector<float> ref, got;
        referenceGemm(s, a, b, ref);
        backend.gemm(s, a, b, got);
        const double tol = p == Precision::F32 ? 1e-4 : p == Precision::F16 ? 2e-3 : 1e-2;
        add(std::string("gemm_") + precisionName(p), "m67 n45 k131", relativeError(got, ref), tol);
    }
    const AttentionShape attn[] = {
        {1, 2, 2, 128, 100, 100},  // MHA prefill, T not a multiple of the tile
        {2, 4, 2, 128, 77, 77},    // GQA prefill
        {1, 4, 1, 128, 33, 150},   // GQA, the last 33 positions of 150 (chunked prefill)
        {1, 2, 2, 128, 1, 300},    // MHA decode
        {2, 8, 2, 128, 1, 257},    // GQA decode
    };
    for (const auto& s : attn) {
        const AttentionData in = randomAttentionData(s, 21);
        std::vector<float> ref, got;
        referenceAttention(s, in, ref);
        backend.attention(s, in, got);
        add(s.queries == 1 ? kAttentionDecode : kAttentionPrefill, attentionShapeText(s), relativeError(got, ref), 1e-4);
    }
    const MlstmShape ml[] = {
        {1, 2, 128, 256, 130, 64},  // the paper's head shape, T not a multiple of L
        {2, 2, 32, 64, 100, 16},
        {1, 3, 16, 32, 37, 64},  // a single partial chunk
        {1, 1, 16, 16, 50, 1},   // L = 1: the chunkwise form degenerates to the recurrence
    };
    for (const auto& s : ml) {
        const MlstmData in = randomMlstmData(s, 31);
        std::vector<float> ref, got, gotSteps;
        MlstmState refState = zeroMlstmState(s), gotState, stepState = zeroMlstmState(s);
        referenceMlstmRecurrent(s, in, ref, refState);
        backend.mlstmChunkwise(s, in, got, gotState);
        add(kMlstmChunkwise, mlstmShapeText(s), relativeError(got, ref), 1e-4);
        add(std::string(kMlstmChunkwise) + "_state", mlstmShapeText(s), relativeError(gotState.C, refState.C), 1e-4);
        backend.mlstmSteps(s, in, gotSteps, stepState);
        add(kMlstmStep, mlstmShapeText(s), relativeError(gotSteps, ref), 1e-4);
    }
    return out;
}

BenchReport runBench(Backend& backend, const BenchOptions& o, const BenchProgress& progress,
                     const std::atomic<bool>* cancel) {
    BenchReport report;
    report.device = backend.device();
    report.threads = backend.threads();
    report.quick = o.quick;
    report.created = nowUtc();
    if (report.device.backend == "cpu")
        report.roofs.theoreticalF32 = cpuTheoreticalPeak(report.device, report.roofs.peakFormula);
    if (o.verify) report.verification = verifyBackend(backend);

    TimingPlan plan = o.timing;
    plan.cancel = cancel;
    const bool gpu = report.device.backend == "cuda";
    const acc::FlopConvention conv = acc::studyConvention();  // F_causal 0.5, F_softmax 5
    const acc::ByteWidths widths = fp32Widths();

    std::vector<Job> jobs;
    auto timed = [&](Measurement m, const std::vector<double>& times) -> std::optional<Measurement> {
        if (times.empty()) return std::nullopt;
        m.seconds = median(times);
        m.reps = static_cast<int>(times.size());
        return m;
    };

    if (o.gemm) {
        std::vector<int> sizes = o.quick ? std::vector<int>{128, 256}
                                 : gpu   ? std::vector<int>{1024, 2048, 4096, 8192, 16384}
                                         : std::vector<int>{256, 512, 1024, 2048};
        for (Precision p : {Precision::F32, Precision::F16, Precision::BF16})
            for (int n : sizes)
                jobs.push_back({std::string("gemm ") + precisionName(p) + " " + std::to_string(n), [&, p, n] {
                                    const GemmShape s{n, n, n, p};
                                    Measurement m;
                                    m.kernel = kGemm;
                                    m.precision = precisionName(p);
                                    m.m = m.n = m.k = n;
                                    m.flops = 2.0 * n * n * n;  // 2 m n k
                                    m.bytes = static_cast<double>(precisionBytes(p)) * 3.0 * n * n;  // A, B read; C written
                                    return timed(m, backend.timeGemm(s, plan));
                                }});
    }
    if (o.bandwidth) {
        // Arrays of doubles from 1 MiB to well beyond the last-level cache (CPU: 128 MiB per
        // array, 3 arrays; GPU: 1 GiB per array, far beyond a 50 MB L2).
        std::vector<double> mib = o.quick ? std::vector<double>{1, 8} : gpu ? std::vector<double>{4, 16, 64, 256, 1024}
                                                                         : std::vector<double>{1, 4, 16, 64, 128};
        for (StreamKernel k : {StreamKernel::Copy, StreamKernel::Triad})
            for (double size : mib) {
                const char* name = k == StreamKernel::Copy ? kCopy : kTriad;
                jobs.push_back({std::string(name) + " " + std::to_string(static_cast<int>(size)) + " MiB", [&, k, size, name] {
                                    const std::size_t n = static_cast<std::size_t>(size * 1024 * 1024 / 8);
                                    Measurement m;
                                    m.kernel = name;
                                    m.precision = "fp64";
                                    m.elements = static_cast<double>(n);
                                    // STREAM convention: reads and writes, no write-allocate traffic.
                                    m.bytes = 8.0 * n * (k == StreamKernel::Copy ? 2 : 3);
                                    m.flops = k == StreamKernel::Copy ? 0 : 2.0 * n;
                                    return timed(m, backend.timeStream(k, n, plan));
                                }});
            }
    }
    std::vector<int> tokens;
    if (o.quick)
        tokens = {128, 256};
    else
        for (int t = o.minTokens; t <= o.maxTokens; t *= 2) tokens.push_back(t);

    if (o.attention) {
        for (bool decode : {false, true})
            for (int kv : {o.attentionHeads, o.gqaKvHeads})
                for (int T : tokens) {
                    const AttentionShape s{1, o.attentionHeads, kv, o.headDim, decode ? 1 : T, T};
                    const std::string variant = kv == o.attentionHeads ? "mha" : "gqa";
                    const char* name = decode ? kAttentionDecode : kAttentionPrefill;
                    jobs.push_back({std::string(name) + " " + variant + " T " + std::to_string(T), [&, s, variant, name] {
                                        Measurement m;
                                        m.kernel = name;
                                        m.precision = "fp32";
                                        m.variant = variant;
                                        m.batch = s.batch;
                                        m.heads = s.heads;
                                        m.kvHeads = s.kvHeads;
                                        m.dQk = m.dHv = s.headDim;
                                        m.tokens = s.keys;
                                        // Tab. flop_counts_attention; Eq. *_gen_step for decode (also F_causal).
                                        const acc::ModelConfig c = attentionConfig(s);
                                        m.flops = acc::attentionCoreFlops(c, s.queries, s.keys, conv.ops);
                                        m.bytes = acc::attentionBytes(c, s.queries, s.keys, widths);
                                        return timed(m, backend.timeAttention(s, plan));
                                    }});
                }
    }
    if (o.mlstm) {
        for (int T : tokens) {
            const MlstmShape s{1, o.mlstmHeads, o.dQk, o.dHv, T, o.chunk};
            jobs.push_back({"mlstm chunkwise T " + std::to_string(T), [&, s] {
                                Measurement m;
                                m.kernel = kMlstmChunkwise;
                                m.precision = "fp32";
                                m.batch = s.batch;
                                m.heads = m.kvHeads = s.heads;
                                m.dQk = s.dQk;
                                m.dHv = s.dHv;
                                m.tokens = s.tokens;
                                m.chunk = s.chunk;
                                const acc::ModelConfig c = mlstmConfig(s);
                                // Tab. flop_counts_mlstm_chunkwise (study count) and memop_counts_mlstm_chunkwise.
                                m.flops = acc::mlstmCellChunkwiseFlops(c, s.tokens, conv);
                                m.bytes = s.heads * acc::chunkCount(s.tokens, s.chunk) *
                                          acc::mlstmChunkBytes(s.dQk, s.dHv, s.chunk, widths).total();
                                return timed(m, backend.timeMlstmChunkwise(s, plan));
                            }});
        }
        const MlstmShape s{1, o.mlstmHeads, o.dQk, o.dHv, 1, o.chunk};
        jobs.push_back({"mlstm step", [&, s] {
                            Measurement m;
                            m.kernel = kMlstmStep;
                            m.precision = "fp32";
                            m.batch = s.batch;
                            m.heads = m.kvHeads = s.heads;
                            m.dQk = s.dQk;
                            m.dHv = s.dHv;
                            m.tokens = 1;
                            const acc::ModelConfig c = mlstmConfig(s);
                            // Tab. flop_counts_mlstm_recurrent and memop_counts_mlstm_recurrent.
                            m.flops = acc::mlstmCellStepFlops(c, conv);
                            m.bytes = s.heads * acc::mlstmStepBytes(s.dQk, s.dHv, widths).total();
                            return timed(m, backend.timeMlstmStep(s, plan));
                        }});
    }

    const int total = static_cast<int>(jobs.size());
    for (int i = 0; i < total; ++i) {
        if (cancel && cancel->load()) break;
        if (progress) progress(i, total, jobs[i].what);
        // One failed size (out of memory at the longest T, say) must not lose the rest of the sweep.
        try {
            if (auto m = jobs[i].run()) report.measurements.push_back(*m);
        } catch (const std::exception& e) {
            report.errors.push_back(jobs[i].what + ": " + e.what());
            if (progress) progress(i, total, "failed: " + report.errors.back());
        }
    }
    if (progress) progress(total, total, "done");
    finishReport(report);
    return report;
}

std::optional<double> crossoverTokens(const BenchReport& r, const std::string& variant) {
    // (T, attention time / mLSTM time) at the sweep points both kernels ran.
    std::vector<std::pair<double, double>> ratio;
    for (const auto& a : r.measurements) {
        if (a.kernel != kAttentionPrefill || a.variant != variant || a.batch != 1) continue;
        for (const auto& m : r.measurements)
            if (m.kernel == kMlstmChunkwise && m.tokens == a.tokens && m.batch == 1 && m.seconds > 0 && a.seconds > 0)
                ratio.emplace_back(a.tokens, a.seconds / m.seconds);
    }
    std::sort(ratio.begin(), ratio.end());
    for (std::size_t i = 0; i < ratio.size(); ++i) {
        if (ratio[i].second < 1) continue;
        if (i == 0) return ratio[0].first;  // mLSTM already faster at the shortest T measured
        const double x0 = std::log(ratio[i - 1].first), x1 = std::log(ratio[i].first);
        const double y0 = std::log(ratio[i - 1].second), y1 = std::log(ratio[i].second);
        return std::exp(x0 + (0 - y0) * (x1 - x0) / (y1 - y0));
    }
    return std::nullopt;
}

}  // namespace scalex::gpu
