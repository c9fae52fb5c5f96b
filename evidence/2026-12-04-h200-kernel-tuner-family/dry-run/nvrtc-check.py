#!/usr/bin/env python3
"""tune_family.py's five translation units of kernels/cuda/grayscale.cu through NVRTC as Kernel
Tuner's cupy backend compiles them (--std=c++11, a configuration's #defines prepended, then
#line 1), without a GPU: each gives one entry, grayscale_family, of five 64-bit parameters, whose
global loads and stores (by kind: ld.global.f32, ld.global.v4.f32, ...) are counted beside those of
the same entry in the committed nvcc 11.8 PTX (kernels/ptx/grayscale-nvcc.ptx), both for
compute_75. NVRTC from the PyPI wheel nvidia-cuda-nvrtc (13.0.x), unpacked in DIR:
    LD_LIBRARY_PATH=DIR/nvidia/cu13/lib python3 dry-run/nvrtc-check.py DIR/nvidia/cu13/lib/libnvrtc.so.13
(numpy needed: it imports tune_family.)
"""
import collections
import ctypes
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import tune_family  # noqa: E402

repo = os.path.join(here, "..", "..", "..")
lib = ctypes.CDLL(sys.argv[1])
source = open(os.path.join(repo, "kernels", "cuda", "grayscale.cu")).read()
nvcc_ptx = open(os.path.join(repo, "kernels", "ptx", "grayscale-nvcc.ptx")).read()


def compile_ptx(code, arch):
    program = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(program), code.encode(), b"grayscale.cu", 0, None, None) == 0
    options = [b"--std=c++11", f"--gpu-architecture={arch}".encode()]
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


def entry_bodies(ptx):
    """name -> text of each .entry up to the next one."""
    parts = re.split(r"(?m)^\.visible \.entry (\w+)\(", ptx)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def memory(body):
    return collections.Counter(re.findall(r"\b((?:ld|st)\.global(?:\.\w+)*)", body))


version = ctypes.c_int(), ctypes.c_int()
lib.nvrtcVersion(ctypes.byref(version[0]), ctypes.byref(version[1]))
print(f"NVRTC {version[0].value}.{version[1].value}")
nvcc = entry_bodies(nvcc_ptx)
differ = 0
for (v, p), (entry, name) in tune_family.SHAPES.items():
    defines = {"grid_size_x": 32400, "grid_size_y": 1, "grid_size_z": 1, "block_size_x": 256, "block_size_y": 1,
               "block_size_z": 1, "vector_width": v, "pixels_per_thread": p, "kernel_tuner": 1}
    prefix = "".join(f"#define {k} {value}\n" for k, value in defines.items()) + "#line 1\n"
    unit = prefix + tune_family.translation_unit(source, entry)
    for arch in ("compute_75", "compute_90"):
        ptx = compile_ptx(unit, arch)
        bodies = entry_bodies(ptx)
        assert list(bodies) == [tune_family.KERNEL], (entry, list(bodies))
        params = re.findall(r"\.param \.(\w+) grayscale_family_param_\d+", ptx)
        assert params == ["u64"] * 5, params
        if arch == "compute_75":
            mine, theirs = memory(bodies[tune_family.KERNEL]), memory(nvcc[entry])
            same = mine == theirs
            differ += not same
            print(f"{name:5s} ({entry}): one entry, 5 x u64; NVRTC {dict(sorted(mine.items()))}"
                  f" {'==' if same else '!='} nvcc 11.8 {dict(sorted(theirs.items()))}")
print(f"compute_90 as well: every unit compiles to the one entry. Global memory instructions differ in {differ} of 5")
