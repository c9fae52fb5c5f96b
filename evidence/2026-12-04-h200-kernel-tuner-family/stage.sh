#!/usr/bin/env bash
# Run HERE (no GPU needed): builds block-size and its worker block-size-cuda (release), downloads
# the wheels of ../2026-12-03-h200-kernel-tuner/wheels.txt for the device (Python 3.12, manylinux
# x86_64; the device has Python but no internet), and puts everything the device call needs into
# one carry folder, .device-carry/kt-family (git-ignored): block-size, block-size-cuda (stripped),
# wheels/, grayscale.cu, tune_family.py, run.sh, summarize.py, wheels.txt, COMMIT (the commit and
# any uncommitted changes) and SHA256SUMS. Then, on the device:
#     cd .device-carry/kt-family && OUT=$OUT bash run.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
carry=${CARRY:-$repo/.device-carry/kt-family}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
python=${PYTHON:-python3}
wheels=$here/../2026-12-03-h200-kernel-tuner/wheels.txt

if ! git -C "$repo" check-ignore -q "$carry"; then
    echo "stage.sh: $carry is not ignored by git; refusing to fill it" >&2
    exit 1
fi
cargo build --release --locked -p block-size --manifest-path "$repo/Cargo.toml"
rm -rf "$carry"
mkdir -p "$carry/wheels"
grep -v '^#' "$wheels" | awk 'NF { print $1 }' | while read -r requirement; do
    "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
        --dest "$carry/wheels" "$requirement"
done
# block-size is a launcher over block-size-cuda, which it starts from its own folder: both.
cp "$CARGO_TARGET_DIR/release/block-size" "$CARGO_TARGET_DIR/release/block-size-cuda" "$carry/"
strip "$carry/block-size" "$carry/block-size-cuda"
cp "$repo/kernels/cuda/grayscale.cu" "$here/tune_family.py" "$here/run.sh" "$here/summarize.py" "$wheels" "$carry/"
{
    git -C "$repo" rev-parse HEAD
    git -C "$repo" status --porcelain | sed 's/^/dirty: /'
} > "$carry/COMMIT"
(cd "$carry" && sha256sum block-size block-size-cuda grayscale.cu tune_family.py run.sh summarize.py wheels.txt wheels/*.whl > SHA256SUMS)
# The launcher starts here (--help needs no driver).
"$carry/block-size" --help > /dev/null
ls -la "$carry" "$carry/wheels"
cat "$carry/COMMIT"
size=$(du -sb "$carry" | cut -f1)
echo "carry: $carry, $((size / 1024 / 1024)) MiB ($size bytes)"
if [ "$size" -gt $((60 * 1024 * 1024)) ]; then
    echo "stage.sh: the carry is over 60 MiB" >&2
    exit 1
fi
