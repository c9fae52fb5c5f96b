//! The grid-stride loop of the grayscale kernel, written once for both Rust builds: the
//! cuda_std kernel in `lib.rs` (rust-cuda, libNVVM) and the `extern "ptx-kernel"` one in
//! `kernels/nvptx` (rustc's own NVPTX backend) include this file and differ only in how
//! they read their thread and block indices.

use crate::luma::luma;

/// Converts pixels `first`, `first + step`, `first + 2 step`, ... below `n`.
///
/// # Safety
///
/// `r`, `g`, `b` must each point to `n` readable `f32`s and `out` to `n` writable `f32`s
/// that overlap none of the inputs. `step` must be at least 1.
#[inline(always)]
pub unsafe fn grayscale(
    r: *const f32,
    g: *const f32,
    b: *const f32,
    out: *mut f32,
    n: usize,
    first: usize,
    step: usize,
) {
    let mut i = first;
    while i < n {
        // SAFETY: i < n, and the caller guarantees n elements behind every pointer.
        unsafe {
            *out.add(i) = luma(*r.add(i), *g.add(i), *b.add(i));
        }
        i += step;
    }
}
