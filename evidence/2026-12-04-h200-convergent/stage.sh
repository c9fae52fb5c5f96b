#!/usr/bin/env bash
# Packs gpu-bin/bin.tar.xz for on-device.sh (stripped release binaries, xz), from the repository
# root: block-size and block-size-cuda, the example's stencil-example and transpose-example, and
# the workers of three `block-size new --cuda` projects given as OLD, FIX1 and NEW (folders whose
# ptx/ is built; each is built here with `cargo build --release`, a target folder each: OLD and
# FIX1 are one package, `proj`, at two paths, and in one target folder cargo took FIX1's build for
# OLD's, fresh, so the first device call's FIX1 binary held OLD's PTX).
#   stage.sh OLD FIX1 NEW
set -euo pipefail
repo=$(pwd)
stage=$(mktemp -d)
mkdir -p "$stage/block-size" "$stage/reduce" gpu-bin
cargo build --release --locked -p block-size -p reduce-example
cp target/release/block-size target/release/block-size-cuda "$stage/block-size/"
cp target/release/stencil-example target/release/transpose-example "$stage/reduce/"
{
    echo "block-size $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- runner cli builtin kernels examples || echo ' (with changes)'), $(rustc -V)"
} >"$stage/MANIFEST"
for pair in "old:$1" "fix1:$2" "new:$3"; do
    name=${pair%%:*} project=${pair#*:}
    export CARGO_TARGET_DIR=/tmp/stage-projects-target/$name
    (cd "$project" && cargo build --release --quiet)
    package=$(sed -n 's/^name = "\(.*\)"/\1/p' "$project/Cargo.toml" | head -1)
    mkdir -p "$stage/$name"
    cp "$CARGO_TARGET_DIR/release/$package-cuda" "$stage/$name/proj-cuda"
    echo "$name: $project, ptx/kernels.ptx sha256 $(sha256sum "$project/ptx/kernels.ptx" | cut -c1-16), ptx/stencil3-nvcc.ptx sha256 $(sha256sum "$project/ptx/stencil3-nvcc.ptx" | cut -c1-16)" >>"$stage/MANIFEST"
done
strip "$stage"/*/* 2>/dev/null || true
tar -cJf gpu-bin/bin.tar.xz -C "$stage" .
ls -la gpu-bin/bin.tar.xz
cat "$stage/MANIFEST"
