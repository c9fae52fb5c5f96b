#!/usr/bin/env bash
# On the H200, from the repository root, carrying gpu-bin (tests.tar.xz of .device/shapes, staged
# by ../2026-12-02-h200-block-shapes/stage.sh): `tail` with its grids laid over the domain
# (dfa5303 and later): the 1-D kernel (256 threads in x), and the 2-D kernel with --block-shape
# 32x8 and 16x16 and --block-size 256, at the 4K frame and at 11520 x 5760; compute-sanitizer
# memcheck of the 2-D kernel's tail at 32x8. One archive, $OUT/call.tgz, and the tails of its
# files in $OUT/tails.txt.
set -u
FINAL=$OUT
OUT=$(mktemp -d)
R=$PWD
tar -xJf gpu-bin/tests.tar.xz
B=$R/.device/shapes/target/release/block-size
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# binaries of $(cat .device/shapes/COMMIT) ($(cat .device/shapes/STATE))"
    for size in "" "--width 11520 --height 5760"; do
        for args in "tail --provenance" "tail --kernel grayscale_2d --block-shape 32x8" \
                    "tail --kernel grayscale_2d --block-shape 16x16" "tail --kernel grayscale_2d --block-size 256"; do
            echo "\$ block-size $args $size"
            $B $args $size
            echo "exit status $?"
        done
    done
} > "$OUT/tail.txt" 2>&1
{
    echo "\$ compute-sanitizer --tool memcheck --error-exitcode 9 block-size tail --kernel grayscale_2d --block-shape 32x8 --width 512 --height 256 --waves 0.5,1,1.1 --runs 2 --warmups 1"
    compute-sanitizer --tool memcheck --error-exitcode 9 $B tail --kernel grayscale_2d --block-shape 32x8 --width 512 --height 256 --waves 0.5,1,1.1 --runs 2 --warmups 1
    echo "exit status $?"
} > "$OUT/memcheck.txt" 2>&1
tar -czf "$FINAL/call.tgz" -C "$OUT" .
for f in "$OUT"/*.txt; do echo "==> $(basename "$f")"; tail -n 16 "$f"; done > "$FINAL/tails.txt"
