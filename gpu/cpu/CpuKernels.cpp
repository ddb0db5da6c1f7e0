// Optimised CPU kernels: Eigen blocks inside, std::thread across independent work items
// (column panels of C, query tiles, batch x head pairs). Eigen itself runs single-threaded
// here (it only threads with OpenMP, which this build does not use), so the partitioning is ours.
#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpu/Kernels.h"

namespace scalex::gpu {

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMat>;
using ConstRowMap = Eigen::Map<const RowMat>;
using ColMap = Eigen::Map<Eigen::MatrixXf>;
using ConstColMap = Eigen::Map<const Eigen::MatrixXf>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXf>;
using VecMap = Eigen::Map<Eigen::VectorXf>;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

float logSigmoid(float x) { return x >= 0 ? -std::log1p(std::exp(-x)) : x - std::log1p(std::exp(x)); }

}  // namespace

void cpuGemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
             int threads) {
    c.resize(static_cast<std::size_t>(s.m) * s.n);
    std::vector<float> ra, rb;
    const float* pa = a.data();
    const float* pb = b.data();
    if (s.precision != Precision::F32) {  // 16-bit operands: round, then multiply in fp32
        ra.resize(a.size());
        rb.resize(b.size());
        for (std::size_t i = 0; i < a.size(); ++i) ra[i] = roundToPrecision(a[i], s.precision);
        for (std::size_t i = 0; i < b.size(); ++i) rb[i] = roundToPrecision(b[i], s.precision);
        pa = ra.data();
        pb = rb.data();
    }
    ConstColMap A(pa, s.m, s.k);
    ConstColMap B(pb, s.k, s.n);
    ColMap C(c.data(), s.m, s.n);
    // One column panel of C per worker: A is shared read-only, panels never overlap.
    const int parts = std::max(1, std::min(threads, s.n));
    parallelFor(static_cast<std::size_t>(parts), parts, [&](std::size_t p) {
        const int c0 = static_cast<int>(p * s.n / parts), c1 = static_cast<int>((p + 1) * s.n / parts);
        if (c1 > c0) C.middleCols(c0, c1 - c0).noalias() = A * B.middleCols(c0, c1 - c0);
    });
}

namespace {

// Prefill: one task per (batch, query head, tile of kTile queries). Keys stream in tiles of
// kTile; each tile updates the running max m, the running sum l and the unnormalised output O
// (online softmax), so at most kTile x kTile scores exist at a time.
constexpr int kTile = 64;

void attentionPrefill(const AttentionShape& s, const AttentionData& in, std::vector<float>& out, int threads) {
    const int S = s.queries, T = s.keys, D = s.headDim, group = s.heads / s.kvHeads;
    const int qTiles = (S + kTile - 1) / kTile;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    const std::size_t tasks = static_cast<std::size_t>(s.batch) * s.heads * qTiles;
    // Later query tiles see more keys: hand them out first so the workers finish together.
    parallelFor(tasks, threads, [&](std::size_t task) {
        const int tile = qTiles - 1 - static_cast<int>(task % qTiles);
        const int bh = static_cast<int>(task / qTiles);
        const int b = bh / s.heads, h = bh % s.heads;
        const int i0 = tile * kTile, rows = std::min(kTile, S - i0);
        const float* qp = in.q.data() + (static_cast<std::size_t>(bh) * S + i0) * D;
        const std::size_t kvOff = (static_cast<std::size_t>(b) * s.kvHeads + h / group) * T * D;
        const RowMat Q = ConstRowMap(qp, rows, D) * scale;
        RowMat O = RowMat::Zero(rows, D);
        Eigen::VectorXf m = Eigen::VectorXf::Constant(rows, kNegInf), l = Eigen::VectorXf::Zero(rows);
        RowMat P(rows, kTile);
        const int lastKey = T - S + i0 + rows - 1;  // the last key the last row of the tile sees
        for (int j0 = 0; j0 <= lastKey; j0 += kTile) {
            const int cols = std::min(kTile, lastKey + 1 - j0);
            ConstRowMap K(in.k.data() + kvOff + static_cast<std::size_t>(j0) * D, cols, D);
            ConstRowMap V(in.v.data() + kvOff + static_cast<std::size_t>(j0) * D, cols, D);
            auto Pb = P.leftCols(cols);
            Pb.noalias() = Q * K.transpose();
            if (j0 + cols - 1 > T - S + i0)  // the tile crosses the diagonal: mask the future
                for (int r = 0; r < rows; ++r)
                    for (int c = std::max(0, T - S + i0 + r + 1 - j0); c < cols; ++c) Pb(r, c) = kNegInf;
            for (int r = 0; r < rows; ++r) {
                const float mNew = std::max(m[r], Pb.row(r).maxCoeff());
                const float alpha = std::exp(m[r] - mNew);  // 0 on the first tile (m = -inf)
                Pb.row(r) = (Pb.row(r).array() - mNew).exp();
                l[r] = alpha * l[r] + Pb.row(r).sum();
                O.row(r) *= alpha;
                m[r] = mNew;
            }
            O.noalias() += Pb * V;
        }
        RowMap(out.data() + (static_cast<std::size_t>(bh) * S + i0) * D, rows, D) = l.cwiseInverse().asDiagonal() * O;
    });
}

// Decode: one task per (batch, KV head); the group's query heads share one pass over K and V.
void attentionDecode(const AttentionShape& s, const AttentionData& in, std::vector<float>& out, int threads) {
    const int T = s.keys, D = s.headDim, group = s.heads / s.kvHeads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    parallelFor(static_cast<std::size_t>(s.batch) * s.kvHeads, threads, [&](std::size_t task) {
        const std::size_t kvOff = task * T * D;
        const std::size_t qOff = task * group * D;  // query heads h = kv * group + g, one query each
        ConstRowMap K(in.k.data() + kvOff, T, D);
        ConstRowMap V(in.v.data() + kvOff, T, D);
        RowMat P = (ConstRowMap(in.q.data() + qOff, group, D) * scale) * K.transpose();  // group x T
        for (int g = 0; g < group; ++g) {
            P.row(g) = (P.row(g).array() - P.row(g).maxCoeff()).exp();
            P.row(g) /= P.row(g).sum();
        }
        RowMap(out.data() + qOff, group, D).noalias() = P * V;
    });
}

}  // namespace

