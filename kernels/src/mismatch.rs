//! The comparison kernels: a sweep's output checked on the GPU against a reference that is
//! already in device memory, so that the host copies back two words instead of the output.
//!
//! Each kernel compares `count` elements, `got[i]` against `expected[i]`, and reports into two
//! `u64`s that the host sets before the launch: `found[0] = 0` and `found[1] = u64::MAX`. A
//! launch adds the number of mismatching elements to `found[0]` and lowers `found[1]` to the
//! smallest mismatching index, so `found[1]` stays `u64::MAX` when every element matches.
//!
//! # What mismatches
//!
//! Integers (`_b16`, `_b32`, `_b64`, any element type of that width) mismatch when their bits
//! differ. Floats (`_f32`, `_f64`) mismatch when their bits differ and their values are not
//! within a relative tolerance of each other: with `g` and `e` the two values converted to
//! `f64` (exact from `f32`, subnormals included), `d = |g - e|`, `s = max(|g|, |e|)` (a NaN
//! operand ignored, as `f64::max` does) and `tol = f64::from_bits(tolerance_bits)`, they match
//! when `d <= tol * s`. A NaN `d` mismatches. The host's check is this, bit for bit:
//!
//! ```text
//! let same_bits = g.to_bits() == e.to_bits();
//! let (value, reference) = (g as f64, e as f64);
//! let difference = (value - reference).abs();
//! let scale = value.abs().max(reference.abs());
//! let matches = same_bits || difference <= tolerance * scale;
//! ```
//!
//! The PTX keeps it so: a `cvt.f64.f32` without `.ftz`, a rounded-to-nearest `sub.f64` and
//! `mul.f64` and no `fma` (there is no addition of a product for libNVVM to contract), `abs.f64`
//! (the sign bit cleared) and `max.f64` (which returns the other operand of a NaN, as
//! `f64::max`).
//!
//! # Thread mapping and atomics
//!
//! A grid-stride loop over a 1D launch, as the grayscale kernels' (`grid_stride`): consecutive
//! lanes read consecutive elements, so a warp's loads coalesce, and any grid and block size
//! compare every element exactly once. Each thread counts its mismatches in a register and
//! keeps the index of its first one (its indices rise, so that is its smallest); a thread that
//! found any then makes one device-scope atomic add (`atom.global.add.u64`) to `found[0]` and
//! one atomic min (`atom.global.min.u64`) to `found[1]`, as inline PTX on the global state
//! space, as `histogram.rs` writes its merge. No shared memory, no barrier.

use crate::address::to_global;
use core::arch::asm;

/// Device-scope atomic add of `value` to the `u64` at `address` in global memory.
///
/// # Safety
///
/// `address` must be a global-state-space address (as from [`to_global`]) of an 8-byte
/// aligned `u64` in device memory.
#[inline(always)]
unsafe fn global_add(address: u64, value: u64) {
    // SAFETY: the caller's contract. The old value is not used.
    unsafe {
        asm!(
            "atom.global.add.u64 {old}, [{address}], {value};",
            old = out(reg64) _,
            address = in(reg64) address,
            value = in(reg64) value,
            options(nostack),
        );
    }
}

/// Device-scope atomic min of `value` and the `u64` at `address` in global memory.
///
/// # Safety
///
/// As [`global_add`].
#[inline(always)]
unsafe fn global_min(address: u64, value: u64) {
    // SAFETY: the caller's contract. The old value is not used.
    unsafe {
        asm!(
            "atom.global.min.u64 {old}, [{address}], {value};",
            old = out(reg64) _,
            address = in(reg64) address,
            value = in(reg64) value,
            options(nostack),
        );
    }
}

/// Whether a float pair matches: the same bits, or a difference within `tolerance` of the
/// larger magnitude, all in `f64` (see the module's docs).
#[inline(always)]
pub fn floats_match(value: f64, reference: f64, same_bits: bool, tolerance: f64) -> bool {
    let difference = (value - reference).abs();
    let scale = value.abs().max(reference.abs());
    same_bits || difference <= tolerance * scale
}

/// Compares elements `first`, `first + step`, ... below `count` with `differ`, then adds this
/// thread's mismatches to `found[0]` and lowers `found[1]` to its first mismatching index,
/// one atomic each, and only if it found any.
///
/// # Safety
///
/// `got` and `expected` must each point to `count` readable `T`s and `found` to two `u64`s,
/// 8-byte aligned, that the device can read and write, all in global memory. `step` must be at
/// least 1.
#[inline(always)]
pub unsafe fn count_mismatches<T: Copy>(
    got: *const T,
    expected: *const T,
    count: usize,
    found: *mut u64,
    first: usize,
    step: usize,
    differ: impl Fn(T, T) -> bool,
) {
    let mut mismatches = 0u64;
    let mut smallest = u64::MAX;
    let mut i = first;
    while i < count {
        // SAFETY: i < count, and the caller guarantees count elements behind both pointers.
        let (value, reference) = unsafe { (*got.add(i), *expected.add(i)) };
        if differ(value, reference) {
            if mismatches == 0 {
                smallest = i as u64;
            }
            mismatches += 1;
        }
        i += step;
    }
    if mismatches != 0 {
        let global = to_global(found);
        // SAFETY: the caller's contract: `found` holds two aligned u64s in global memory.
        unsafe {
            global_add(global, mismatches);
            global_min(global + 8, smallest);
        }
    }
}
