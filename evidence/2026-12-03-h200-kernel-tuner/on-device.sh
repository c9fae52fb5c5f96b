#!/usr/bin/env bash
# ON THE DEVICE, from the repository root, carrying .device/pack (next-call.sh fills it), $OUT
# set: unpacks, runs the Kernel Tuner side by side (run.sh, four rounds), the wall-time probe
# (../2026-12-03-h200-wall-time/probe.sh) and both GPU test suites
# (../2026-12-02-h200-block-shapes/gpu-tests.sh, REQUIRE_GPU=1). About 300 s on an H200.
# Back: kt.tgz, steps.txt, run-log.txt, probe.txt, gpu-tests.tgz, gpu-tests-log.txt.
set -u
: "${OUT:?set OUT to the output folder}"
tar xJf .device/pack/all.tar.xz || exit 1
(
    cd .device-carry/kt || exit 1
    ROUNDS=${ROUNDS:-4} BUDGET=${BUDGET:-300} timeout 380 bash run.sh > "$OUT/run-log.txt" 2>&1
    echo "run.sh: exit $?"
    timeout 60 bash probe.sh > "$OUT/probe.txt" 2>&1
    echo "probe.sh: exit $?"
)
timeout 150 bash evidence/2026-12-02-h200-block-shapes/gpu-tests.sh > "$OUT/gpu-tests-log.txt" 2>&1
echo "gpu-tests.sh: exit $?"
grep -v remeasure "$OUT/steps.txt"
cat "$OUT/gpu-tests-log.txt"
