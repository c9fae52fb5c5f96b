//! The grid-stride loops of the grayscale kernels, written once for both Rust builds: the
//! cuda_std kernels in `lib.rs` (rust-cuda, libNVVM) and the `extern "ptx-kernel"` one in
//! `kernels/nvptx` (rustc's own NVPTX backend) include this file and differ only in how
//! they read their thread and block indices.
//!
//! Three shapes of the same loop: one pixel per thread per trip ([`grayscale`]); four
//! pixels per 16-byte vector access ([`grayscale_vec4`]); and `K` pixels per trip with all
//! their loads issued before the first use ([`grayscale_unrolled`]), which puts more loads
//! in flight per thread. Every shape covers every pixel for any grid, block size and `n`.

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

/// Four pixels of one plane: one 16-byte load or store.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Four(pub [f32; 4]);

/// The pixels before the first 16-byte boundary of the planes, where vector accesses can
/// start; `None` when the four planes are not equally aligned (the caller then stays scalar).
#[inline(always)]
pub fn vector_head(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) -> Option<usize> {
    let offset = r as usize % 16;
    // Written out rather than as an iterator over the three addresses, which libNVVM kept
    // as a loop in every thread's prologue.
    let same = g as usize % 16 == offset && b as usize % 16 == offset && out as usize % 16 == offset;
    if !same || offset % 4 != 0 {
        return None;
    }
    Some(((16 - offset) % 16 / 4).min(n))
}

/// Vector `v` of the body: pixels `head + 4v` to `head + 4v + 3`, read and written as
/// 16-byte accesses. Thread `first` takes vectors `first`, `first + step`, ...; the head
/// before the first 16-byte boundary and the tail of fewer than four pixels are converted
/// one pixel at a time by the same grid-stride loop as [`grayscale`]. Planes that are not
/// equally aligned go through [`grayscale`] whole.
///
/// # Safety
///
/// As [`grayscale`].
#[inline(always)]
pub unsafe fn grayscale_vec4(
    r: *const f32,
    g: *const f32,
    b: *const f32,
    out: *mut f32,
    n: usize,
    first: usize,
    step: usize,
) {
    let Some(head) = vector_head(r, g, b, out, n) else {
        // SAFETY: the caller's contract.
        return unsafe { grayscale(r, g, b, out, n, first, step) };
    };
    let vectors = (n - head) / 4;
    let tail = head + 4 * vectors;
    // SAFETY: head and tail pixels are below n; vector v covers head + 4v .. head + 4v + 4,
    // which is at most tail <= n, and starts on a 16-byte boundary of every plane.
    unsafe {
        grayscale(r, g, b, out, head, first, step);
        let mut v = first;
        while v < vectors {
            let base = head + 4 * v;
            let red = *(r.add(base) as *const Four);
            let green = *(g.add(base) as *const Four);
            let blue = *(b.add(base) as *const Four);
            let mut gray = Four([0.0; 4]);
            for lane in 0..4 {
                gray.0[lane] = luma(red.0[lane], green.0[lane], blue.0[lane]);
            }
            *(out.add(base) as *mut Four) = gray;
            v += step;
        }
        grayscale(r.add(tail), g.add(tail), b.add(tail), out.add(tail), n - tail, first, step);
    }
}

/// `K` pixels per thread per trip, `step` apart so that a warp's accesses stay coalesced,
/// with all `3K` loads issued before the first multiply: more independent loads in flight
/// per thread. The last, partial trip goes one pixel at a time.
///
/// # Safety
///
/// As [`grayscale`].
#[inline(always)]
pub unsafe fn grayscale_unrolled<const K: usize>(
    r: *const f32,
    g: *const f32,
    b: *const f32,
    out: *mut f32,
    n: usize,
    first: usize,
    step: usize,
) {
    let mut i = first;
    // SAFETY: a full trip touches i + k step for k < K, all below n by the loop condition.
    unsafe {
        while i + (K - 1) * step < n {
            let mut red = [0.0f32; K];
            let mut green = [0.0f32; K];
            let mut blue = [0.0f32; K];
            for k in 0..K {
                red[k] = *r.add(i + k * step);
                green[k] = *g.add(i + k * step);
                blue[k] = *b.add(i + k * step);
            }
            for k in 0..K {
                *out.add(i + k * step) = luma(red[k], green[k], blue[k]);
            }
            i += K * step;
        }
        grayscale(r, g, b, out, n, i, step);
    }
}
