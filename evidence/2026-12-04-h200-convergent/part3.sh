#!/usr/bin/env bash
# The GPU tests of the commit this stop lands (evidence/2026-12-02-h200-block-shapes/gpu-tests.sh,
# on .device/shapes and .device/transpose staged by that folder's stage.sh and
# ../2026-12-02-h200-transpose/stage.sh), and racecheck of the example's transpose at a size whose
# launches finish inside the watchdog under the tool (run2's 8192 x 8192 did not): 256 x 256,
# one launch a sample, every tile. Run by the device tool from the repository root.
set -u
# Carried packed (gpu-bin/tests.tar.xz: tar -cJf of .device/shapes and .device/transpose), unpacked in place.
tar -xJf gpu-bin/tests.tar.xz
bash evidence/2026-12-02-h200-block-shapes/gpu-tests.sh
{
    echo "\$ compute-sanitizer --tool racecheck --error-exitcode 9 transpose-example --rows 256 --cols 256 --runs 1 --warmups 0 --timing launch --launch-timeout 120"
    compute-sanitizer --tool racecheck --error-exitcode 9 .device/transpose/target/release/transpose-example \
        --rows 256 --cols 256 --runs 1 --warmups 0 --timing launch --launch-timeout 120
    echo "exit status $?"
} >"$OUT/racecheck-transpose.txt" 2>&1
tail -n 4 "$OUT/racecheck-transpose.txt"
