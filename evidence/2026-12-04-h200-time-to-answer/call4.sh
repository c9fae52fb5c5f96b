#!/usr/bin/env bash
# run4's device call: bench.sh (three rounds; old = 8bcb714, the end of the session before,
# new = the race that samples on from its first round), then the GPU tests of the new
# binaries (REQUIRE_GPU=1: cli/tests/gpu.rs and examples/reduce/tests/gpu.rs, staged by
# ../2026-12-02-h200-block-shapes/stage.sh and ../2026-12-02-h200-transpose/stage.sh and
# packed as gpu-bin/tests.tar.xz). Run by the device tool from the repository root, carrying
# gpu-bin.
set -u
ROUNDS=${ROUNDS:-3} bash evidence/2026-12-04-h200-time-to-answer/bench.sh
tar -xJf gpu-bin/tests.tar.xz
bash evidence/2026-12-02-h200-block-shapes/gpu-tests.sh
