#!/usr/bin/env bash
# Run HERE (no GPU needed): builds reduce-example (release), downloads the wheels of wheels.txt
# for the device (Python 3.12, manylinux x86_64), and puts everything the device call needs
# into one carry folder: wheels/, reduce-example, reduce.cu, tune.py, run.sh, summarize.py,
# wheels.txt and COMMIT. Then, on the device, from that folder: OUT=... bash run.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
carry=${CARRY:-$repo/.device-carry/kt}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
python=${PYTHON:-python3}

cargo build --release --locked -p reduce-example --manifest-path "$repo/Cargo.toml"
rm -rf "$carry"
mkdir -p "$carry/wheels"
grep -v '^#' "$here/wheels.txt" | awk 'NF { print $1 }' | while read -r requirement; do
    "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
        --dest "$carry/wheels" "$requirement"
done
# reduce-example is a launcher over reduce-example-cuda (since issue 46): both, side by side.
cp "$CARGO_TARGET_DIR/release/reduce-example" "$CARGO_TARGET_DIR/release/reduce-example-cuda" "$carry/"
strip "$carry/reduce-example" "$carry/reduce-example-cuda" 2>/dev/null || true
cp "$repo/examples/reduce/cuda/reduce.cu" "$here/tune.py" "$here/run.sh" "$here/summarize.py" "$here/wheels.txt" "$carry/"
cp "$repo/examples/reduce/ptx/reduce-nvcc.ptx" "$repo/examples/reduce/ptx/reduce.ptx" "$carry/"
{
    git -C "$repo" rev-parse HEAD
    git -C "$repo" status --porcelain | sed 's/^/dirty: /'
} > "$carry/COMMIT"
(cd "$carry" && sha256sum reduce-example reduce-example-cuda reduce.cu reduce.ptx reduce-nvcc.ptx tune.py run.sh summarize.py > SHA256SUMS)
ls -la "$carry" "$carry/wheels"
du -sh "$carry"
