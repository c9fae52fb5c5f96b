#!/usr/bin/env bash
# On the H200, from the repository root, carrying .device-carry/scaf and gpu-bin (stage.sh):
#   1. the project's scripts/build-cuda-twin --out twin with the machine's own nvcc (CUDA 13.0
#      at /usr/local/cuda, found without NVCC), at the ISA it writes;
#   2. `scaf compare --cuda-ptx twin/stencil3-nvcc.ptx` (the twin loaded at run time) and
#      `scaf compare` (the embedded nvcc 11.8 twin), alternating, two rounds each, with
#      --provenance and --json; then a sweep of the Rust kernel;
#   3. compute-sanitizer memcheck of the worker comparing the run-time twin;
#   4. the GPU tests of the staged commit (REQUIRE_GPU=1; the examples now launchers).
# Everything in one archive, $OUT/call.tgz (the device tool brings back at most eight files),
# and its text outputs' tails in $OUT/tails.txt. PART=rest runs steps 1 and 3 alone and packs the
# GPU tests' outputs of an earlier call (/tmp/gpu-tests on a machine still warm).
set -u
FINAL=$OUT
OUT=$(mktemp -d)
R=$PWD
S=$R/.device-carry/scaf
cd "$S" || exit 1
{
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# cuda: $(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p')"
    sed 's/^/# /' COMMIT
    echo "\$ scripts/build-cuda-twin --out twin"
    env -u NVCC -u CUDA_PATH scripts/build-cuda-twin --out twin
    echo "exit status $?"
    sed -n '1,/^\.address_size/p' twin/stencil3-nvcc.ptx | grep -E '^\.(version|target)|^//'
    cat twin/stencil3-nvcc.stamp.toml
} > "$OUT/twin-build.txt" 2>&1
cat "$OUT/twin-build.txt"
[ "${PART:-}" = rest ] || for round in 1 2; do
    for which in runtime embedded; do
        args="compare --rounds 30 --provenance --json $OUT/compare-$which-$round.json"
        [ $which = runtime ] && args="$args --cuda-ptx twin/stencil3-nvcc.ptx"
        { echo "\$ scaf $args"; ./scaf $args; echo "exit status $?"; } > "$OUT/compare-$which-$round.txt" 2>&1
        tail -n 3 "$OUT/compare-$which-$round.txt"
    done
done
{ echo "\$ scaf --block-sizes 64,128,256,512,1024 --provenance"; ./scaf --block-sizes 64,128,256,512,1024 --provenance; echo "exit status $?"; } > "$OUT/sweep.txt" 2>&1
{
    echo "\$ compute-sanitizer --tool memcheck --error-exitcode 9 scaf-cuda compare --cuda-ptx twin/stencil3-nvcc.ptx --n 100003 --block-sizes 64,256,1024 --rounds 2"
    compute-sanitizer --tool memcheck --error-exitcode 9 ./scaf-cuda compare --cuda-ptx twin/stencil3-nvcc.ptx --n 100003 --block-sizes 64,256,1024 --rounds 2
    echo "exit status $?"
} > "$OUT/memcheck.txt" 2>&1
tail -n 3 "$OUT/memcheck.txt"
cd "$R" || exit 1
if [ "${PART:-}" = rest ]; then
    tar -czf "$OUT/gpu-tests.tgz" -C /tmp/gpu-tests .
else
    tar -xJf gpu-bin/tests.tar.xz
    bash evidence/2026-12-02-h200-block-shapes/gpu-tests.sh
fi
tar -czf "$FINAL/call.tgz" -C "$OUT" .
for f in "$OUT"/*.txt; do echo "==> $(basename "$f")"; tail -n 4 "$f"; done > "$FINAL/tails.txt"
