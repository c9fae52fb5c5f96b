/* The CUDA driver's own share of a sweep's fixed cost, with no Rust in it: cuInit, the primary
 * context, loading one PTX module (argv[1]; JIT to the GPU's SASS, or the driver's cache), the
 * 2 x L2 scratch a sweep allocates and clears, and the teardown. One line of milliseconds.
 *   nvcc -O2 -o cuda_floor cuda_floor.c -lcuda && ./cuda_floor kernels/ptx/grayscale.ptx */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#define CHECK(call) do { CUresult r = (call); if (r != CUDA_SUCCESS) { \
    fprintf(stderr, "%s failed: %d\n", #call, (int)r); return 1; } } while (0)

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) { fprintf(stderr, "usage: cuda_floor PTX [exit]\n"); return 2; }
    int teardown = argc == 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END); long size = ftell(f); fseek(f, 0, SEEK_SET);
    char *ptx = calloc(size + 1, 1);
    if (fread(ptx, 1, size, f) != (size_t)size) { perror("read"); return 2; }
    fclose(f);
    double t0 = now_ms();
    CHECK(cuInit(0));
    double t1 = now_ms();
    CUdevice device; CUcontext context;
    CHECK(cuDeviceGet(&device, 0));
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    CUdeviceptr first; CHECK(cuMemAlloc(&first, 4)); /* contexts finish setting up at first use */
    double t2 = now_ms();
    CUmodule module;
    CHECK(cuModuleLoadData(&module, ptx));
    double t3 = now_ms();
    int l2 = 0;
    CHECK(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device));
    CUdeviceptr scratch;
    CHECK(cuMemAlloc(&scratch, 2 * (size_t)l2));
    CHECK(cuMemsetD8(scratch, 0, 2 * (size_t)l2));
    CHECK(cuCtxSynchronize());
    double t4 = now_ms();
    if (!teardown) {
        printf("cuInit %.1f ms, primary context %.1f ms, module load %.1f ms (%ld B of PTX), "
               "2 x L2 (%d B) alloc and clear %.1f ms, no teardown, total %.1f ms\n",
               t1 - t0, t2 - t1, t3 - t2, size, l2, t4 - t3, t4 - t0);
        fflush(stdout);
        _exit(0);
    }
    CHECK(cuMemFree(scratch)); CHECK(cuMemFree(first));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(device));
    double t5 = now_ms();
    printf("cuInit %.1f ms, primary context %.1f ms, module load %.1f ms (%ld B of PTX), "
           "2 x L2 (%d B) alloc and clear %.1f ms, teardown %.1f ms, total %.1f ms\n",
           t1 - t0, t2 - t1, t3 - t2, size, l2, t4 - t3, t5 - t4, t5 - t0);
    return 0;
}
