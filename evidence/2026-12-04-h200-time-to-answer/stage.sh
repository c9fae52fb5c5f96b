#!/usr/bin/env bash
# Packs gpu-bin/bin.tar.xz for bench.sh (stripped release binaries, xz), from the repository
# root: block-size and reduce-example of the working tree ("new") and of commit OLD, built in
# a worktree with a target folder of its own ("old").
#   evidence/2026-12-04-h200-time-to-answer/stage.sh OLD
set -euo pipefail
old=$1
stage=$(mktemp -d)
mkdir -p "$stage/new" "$stage/old" gpu-bin
cargo build --release --locked -p block-size -p reduce-example
target=${CARGO_TARGET_DIR:-target}
cp "$target/release/block-size" "$target/release/block-size-cuda" "$target/release/reduce-example" "$stage/new/"
# reduce-example is a launcher over reduce-example-cuda since issue 46; an older commit has none.
cp "$target/release/reduce-example-cuda" "$stage/new/" 2>/dev/null || true
if [ ! -d /tmp/wt-old ]; then git worktree add /tmp/wt-old "$old"; fi
ln -sfn "$(pwd)/.cuda" /tmp/wt-old/.cuda
(cd /tmp/wt-old && git checkout --quiet "$old" && CARGO_TARGET_DIR=/tmp/old-target cargo build --release --locked -p block-size -p reduce-example)
cp /tmp/old-target/release/block-size /tmp/old-target/release/block-size-cuda /tmp/old-target/release/reduce-example "$stage/old/"
cp /tmp/old-target/release/reduce-example-cuda "$stage/old/" 2>/dev/null || true
{
    echo "new: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- runner cli builtin kernels examples || echo ' (with changes)'), $(rustc -V)"
    echo "old: $(git rev-parse --short "$old")"
    echo "kernels/ptx/grayscale.ptx sha256 $(sha256sum kernels/ptx/grayscale.ptx | cut -c1-16)"
} >"$stage/MANIFEST"
strip "$stage"/*/* 2>/dev/null || true
tar -cJf gpu-bin/bin.tar.xz -C "$stage" .
ls -la gpu-bin/bin.tar.xz
cat "$stage/MANIFEST"
