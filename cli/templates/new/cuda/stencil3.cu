// The example kernel in CUDA C++, for nvcc: the twin of `stencil3` in kernels/src/lib.rs, with
// the same parameters, contract, shared-memory layout and thread mapping, and the same additions
// in the same order, so that both write the same bits. Compare the two on your GPU: same launch,
// same arguments, same dynamic shared memory.
//
// Compiled by scripts/build-cuda-twin (nvcc -O3 -arch=sm_75 -ptx) into ptx/stencil3-nvcc.ptx,
// with its stamp beside it. No multiply in the kernel, so nvcc's default contraction fuses
// nothing, and -O3 does not reassociate float additions; no __restrict__, because the Rust kernel
// makes no such promise either. extern "C" keeps the entry point's name unmangled.
//
// The barrier is __syncthreads(), the aligned `bar.sync 0`; the Rust kernel's is the unaligned
// `barrier.sync 0` through LLVM's convergent `llvm.nvvm.barrier.sync` (kernels/src/barrier.rs).
// In CUDA C++ the barrier is convergent: nvcc never copies it into a branch on the thread index,
// so every thread of the block waits at the same instruction, as `bar.sync` requires. In Rust,
// cuda_std's sync_threads() is an ordinary call to rust-cuda's LLVM passes, which do copy it into
// the arms of `if thread == 0` (and with an aligned barrier the block can hang: block-size's
// docs/barriers.md); the convergent intrinsic keeps the Rust loop as whole as this one.

#include <cstddef>

// A named namespace, not an anonymous one: nvcc mangles an anonymous namespace with a hash of the
// source file's path, which would make the PTX differ between checkouts.
namespace stencil3_helpers {
// x[i], or zero outside 0..n (i wraps below zero to a value at or above n).
__device__ __forceinline__ float valueOrZero(const float* x, size_t n, size_t i) { return i < n ? x[i] : 0.0f; }
}  // namespace stencil3_helpers

// Values each thread loads, and writes, per tile: ITEMS * blockDim.x values a tile, as in
// kernels/src/lib.rs (its ITEMS; the host crate's shared memory uses the same number).
constexpr size_t ITEMS = 4;

// y[i] = x[i - 1] + x[i] + x[i + 1] for every i < n, the values outside 0..n taken as zero; added
// left to right, (x[i - 1] + x[i]) + x[i + 1].
//
// # Safety
//
// x must point to n readable floats and y to n writable floats, both in device memory and not
// overlapping; the kernel reads and writes nothing else in global memory. The launch must be
// one-dimensional (blockDim.y = blockDim.z = 1), of any grid and any block size from 1 to 1024
// threads, and must pass at least (ITEMS * blockDim.x + 2) * 4 bytes of dynamic shared memory
// (sharedMemBytes of cuLaunchKernel).
//
// # Parameters
//
// x, the input, n values; n, the number of values (with n = 0 the kernel does nothing); y, the
// output, n values, every one of them written.
//
// # Thread Mapping
//
// Grid-stride loop over tiles of width = ITEMS * blockDim.x values: block b takes the tile
// starting at b * width, then every gridDim.x * width values on. In each tile, thread t loads
// x[base + t + k * blockDim.x] into slot t + k * blockDim.x + 1 of the block's dynamic shared
// memory for k in 0..ITEMS, and thread 0 also loads the halo, x[base - 1] into slot 0 and
// x[base + width] into slot width + 1; after a barrier, thread t writes y[base + t + k *
// blockDim.x] from the three slots around it, and a second barrier keeps the next tile's loads
// from overwriting slots still being read. The loop's condition depends on the block only, so
// every thread of the block takes every barrier. Consecutive lanes take consecutive values: the
// loads and stores coalesce at every block size.
extern "C" __global__ void stencil3(const float* x, size_t n, float* y) {
    // The tile and its halo, ITEMS * blockDim.x + 2 floats: exactly the bytes the launch passes.
    extern __shared__ float stencil3_tile[];
    const size_t thread = threadIdx.x;
    const size_t threads = blockDim.x;
    const size_t width = ITEMS * threads;
    const size_t step = static_cast<size_t>(gridDim.x) * width;
    for (size_t base = static_cast<size_t>(blockIdx.x) * width; base < n; base += step) {
#pragma unroll
        for (size_t k = 0; k < ITEMS; ++k) {
            const size_t slot = thread + k * threads;
            stencil3_tile[slot + 1] = stencil3_helpers::valueOrZero(x, n, base + slot);
        }
        if (thread == 0) {
            // base - 1 wraps to SIZE_MAX for the first tile: zero.
            stencil3_tile[0] = stencil3_helpers::valueOrZero(x, n, base - 1);
            stencil3_tile[width + 1] = stencil3_helpers::valueOrZero(x, n, base + width);
        }
        __syncthreads();
#pragma unroll
        for (size_t k = 0; k < ITEMS; ++k) {
            const size_t slot = thread + k * threads;
            const size_t i = base + slot;
            if (i < n) {
                y[i] = (stencil3_tile[slot] + stencil3_tile[slot + 1]) + stencil3_tile[slot + 2];
            }
        }
        __syncthreads();
    }
}
