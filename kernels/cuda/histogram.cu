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
// The variants (twins of `histogram_x4` ... `histogram_x8k4c` in kernels/src/lib.rs, body in
// `histogram_vectors` of kernels/src/histogram.rs) read the luma as aligned 8-byte (`uint2`, four
// pixels) or 16-byte (`uint4`, eight pixels) vectors, K per thread per trip with every load
// issued before the first count; the pixels before the first vector boundary and after the last
// whole vector are counted one at a time. The `c` variants keep copies(bins) copies of the bins
// per block, lane l counting into copy l % copies (bin b of copy c is word b * copies + c), so
// that at small bin counts the lanes of a warp add to different words and banks.
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

// A named namespace, not an anonymous one: nvcc mangles an anonymous namespace with a hash of the
// source file's path, which would make the PTX differ between checkouts.
namespace histogram_shapes {
// Shared-memory words the `c` variants give their copies of the bins: 32 KiB a block.
constexpr uint32_t kSpreadWords = 8192;

// Copies of the bins a block of the `c` variants keeps: 32 (one per lane) while they fit in
// kSpreadWords, else the largest power of two that fits, at least 1. The host computes the same.
__device__ __forceinline__ uint32_t copiesFor(uint32_t bins) {
    const uint32_t fit = kSpreadWords / (bins > 0 ? bins : 1);
    if (fit >= 32) return 32;
    return 1u << (31 - __clz(fit > 0 ? fit : 1));
}

// One thread's copy of the private bins: bin v is counter[v * stride].
struct Counter {
    uint32_t* counter;
    uint32_t stride;
    uint32_t bins;

    __device__ __forceinline__ void count(uint32_t value) const {
        if (value < bins) {
            atomicAdd_block(&counter[value * stride], 1u);
        }
    }

    __device__ __forceinline__ void countWord(uint32_t word) const {
        count(word & 0xFFFFu);
        count(word >> 16);
    }

    __device__ __forceinline__ void countPixels(const uint16_t* luma, size_t from, size_t to, size_t first,
                                                size_t step) const {
        for (size_t i = from + first; i < to; i += step) {
            count(luma[i]);
        }
    }
};

template <typename V>
__device__ __forceinline__ void countVector(const Counter& counter, const V& vector) {
    const uint32_t* words = reinterpret_cast<const uint32_t*>(&vector);
#pragma unroll
    for (int w = 0; w < static_cast<int>(sizeof(V) / 4); ++w) {
        counter.countWord(words[w]);
    }
}

template <typename V, int K, bool Spread>
__device__ __forceinline__ void histogramVectors(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    extern __shared__ uint32_t privateBins[];
    const uint32_t copies = Spread ? copiesFor(bins) : 1;

    // 1. Zero every copy of the private bins: thread t takes words t, t + blockDim.x, ...
    const uint32_t words = bins * copies;
    for (uint32_t word = threadIdx.x; word < words; word += blockDim.x) {
        privateBins[word] = 0;
    }
    __syncthreads();

    // 2. Count: the head one pixel at a time, the body as vectors, K a trip, then the tail.
    const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    const Counter counter{privateBins + (threadIdx.x & (copies - 1)), copies, bins};
    constexpr size_t kSize = sizeof(V);
    constexpr size_t kPixels = kSize / 2;
    size_t head = (kSize - reinterpret_cast<uintptr_t>(luma) % kSize) % kSize / 2;
    if (head > n) head = n;
    const size_t vectors = (n - head) / kPixels;
    const size_t tail = head + vectors * kPixels;
    counter.countPixels(luma, 0, head, first, step);
    const V* body = reinterpret_cast<const V*>(luma + head);
    size_t v = first;
    for (; v + (K - 1) * step < vectors; v += K * step) {
        V loaded[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            loaded[k] = body[v + k * step];
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            countVector(counter, loaded[k]);
        }
    }
    for (; v < vectors; v += step) {
        const V vector = body[v];
        countVector(counter, vector);
    }
    counter.countPixels(luma, tail, n, first, step);
    __syncthreads();

    // 3. Merge: thread t adds bins t, t + blockDim.x, ... of every copy to the global histogram,
    //    skipping empty ones; neighbouring threads start at neighbouring copies.
    for (uint32_t bin = threadIdx.x; bin < bins; bin += blockDim.x) {
        const uint32_t row = bin * copies;
        uint32_t count = 0;
        for (uint32_t c = 0; c < copies; ++c) {
            count += privateBins[row + ((c + bin) & (copies - 1))];
        }
        if (count != 0) {
            atomicAdd(&hist[bin], count);
        }
    }
}
}  // namespace histogram_shapes
using namespace histogram_shapes;

extern "C" __global__ void histogram_x4(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    histogramVectors<uint2, 1, false>(luma, hist, n, bins);
}

extern "C" __global__ void histogram_x8(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    histogramVectors<uint4, 1, false>(luma, hist, n, bins);
}

extern "C" __global__ void histogram_x8k2(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    histogramVectors<uint4, 2, false>(luma, hist, n, bins);
}

extern "C" __global__ void histogram_x8k4(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    histogramVectors<uint4, 4, false>(luma, hist, n, bins);
}

extern "C" __global__ void histogram_x8k2c(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    histogramVectors<uint4, 2, true>(luma, hist, n, bins);
}

extern "C" __global__ void histogram_x8k4c(const uint16_t* luma, uint32_t* hist, size_t n, uint32_t bins) {
    histogramVectors<uint4, 4, true>(luma, hist, n, bins);
}
