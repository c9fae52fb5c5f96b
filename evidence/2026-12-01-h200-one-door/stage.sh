#!/usr/bin/env bash
# Stages what run.sh runs on a GPU machine, built here without a GPU (the device has no Rust):
# the release block-size, block-size-cuda and reduce-example, the GPU test binaries of both
# (cli/tests/gpu.rs, examples/reduce/tests/gpu.rs), and a project made by
# `block-size new --cuda` (its launcher and worker), into .device/one-door/ (git-ignored),
# with the commit they were built at. Then, on the device:
#   bash evidence/2026-12-01-h200-one-door/run.sh      (carrying .device/one-door; $OUT set)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.device/one-door
rm -rf "$dest" && mkdir -p "$dest/target/release/deps"
cd "$repo"
cargo build --release --locked -p block-size -p reduce-example
# The GPU tests, compiled against the release binaries they run (assert_cmd finds them beside
# the test binary's folder).
built=$(cargo test --release --locked --no-run -p block-size -p reduce-example --test gpu 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p')
for binary in block-size block-size-cuda reduce-example stencil-example faults-example faults-example-cuda; do
    strip -o "$dest/target/release/$binary" "target/release/$binary"
done
for test in $built; do
    cp "$test" "$dest/target/release/deps/"
done
# A scaffold with its CUDA C++ twin, as a new user makes one.
project=$(mktemp -d)/stencil-demo
target/release/block-size new "$project" --cuda
(cd "$project" && CARGO_TARGET_DIR="$repo/target/one-door-scaffold" cargo build --release 2>&1 | tail -1)
for binary in stencil-demo stencil-demo-cuda; do
    strip -o "$dest/$binary" "$repo/target/one-door-scaffold/release/$binary"
done
git rev-parse HEAD > "$dest/COMMIT"
git status --porcelain --untracked-files=no | wc -l | sed 's/^/# uncommitted tracked files: /' > "$dest/STATE"
ls -la "$dest" "$dest/target/release" "$dest/target/release/deps"
