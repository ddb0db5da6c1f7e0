#pragma once
// Runs the kernels of gpu/cuda/Kernels.cuh as plain C++ on the CPU, for tests on machines
// without a GPU: every CUDA thread of a block is a std::thread, __syncthreads is a block-wide
// std::barrier, warp shuffles exchange through a buffer between two warp-wide barriers, and
// blocks run one after another (so __shared__ arrays can be function statics). Slow, exact in
// semantics for kernels whose shuffles are warp-uniform (all of ours). Include before Kernels.cuh.
// Everything lives in scalex::gpu, where the kernels are, so nothing clashes with CUDA's own
// names in the CUDA translation units of the same program.
#include <barrier>
#include <cmath>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

namespace scalex::gpu {

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace emu {

struct Block {
    std::unique_ptr<std::barrier<>> all;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    std::vector<float> lanes;                 // one slot per thread for shuffles
    std::vector<double> dynamicShared;        // double: aligned for any element type
};

inline Block* gBlock = nullptr;

}  // namespace emu

inline thread_local dim3 threadIdx{0, 0, 0};
inline thread_local dim3 blockIdx{0, 0, 0};
inline dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static  // blocks run one at a time
#define SCALEX_UNROLL
#define SCALEX_DYNAMIC_SHARED(T, name) T* name = reinterpret_cast<T*>(scalex::gpu::emu::gBlock->dynamicShared.data())
#define SCALEX_LAUNCH(kernel, grid, block, smem, ...) scalex::gpu::emu::launch(kernel, grid, block, smem, __VA_ARGS__)

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }

inline void __syncthreads() { emu::gBlock->all->arrive_and_wait(); }

namespace emu {

inline float exchange(float v, unsigned srcLane) {
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned warp = tid / 32;
    auto& barrier = *gBlock->warps[warp];
    gBlock->lanes[tid] = v;
    barrier.arrive_and_wait();
    const float r = gBlock->lanes[warp * 32 + (srcLane & 31)];
    barrier.arrive_and_wait();
    return r;
}

template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 grid, dim3 block, std::size_t sharedBytes, Args... args) {
    const unsigned threads = block.x * block.y * block.z;
    gridDim = grid;
    blockDim = block;
    for (unsigned bz = 0; bz < grid.z; ++bz)
        for (unsigned by = 0; by < grid.y; ++by)
            for (unsigned bx = 0; bx < grid.x; ++bx) {
                Block b;
                b.all = std::make_unique<std::barrier<>>(threads);
                for (unsigned w = 0; w < (threads + 31) / 32; ++w)
                    b.warps.push_back(std::make_unique<std::barrier<>>(std::min(32u, threads - 32 * w)));
                b.lanes.assign(threads, 0.0f);
                b.dynamicShared.assign((sharedBytes + sizeof(double) - 1) / sizeof(double), 0.0);
                gBlock = &b;
                std::vector<std::thread> pool;
                pool.reserve(threads);
                for (unsigned t = 0; t < threads; ++t)
                    pool.emplace_back([&, t] {
                        threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
                        blockIdx = dim3(bx, by, bz);
                        kernel(args...);
                    });
                for (auto& th : pool) th.join();
                gBlock = nullptr;
            }
}

}  // namespace emu

inline float __shfl_sync(unsigned, float v, int srcLane) { return emu::exchange(v, static_cast<unsigned>(srcLane)); }
inline float __shfl_xor_sync(unsigned, float v, int laneMask) {
    return emu::exchange(v, (threadIdx.x & 31u) ^ static_cast<unsigned>(laneMask));
}

}  // namespace scalex::gpu
