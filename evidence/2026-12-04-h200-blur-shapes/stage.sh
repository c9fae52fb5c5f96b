#!/usr/bin/env bash
# Stages what run.sh runs on a GPU machine, built here without a GPU (the device has no Rust):
# the example's release binaries (blur-example and its worker among them) and its GPU test
# binary (examples/reduce/tests/gpu.rs), into .device/blur/, and the CLI's GPU test binary with
# the release block-size binaries (cli/tests/gpu.rs, by ../2026-12-02-h200-block-shapes/stage.sh
# into .device/shapes), each with the commit it was built at. Then, on the device:
#   bash evidence/2026-12-04-h200-blur-shapes/run.sh      (carrying .device; $OUT set)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.device/blur
rm -rf "$dest" && mkdir -p "$dest/target/release/deps"
cd "$repo"
cargo build --release --locked -p reduce-example
built=$(cargo test --release --locked --no-run -p reduce-example --test gpu 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p')
for binary in blur-example blur-example-cuda transpose-example transpose-example-cuda reduce-example \
    reduce-example-cuda stencil-example faults-example faults-example-cuda bounds-example; do
    strip -o "$dest/target/release/$binary" "target/release/$binary"
done
for test in $built; do
    cp "$test" "$dest/target/release/deps/"
done
git rev-parse HEAD > "$dest/COMMIT"
git status --porcelain --untracked-files=no | wc -l | sed 's/^/# uncommitted tracked files: /' > "$dest/STATE"
bash "$repo/evidence/2026-12-02-h200-block-shapes/stage.sh" >/dev/null
du -sh "$repo/.device/blur" "$repo/.device/shapes"
