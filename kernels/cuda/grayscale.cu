// The grayscale kernels in CUDA C++, for nvcc: the baselines the Rust builds are compared with.
//
// Same contracts as kernels/src/lib.rs: three planar float inputs and one output of n
// pixels, Rec. 601 weights, grid-stride loops that cover every pixel for any launch.
// No __restrict__, because the Rust kernels make no such promise either: both sides
// compile the same semantics. extern "C" keeps the entry points' names unmangled.
//
// Regenerate the PTX with `cargo xtask ptx nvcc` (nvcc -O3 -arch=sm_75 -ptx).

#include <cstddef>
#include <cstdint>

namespace {
// The weights of kernels/src/luma.rs; tests/tests/ptx.rs checks that this PTX carries
// the same float bit patterns as the Rust constants.
constexpr float kRed = 0.299f;
constexpr float kGreen = 0.587f;
constexpr float kBlue = 0.114f;

__device__ __forceinline__ float luma(float r, float g, float b) { return kRed * r + kGreen * g + kBlue * b; }

__device__ __forceinline__ void scalarLoop(const float* r, const float* g, const float* b, float* out, size_t n,
                                           size_t first, size_t step) {
    for (size_t i = first; i < n; i += step) {
        out[i] = luma(r[i], g[i], b[i]);
    }
}

// K pixels a trip, step apart, all loads before the first use.
template <int K>
__device__ __forceinline__ void unrolledLoop(const float* r, const float* g, const float* b, float* out, size_t n,
                                             size_t first, size_t step) {
    size_t i = first;
    for (; i + (K - 1) * step < n; i += K * step) {
        float red[K], green[K], blue[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            red[k] = r[i + k * step];
            green[k] = g[i + k * step];
            blue[k] = b[i + k * step];
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            out[i + k * step] = luma(red[k], green[k], blue[k]);
        }
    }
    scalarLoop(r, g, b, out, n, i, step);
}

__device__ __forceinline__ size_t firstIndex() { return static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t gridStride() { return static_cast<size_t>(gridDim.x) * blockDim.x; }
}  // namespace

extern "C" __global__ void grayscale(const float* r, const float* g, const float* b, float* out, size_t n) {
    scalarLoop(r, g, b, out, n, firstIndex(), gridStride());
}

// Four pixels per 16-byte access, after a scalar head up to the planes' first 16-byte
// boundary and before a scalar tail; planes that are not equally aligned stay scalar.
extern "C" __global__ void grayscale_vec4(const float* r, const float* g, const float* b, float* out, size_t n) {
    const size_t first = firstIndex();
    const size_t step = gridStride();
    const uintptr_t offset = reinterpret_cast<uintptr_t>(r) % 16;
    const bool same = reinterpret_cast<uintptr_t>(g) % 16 == offset && reinterpret_cast<uintptr_t>(b) % 16 == offset &&
                      reinterpret_cast<uintptr_t>(out) % 16 == offset && offset % 4 == 0;
    if (!same) {
        scalarLoop(r, g, b, out, n, first, step);
        return;
    }
    size_t head = (16 - offset) % 16 / 4;
    if (head > n) head = n;
    const size_t vectors = (n - head) / 4;
    const size_t tail = head + 4 * vectors;
    scalarLoop(r, g, b, out, head, first, step);
    for (size_t v = first; v < vectors; v += step) {
        const size_t base = head + 4 * v;
        const float4 red = *reinterpret_cast<const float4*>(r + base);
        const float4 green = *reinterpret_cast<const float4*>(g + base);
        const float4 blue = *reinterpret_cast<const float4*>(b + base);
        *reinterpret_cast<float4*>(out + base) = make_float4(luma(red.x, green.x, blue.x), luma(red.y, green.y, blue.y),
                                                             luma(red.z, green.z, blue.z), luma(red.w, green.w, blue.w));
    }
    scalarLoop(r + tail, g + tail, b + tail, out + tail, n - tail, first, step);
}

extern "C" __global__ void grayscale_k2(const float* r, const float* g, const float* b, float* out, size_t n) {
    unrolledLoop<2>(r, g, b, out, n, firstIndex(), gridStride());
}

extern "C" __global__ void grayscale_k4(const float* r, const float* g, const float* b, float* out, size_t n) {
    unrolledLoop<4>(r, g, b, out, n, firstIndex(), gridStride());
}

extern "C" __global__ void grayscale_k8(const float* r, const float* g, const float* b, float* out, size_t n) {
    unrolledLoop<8>(r, g, b, out, n, firstIndex(), gridStride());
}

// The image as rows and columns, for 2-D blocks over a 2-D grid: a grid-stride loop in x
// along each row and in y down the columns, as grayscale_2d in kernels/src/lib.rs. Any 2-D
// launch covers every pixel exactly once; z is not used.
extern "C" __global__ void grayscale_2d(const float* r, const float* g, const float* b, float* out, unsigned width,
                                        unsigned height) {
    const size_t firstX = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const size_t stepX = static_cast<size_t>(gridDim.x) * blockDim.x;
    const size_t stepY = static_cast<size_t>(gridDim.y) * blockDim.y;
    if (firstX >= width) {
        return;
    }
    for (size_t y = static_cast<size_t>(blockIdx.y) * blockDim.y + threadIdx.y; y < height; y += stepY) {
        const size_t row = y * width;
        for (size_t x = firstX; x < width; x += stepX) {
            out[row + x] = luma(r[row + x], g[row + x], b[row + x]);
        }
    }
}
