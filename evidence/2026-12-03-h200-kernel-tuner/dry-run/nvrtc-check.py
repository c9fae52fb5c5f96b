#!/usr/bin/env python3
"""reduce.cu through NVRTC as Kernel Tuner's cupy backend compiles it (--std=c++11, the
configuration's #defines prepended, then #line 1), without a GPU: each items_per_thread gives
one entry, sum_of_squares_tuned, with 1 or 5 global loads and only the unaligned barrier; without
defines all three entries. NVRTC from the PyPI wheel nvidia-cuda-nvrtc (13.0.x), unpacked:
    LD_LIBRARY_PATH=DIR/nvidia/cu13/lib python3 nvrtc-check.py DIR/nvidia/cu13/lib/libnvrtc.so.13 reduce.cu
"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
source = open(sys.argv[2]).read()


def compile_ptx(prefix):
    program = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(program), (prefix + source).encode(), b"reduce.cu", 0, None, None) == 0
    options = [b"--std=c++11", b"--gpu-architecture=compute_90"]
    status = lib.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, log)
    assert status == 0, log.value.decode()
    lib.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(program, ptx)
    return ptx.value.decode()


def entries(ptx):
    return [line.split(".entry ")[1].split("(")[0] for line in ptx.splitlines() if ".entry " in line]


for items, loads in ((1, 1), (4, 5)):
    defines = {"grid_size_x": 528, "grid_size_y": 1, "grid_size_z": 1, "block_size_x": 256, "block_size_y": 1,
               "block_size_z": 1, "items_per_thread": items, "waves": 2, "kernel_tuner": 1}
    ptx = compile_ptx("".join(f"#define {k} {v}\n" for k, v in defines.items()) + "#line 1\n")
    assert entries(ptx) == ["sum_of_squares_tuned"], entries(ptx)
    assert ptx.count("ld.global.f32") == loads and "barrier.sync 0;" in ptx and "bar.sync" not in ptx
    print(f"items_per_thread {items}: {entries(ptx)}, {loads} global load(s), barrier.sync only")
assert entries(compile_ptx("")) == ["sum_of_squares", "sum_of_squares_x4", "sum_of_squares_tuned"]
print("without defines: all three entries")
