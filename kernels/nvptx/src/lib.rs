//! The grayscale kernel, compiled by rustc's own NVPTX backend.
//!
//! The loop and the per-pixel arithmetic are `kernels/src/grid_stride.rs` and
//! `kernels/src/luma.rs`, the same files the cuda_std kernel uses; only the reading of
//! thread and block indices differs.

#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

// KERNEL_NAME is for the host; this crate names its entry point with no_mangle.
#[allow(dead_code)]
#[path = "../../src/luma.rs"]
mod luma;

// This crate builds the one-pixel loop only; the vector and unrolled loops are cuda_std's.
#[allow(dead_code)]
#[path = "../../src/grid_stride.rs"]
mod grid_stride;

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};

/// Converts three planar float channels to grayscale; see `kernels/src/lib.rs`.
///
/// # Safety
///
/// As the cuda_std kernel: `r`, `g`, `b` point to `n` readable floats each, `out` to `n`
/// writable floats overlapping none of them.
///
/// # Parameters
///
/// `r`, `g`, `b`: input planes; `out`: output plane; `n`: pixels.
///
/// # Thread Mapping
///
/// Grid-stride over a 1D launch, starting at `blockIdx.x * blockDim.x + threadIdx.x`
/// and stepping by `gridDim.x * blockDim.x`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn grayscale(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) {
    // SAFETY: reading special registers has no preconditions.
    let (block_dim, block_idx, thread_idx, grid_dim) =
        unsafe { (_block_dim_x() as usize, _block_idx_x() as usize, _thread_idx_x() as usize, _grid_dim_x() as usize) };
    // SAFETY: forwarded from this kernel's contract; step >= 1.
    unsafe { grid_stride::grayscale(r, g, b, out, n, block_idx * block_dim + thread_idx, grid_dim * block_dim) }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
