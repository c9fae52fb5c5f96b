#!/usr/bin/env bash
# Stages what run.sh runs on a GPU machine, built here without a GPU (the device has no Rust), into
# .device/why/ (git-ignored): the release block-size and block-size-cuda, the CLI's GPU test binary
# (cli/tests/gpu.rs), and two `block-size new --cuda` projects' launchers and workers:
#   scaf - the template as this commit writes it (convergent barrier, 4 values a thread);
#   old  - the template of 7b1698f (its src/lib.rs, kernels/src, ptx/ and cuda/: the asm! barrier,
#          whose loop rust-cuda's pipeline splits on the thread index around its barriers, 5
#          barriers where the source has 2), built against this commit's runner, as
#          evidence/2026-12-04-h200-convergent did, so that `compare --counters` reads the split.
# Then, on the device: bash evidence/2026-12-04-h200-counters-why/run.sh (carrying .device/why).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$repo/.device/why
rm -rf "$dest" && mkdir -p "$dest/target/release/deps"
cd "$repo"
cargo build --release --locked -p block-size
built=$(cargo test --release --locked --no-run -p block-size --test gpu 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p')
for binary in block-size block-size-cuda; do
    strip -o "$dest/target/release/$binary" "target/release/$binary"
done
for test in $built; do
    cp "$test" "$dest/target/release/deps/"
done
projects=$(mktemp -d)
for name in scaf old; do
    target/release/block-size new "$projects/$name" --cuda >/dev/null
done
# The 7b1698f template's files over the fresh project's, its `//@ if --cuda` lines dropped (the
# blocks kept, as --cuda keeps them) and its placeholder name replaced, as `block-size new` does.
for file in src/lib.rs kernels/src/lib.rs kernels/src/barrier.rs ptx/kernels.ptx ptx/kernels.stamp.toml \
    ptx/stencil3-nvcc.ptx ptx/stencil3-nvcc.stamp.toml cuda/stencil3.cu; do
    git show "7b1698f:cli/templates/new/$file" | grep -v '^[[:space:]]*//@ \(if --cuda\|end\)$' \
        | sed 's/scaffold-name/old/g; s/scaffold_name/old/g' >"$projects/old/$file"
done
for name in scaf old; do
    (cd "$projects/$name" && CARGO_TARGET_DIR=/tmp/why-target/$name cargo build --release --quiet)
    for binary in "$name" "$name-cuda"; do
        strip -o "$dest/target/release/$binary" "/tmp/why-target/$name/release/$binary"
    done
    echo "$name: ptx/kernels.ptx sha256 $(sha256sum "$projects/$name/ptx/kernels.ptx" | cut -c1-16), barrier.sync $(grep -c 'barrier.sync' "$projects/$name/ptx/kernels.ptx")" >>"$dest/PROJECTS"
done
git rev-parse HEAD > "$dest/COMMIT"
git status --porcelain --untracked-files=no | wc -l | sed 's/^/# uncommitted tracked files: /' > "$dest/STATE"
du -sh "$dest"
cat "$dest/PROJECTS"
