// The example's sum of squares in CUDA C++: the twins of `sum_of_squares` and
// `sum_of_squares_x4` in examples/reduce/kernels/src/lib.rs, with the same parameters, contract,
// shared-memory layout and thread mapping, and the same additions in the same order, so that one
// launch fits both builds and writes the same partials. `reduce-example --source cuda` sweeps
// them from their nvcc PTX (examples/reduce/ptx/reduce-nvcc.ptx).
//
// Contract (as the Rust kernels'): `x` holds `n` readable floats and `partials` `gridDim.x`
// writable ones, in device memory, not overlapping; a one-dimensional launch of any grid and of
// 1 to 1024 threads a block, with at least `blockDim.x * 4` bytes of dynamic shared memory.
// Thread `blockIdx.x * blockDim.x + threadIdx.x` takes that element and steps by the grid's
// thread count, adding the squares into its own float (one fused multiply-add a value, as
// libNVVM and nvcc both contract `sum += v * v`); the x4 entry takes four elements a grid apart
// per trip (all four loads first), then the rest one at a time, so each thread adds the same
// elements in the same order in both entries. The block then adds its threads' sums as a tree
// in dynamic shared memory (slot `t` is thread `t`'s; strides p/2, p/4, ..., 1 for p the block
// size rounded up to a power of two, slot t + stride added into slot t where it exists), and
// thread 0 writes the block's sum to `partials[blockIdx.x]`.
//
// The barrier is the unaligned `barrier.sync 0`, as in the Rust kernels (kernels/src/barrier.rs,
// docs/barriers.md), written as inline PTX: `__syncthreads()` would be the aligned `bar.sync 0`.
// Every thread of the block reaches each barrier the same number of times (the tree's strides
// depend on the block size only). No __restrict__ and no __launch_bounds__: the Rust kernels make
// neither promise. extern "C" keeps the entry points' names unmangled.
//
// `sum_of_squares_tuned` is the same body for Kernel Tuner (evidence/2026-12-03-h200-kernel-tuner):
// its items per thread are the macro `items_per_thread` (1 where undefined, so this file compiles
// without defines), its block size is whatever the launch gives (Kernel Tuner defines
// `block_size_x` and launches that many threads; the body reads blockDim.x, as the twins do). With
// items_per_thread 1 it is `sum_of_squares`'s code, with 4 `sum_of_squares_x4`'s: one template.
// Kernel Tuner also defines `kernel_tuner`, which leaves the two twins out of its compiles.
//
// Compile: nvcc -O3 -arch=sm_75 -ptx examples/reduce/cuda/reduce.cu (cargo xtask ptx nvcc, with
// CUDA 11.8's nvcc: PTX ISA 7.8). NVRTC compiles it too, as C++11 (Kernel Tuner's cupy backend).

#ifndef __CUDACC_RTC__
#include <cstddef>
#endif

#ifndef items_per_thread
#define items_per_thread 1
#endif

// A named namespace, not an anonymous one: nvcc mangles an anonymous namespace with a hash of the
// source file's path, which would make the PTX differ between checkouts.
namespace sum_of_squares_helpers {

// The block-wide barrier, unaligned: PTX `barrier.sync 0`; the memory clobber keeps every access
// on its side of it.
__device__ __forceinline__ void syncThreads() { asm volatile("barrier.sync 0;" ::: "memory"); }

// The smallest power of two at or above `value` (1 for 0 and 1), as Rust's u32::next_power_of_two.
__device__ __forceinline__ unsigned nextPowerOfTwo(unsigned value) {
    return value <= 1 ? 1u : 1u << (32 - __clz(value - 1));
}

}  // namespace sum_of_squares_helpers

// This block's dynamic shared memory, one float a thread: the same symbol as the Rust kernels'.
extern __shared__ float sum_of_squares_partials[];

namespace sum_of_squares_helpers {

// Adds `value` over the threads of the block; thread 0 writes the total to partials[blockIdx.x].
__device__ __forceinline__ void blockSumTo(float value, float* partials) {
    float* shared = sum_of_squares_partials;
    const unsigned thread = threadIdx.x;
    const unsigned threads = blockDim.x;
    shared[thread] = value;
    syncThreads();
    for (unsigned stride = nextPowerOfTwo(threads) / 2; stride > 0; stride /= 2) {
        if (thread < stride && thread + stride < threads) {
            shared[thread] += shared[thread + stride];
        }
        syncThreads();
    }
    if (thread == 0) {
        partials[blockIdx.x] = shared[0];
    }
}

// The whole kernel, ITEMS elements a thread a trip, a grid apart.
template <int ITEMS>
__device__ __forceinline__ void sumOfSquares(const float* x, size_t n, float* partials) {
    const size_t block = blockDim.x;
    const size_t step = static_cast<size_t>(gridDim.x) * block;
    size_t i = static_cast<size_t>(blockIdx.x) * block + threadIdx.x;
    float sum = 0.0f;
    if (ITEMS > 1) {
        while (i + (ITEMS - 1) * step < n) {
            float values[ITEMS];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                values[k] = x[i + k * step];
            }
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                sum += values[k] * values[k];
            }
            i += ITEMS * step;
        }
    }
    while (i < n) {
        const float value = x[i];
        sum += value * value;
        i += step;
    }
    blockSumTo(sum, partials);
}

}  // namespace sum_of_squares_helpers

#ifndef kernel_tuner
extern "C" __global__ void sum_of_squares(const float* x, size_t n, float* partials) {
    sum_of_squares_helpers::sumOfSquares<1>(x, n, partials);
}

extern "C" __global__ void sum_of_squares_x4(const float* x, size_t n, float* partials) {
    sum_of_squares_helpers::sumOfSquares<4>(x, n, partials);
}
#endif

extern "C" __global__ void sum_of_squares_tuned(const float* x, size_t n, float* partials) {
    sum_of_squares_helpers::sumOfSquares<items_per_thread>(x, n, partials);
}
