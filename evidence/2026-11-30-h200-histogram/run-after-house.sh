#!/usr/bin/env bash
# GPU tests and a sweep after the house refactor (commit 8342a84), on the H200.
set -u
B=.device/ev11/target/release
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "# command: REQUIRE_GPU=1 $B/deps/gpu-* --test-threads=1 (cargo test --release -p block-size-runner --test gpu --no-run at 8342a84, built on the dev machine)"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > "$OUT/gpu-tests-after-house.txt" 2>&1
{ $B/block-size --provenance; echo "# exit status: $?"; } > "$OUT/sweep-4k-after-house.txt" 2>&1
tail -5 "$OUT"/*.txt
