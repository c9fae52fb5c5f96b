#!/usr/bin/env bash
# Stages what run.sh runs on a GPU machine, built here without a GPU (the device has no Rust):
# the release reduce-example into .device/wall/ (git-ignored), with the commit it was built at.
# Then, on the device: bash evidence/2026-12-03-h200-wall-time/run.sh (carrying .device/wall).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.device/wall
rm -rf "$dest" && mkdir -p "$dest"
cd "$repo"
cargo build --release --locked -p reduce-example
strip -o "$dest/reduce-example" target/release/reduce-example
git rev-parse HEAD > "$dest/COMMIT"
git status --porcelain --untracked-files=no | wc -l | sed 's/^/uncommitted tracked files: /' > "$dest/STATE"
ls -la "$dest"
