// The CUDA kernels of gpu/cuda/Kernels.cuh, run on the CPU under gpu/cuda/Emulation.h (a
// std::thread per CUDA thread), against the plain references: checks the kernels' indexing,
// tiling, masking, split-K merge and stabilised mLSTM algebra on machines without a GPU. On a
// machine with a device, CudaBackend.MatchesTheReferencesWhenADeviceIsPresent runs them for real.
#include <gtest/gtest.h>

#include "gpu/Kernels.h"
// Last: the emulation defines CUDA's keywords as macros. The STREAM kernels are not exercised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "gpu/cuda/Emulation.h"
#include "gpu/cuda/Kernels.cuh"
#pragma GCC diagnostic pop

using namespace scalex::gpu;

namespace {

TEST(CudaKernelsEmulated, AttentionPrefillAndSplitDecodeMatchReference) {
    const AttentionShape shapes[] = {
        {1, 1, 1, 128, 35, 35},   // three query blocks, the last one partial
        {2, 4, 2, 128, 18, 18},   // GQA, two batches
        {1, 2, 1, 128, 5, 70},    // the last 5 positions of 70
        {1, 2, 2, 128, 1, 150},   // MHA decode, split over the cache
        {1, 4, 2, 128, 1, 140},   // GQA decode
    };
    for (const auto& s : shapes) {
        const AttentionData in = randomAttentionData(s, 41);
        std::vector<float> ref, out(attentionQueryElements(s));
        referenceAttention(s, in, ref);
        const AttentionSplit split = attentionSplit(s, 1);  // one "SM": decode still splits into several ranges
        if (s.queries == 1) {
            EXPECT_GT(split.splits, 1) << "decode exercises the split-K merge";
        }
        std::vector<float> partO(static_cast<std::size_t>(split.splits) * s.batch * s.heads * s.headDim),
            partML(static_cast<std::size_t>(split.splits) * s.batch * s.heads * 2);
        launchAttention(s, split, in.q.data(), in.k.data(), in.v.data(), out.data(), partO.data(), partML.data());
        EXPECT_LT(relativeError(out, ref), 1e-4) << "H" << s.heads << "/" << s.kvHeads << " S" << s.queries << " T" << s.keys;
    }
}

TEST(CudaKernelsEmulated, ChunkwiseMlstmMatchesRecurrentReference) {
    const MlstmShape shapes[] = {
        {1, 1, 16, 40, 37, 16},    // d_hv not a multiple of the column tile, partial last chunk
        {2, 1, 32, 64, 50, 16},
        {1, 1, 128, 256, 70, 64},  // the paper's head shape
    };
    for (const auto& s : shapes) {
        const MlstmData in = randomMlstmData(s, 43);
        std::vector<float> ref;
        MlstmState refState = zeroMlstmState(s);
        referenceMlstmRecurrent(s, in, ref, refState);
        const std::size_t bh = static_cast<std::size_t>(s.batch) * s.heads, chunks = (s.tokens + s.chunk - 1) / s.chunk;
        std::vector<float> h(mlstmVElements(s)), C(bh * s.dQk * s.dHv), n(bh * s.dQk), m(bh),
            chunkC(bh * chunks * s.dQk * s.dHv), chunkN(bh * chunks * s.dQk), chunkM(bh * chunks);
        launchMlstmChunkwise(s, {in.q.data(), in.k.data(), in.v.data(), in.igate.data(), in.fgate.data(), h.data(), C.data(),
                                 n.data(), m.data(), chunkC.data(), chunkN.data(), chunkM.data()});
        const std::string what = "dqk " + std::to_string(s.dQk) + " dhv " + std::to_string(s.dHv) + " T " + std::to_string(s.tokens);
        EXPECT_LT(relativeError(h, ref), 1e-4) << what;
        EXPECT_LT(relativeError(C, refState.C), 1e-4) << what;
        EXPECT_LT(relativeError(n, refState.n), 1e-4) << what;
        EXPECT_LT(relativeError(m, refState.m), 1e-6) << what;
    }
}

TEST(CudaKernelsEmulated, RecurrentStepsMatchReference) {
    const MlstmShape s{1, 2, 16, 136, 6, 64};  // d_hv > 128: two blocks per head share n and m
    const MlstmData in = randomMlstmData(s, 47);
    std::vector<float> ref;
    MlstmState refState = zeroMlstmState(s);
    referenceMlstmRecurrent(s, in, ref, refState);
    MlstmState st[2] = {zeroMlstmState(s), zeroMlstmState(s)};
    std::vector<float> h(mlstmVElements(s));
    for (int t = 0; t < s.tokens; ++t) {
        MlstmState& cur = st[t % 2];
        MlstmState& next = st[(t + 1) % 2];
        launchMlstmStep(s, t, in.q.data(), in.k.data(), in.v.data(), in.igate.data(), in.fgate.data(), st[0].C.data(),
                        cur.n.data(), cur.m.data(), next.n.data(), next.m.data(), h.data());
    }
    EXPECT_LT(relativeError(h, ref), 1e-4);
    EXPECT_LT(relativeError(st[0].C, refState.C), 1e-4);
    EXPECT_LT(relativeError(st[s.tokens % 2].n, refState.n), 1e-4);
}

}  // namespace
