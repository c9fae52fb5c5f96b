// The shared-memory luma histogram in CUDA C++, for nvcc: the twin of `histogram` in
// kernels/src/lib.rs (body in kernels/src/histogram.rs), with the same parameters, contract
// and launch configuration.
//
// Each block counts into private bins in dynamic shared memory (bins * 4 bytes, passed at
// launch), with block-scope atomics, and then adds its non-zero bins to the global histogram
// with device-scope atomics. The shared memory per block grows with `bins`, so `bins` and the
// block size together decide how many blocks fit on an SM.
//
// Values: the host quantises each 12-bit luma to its bin, value = luma12 * bins / 4096, so a
// value v counts in bin v. A value v >= bins is out of range and counts nowhere (the host never
// writes one; the guard keeps every shared-memory access inside the launch's allocation).
//
// Compile: nvcc -O3 -arch=sm_75 -ptx kernels/cuda/histogram.cu

#include <cstddef>
#include <cstdint>

extern "C" __global__ void histogram(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    extern __shared__ uint32_t privateBins[];

    // 1. Zero this block's private bins: thread t takes bins t, t + blockDim.x, ...
    for (uint32_t bin = threadIdx.x; bin < bins; bin += blockDim.x) {
        privateBins[bin] = 0;
    }
    __syncthreads();

    // 2. Grid-stride over the pixels, one block-scope shared atomic per pixel.
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
        const uint32_t value = luma[i];
        if (value < bins) {
            atomicAdd_block(&privateBins[value], 1u);
        }
    }
    __syncthreads();

    // 3. Merge: thread t adds bins t, t + blockDim.x, ... to the global histogram, skipping
    //    empty ones, with device-scope atomics.
    for (uint32_t bin = threadIdx.x; bin < bins; bin += blockDim.x) {
        const uint32_t count = privateBins[bin];
        if (count != 0) {
            atomicAdd(&hist[bin], count);
        }
    }
}
