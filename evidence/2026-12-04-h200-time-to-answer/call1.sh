#!/usr/bin/env bash
# The first device call: bench.sh, then the new binary's sweeps under compute-sanitizer
# memcheck (the comparison kernels of kernels/src/mismatch.rs run once a row; --corrupt-pixel
# takes the path where the GPU finds a wrong row and the host words it).
set -u
ROUNDS=${ROUNDS:-2} bash evidence/2026-12-04-h200-time-to-answer/bench.sh
B=$(mktemp -d)
tar -xJf gpu-bin/bin.tar.xz -C "$B"
{
  for args in "--block-sizes 64,256,1024 --runs 2 --warmups 1" \
              "--block-sizes 64,256 --runs 2 --warmups 1 --corrupt-pixel 5" \
              "--width 256 --height 256 --block-sizes 32,1024 --runs 2 --warmups 1" \
              "--kernel histogram --bins 4096 --block-sizes 256 --runs 2 --warmups 1"; do
    echo "\$ compute-sanitizer --tool memcheck --error-exitcode 9 block-size $args"
    compute-sanitizer --tool memcheck --error-exitcode 9 "$B/new/block-size" $args
    echo "exit status $?"
  done
} > "$OUT/memcheck.txt" 2>&1
grep -E "^\\$|exit status|ERROR SUMMARY" "$OUT/memcheck.txt"
