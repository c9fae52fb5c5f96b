"""Whole-process cost of a CUDA context's end (probe.sh times the process): open the primary
context, allocate 64 MiB, then either release both and exit ("release") or exit at once with
both held ("exit"), leaving them to the driver's teardown. Run: python3 exit-cost.py release|exit"""
import ctypes, os, sys
cuda = ctypes.CDLL("libcuda.so.1")
cuda.cuInit(0)
dev = ctypes.c_int(); cuda.cuDeviceGet(ctypes.byref(dev), 0)
ctx = ctypes.c_void_p(); cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cuda.cuCtxSetCurrent(ctx)
buf = ctypes.c_uint64(); cuda.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(64 << 20))
if sys.argv[1] == "release":
    cuda.cuMemFree_v2(buf); cuda.cuDevicePrimaryCtxRelease_v2(dev)
os._exit(0)
