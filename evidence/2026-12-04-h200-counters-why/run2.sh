#!/usr/bin/env bash
# run.sh's `variants --counters` again (run.sh's first call gave it --json, which variants does
# not take: exit 2), on stage.sh's binaries. Its transcript on standard output and in $OUT.
set -u
R=$PWD
[ -d .device/why ] || tar -xJf gpu-bin/why.tar.xz || exit 1
B=$R/.device/why/target/release
export PATH="$PATH:/usr/local/cuda/bin"
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# $(ncu --version | tail -1)"; echo "# binaries of $(cat $R/.device/why/COMMIT) ($(cat $R/.device/why/STATE))"
  echo "################ $B/block-size variants --counters"
  s=$(date +%s.%N); $B/block-size variants --counters; c=$?
  echo "# exit status: $c; wall $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $s}") s"
} > "$OUT/variants.txt" 2>&1
cat "$OUT/variants.txt"
