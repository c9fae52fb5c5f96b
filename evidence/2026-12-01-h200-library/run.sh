#!/usr/bin/env bash
# The library split and the barrier fix on the H200: GPU tests of block-size and of the example
# programs through the library (REQUIRE_GPU=1), the default sweep and the histogram after the
# barrier change, the stencil regression kernel with the unaligned barrier at every block size
# and with cuda_std's aligned barrier under a timeout, and compute-sanitizer on the stencil.
# Release binaries built on a machine without a GPU, carried as .device/ev/target/release.
set -u
B=.device/ev/target/release
# The example's tests name their programs by the absolute path cargo built them at.
mkdir -p /work/main/target && ln -sfn "$PWD/$B" /work/main/target/release
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
head() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; echo "# commit: $(cat .device/ev/COMMIT)"; }
{
  head
  for t in "$B"/deps/gpu-*; do
    echo "################ REQUIRE_GPU=1 $t --test-threads=1"
    REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" "$t" --test-threads=1 2>&1 | grep -v "^ *[0-9]"
    echo "# exit status: ${PIPESTATUS[0]}"
  done
} > "$OUT/gpu-tests.txt" 2>&1
{
  head
  for a in "--provenance" "--provenance --kernel histogram --bins 4096 --width 11520 --height 5760"; do
    echo "################ block-size $a"; $B/block-size $a; echo "# exit status: $?"
  done
  echo "################ reduce-example --provenance"; $B/reduce-example --provenance; echo "# exit status: $?"
} > "$OUT/sweeps.txt" 2>&1
{
  head
  A="--block-sizes 32,64,96,100,128,160,192,256,384,512,768,1000,1024"
  for n in 1024 16777216; do
    echo "################ stencil-example --provenance --entry stencil3 --n $n $A"
    timeout 120 $B/stencil-example --provenance --entry stencil3 --n $n $A; echo "# exit status: $?"
  done
  for n in 1024 16777216; do
    echo "################ timeout 20 stencil-example --entry stencil3_cuda_std_barrier --n $n --block-sizes 256 --runs 1 --warmups 0"
    start=$(date +%s.%N)
    timeout 20 $B/stencil-example --entry stencil3_cuda_std_barrier --n $n --block-sizes 256 --runs 1 --warmups 0; code=$?
    echo "# exit status: $code (124: killed by timeout after $(echo "$(date +%s.%N) - $start" | bc) s)"
  done
  for tool in synccheck racecheck memcheck; do
    for n in 1 1000003; do
      echo "################ $S --tool $tool --error-exitcode 99 stencil-example --n $n --block-sizes 1,31,32,100,256,1000,1024 --timing launch --runs 1 --warmups 0"
      timeout 300 $S --tool $tool --error-exitcode 99 $B/stencil-example --n $n --block-sizes 1,31,32,100,256,1000,1024 --timing launch --runs 1 --warmups 0 2>&1 | grep -E "SUMMARY|rror|agrees|configurations"
      echo "# exit status: ${PIPESTATUS[0]}"
    done
  done
} > "$OUT/stencil.txt" 2>&1
grep -h "exit status\|test result" "$OUT"/*.txt
