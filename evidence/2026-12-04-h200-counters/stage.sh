#!/usr/bin/env bash
# Stages what run.sh runs on a GPU machine, built here without a GPU (the device has no Rust):
# the release block-size and block-size-cuda and the CLI's GPU test binary (cli/tests/gpu.rs)
# and a fresh `block-size new --cuda` project's launcher and worker (scaf, scaf-cuda)
# into .device/counters/ (git-ignored), with the
# commit they were built at. Then, on the device:
#   bash evidence/2026-12-04-h200-counters/run.sh      (carrying .device/counters; $OUT set)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.device/counters
rm -rf "$dest" && mkdir -p "$dest/target/release"
cd "$repo"
mkdir -p "$dest/target/release/deps"
cargo build --release --locked -p block-size
built=$(cargo test --release --locked --no-run -p block-size --test gpu 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p')
for binary in block-size block-size-cuda; do
    strip -o "$dest/target/release/$binary" "target/release/$binary"
done
for test in $built; do
    cp "$test" "$dest/target/release/deps/"
done
# A fresh `block-size new --cuda` project built in release: its launcher and worker, for
# `compare --counters` of the scaffold's kernel against its CUDA C++ twin.
project=$(mktemp -d)/scaf
target/release/block-size new "$project" --cuda
(cd "$project" && CARGO_TARGET_DIR=${SCAF_TARGET:-/tmp/scaf-target} cargo build --release)
for binary in scaf scaf-cuda; do
    strip -o "$dest/target/release/$binary" "${SCAF_TARGET:-/tmp/scaf-target}/release/$binary"
done
git rev-parse HEAD > "$dest/COMMIT"
git status --porcelain --untracked-files=no | wc -l | sed 's/^/# uncommitted tracked files: /' > "$dest/STATE"
ls -la "$dest/target/release"
