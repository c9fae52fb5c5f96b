// The grayscale kernel in CUDA C++, for nvcc: the baseline the Rust builds are compared with.
//
// Same contract as kernels/src/lib.rs: three planar float inputs and one output of n
// pixels, Rec. 601 weights, a grid-stride loop that covers every pixel for any launch.
// No __restrict__, because the Rust kernels make no such promise either: both sides
// compile the same semantics. extern "C" keeps the entry point's name unmangled.
//
// Regenerate its PTX with `cargo xtask ptx nvcc` (nvcc -O3 -arch=sm_75 -ptx).

#include <cstddef>

namespace {
// The weights of kernels/src/luma.rs; tests/tests/ptx.rs checks that this PTX carries
// the same float bit patterns as the Rust constants.
constexpr float kRed = 0.299f;
constexpr float kGreen = 0.587f;
constexpr float kBlue = 0.114f;
}  // namespace

extern "C" __global__ void grayscale(const float* r, const float* g, const float* b, float* out, size_t n) {
    const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
        out[i] = kRed * r[i] + kGreen * g[i] + kBlue * b[i];
    }
}
