#!/usr/bin/env bash
# On the H200, from the repository root, carrying gpu-bin (tests.tar.xz of
# ../2026-12-02-h200-block-shapes/stage.sh and ../2026-12-02-h200-transpose/stage.sh): the GPU
# tests of the staged commit (REQUIRE_GPU=1), and `tail` as the last runner change left it:
# the default (256 threads in x), the 2-D kernel with --block-shape 32x8 and 16x16, and
# compute-sanitizer memcheck of the 2-D kernel's tail at 32x8. One archive, $OUT/call.tgz, and
# the tails of its files in $OUT/tails.txt.
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
    for args in "tail" "tail --kernel grayscale_2d --block-shape 32x8" "tail --kernel grayscale_2d --block-shape 16x16" \
                "tail --kernel grayscale_2d --block-size 256"; do
        echo "\$ block-size $args"
        $B $args
        echo "exit status $?"
    done
} > "$OUT/tail.txt" 2>&1
{
    echo "\$ compute-sanitizer --tool memcheck --error-exitcode 9 block-size tail --kernel grayscale_2d --block-shape 32x8 --width 512 --height 256 --waves 0.5,1.1 --runs 2 --warmups 1"
    compute-sanitizer --tool memcheck --error-exitcode 9 $B tail --kernel grayscale_2d --block-shape 32x8 --width 512 --height 256 --waves 0.5,1.1 --runs 2 --warmups 1
    echo "exit status $?"
} > "$OUT/memcheck.txt" 2>&1
bash evidence/2026-12-02-h200-block-shapes/gpu-tests.sh
tar -czf "$FINAL/call.tgz" -C "$OUT" . -C /tmp/gpu-tests .
for f in "$OUT"/*.txt /tmp/gpu-tests/*.txt; do echo "==> $(basename "$f")"; tail -n 6 "$f"; done > "$FINAL/tails.txt"
