#!/usr/bin/env bash
# On the H200, from the repository root, carrying gpu-bin (tests.tar.xz: .device/shapes and
# .device/blur, staged by ../2026-12-04-h200-blur-shapes/stage.sh; block_size.cu, the seed,
# copied from ../shared/seeds): after issue 44's moves (the device session, the supervisor's
# environment read at the edge, measure/ in folders): the GPU tests of the CLI and of the
# example (REQUIRE_GPU=1), and the default sweep against block_size.cu, alternating, two rounds:
# the seed, block-size (graph timing, the default), block-size --timing batch (the seed's own
# method: one event pair around 10 launches). One archive, $OUT/call.tgz; compare.py reads it.
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
tar -czf "$FINAL/call.tgz" -C "$W" seed-against-rust.txt gpu-tests-shapes.txt gpu-tests-blur.txt
for f in "$W"/*.txt; do echo "==> $(basename "$f")"; tail -n 4 "$f"; done
