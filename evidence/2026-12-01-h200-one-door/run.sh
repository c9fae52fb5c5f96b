#!/usr/bin/env bash
# Issue 23 ("one door") on a GPU: what stage.sh built, run on the device. The GPU tests of
# block-size and of the example programs (REQUIRE_GPU=1: nothing may be skipped); this
# repository's kernels through the sweep, compare, tail and variants as one door now runs them;
# and a project of `block-size new --cuda` as a new user runs it: its sweep, its compare
# (cuda_builder's PTX against nvcc's), its tail, its corrupt-output self-test, and
# compute-sanitizer's memcheck, racecheck and synccheck on both builds of its kernel. Every
# transcript is the programs' own output; `#` lines are this script's.
# `run.sh tests` runs the GPU tests alone, `run.sh commands` the rest (each fits one device call);
# no argument runs both.
set -u
part=${1:-all}
D=.device/one-door
B=$D/target/release
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
OUT=${OUT:-$(mktemp -d)}
# The test binaries find block-size where cargo built it (an absolute path compiled in): link
# it there, unless it is there already (the machine that built it).
if [ ! -d /work/main/target/release ] || [ -L /work/main/target/release ]; then
    mkdir -p /work/main/target && ln -sfn "$PWD/$B" /work/main/target/release
fi
header() {
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    echo "# block-size commit: $(cat $D/COMMIT); $(cat $D/STATE)"
}
run() { # file, then the command
    local file=$1; shift
    echo "################ $*" >> "$OUT/$file"
    timeout 300 "$@" >> "$OUT/$file" 2>&1
    echo "# exit status: $?" >> "$OUT/$file"
}
if [ "$part" != commands ]; then
header > "$OUT/gpu-tests.txt"
for test in "$B"/deps/gpu-*; do
    echo "################ REQUIRE_GPU=1 $test --test-threads=1" >> "$OUT/gpu-tests.txt"
    REQUIRE_GPU=1 PATH="$PATH:/usr/local/cuda/bin" timeout 500 "$test" --test-threads=1 >> "$OUT/gpu-tests.txt" 2>&1
    echo "# exit status: $?" >> "$OUT/gpu-tests.txt"
done
fi
if [ "$part" != tests ]; then
header > "$OUT/ours.txt"
run ours.txt "$B/block-size" --provenance
run ours.txt "$B/block-size" compare --provenance
run ours.txt "$B/block-size" tail --provenance
run ours.txt "$B/block-size" variants --provenance --runs 20
run ours.txt "$B/block-size" --kernel histogram --bins 256,4096 --provenance
run ours.txt "$B/block-size" variants --kernel histogram --bins 4096 --provenance --runs 20
header > "$OUT/scaffold.txt"
run scaffold.txt "$D/stencil-demo" --provenance
run scaffold.txt "$D/stencil-demo" compare --provenance
run scaffold.txt "$D/stencil-demo" compare --provenance --n 67108864 --block-sizes 128,256,512,1024
run scaffold.txt "$D/stencil-demo" tail --provenance
run scaffold.txt "$D/stencil-demo" --n 1000003 --corrupt-output 7 --runs 2 --warmups 0
header > "$OUT/sanitizer.txt"
for tool in memcheck racecheck synccheck; do
    # The worker itself: the launcher's supervisor would put a second process between.
    run sanitizer.txt "$S" --tool "$tool" --error-exitcode 99 "$D/stencil-demo-cuda" compare \
        --n 1000003 --block-sizes 1,31,32,100,256,1000,1024 --rounds 1 --warmups 0
done
fi
grep -h "^################\|exit status\|test result\|SUMMARY" "$OUT"/*.txt
