"""A CPU stand-in for the little of cupy that Kernel Tuner's cupy backend and tune.py use, for
a dry run of tune.py without a GPU (dry-run/run): arrays are numpy's, a "device" H200-like (132
SMs), and RawModule runs the kernel of reduce.cu in numpy (each thread's f32 sum of its
grid-stride squares, the block tree of the twins, one partial a block), each launch timed at a
made-up 0.05 ms. Not cupy; nothing here measures anything."""

import os
import re

import numpy as np

from . import cuda  # noqa: F401

__version__ = "0.0-cpu-stand-in"
ndarray = np.ndarray


def array(a):
    return np.array(a, copy=True)


def asarray(a):
    return np.asarray(a)


def asnumpy(a):
    return np.array(a, copy=True)


def copyto(dest, src):
    np.copyto(dest, src)


def _partials(x, n, grid, block, items):
    step = grid * block
    trips = -(-n // step)
    padded = np.zeros(trips * step, dtype=np.float32)
    padded[:n] = x[:n]
    sums = np.zeros(step, dtype=np.float32)
    for row in padded.reshape(trips, step):  # one trip of every thread, in order
        sums = (sums + row * row).astype(np.float32)
    shared = sums.reshape(grid, block)
    stride = (1 << (block - 1).bit_length()) // 2
    while stride > 0:
        upper = min(2 * stride, block)
        shared[:, : upper - stride] += shared[:, stride:upper]
        stride //= 2
    return shared[:, 0].copy()


class _Function:
    ptr = 1


class RawKernel:
    num_regs = 16

    def __init__(self, name, items):
        self.name, self.items, self.kernel, self._cache = name, items, _Function(), {}

    def __call__(self, grid, block, args, stream=None, shared_mem=0):
        x, n, partials = args
        grid, block = int(grid[0]), int(block[0])
        assert shared_mem >= 4 * block, "a launch without its shared memory"
        key = (grid, block)
        if key not in self._cache:
            self._cache[key] = _partials(np.asarray(x), int(n), grid, block, self.items)
        partials[:grid] = self._cache[key]
        if os.environ.get("DRY_RUN_WRONG_AT") == f"{block},{self.items}":  # a wrong partial, to see verify fail
            partials[0] += 1000.0


class RawModule:
    def __init__(self, code=None, options=(), name_expressions=None):
        assert "sum_of_squares_tuned" in code
        m = re.search(r"#define items_per_thread (\d+)", code)
        self.items = int(m.group(1)) if m else 1

    def get_function(self, name):
        return RawKernel(name, self.items)
