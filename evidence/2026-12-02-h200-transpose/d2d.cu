// The device-to-device copy the transpose is measured against: cudaMemcpyAsync of N floats
// from one device buffer to another, timed between CUDA events after 3 warm-ups, 30 samples,
// their median. It prints the bytes it counts (read and written: 8 a float, as the transpose's
// bytes_per_pass) and the GB/s of the median.
//
// Built on the device by run.sh: nvcc -O3 -arch=sm_90 -o d2d d2d.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t status = (call);                                                         \
        if (status != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(status));              \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: d2d FLOATS\n");
        return 2;
    }
    const size_t n = std::strtoull(argv[1], nullptr, 10);
    const size_t bytes = n * sizeof(float);
    float *source = nullptr, *target = nullptr;
    CHECK(cudaMalloc(&source, bytes));
    CHECK(cudaMalloc(&target, bytes));
    CHECK(cudaMemset(source, 1, bytes));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i) CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice));
    std::vector<float> samples;
    for (int i = 0; i < 30; ++i) {
        CHECK(cudaEventRecord(start));
        CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice));
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        samples.push_back(ms);
    }
    std::sort(samples.begin(), samples.end());
    const float median = (samples[14] + samples[15]) / 2;
    std::printf("d2d copy of %zu floats: %zu bytes read and written (8 a float), median %.4f ms of 30, min %.4f, max %.4f: %.1f GB/s\n",
                n, 2 * bytes, median, samples.front(), samples.back(), 2.0 * bytes / (median * 1e6));
    return 0;
}
