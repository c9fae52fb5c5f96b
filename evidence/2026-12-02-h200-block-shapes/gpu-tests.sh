#!/usr/bin/env bash
# The GPU tests again, on binaries of the commit a stop lands after its last evidence run: the
# CLI's (cli/tests/gpu.rs, staged by stage.sh into .device/shapes) and the example's
# (examples/reduce/tests/gpu.rs, staged by ../2026-12-02-h200-transpose/stage.sh into
# .device/transpose), REQUIRE_GPU=1. One archive, $OUT/gpu-tests.tgz.
set -u
R=$PWD
W=/tmp/gpu-tests && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
# The example's test binary runs the example binaries where cargo built them: put them there.
mkdir -p $R/target/release && cp $R/.device/transpose/target/release/*-example* $R/target/release/
for staged in shapes transpose; do
  D=$R/.device/$staged
  {
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# binaries of $(cat $D/COMMIT) ($(cat $D/STATE))"
    echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
    REQUIRE_GPU=1 $D/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
    echo "# exit status: ${PIPESTATUS[0]}"
  } > gpu-tests-$staged.txt 2>&1
done
tar czf "$OUT/gpu-tests.tgz" gpu-tests-*.txt
tail -n 3 gpu-tests-*.txt
