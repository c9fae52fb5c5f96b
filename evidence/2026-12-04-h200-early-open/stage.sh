#!/usr/bin/env bash
# Run HERE (no GPU needed) before the device call: builds reduce-example at BEFORE (default
# faf8966, the last commit without open_early) in a git worktree, then stages the Kernel Tuner
# carry, both GPU test suites and the probe of HEAD (../2026-12-03-h200-kernel-tuner/next-call.sh),
# adds reduce-example-before, BEFORE, ab.sh and ab-summary.py to that carry and packs it all again
# into .device/pack/all.tar.xz. Then the device call, carrying .device/pack, from the
# repository root:
#     bash evidence/2026-12-04-h200-early-open/on-device.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
before=${BEFORE:-faf8966}
cd "$repo"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
tree=$(mktemp -d)
kept=$(mktemp -d)
git worktree add --detach "$tree" "$before" > /dev/null
cargo build --release --locked -p reduce-example --manifest-path "$tree/Cargo.toml"
strip -o "$kept/reduce-example" "$CARGO_TARGET_DIR/release/reduce-example"
git -C "$tree" rev-parse HEAD > "$kept/BEFORE"
git worktree remove --force "$tree"
bash "$here/../2026-12-03-h200-kernel-tuner/next-call.sh"
mv "$kept/reduce-example" .device-carry/kt/reduce-example-before
mv "$kept/BEFORE" .device-carry/kt/BEFORE
cp "$here/ab.sh" "$here/ab-summary.py" .device-carry/kt/
rm -rf .device/pack && mkdir -p .device/pack
tar cJf .device/pack/all.tar.xz .device-carry/kt .device/shapes .device/transpose
cat .device-carry/kt/BEFORE .device-carry/kt/COMMIT
ls -la .device/pack
