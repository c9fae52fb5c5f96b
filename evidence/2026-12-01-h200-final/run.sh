#!/usr/bin/env bash
# The commit this stop lands, on the H200: the GPU tests of block-size and of the example
# programs through the library (REQUIRE_GPU=1), the default sweep (which races no row: 13
# configurations), and the example's 26 configurations with --search race and --emit-rust.
# Release binaries built without a GPU, carried as .device/final/target/release.
set -u
B=.device/final/target/release
mkdir -p /work/main/target && ln -sfn "$PWD/$B" /work/main/target/release
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# commit: $(cat .device/final/COMMIT)"
  for t in "$B"/deps/gpu-*; do
    echo "################ REQUIRE_GPU=1 $t --test-threads=1"
    REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" timeout 400 "$t" --test-threads=1 2>&1 | grep -v "^ *[0-9]"
    echo "# exit status: ${PIPESTATUS[0]}"
  done
  echo "################ block-size --provenance"; $B/block-size --provenance; echo "# exit status: $?"
  W=$(mktemp -d)
  echo "################ reduce-example --provenance --search race --emit-rust $W/winner.rs"
  $B/reduce-example --provenance --search race --emit-rust $W/winner.rs; echo "# exit status: $?"
  echo "# $W/winner.rs:"; cat $W/winner.rs
} > "$OUT/final.txt" 2>&1
grep -h "exit status\|test result" "$OUT"/*.txt
