#!/usr/bin/env bash
# Issue 43: where a sweep's fixed cost (the "process floor", about 450 ms in every call of
# ../2026-12-04-h200-time-to-answer) goes, on the H200, from the repository root, carrying
# gpu-bin (tests.tar.xz: .device/shapes, staged by ../2026-12-04-h200-blur-shapes/stage.sh).
# Alternating, five rounds, wall time by date +%s%N:
#   cuda_floor  the driver alone (cuda_floor.c: cuInit, context, the PTX module, 2 x L2, teardown)
#   help        block-size --help (the launcher alone: no driver)
#   worker      block-size-cuda with the floor's arguments (the worker alone, unsupervised)
#   floor       block-size --block-sizes 256 --runs 1 --warmups 0 (launcher, supervisor, worker)
# then one floor run under strace -f -tt (where strace exists). Writes $OUT/floor.tgz.
set -u
FINAL=$OUT
W=$(mktemp -d)
R=$PWD
[ -d .device/shapes ] || tar -xJf gpu-bin/tests.tar.xz
export PATH="$PATH:/usr/local/cuda/bin"
B=$R/.device/shapes/target/release
FLOOR=(--block-sizes 256 --runs 1 --warmups 0)
nvcc -O2 -o "$W/cuda_floor" evidence/2026-12-05-h200-floor/cuda_floor.c -lcuda || exit 1
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm --format=csv,noheader)"
    echo "# cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
    echo "# binaries of $(cat .device/shapes/COMMIT) ($(cat .device/shapes/STATE))"
    echo "# kernels/ptx/grayscale.ptx sha256 $(sha256sum kernels/ptx/grayscale.ptx | cut -c1-64)"
    echo "# cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
} > "$W/head.txt"
timed() { # name, program, args...
    local name=$1; shift
    local s; s=$(date +%s%N)
    "$@" > "$W/$name-$round.txt" 2>&1
    local c=$?
    echo "$name $round: exit $c, wall $(( ($(date +%s%N) - s) / 1000000 )) ms" >> "$W/walls.txt"
}
# The first process JITs the PTX into the driver's cache; the rest find it there.
round=0 timed cold-floor "$B/block-size" "${FLOOR[@]}" --stats
for round in 1 2 3 4 5; do
    timed cuda_floor "$W/cuda_floor" kernels/ptx/grayscale.ptx
    timed help "$B/block-size" --help
    timed worker "$B/block-size-cuda" "${FLOOR[@]}" --stats
    timed floor "$B/block-size" "${FLOOR[@]}" --stats
done
if command -v strace >/dev/null; then
    strace -f -tt -o "$W/strace-floor.txt" "$B/block-size" "${FLOOR[@]}" --stats > "$W/strace-run.txt" 2>&1
    gzip -9 "$W/strace-floor.txt"
else
    echo "no strace on this machine" > "$W/strace-run.txt"
fi
cat "$W/head.txt" "$W/walls.txt"
grep -h "^cuInit\|^Time:" "$W"/cuda_floor-*.txt "$W"/worker-*.txt "$W"/floor-*.txt
tar -czf "$FINAL/floor.tgz" -C "$W" .
