#!/usr/bin/env bash
# The commit this stop lands (axes, pruning, one emitted file for every GPU), on the H200: the
# GPU tests of block-size and of the example programs through the library (REQUIRE_GPU=1); the
# default sweep; the example over three axes raced, with --emit-rust; pruning on the hardware
# (--shared-bytes-per-thread 64: 1024 threads would ask for 64 KiB); and the same file written
# twice, by the example and again (one GPU: its winner replaced, not duplicated).
# Release binaries built without a GPU, carried as .device/final3/target/release.
set -u
B=.device/final3/target/release
mkdir -p /work/main/target && ln -sfn "$PWD/$B" /work/main/target/release
W=$(mktemp -d)
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# commit: $(cat .device/final3/COMMIT)"
  for t in "$B"/deps/gpu-*; do
    echo "################ REQUIRE_GPU=1 $t --test-threads=1"
    REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" timeout 400 "$t" --test-threads=1 2>&1 | grep -v "^ *[0-9]"
    echo "# exit status: ${PIPESTATUS[0]}"
  done
  echo "################ block-size --provenance"; $B/block-size --provenance; echo "# exit status: $?"
  echo "################ reduce-example --provenance --shared-bytes-per-thread 64 --block-sizes 128,256,512,768,1024"
  $B/reduce-example --provenance --shared-bytes-per-thread 64 --block-sizes 128,256,512,768,1024; echo "# exit status: $?"
  A="--block-sizes 64,128,256,384,512,768,1024 --grids one-wave,waves:2,waves:4 --emit-rust $W/winner.rs"
  echo "################ reduce-example --provenance $A"
  $B/reduce-example --provenance $A; echo "# exit status: $?"
  echo "################ reduce-example $A (again: the same GPU's winner replaced)"
  $B/reduce-example $A > /dev/null; echo "# exit status: $?"
  echo "# $W/winner.rs:"; cat $W/winner.rs
  echo "# $W/winner.rs.json winners: $(grep -c '"gpu"' $W/winner.rs.json)"
} > "$OUT/final.txt" 2>&1
grep -h "exit status\|test result" "$OUT"/*.txt
