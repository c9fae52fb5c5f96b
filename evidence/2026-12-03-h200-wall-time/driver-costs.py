"""The driver's one-off costs that every sweep process pays, timed one call at a time through
ctypes on libcuda.so.1 and libnvidia-ml.so.1 (no toolkit, no Rust): cuInit, the primary
context, loading the example's PTX (JIT, or the driver's cache), allocating and uploading
2^24 floats, NVML's start, and releasing the context. Run: python3 driver-costs.py PTX."""
import ctypes, sys, time

ptx = open(sys.argv[1], "rb").read() + b"\0"
cuda = ctypes.CDLL("libcuda.so.1")
t = time.perf_counter
def call(name, *args):
    status = getattr(cuda, name)(*args)
    if status:
        raise SystemExit(f"{name}: CUDA error {status}")
def timed(label, fn):
    s = t(); value = fn(); print(f"{label:44s} {1e3 * (t() - s):8.1f} ms"); return value
start = t()
timed("cuInit", lambda: call("cuInit", 0))
dev = ctypes.c_int()
call("cuDeviceGet", ctypes.byref(dev), 0)
ctx = ctypes.c_void_p()
timed("cuDevicePrimaryCtxRetain", lambda: call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev))
timed("cuCtxSetCurrent (first use)", lambda: call("cuCtxSetCurrent", ctx))
free = ctypes.c_size_t(); total = ctypes.c_size_t()
timed("cuMemGetInfo_v2 (context really made)", lambda: call("cuMemGetInfo_v2", ctypes.byref(free), ctypes.byref(total)))
module = ctypes.c_void_p()
timed("cuModuleLoadData (PTX, JIT or cache)", lambda: call("cuModuleLoadData", ctypes.byref(module), ptx))
module2 = ctypes.c_void_p()
timed("cuModuleLoadData again", lambda: call("cuModuleLoadData", ctypes.byref(module2), ptx))
n = 1 << 24
host = (ctypes.c_float * n)()
buf = ctypes.c_uint64()
timed("cuMemAlloc_v2 64 MiB", lambda: call("cuMemAlloc_v2", ctypes.byref(buf), ctypes.c_size_t(4 * n)))
timed("cuMemcpyHtoD_v2 64 MiB (pageable)", lambda: call("cuMemcpyHtoD_v2", buf, host, ctypes.c_size_t(4 * n)))
timed("cuMemcpyHtoD_v2 64 MiB again", lambda: call("cuMemcpyHtoD_v2", buf, host, ctypes.c_size_t(4 * n)))
try:
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    timed("nvmlInit_v2", lambda: nvml.nvmlInit_v2())
    handle = ctypes.c_void_p()
    timed("nvmlDeviceGetHandleByIndex_v2", lambda: nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)))
    clock = ctypes.c_uint()
    timed("nvmlDeviceGetClockInfo (SM)", lambda: nvml.nvmlDeviceGetClockInfo(handle, 1, ctypes.byref(clock)))
    timed("nvmlDeviceGetClockInfo (SM) again", lambda: nvml.nvmlDeviceGetClockInfo(handle, 1, ctypes.byref(clock)))
    timed("nvmlShutdown", lambda: nvml.nvmlShutdown())
except OSError as error:
    print("no NVML:", error)
timed("cuMemFree_v2", lambda: call("cuMemFree_v2", buf))
timed("cuDevicePrimaryCtxRelease_v2", lambda: call("cuDevicePrimaryCtxRelease_v2", dev))
print(f"{'in all':44s} {1e3 * (t() - start):8.1f} ms")
