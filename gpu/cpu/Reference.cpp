// Naive references and tensor helpers. Deliberately straightforward: loops in the order of
// the formulas, double accumulation, the full score matrix.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "gpu/Kernels.h"

namespace scalex::gpu {

const char* precisionName(Precision p) {
    switch (p) {
        case Precision::F32: return "fp32";
        case Precision::F16: return "fp16";
        case Precision::BF16: return "bf16";
    }
    return "?";
}

std::size_t attentionQueryElements(const AttentionShape& s) {
    return static_cast<std::size_t>(s.batch) * s.heads * s.queries * s.headDim;
}
std::size_t attentionKeyElements(const AttentionShape& s) {
    return static_cast<std::size_t>(s.batch) * s.kvHeads * s.keys * s.headDim;
}
std::size_t mlstmQkElements(const MlstmShape& s) { return static_cast<std::size_t>(s.batch) * s.heads * s.tokens * s.dQk; }
std::size_t mlstmVElements(const MlstmShape& s) { return static_cast<std::size_t>(s.batch) * s.heads * s.tokens * s.dHv; }
std::size_t mlstmGateElements(const MlstmShape& s) { return static_cast<std::size_t>(s.batch) * s.heads * s.tokens; }

MlstmState zeroMlstmState(const MlstmShape& s) {
    const std::size_t bh = static_cast<std::size_t>(s.batch) * s.heads;
    return {std::vector<float>(bh * s.dQk * s.dHv, 0.0f), std::vector<float>(bh * s.dQk, 0.0f),
            std::vector<float>(bh, 0.0f)};
}

std::vector<float> randomVector(std::size_t n, std::uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

AttentionData randomAttentionData(const AttentionShape& s, std::uint32_t seed) {
    return {randomVector(attentionQueryElements(s), seed), randomVector(attentionKeyElements(s), seed + 1),
            randomVector(attentionKeyElements(s), seed + 2)};
}

MlstmData randomMlstmData(const MlstmShape& s, std::uint32_t seed) {
    MlstmData d{randomVector(mlstmQkElements(s), seed), randomVector(mlstmQkElements(s), seed + 1),
                randomVector(mlstmVElements(s), seed + 2), randomVector(mlstmGateElements(s), seed + 3, 2.0f),
                randomVector(mlstmGateElements(s), seed + 4, 1.5f)};
    for (auto& x : d.igate) x -= 1.0f;
    for (auto& x : d.fgate) x += 3.0f;
    return d;
}

double relativeError(const std::vector<float>& x, const std::vector<float>& ref) {
    if (x.size() != ref.size()) return std::numeric_limits<double>::infinity();
    double maxDiff = 0, maxRef = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i])) return std::numeric_limits<double>::infinity();
        maxDiff = std::max(maxDiff, std::abs(static_cast<double>(x[i]) - ref[i]));
        maxRef = std::max(maxRef, std::abs(static_cast<double>(ref[i])));
    }
    return maxRef > 0 ? maxDiff / maxRef : maxDiff;
}

float roundToPrecision(float x, Precision p) {
    if (p == Precision::F32 || !std::isfinite(x)) return x;
    if (p == Precision::BF16) {
        std::uint32_t u;
        std::memcpy(&u, &x, 4);
        u += 0x7FFFu + ((u >> 16) & 1u);  // round to nearest even on the upper 16 bits
        u &= 0xFFFF0000u;
        std::memcpy(&x, &u, 4);
        return x;
    }
    // fp16: 10 mantissa bits; subnormals below 2^-14 keep steps of 2^-24; overflow to inf.
    const float a = std::abs(x);
    if (a >= 65520.0f) return std::copysign(std::numeric_limits<float>::infinity(), x);
    int e;
    std::frexp(a, &e);                        // a = f 2^e, f in [0.5, 1)
    const int exponent = std::max(e - 1, -14);  // a in [2^exponent, 2^(exponent+1))
    const float step = std::ldexp(1.0f, exponent - 10);
    return std::copysign(std::nearbyint(a / step) * step, x);
}

void referenceGemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) {
    c.assign(static_cast<std::size_t>(s.m) * s.n, 0.0f);
    for (int j = 0; j < s.n; ++j)
        for (int i = 0; i < s.m; ++i) {
            double acc = 0;
            for (int l = 0; l < s.k; ++l)
                acc += static_cast<double>(roundToPrecision(a[static_cast<std::size_t>(l) * s.m + i], s.precision)) *
                       roundToPrecision(b[static_cast<std::size_t>(j) * s.k + l], s.precision);
            c[static_cast<std::size_t>(j) * s.m + i] = static_cast<float>(acc);
        }
}

