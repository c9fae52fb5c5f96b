#!/usr/bin/env bash
# Stages the release reduce-example of this worktree, stripped, into /work/main/.device/axes/
# (git-ignored there), which the device call carries, with the commit it was built at.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=/work/main/.device/axes
mkdir -p "$dest"
(cd "$repo" && cargo build --release --locked -p reduce-example)
strip -o "$dest/reduce-example" "$repo/target/release/reduce-example"
cp "$repo/evidence/2026-12-01-h200-race/run.sh" "$dest/run.sh"
git -C "$repo" rev-parse HEAD > "$dest/COMMIT"
ls -la "$dest"
