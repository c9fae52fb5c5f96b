#!/usr/bin/env bash
# Issues 12 and 11 evidence on the H200: timing modes against block_size.cu and ncu, host-side
# wall times, the example user kernel swept through the library, the GPU tests. Binaries of b04e632.
set -u
B=.device/ev12/target/release
W="--width 11520 --height 5760"
wall() { # label, command...: runs it (stdout to the file given by $WALL_OUT or /dev/null), prints its wall time
  local label=$1; shift; local s e rc
  s=$(date +%s.%N); "$@" > "${WALL_OUT:-/dev/null}" 2>&1; rc=$?; e=$(date +%s.%N)
  echo "$label: $(awk "BEGIN {printf \"%.2f\", $e - $s}") s wall (exit $rc)"
}
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; }
nvcc -std=c++17 -O3 -arch=sm_90 -o /tmp/seed .device/ev12/block_size.cu || exit 1
seed() { echo "################ block_size.cu (nvcc $(nvcc --version | grep -o 'release [0-9.]*'), -std=c++17 -O3 -arch=sm_90), source sha256 $(sha256sum .device/ev12/block_size.cu | cut -c1-16)"; stamp; /tmp/seed; echo "# exit status: $?"; }
rs() { echo "################ block-size $*"; "$B/block-size" "$@"; echo "# exit status: $?"; }
# 1. 4K, alternating twice: seed, batch, cold, cold without flush, launch.
for pass in 1 2; do
  seed
  rs --provenance --timing batch
  rs --timing cold
  rs --timing cold --no-flush-l2
  rs --timing launch
done > "$OUT/modes-4k.txt" 2>&1
# 2. 66 M pixels: batch, cold, cold without flush, launch; and vec4 through variants.
{
  rs --provenance --timing batch $W
  rs --timing cold $W
  rs --timing cold --no-flush-l2 $W
  rs --timing launch $W
  rs variants --timing batch $W --block-sizes 256
  rs variants --timing cold $W --block-sizes 256
} > "$OUT/modes-66m.txt" 2>&1
# 3. ncu's kernel durations for the same kernels and configuration (256 threads, 66 M pixels, L2 flushed by ncu, clocks not locked).
N=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
{
  stamp; echo "# $($N --version | tail -1)"
  for k in grayscale grayscale_vec4; do
    if [ $k = grayscale ]; then args="--block-sizes 256 $W --timing launch --runs 20 --warmups 0"; else args="variants --block-sizes 256 $W --runs 20 --warmups 0"; fi
    echo "################ $N --metrics gpu__time_duration.sum --clock-control none --cache-control all -k regex:^$k\$ --csv block-size-cuda $args"
    $N --metrics gpu__time_duration.sum --clock-control none --cache-control all -k "regex:^$k\$" --csv $B/block-size-cuda $args 2>&1 | grep -E '"gpu__time_duration.sum"|ERROR|error'
    echo "# exit status: ${PIPESTATUS[0]}"
  done
} > "$OUT/ncu.txt" 2>&1
# 4. Host side: 4K default wall time, three runs each; the 4.3 G-pixel one-row sweep.
{
  stamp
  for i in 1 2 3; do
    wall "block_size.cu 4K default" /tmp/seed
    wall "block-size 4K default" $B/block-size
  done
  echo "################ block-size --provenance --width 65536 --height 65537 --block-sizes 256"
  WALL_OUT=/tmp/big.txt wall "block-size 65536 x 65537, one row" $B/block-size --provenance --width 65536 --height 65537 --block-sizes 256
  cat /tmp/big.txt
} > "$OUT/host-side.txt" 2>&1
ex() { echo "################ reduce-example $*"; "$B/reduce-example" "$@"; echo "# exit status: $?"; }
{
  ex --provenance
  ex --check same-as-first --tolerance 1e-5
  ex --check same-as-first --tolerance 0 --block-sizes 64,128,256,1024
  ex --grid per-item
  ex --n 1000003 --timing cold
} > "$OUT/example-reduce.txt" 2>&1
{
  stamp; echo "# command: REQUIRE_GPU=1 $B/deps/gpu-* --test-threads=1"
  REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" $B/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
  echo "# exit status: ${PIPESTATUS[0]}"
} > "$OUT/gpu-tests.txt" 2>&1
grep -h "exit status" "$OUT"/*.txt | sort | uniq -c
