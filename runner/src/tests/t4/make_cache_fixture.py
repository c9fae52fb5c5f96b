#!/usr/bin/env python3
"""Writes kernel-tuner.cache.json (closed) and kernel-tuner-open.cache.json (as a run cut short
leaves it) with Kernel Tuner's own cache writer.

The FILE FORMAT is Kernel Tuner's: `kernel_tuner.util.process_cache` writes the header (device
name, kernel name, problem size, the tunable parameters, the objective), `util.store_cache` each
entry as `tune_kernel(cache=FILE)` does, and `util.close_cache` closes the file as `tune_kernel`
does when it returns; the open copy is the file before that close.

The NUMBERS ARE SYNTHETIC, the same hand-built results as make_fixture.py's (no kernel ran, no GPU
was used): not measurements.

    python3 -m venv /tmp/ktvenv && /tmp/ktvenv/bin/pip install kernel_tuner==1.5.0
    /tmp/ktvenv/bin/python runner/src/tests/t4/make_cache_fixture.py

It then reads both back with Kernel Tuner's own reader (`util.read_cache`), which must find every
entry.
"""

import shutil
from pathlib import Path
from types import SimpleNamespace

from kernel_tuner import util

from make_fixture import RESULTS, TUNE_PARAMS

HERE = Path(__file__).resolve().parent
CLOSED = HERE / "kernel-tuner.cache.json"
OPEN = HERE / "kernel-tuner-open.cache.json"

if __name__ == "__main__":
    CLOSED.unlink(missing_ok=True)
    kernel_options = SimpleNamespace(kernel_name="sum_of_squares_tuned", problem_size=(1 << 24, 1, 1))
    tuning_options = SimpleNamespace(tune_params=TUNE_PARAMS, objective="time", simulation_mode=False)
    runner = SimpleNamespace(get_device_info=lambda: SimpleNamespace(name="NVIDIA H200"), simulation_mode=False)
    cache = util.process_cache(str(CLOSED), kernel_options, tuning_options, runner)
    for params in RESULTS:
        key = ",".join(str(params[name]) for name in TUNE_PARAMS)
        # As the sequential runner stores a result: a failed one with its `__error__` object,
        # which store_cache writes as its name.
        util.store_cache(key, dict(params), str(CLOSED), cache)
    shutil.copyfile(CLOSED, OPEN)
    util.close_cache(str(CLOSED))
    for path in (CLOSED, OPEN):
        read = util.read_cache(str(path), open_cache=False)
        assert len(read["cache"]) == len(RESULTS), (path, read)
        print(f"{path}: {len(read['cache'])} entries, read back by kernel_tuner.util.read_cache")
