//! The GPU side of the block-size sweep: one grid-stride grayscale kernel.
//!
//! Built by `kernels/builder` with rust-cuda's `cuda_builder` for `compute_75`; the PTX is
//! committed in `kernels/ptx/` and embedded by the host runner.

use cuda_std::prelude::*;

pub mod grid_stride;
pub mod luma;

/// Converts three planar float channels to grayscale: `out[i] = luma(r[i], g[i], b[i])`.
///
/// # Safety
///
/// `r`, `g` and `b` must each point to `n` readable `f32` values in device memory, and
/// `out` to `n` writable `f32` values that overlap none of the inputs. The kernel reads
/// and writes nothing else.
///
/// # Parameters
///
/// - `r`, `g`, `b`: the red, green and blue planes, `n` values each.
/// - `out`: the luma plane, `n` values, every one of them written.
/// - `n`: the number of pixels.
///
/// # Thread Mapping
///
/// Grid-stride loop over a 1D launch: thread `blockIdx.x * blockDim.x + threadIdx.x`
/// takes that pixel, then steps by the whole grid (`gridDim.x * blockDim.x`) until it
/// passes `n`. Any grid and any block size cover every pixel exactly once, which is what
/// lets the runner change the block size, and only the block size, between rows.
/// Consecutive lanes take consecutive pixels, so each warp's loads and stores coalesce
/// into 128 contiguous bytes per plane at every block size. Indices are `usize` (64-bit),
/// so frames past 2^32 pixels are covered too.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn grayscale(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let block_dim = thread::block_dim_x() as usize;
    let first = thread::block_idx_x() as usize * block_dim + thread::thread_idx_x() as usize;
    let step = thread::grid_dim_x() as usize * block_dim;
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { grid_stride::grayscale(r, g, b, out, n, first, step) }
}