void cpuAttention(const AttentionShape& s, const AttentionData& in, std::vector<float>& out, int threads) {
    if (s.heads % s.kvHeads != 0) throw std::invalid_argument("attention: heads must be a multiple of kvHeads");
    if (s.queries > s.keys || s.queries < 1) throw std::invalid_argument("attention: need 1 <= queries <= keys");
    out.resize(attentionQueryElements(s));
    if (s.queries == 1)
        attentionDecode(s, in, out, threads);
    else
        attentionPrefill(s, in, out, threads);
}

void cpuMlstmChunkwise(const MlstmShape& s, const MlstmData& in, std::vector<float>& hOut, MlstmState& state,
                       int threads) {
    const int T = s.tokens, K = s.dQk, V = s.dHv, L = s.chunk;
    if (L < 1) throw std::invalid_argument("mLSTM: chunk size must be positive");
    hOut.resize(mlstmVElements(s));
    state = zeroMlstmState(s);
    const float qScale = 1.0f / std::sqrt(static_cast<float>(K));
    parallelFor(static_cast<std::size_t>(s.batch) * s.heads, threads, [&](std::size_t bh) {
        RowMap C(state.C.data() + bh * K * V, K, V);  // stabilised inter-chunk state C_prev
        VecMap n(state.n.data() + bh * K, K);
        float mPrev = 0.0f;
        Eigen::VectorXf bcum(L), mRow(L), interScale(L), den(L), g(L);
        RowMat W(L, L), num(L, V);
        for (int t0 = 0; t0 < T; t0 += L) {
            const int Lc = std::min(L, T - t0);  // the last chunk may be shorter
            const std::size_t tok = bh * T + t0;
            const RowMat Q = ConstRowMap(in.q.data() + tok * K, Lc, K) * qScale;
            ConstRowMap Kc(in.k.data() + tok * K, Lc, K);
            ConstRowMap Vc(in.v.data() + tok * V, Lc, V);
            const float* ig = in.igate.data() + tok;
            const float* fg = in.fgate.data() + tok;
            // b_t = sum_{j<=t} log f_j within the chunk (cumulative forget gates).
            float acc = 0;
            for (int t = 0; t < Lc; ++t) bcum[t] = (acc += logSigmoid(fg[t]));
            // Intra-chunk log weights D_tj = b_t - b_j + i_j (j <= t); stabiliser per row
            // m_t = max(b_t + m_prev, max_j D_tj), which is exactly the recurrent m_t.
            auto Wc = W.topLeftCorner(Lc, Lc);
            Wc.noalias() = Q * Kc.transpose();
            for (int t = 0; t < Lc; ++t) {
                float mt = bcum[t] + mPrev;
                for (int j = 0; j <= t; ++j) mt = std::max(mt, bcum[t] - bcum[j] + ig[j]);
                mRow[t] = mt;
                interScale[t] = std::exp(bcum[t] + mPrev - mt);
                for (int j = 0; j <= t; ++j) Wc(t, j) *= std::exp(bcum[t] - bcum[j] + ig[j] - mt);
                for (int j = t + 1; j < Lc; ++j) Wc(t, j) = 0.0f;
            }
            // Outputs: intra (W V) plus inter (q C_prev), scaled into the row's stabiliser.
            auto numc = num.topRows(Lc);
            numc.noalias() = Wc * Vc;
            numc.noalias() += interScale.head(Lc).asDiagonal() * (Q * C);
            den.head(Lc) = Wc.rowwise().sum() + interScale.head(Lc).cwiseProduct(Q * n);
            float* h = hOut.data() + tok * V;
            for (int t = 0; t < Lc; ++t)
                RowMap(h + static_cast<std::size_t>(t) * V, 1, V) =
                    numc.row(t) / std::max(std::abs(den[t]), std::exp(-mRow[t]));
            // State to the end of the chunk: m_new = max(b_L + m_prev, max_j b_L - b_j + i_j).
            const float bL = bcum[Lc - 1];
            float mNew = bL + mPrev;
            for (int j = 0; j < Lc; ++j) mNew = std::max(mNew, bL - bcum[j] + ig[j]);
            for (int j = 0; j < Lc; ++j) g[j] = std::exp(bL - bcum[j] + ig[j] - mNew);
            const float decay = std::exp(bL + mPrev - mNew);
            C *= decay;
            C.noalias() += Kc.transpose() * (g.head(Lc).asDiagonal() * Vc);
            n = decay * n + Kc.transpose() * g.head(Lc);
            mPrev = mNew;
        }
        state.m[bh] = mPrev;
    });
}

