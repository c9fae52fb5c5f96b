#!/usr/bin/env bash
# On the H200, from the repository root, carrying gpu-bin (tests.tar.xz: .device/shapes and
# .device/blur, staged by ../2026-12-04-h200-blur-shapes/stage.sh; block_size.cu, the seed,
# copied from ../shared/seeds): after issue 44's function splits and the engines' move into search/ (no runner function over 80
# lines; measure_in, the rungs, compare's rounds, the CUDA backend's open and execute split): the GPU tests of the CLI and of the
# example (REQUIRE_GPU=1), and the default sweep against block_size.cu, alternating, two rounds:
# the seed, block-size (graph timing, the default), block-size --timing batch (the seed's own
# method: one event pair around 10 launches); then the searches whose loops moved, exhaustive
# and rungs alternating, two rounds (the grayscale family; the reduce example's 192
# configurations), and compare, tail and variants (their engines moved into search/). One
# archive, $OUT/call.tgz; ../2026-12-04-h200-after-the-move/compare.py reads its seed file.
set -u
FINAL=$OUT
W=$(mktemp -d)
R=$PWD
tar -xJf gpu-bin/tests.tar.xz
export PATH="$PATH:/usr/local/cuda/bin"
B=$R/.device/shapes/target/release/block-size
stamp() { echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"; }
nvcc -std=c++17 -O3 -arch=sm_90 -o "$W/block_size" gpu-bin/block_size.cu || exit 1
{
    echo "# binaries of $(cat .device/shapes/COMMIT) ($(cat .device/shapes/STATE))"
    echo "# seed: block_size.cu sha256 $(sha256sum gpu-bin/block_size.cu | cut -c1-64), built: nvcc -std=c++17 -O3 -arch=sm_90 ($(nvcc --version | tail -1))"
    for round in 1 2; do
        echo "################ round $round: block_size.cu"; stamp; "$W/block_size"; echo "# exit status: $?"
        echo "################ round $round: block-size"; "$B" --provenance; echo "# exit status: $?"
        echo "################ round $round: block-size --timing batch"; "$B" --timing batch; echo "# exit status: $?"
    done
} > "$W/seed-against-rust.txt" 2>&1
# The example's test binary runs the example binaries where cargo built them: put them there.
mkdir -p "$R/target/release" && cp "$R"/.device/blur/target/release/*-example* "$R/target/release/"
for staged in shapes blur; do
    {
        stamp; echo "# binaries of $(cat .device/$staged/COMMIT) ($(cat .device/$staged/STATE))"
        echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
        REQUIRE_GPU=1 "$R"/.device/$staged/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
        echo "# exit status: ${PIPESTATUS[0]}"
    } > "$W/gpu-tests-$staged.txt" 2>&1
done
AXES=(--block-sizes "$(seq -s, 32 32 1024)" --grids one-wave,waves:2,waves:4)
{
    echo "# binaries of $(cat .device/shapes/COMMIT) and $(cat .device/blur/COMMIT)"
    for round in 1 2; do
        for search in exhaustive rungs; do
            echo "################ round $round: block-size --grid per-item --vector-width 1,4 --pixels-per-thread 1,2,4,8 --search $search --stats"
            stamp; "$B" --grid per-item --vector-width 1,4 --pixels-per-thread 1,2,4,8 --search $search --stats; echo "# exit status: $?"
            echo "################ round $round: reduce-example ${AXES[*]} --source rust --search $search --stats"
            "$R/.device/blur/target/release/reduce-example" "${AXES[@]}" --source rust --search $search --stats; echo "# exit status: $?"
        done
    done
    for command in compare tail variants; do
        echo "################ block-size $command"; stamp; "$B" $command; echo "# exit status: $?"
    done
} > "$W/searches.txt" 2>&1
tar -czf "$FINAL/call.tgz" -C "$W" seed-against-rust.txt gpu-tests-shapes.txt gpu-tests-blur.txt searches.txt
for f in "$W"/*.txt; do echo "==> $(basename "$f")"; tail -n 4 "$f"; done
