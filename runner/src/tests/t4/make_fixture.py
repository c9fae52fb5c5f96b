#!/usr/bin/env python3
"""Writes kernel-tuner.t4.json (and kernel-tuner.metadata.json) with Kernel Tuner's own writer.

The FILE FORMAT is Kernel Tuner's: `kernel_tuner.file_utils.store_output_file` (the T4 results
file) and `store_metadata_file` (the T4 metadata file) of kernel_tuner==1.5.0 write them.

The NUMBERS ARE SYNTHETIC: no kernel ran and no GPU was used. The results list below is built by
hand, shaped as `kernel_tuner.tune_kernel` returns it (one dict per configuration: the tunable
parameters, `time` (the mean of `times`, as Kernel Tuner's observers compute it), `times` (one
entry per benchmark iteration, in ms), `compile_time`, `verification_time`, `benchmark_time`,
`strategy_time`, `framework_time` (ms) and `timestamp`), and one configuration marked as Kernel
Tuner marks one that failed to launch (`__error__` set to `RuntimeFailedConfig`, no time) and
one as it marks one its restrictions rule out (`InvalidConfig`). They are not measurements.

    python3 -m venv /tmp/ktvenv && /tmp/ktvenv/bin/pip install kernel_tuner==1.5.0
    /tmp/ktvenv/bin/python runner/src/tests/t4/make_fixture.py [OTHER.json ...]

It then validates what it wrote, and any OTHER.json given (a `block-size --format t4` file),
against Kernel Tuner's copy of the T4 results schema (`kernel_tuner.file_utils.output_file_schema`).

The metadata file records the machine that ran this script (its Python packages; no GPU, so no
nvidia-smi output), not the machine of any measurement.
"""

import json
import sys
from pathlib import Path

import jsonschema

from kernel_tuner import util
from kernel_tuner.file_utils import output_file_schema, store_metadata_file, store_output_file

HERE = Path(__file__).resolve().parent

# The tunable parameters as they would be passed to tune_kernel.
TUNE_PARAMS = {"block_size_x": [64, 128, 256, 2048], "block_size_y": [1, 2], "items_per_thread": [1, 4]}


def valid(x, y, items, times, timestamp):
    return {
        "block_size_x": x,
        "block_size_y": y,
        "items_per_thread": items,
        "time": sum(times) / len(times),
        "times": times,
        "compile_time": 412.5,
        "verification_time": 0,
        "benchmark_time": 3.25,
        "strategy_time": 0.125,
        "framework_time": 1.5,
        "timestamp": timestamp,
    }


def failed(x, y, items, error, timestamp):
    return {
        "block_size_x": x,
        "block_size_y": y,
        "items_per_thread": items,
        "__error__": error,
        "compile_time": 0,
        "verification_time": 0,
        "benchmark_time": 0,
        "strategy_time": 0.125,
        "framework_time": 1.5,
        "timestamp": timestamp,
    }


RESULTS = [
    valid(64, 1, 1, [0.052, 0.051, 0.053, 0.050, 0.052, 0.051, 0.052], "2026-12-03 10:00:00.000001+00:00"),
    valid(128, 1, 4, [0.041, 0.040, 0.042, 0.041, 0.043, 0.040, 0.041], "2026-12-03 10:00:01.000001+00:00"),
    valid(128, 2, 1, [0.044, 0.045, 0.044, 0.046, 0.044, 0.045, 0.044], "2026-12-03 10:00:02.000001+00:00"),
    valid(256, 1, 4, [0.039, 0.040, 0.039, 0.041, 0.039, 0.040, 0.039], "2026-12-03 10:00:03.000001+00:00"),
    failed(256, 2, 4, util.RuntimeFailedConfig(), "2026-12-03 10:00:04.000001+00:00"),
    failed(2048, 1, 1, util.InvalidConfig(), "2026-12-03 10:00:05.000001+00:00"),
]

if __name__ == "__main__":
    store_output_file(str(HERE / "kernel-tuner.t4.json"), RESULTS, TUNE_PARAMS)
    store_metadata_file(str(HERE / "kernel-tuner.metadata.json"))
    for target, paths in [
        ("results", [HERE / "kernel-tuner.t4.json", *map(Path, sys.argv[1:])]),
        ("metadata", [HERE / "kernel-tuner.metadata.json"]),
    ]:
        _, schema = output_file_schema(target)
        for path in paths:
            jsonschema.validate(json.loads(path.read_text()), schema)
            print(f"{path}: valid against T4's {target} schema")
