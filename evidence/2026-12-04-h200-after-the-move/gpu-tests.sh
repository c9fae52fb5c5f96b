#!/usr/bin/env bash
# On the H200, from the repository root, carrying gpu-bin (tests.tar.xz: .device/shapes and
# .device/blur, staged by ../2026-12-04-h200-blur-shapes/stage.sh): the GPU tests of the CLI and
# of the example (REQUIRE_GPU=1) on the binaries of the commit a stop lands. One archive,
# $OUT/gpu-tests.tgz.
set -u
R=$PWD
W=$(mktemp -d)
tar -xJf gpu-bin/tests.tar.xz
export PATH="$PATH:/usr/local/cuda/bin"
# The example's test binary runs the example binaries where cargo built them: put them there.
mkdir -p "$R/target/release" && cp "$R"/.device/blur/target/release/*-example* "$R/target/release/"
for staged in shapes blur; do
    {
        echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
        echo "# binaries of $(cat .device/$staged/COMMIT) ($(cat .device/$staged/STATE))"
        echo "# command: REQUIRE_GPU=1 target/release/deps/gpu-* --test-threads=1"
        REQUIRE_GPU=1 "$R"/.device/$staged/target/release/deps/gpu-* --test-threads=1 2>&1 | grep -v "^ *[0-9]"
        echo "# exit status: ${PIPESTATUS[0]}"
    } > "$W/gpu-tests-$staged.txt" 2>&1
done
tar -czf "$OUT/gpu-tests.tgz" -C "$W" gpu-tests-shapes.txt gpu-tests-blur.txt
tail -n 4 "$W"/*.txt
