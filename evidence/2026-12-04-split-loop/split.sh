#!/usr/bin/env bash
# Where the loop is split: builds probe/ (stencil3 and tile_sums) with each barrier, and the asm
# barrier without rustc_codegen_nvvm's LLVM passes, and prints facts.py's lines for each; the IR
# and PTX stay beside this script (NAME.ll, NAME.ptx.txt). Run from the repository root after
# scripts/regenerate-ptx (which builds the codegen backend), in its environment:
#
#   eval "$(../shared/tools/regen-env)"; evidence/2026-12-04-split-loop/split.sh > evidence/2026-12-04-split-loop/split.txt
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$repo/evidence/2026-12-04-split-loop"
backend="$repo/kernels/target/release/librustc_codegen_nvvm.so"
[ -f "$backend" ] || { echo "no $backend: run scripts/regenerate-ptx first" >&2; exit 1; }
cuda="$repo/.cuda-11.8"
export CUDA_PATH="$cuda" CUDA_LIBRARY_PATH="$cuda" LD_LIBRARY_PATH="$cuda/nvvm/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
variant() {
    local name=$1 what=$2
    shift 2
    "$here/build-variant.sh" "$here/probe" "$backend" "$here/$name" "$@" >/dev/null 2>"$here/$name.stderr" ||
        { cat "$here/$name.stderr" >&2; exit 1; }
    rm "$here/$name.stderr"
    echo "== $name: $what (extra rustc flags: ${*:-none})"
    python3 "$here/facts.py" "$here/$name" stencil3 tile_sums
    echo
}
echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(cd "$repo" && git rev-parse --short HEAD), $(cd "$here/probe" && rustc -V), rust-cuda 946c91f, libNVVM $(cat "$cuda/RELEASE" 2>/dev/null || echo 11.8)"
echo
variant asm "barrier asm!(\"barrier.sync 0;\"), the default pipeline"
variant asm-no-llvm-passes "the same, without rustc_codegen_nvvm's LLVM passes (libNVVM -O3 alone)" -Cno-prepopulate-passes
variant cuda-std "cuda_std::thread::sync_threads()" --cfg barrier_cuda_std
variant probe-tid-asm "asm barrier; stencil3's thread == 0 reads %tid.x through asm inside the loop" --cfg probe_tid_asm
variant intrinsic "llvm.nvvm.barrier.sync (declared convergent by LLVM)" --cfg barrier_intrinsic
