#!/usr/bin/env bash
# The convergent barrier on the H200: run by the device tool from the repository root, with
# gpu-bin/bin.tar.xz carried (stage.sh packs it: release binaries built on a machine without a
# GPU, stripped). Part 1: compute-sanitizer on every kernel whose PTX changed, then `compare` of
# three `block-size new --cuda` projects at n = 2^24 and 2^26:
#   old  - the template of 7b1698f: asm! barrier, its loop split on the thread index (5 barriers),
#          built with this commit's runner, so that compare names the split;
#   fix1 - the same kernel with this commit's barrier.rs (llvm.nvvm.barrier.sync), one value a
#          thread, against the same nvcc twin;
#   new  - this commit's template: the convergent barrier and 4 values a thread (ITEMS), its twin too;
# and the `new` and `fix1` sweeps at 2^26 beside a device-to-device copy of the same bytes
# (`block-size variants` at 8192 x 4096 pixels: 512 MiB a pass, as stencil3 moves at 2^26).
# Part 2: compute-sanitizer again (part 1's transcript was one file too many to come back),
# `fix1` again (part 1's fix1 binary held old's PTX: its provenance says 8d90d87b; see stage.sh),
# then this repository's kernels against their C++ twins (compare, variants).
#   on-device.sh 1|2     writes its transcripts into $OUT
set -uo pipefail
part=${1:?part 1 or 2}
bins=/tmp/bins
mkdir -p "$bins"
[ -x "$bins/new/proj-cuda" ] || tar -xJf gpu-bin/bin.tar.xz -C "$bins"
out=${OUT:?}
run() {
    echo "\$ $*"
    "$@"
    echo "exit status $?"
    echo
}
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    compute-sanitizer --version | head -2
    cat "$bins/MANIFEST"
} >"$out/env-$part.txt" 2>&1

sanitize() {
    {
        for tool in memcheck racecheck synccheck; do
            for v in new fix1; do
                run compute-sanitizer --tool "$tool" --error-exitcode 9 "$bins/$v/proj-cuda" compare \
                    --n 100003 --block-sizes 32,100,256,1024 --rounds 1 --warmups 0
            done
            run compute-sanitizer --tool "$tool" --error-exitcode 9 "$bins/reduce/stencil-example" \
                --block-sizes 32,100,256,1024 --runs 1 --warmups 0
            run compute-sanitizer --tool "$tool" --error-exitcode 9 "$bins/reduce/transpose-example" \
                --runs 1 --warmups 0
        done
    } >"$out/sanitizer.txt" 2>&1
}

if [ "$part" = 1 ]; then
    sanitize
    for n in 16777216 67108864; do
        for v in old fix1 new; do
            run "$bins/$v/proj-cuda" compare --n "$n" --provenance >"$out/compare-$v-$n.txt" 2>&1
        done
    done
    {
        run "$bins/block-size/block-size" variants --width 8192 --height 4096 --provenance
        for v in fix1 new; do
            run "$bins/$v/proj-cuda" --n 67108864 --provenance
        done
    } >"$out/against-copy.txt" 2>&1
else
    sanitize
    for n in 16777216 67108864; do
        run "$bins/fix1/proj-cuda" compare --n "$n" --provenance >"$out/compare-fix1-$n.txt" 2>&1
    done
    {
        run "$bins/fix1/proj-cuda" --n 67108864 --provenance
        run "$bins/reduce/stencil-example" --provenance
        run "$bins/reduce/transpose-example" --provenance
    } >"$out/sweeps.txt" 2>&1
    {
        run "$bins/block-size/block-size" compare --provenance
        run "$bins/block-size/block-size" compare --width 11520 --height 5760
        run "$bins/block-size/block-size" compare --kernel grayscale_2d
        run "$bins/block-size/block-size" compare --kernel histogram --bins 256
        run "$bins/block-size/block-size" compare --kernel histogram --bins 4096
    } >"$out/compare-builtin.txt" 2>&1
    {
        run "$bins/block-size/block-size" variants --provenance
        run "$bins/block-size/block-size" variants --kernel histogram --bins 256
        run "$bins/block-size/block-size" variants --kernel histogram --bins 4096
    } >"$out/variants-builtin.txt" 2>&1
fi
ls -la "$out"
