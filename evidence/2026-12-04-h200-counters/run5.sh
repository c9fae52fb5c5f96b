#!/usr/bin/env bash
# The commit a stop lands, on the H200 (stage.sh's binaries): the default sweep and the histogram
# at 4096 bins with --counters (each slower row now says what its counters read lower than the
# best row's), tail --counters, and the CLI's GPU tests (REQUIRE_GPU=1). One archive,
# $OUT/counters5.tgz.
set -u
R=$PWD
B=$R/.device/counters/target/release
W=/tmp/counters5 && rm -rf $W && mkdir -p $W && cd $W || exit 1
export PATH="$PATH:/usr/local/cuda/bin"
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# binaries of $(cat $R/.device/counters/COMMIT) ($(cat $R/.device/counters/STATE))"; }
run() { echo "################ $*"; local s=$(date +%s.%N); "$@"; local c=$?; echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"; }
{
  stamp
  run $B/block-size --counters --provenance --json default.json
  run $B/block-size --kernel histogram --bins 4096 --counters --json histogram-4096.json
  run $B/block-size tail --counters
} > counters5.txt 2>&1
{
  stamp; echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 $R/.device/counters/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > gpu-tests-5.txt 2>&1
tar czf "$OUT/counters5.tgz" counters5.txt gpu-tests-5.txt default.json histogram-4096.json
grep -E "^(Warning|Bound|Counters|Error|  [0-9])|exit status" counters5.txt
tail -n 3 gpu-tests-5.txt
