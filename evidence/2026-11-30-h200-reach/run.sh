#!/usr/bin/env bash
# Issue 9 evidence: the PTX ISA 7.8 build on the H200. Binaries built on the dev machine.
set -u
B=.device/ev9/target/release
run() { # file, args...
    local file=$1; shift
    "$B/block-size" "$@" > "$OUT/$file" 2>&1
    echo "# exit status: $?" >> "$OUT/$file"
}
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# command: nvidia-smi; nvcc --version; ptxas (of that toolkit) -arch=sm_90 -v on each committed PTX"
  nvidia-smi; nvcc --version
  for p in .device/ev9/ptx/*.ptx; do echo "== $p: $(grep -m1 '^.version' $p)"; ptxas -arch=sm_90 -v "$p" -o /tmp/x.cubin 2>&1 | grep -E "Compiling entry|Used"; done
} > "$OUT/environment.txt" 2>&1
run sweep-4k.txt --provenance
run compare-4k.txt compare --provenance
run compare-66m.txt compare --provenance --width 11520 --height 5760
run variants-66m.txt variants --provenance --width 11520 --height 5760 --runs 20
run tail-4k.txt tail --provenance
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  echo "# command: REQUIRE_GPU=1 $B/deps/gpu-* --test-threads=1 --nocapture (cargo test --release -p block-size-runner --test gpu --no-run, built on the dev machine)"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 --nocapture
  echo "# exit status: $?"
} > "$OUT/gpu-tests.txt" 2>&1
tail -3 "$OUT"/*.txt
