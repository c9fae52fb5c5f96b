#!/usr/bin/env bash
# Stages what run.sh runs on a GPU machine, built here without a GPU (the device has no Rust):
# the release transpose-example and the example's GPU test binary
# (examples/reduce/tests/gpu.rs, with the binaries it runs), into .device/transpose/
# (git-ignored), with the commit they were built at. Then, on the device:
#   bash evidence/2026-12-02-h200-transpose/run.sh      (carrying .device/transpose; $OUT set)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.device/transpose
rm -rf "$dest" && mkdir -p "$dest/target/release/deps"
cd "$repo"
cargo build --release --locked -p reduce-example
built=$(cargo test --release --locked --no-run -p reduce-example --test gpu 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p')
for binary in transpose-example transpose-example-cuda reduce-example reduce-example-cuda stencil-example faults-example faults-example-cuda bounds-example; do
    strip -o "$dest/target/release/$binary" "target/release/$binary"
done
for test in $built; do
    cp "$test" "$dest/target/release/deps/"
done
git rev-parse HEAD > "$dest/COMMIT"
git status --porcelain --untracked-files=no | wc -l | sed 's/^/# uncommitted tracked files: /' > "$dest/STATE"
ls -la "$dest/target/release"
