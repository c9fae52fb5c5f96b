#!/usr/bin/env bash
# Stages, here (no GPU), what call.sh runs on the H200 (issue 46: the twin built where nvcc is):
# a fresh `block-size new --cuda` project built in release (its launcher and worker), with its
# cuda/ source, committed ptx/ and scripts/build-cuda-twin, into .device-carry/scaf/; and the
# GPU tests of this commit (../2026-12-02-h200-block-shapes/stage.sh and
# ../2026-12-02-h200-transpose/stage.sh, packed as gpu-bin/tests.tar.xz).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
cargo build --release --locked -p block-size
project=$(mktemp -d)/scaf
target/release/block-size new "$project" --cuda
(cd "$project" && CARGO_TARGET_DIR=${SCAF_TARGET:-/tmp/scaf-target} cargo build --release)
carry=.device-carry/scaf
rm -rf "$carry" && mkdir -p "$carry"
cp -r "$project/cuda" "$project/ptx" "$project/scripts" "$carry/"
strip -o "$carry/scaf" "${SCAF_TARGET:-/tmp/scaf-target}/release/scaf"
strip -o "$carry/scaf-cuda" "${SCAF_TARGET:-/tmp/scaf-target}/release/scaf-cuda"
{
    echo "block-size: $(git rev-parse HEAD)"
    git status --porcelain --untracked-files=no | wc -l | sed 's/^/uncommitted tracked files: /'
    rustc -V
} > "$carry/COMMIT"
bash evidence/2026-12-02-h200-block-shapes/stage.sh
bash evidence/2026-12-02-h200-transpose/stage.sh
mkdir -p gpu-bin && tar -cJf gpu-bin/tests.tar.xz .device/shapes .device/transpose
du -sh "$carry" gpu-bin/tests.tar.xz