void cpuMlstmSteps(const MlstmShape& s, const MlstmData& in, std::vector<float>& hOut, MlstmState& state, int threads) {
    const int T = s.tokens, K = s.dQk, V = s.dHv;
    hOut.resize(mlstmVElements(s));
    const float qScale = 1.0f / std::sqrt(static_cast<float>(K));
    parallelFor(static_cast<std::size_t>(s.batch) * s.heads, threads, [&](std::size_t bh) {
        RowMap C(state.C.data() + bh * K * V, K, V);
        VecMap n(state.n.data() + bh * K, K);
        float m = state.m[bh];
        for (int t = 0; t < T; ++t) {
            const std::size_t tok = bh * T + t;
            ConstVecMap k(in.k.data() + tok * K, K);
            Eigen::Map<const Eigen::RowVectorXf> v(in.v.data() + tok * V, V);
            const float logF = logSigmoid(in.fgate[tok]), it = in.igate[tok];
            const float mNew = std::max(logF + m, it);
            const float fa = std::exp(logF + m - mNew), ia = std::exp(it - mNew);
            C *= fa;
            C.noalias() += (ia * k) * v;
            n = fa * n + ia * k;
            m = mNew;
            const Eigen::VectorXf q = ConstVecMap(in.q.data() + tok * K, K) * qScale;
            const float den = std::max(std::abs(n.dot(q)), std::exp(-m));
            Eigen::Map<Eigen::RowVectorXf>(hOut.data() + tok * V, V).noalias() = (q.transpose() * C) / den;
        }
        state.m[bh] = m;
    });
}

void cpuStream(StreamKernel kind, double* a, const double* b, const double* c, std::size_t n, int threads) {
    const int parts = std::max(1, threads);
    constexpr double s = 3.0;
    parallelFor(static_cast<std::size_t>(parts), parts, [&](std::size_t p) {
        const std::size_t i0 = p * n / parts, i1 = (p + 1) * n / parts;
        if (kind == StreamKernel::Copy)
            for (std::size_t i = i0; i < i1; ++i) a[i] = b[i];
        else
            for (std::size_t i = i0; i < i1; ++i) a[i] = b[i] + s * c[i];
    });
}

}  // namespace scalex::gpu
