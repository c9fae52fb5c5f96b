#!/usr/bin/env bash
# Issue 47's --counters in `variants` and `tail` on the H200 (stage.sh's binaries): variants of
# the grayscale kernel and of the histogram, tail of the grayscale kernel and of a fresh
# `block-size new --cuda` project's kernel, each with --counters; and the CLI's GPU tests
# (REQUIRE_GPU=1). One archive, $OUT/counters2.tgz.
set -u
R=$PWD
B=$R/.device/counters/target/release
W=/tmp/counters2 && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $R/.device/counters/COMMIT) ($(cat $R/.device/counters/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
{
  stamp
  run $B/block-size variants --counters --provenance
  run $B/block-size variants --kernel histogram --bins 4096 --counters
  run $B/block-size tail --counters
  run $B/scaf tail --counters
} > counters2.txt 2>&1
{
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 $R/.device/counters/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests-2.txt 2>&1
tar czf "$OUT/counters2.tgz" counters2.txt gpu-tests-2.txt
grep -E "^(Warning|Bound|Counters|Error)|exit status" counters2.txt
tail -n 3 gpu-tests-2.txt
