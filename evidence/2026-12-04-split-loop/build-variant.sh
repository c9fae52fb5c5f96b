#!/usr/bin/env bash
# Builds a cuda_std kernels crate to PTX the way cuda_builder 946c91f does (its invoke_rustc's
# flags, copied here), plus extra rustc flags, and writes the LLVM IR that rustc_codegen_nvvm
# hands to libNVVM (--emit=llvm-ir) and the PTX that libNVVM writes from it.
#
#   build-variant.sh CRATE_DIR BACKEND_SO OUT_PREFIX [EXTRA_RUSTC_FLAG...]
#
# CRATE_DIR: a kernels crate (its rust-toolchain.toml picks the nightly with rustc-dev);
# BACKEND_SO: librustc_codegen_nvvm.so as `scripts/build-ptx` built it (kernels/target/release/);
# writes OUT_PREFIX.ll and OUT_PREFIX.ptx.txt (not .ptx: tests/tests/barriers.rs reads every .ptx of the
# repository as a committed module with a stamp). Needs the environment of scripts/build-ptx: LLVM 7's
# libraries are linked into the backend, libNVVM 11.8 on LD_LIBRARY_PATH (CUDA_PATH).
set -euo pipefail
crate=$(cd "$1" && pwd); backend=$(realpath "$2"); out=$3; shift 3
target=$(mktemp -d)
sysroot=$(cd "$crate" && rustc --print sysroot)
flags=(
    "-Zcodegen-backend=$backend" -Zunstable-options
    "-Zcrate-attr=feature(register_tool)" "-Zcrate-attr=register_tool(nvvm_internal)"
    "-Zcrate-attr=no_std" -Zsaturating_float_casts=false -Cpanic=immediate-abort
    --emit=llvm-ir "-Cllvm-args=-arch=compute_75" "$@"
)
encoded=$(printf '%s\x1f' "${flags[@]}"); encoded=${encoded%$'\x1f'}
(cd "$crate" && CARGO_FEATURE_NO_F16_F128=1 CARGO_ENCODED_RUSTFLAGS="$encoded" \
    LD_LIBRARY_PATH="$sysroot/lib:${LD_LIBRARY_PATH:-}" \
    cargo build --lib --release -Zbuild-std=core,alloc --target=nvptx64-nvidia-cuda \
        --target-dir "$target" --quiet)
deps="$target/nvptx64-nvidia-cuda/release/deps"
ll=$(ls "$deps"/kernels*.ll | head -1)
cp "$ll" "$out.ll"
cp "$target/nvptx64-nvidia-cuda/release/kernels.ptx" "$out.ptx.txt"
rm -rf "$target"
echo "wrote $out.ll and $out.ptx.txt"