void referenceAttention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out) {
    const int S = s.queries, T = s.keys, D = s.headDim, group = s.heads / s.kvHeads;
    if (S > T) throw std::invalid_argument("attention: more queries than keys");
    out.assign(attentionQueryElements(s), 0.0f);
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    std::vector<double> scores(static_cast<std::size_t>(S) * T);
    for (int b = 0; b < s.batch; ++b)
        for (int h = 0; h < s.heads; ++h) {
            const float* q = in.q.data() + (static_cast<std::size_t>(b) * s.heads + h) * S * D;
            const std::size_t kvOff = (static_cast<std::size_t>(b) * s.kvHeads + h / group) * T * D;
            const float* k = in.k.data() + kvOff;
            const float* v = in.v.data() + kvOff;
            // Full S x T scores; query i sits at position T - S + i and sees keys 0..T-S+i.
            for (int i = 0; i < S; ++i)
                for (int j = 0; j < T; ++j) {
                    double dot = 0;
                    for (int d = 0; d < D; ++d) dot += static_cast<double>(q[i * D + d]) * k[static_cast<std::size_t>(j) * D + d];
                    scores[static_cast<std::size_t>(i) * T + j] =
                        j <= T - S + i ? dot * scale : -std::numeric_limits<double>::infinity();
                }
            float* o = out.data() + (static_cast<std::size_t>(b) * s.heads + h) * S * D;
            for (int i = 0; i < S; ++i) {
                double* row = scores.data() + static_cast<std::size_t>(i) * T;
                double mx = -std::numeric_limits<double>::infinity();
                for (int j = 0; j < T; ++j) mx = std::max(mx, row[j]);
                double sum = 0;
                for (int j = 0; j < T; ++j) sum += (row[j] = std::exp(row[j] - mx));
                for (int d = 0; d < D; ++d) {
                    double acc = 0;
                    for (int j = 0; j < T; ++j) acc += row[j] * v[static_cast<std::size_t>(j) * D + d];
                    o[i * D + d] = static_cast<float>(acc / sum);
                }
            }
        }
}

void referenceMlstmRecurrent(const MlstmShape& s, const MlstmData& in, std::vector<float>& hOut, MlstmState& state) {
    const int T = s.tokens, K = s.dQk, V = s.dHv;
    hOut.assign(mlstmVElements(s), 0.0f);
    const double qScale = 1.0 / std::sqrt(static_cast<double>(K));
    std::vector<double> C(static_cast<std::size_t>(K) * V), n(K), q(K);
    for (int bh = 0; bh < s.batch * s.heads; ++bh) {
        float* Cs = state.C.data() + static_cast<std::size_t>(bh) * K * V;
        float* ns = state.n.data() + static_cast<std::size_t>(bh) * K;
        for (std::size_t i = 0; i < C.size(); ++i) C[i] = Cs[i];
        for (int i = 0; i < K; ++i) n[i] = ns[i];
        double m = state.m[bh];
        for (int t = 0; t < T; ++t) {
            const std::size_t tok = static_cast<std::size_t>(bh) * T + t;
            const float* qt = in.q.data() + tok * K;
            const float* kt = in.k.data() + tok * K;
            const float* vt = in.v.data() + tok * V;
            const double it = in.igate[tok];
            const double ft = in.fgate[tok];
            const double logF = -std::log1p(std::exp(-ft));  // logsigmoid
            const double mNew = std::max(logF + m, it);
            const double fa = std::exp(logF + m - mNew), ia = std::exp(it - mNew);
            for (int a = 0; a < K; ++a) {
                n[a] = fa * n[a] + ia * kt[a];
                for (int c = 0; c < V; ++c) C[static_cast<std::size_t>(a) * V + c] = fa * C[static_cast<std::size_t>(a) * V + c] + ia * kt[a] * vt[c];
            }
            m = mNew;
            double den = 0;
            for (int a = 0; a < K; ++a) den += (q[a] = qt[a] * qScale) * n[a];
            den = std::max(std::abs(den), std::exp(-m));
            float* ht = hOut.data() + tok * V;
            for (int c = 0; c < V; ++c) {
                double num = 0;
                for (int a = 0; a < K; ++a) num += C[static_cast<std::size_t>(a) * V + c] * q[a];
                ht[c] = static_cast<float>(num / den);
            }
        }
        for (std::size_t i = 0; i < C.size(); ++i) Cs[i] = static_cast<float>(C[i]);
        for (int i = 0; i < K; ++i) ns[i] = static_cast<float>(n[i]);
        state.m[bh] = static_cast<float>(m);
    }
}

}  // namespace scalex::gpu
