"""A CPU stand-in for the little of cupy that Kernel Tuner's cupy backend uses, for a dry run of
tune_family.py without a GPU (dry-run/run): arrays are numpy's, a "device" H200-like (132 SMs),
and RawModule "compiles" tune_family.py's translation unit by reading which entry of
grayscale.cu it holds and the configuration's #defines; a launch writes the luma of every pixel
in numpy, as every grayscale entry does over a grid that covers the pixels, each launch timed at
a made-up 0.05 ms. Not cupy; nothing here measures anything. (Copied from
../../2026-12-03-h200-kernel-tuner/dry-run/cupy, the kernel changed.)"""

import os
import re

import numpy as np

from . import cuda  # noqa: F401

__version__ = "0.0-cpu-stand-in"
ndarray = np.ndarray
LAUNCHES = []  # (entry, grid, block) of every launch, for a test to read
_LUMA = {}


def array(a):
    return np.array(a, copy=True)


def asarray(a):
    return np.asarray(a)


def asnumpy(a):
    return np.array(a, copy=True)


def copyto(dest, src):
    np.copyto(dest, src)


# builtin/src/grayscale/mod.rs SHAPES: (vector width, pixels per thread) -> entry.
_ENTRIES = {(1, 1): "grayscale", (4, 4): "grayscale_vec4", (1, 2): "grayscale_k2", (1, 4): "grayscale_k4",
            (1, 8): "grayscale_k8"}


class _Function:
    ptr = 1


class RawKernel:
    num_regs = 16

    def __init__(self, entry, defines):
        self.entry, self.defines, self.kernel = entry, defines, _Function()

    def __call__(self, grid, block, args, stream=None, shared_mem=0):
        red, green, blue, out, n = args
        grid, block, n = int(grid[0]), int(block[0]), int(n)
        assert block == self.defines["block_size_x"] and grid == self.defines["grid_size_x"], (grid, block, self.defines)
        assert grid == -(-n // block), "per item: ceil(n / block) blocks, a thread for every pixel"
        LAUNCHES.append((self.entry, grid, block))
        key = (id(red), id(green), id(blue), n)
        if key not in _LUMA:  # computed once a set of planes: a launch copies it
            r, g, b = (np.float32(w) for w in (0.299, 0.587, 0.114))
            _LUMA.clear()
            _LUMA[key] = r * red[:n] + g * green[:n] + b * blue[:n]
        out[:n] = _LUMA[key]
        key = f"{block},{self.defines['vector_width']},{self.defines['pixels_per_thread']}"
        if os.environ.get("DRY_RUN_WRONG_AT") == key:  # a wrong pixel, to see verify fail
            out[n // 2] += np.float32(0.01)


class RawModule:
    def __init__(self, code=None, options=(), name_expressions=None):
        assert name_expressions == ["grayscale_family"], name_expressions
        assert code.count('extern "C" __global__ void grayscale_family(') == 1, "one entry, named grayscale_family"
        self.entry = re.search(r"the entry (\w+) alone", code).group(1)
        self.defines = {k: int(v) for k, v in re.findall(r"(?m)^#define (\w+) (\d+)$", code)}
        shape = (self.defines["vector_width"], self.defines["pixels_per_thread"])
        assert _ENTRIES[shape] == self.entry, (shape, self.entry)

    def get_function(self, name):
        assert name == "grayscale_family"
        return RawKernel(self.entry, self.defines)
