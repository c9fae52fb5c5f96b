//! The GPU side of the block-size sweep: the grid-stride grayscale kernel, and variants of
//! it that move the same bytes with wider (`grayscale_vec4`) or more independent
//! (`grayscale_k2`, `_k4`, `_k8`) memory operations; and a luma histogram (`histogram`) whose
//! per-block bins live in dynamic shared memory, so that shared memory, and not only warps
//! and registers, limits how many blocks of a given size are resident, with variants that read
//! the luma as 8- or 16-byte vectors (`histogram_x4`, `_x8`), several per trip (`_x8k2`,
//! `_x8k4`), and with one copy of the bins per lane (`_x8k2c`, `_x8k4c`); the blocking
//! kernel of cold timing (`block_until_released`), which holds a stream until the host
//! releases it; and the comparison kernels (`count_mismatches_b16`, `_b32`, `_b64`, `_f32`,
//! `_f64`), which count the elements of an output that differ from a reference in device
//! memory and find the first of them, so that the host checks a row without copying it back.
//!
//! Built by `kernels/builder` with rust-cuda's `cuda_builder` for `compute_75`; the PTX is
//! committed in `kernels/ptx/` and embedded by the host runner.

// Inline PTX (`asm!`) for the histogram's shared- and global-space atomics, as rust-cuda's
// own optix_device does, for the comparison kernels' global-space atomics, and for the
// blocking kernel's `%globaltimer`; LLVM's
// `llvm.nvvm.barrier.sync` for the unaligned, convergent block barrier (`barrier.rs`).
#![cfg_attr(target_os = "cuda", feature(asm_experimental_arch, link_llvm_intrinsics))]
#![allow(internal_features)]

use cuda_std::prelude::*;

pub mod address;
pub mod barrier;
pub mod grid_stride;
pub mod histogram;
pub mod luma;
pub mod mismatch;
pub mod spin;

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
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { grid_stride::grayscale(r, g, b, out, n, first, step) }
}

/// [`grayscale`] over the image as rows and columns: `out[y * width + x] = luma(r, g, b)` at
/// `(x, y)`, launched with 2-D blocks (`32x8`, `16x16`) over a 2-D grid.
///
/// # Safety
///
/// `r`, `g` and `b` must each point to `width * height` readable `f32` values in device
/// memory, row after row with no padding, and `out` to as many writable `f32` values that
/// overlap none of the inputs. The kernel reads and writes nothing else.
///
/// # Parameters
///
/// - `r`, `g`, `b`: the red, green and blue planes, `width * height` values each.
/// - `out`: the luma plane, every one of its values written.
/// - `width`, `height`: the image's columns and rows.
///
/// # Thread Mapping
///
/// A grid-stride loop in two dimensions: thread `(x, y)` with
/// `x = blockIdx.x * blockDim.x + threadIdx.x` and `y = blockIdx.y * blockDim.y + threadIdx.y`
/// takes pixel `(x, y)`, then steps by the grid's width in threads (`gridDim.x * blockDim.x`)
/// along the row and by its height in threads down the columns. Any 2-D grid and block cover
/// every pixel exactly once; a grid of `ceil(width / blockDim.x) x ceil(height / blockDim.y)`
/// blocks makes one trip. `threadIdx.z` and `blockIdx.z` are not used: a block or grid deeper
/// than 1 repeats the same pixels. Lanes of a warp take consecutive columns of one row while
/// `blockDim.x` is at least 32, so loads and stores coalesce; a narrower block spreads a warp
/// over several rows. Indices are `usize`.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn grayscale_2d(
    r: *const f32,
    g: *const f32,
    b: *const f32,
    out: *mut f32,
    width: u32,
    height: u32,
) {
    let (width, height) = (width as usize, height as usize);
    let (block_x, block_y) = (thread::block_dim_x() as usize, thread::block_dim_y() as usize);
    let first_x = thread::block_idx_x() as usize * block_x + thread::thread_idx_x() as usize;
    let step_x = thread::grid_dim_x() as usize * block_x;
    let mut y = thread::block_idx_y() as usize * block_y + thread::thread_idx_y() as usize;
    let step_y = thread::grid_dim_y() as usize * block_y;
    // A column past the image's width takes no pixel on any row.
    if first_x >= width {
        return;
    }
    while y < height {
        let row = y * width;
        let mut x = first_x;
        while x < width {
            let i = row + x;
            // SAFETY: x < width and y < height, so i < width * height, the planes' length by
            // this kernel's contract; both steps are at least 1 since every dimension is.
            unsafe {
                *out.add(i) = luma::luma(*r.add(i), *g.add(i), *b.add(i));
            }
            x += step_x;
        }
        y += step_y;
    }
}

/// Reads the launch's indices: this thread's first pixel (or vector) and the grid's stride.
#[inline(always)]
fn first_and_step() -> (usize, usize) {
    let block_dim = thread::block_dim_x() as usize;
    let first = thread::block_idx_x() as usize * block_dim + thread::thread_idx_x() as usize;
    (first, thread::grid_dim_x() as usize * block_dim)
}

/// [`grayscale`] with 16-byte vector loads and stores: four pixels per access.
///
/// # Safety
///
/// As [`grayscale`]. Any alignment is accepted: equally aligned planes get vector accesses
/// after a scalar head of up to three pixels, others are converted one pixel at a time.
///
/// # Parameters
///
/// As [`grayscale`].
///
/// # Thread Mapping
///
/// Grid-stride over vectors of four pixels: thread `blockIdx.x * blockDim.x + threadIdx.x`
/// takes that vector, then every `gridDim.x * blockDim.x`-th. A launch needs a quarter of
/// the threads [`grayscale`] does to cover the frame in one trip.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn grayscale_vec4(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract.
    unsafe { grid_stride::grayscale_vec4(r, g, b, out, n, first, step) }
}

/// [`grayscale`] with `K` pixels per thread per loop trip, loads first.
///
/// # Safety
///
/// As [`grayscale`].
///
/// # Parameters
///
/// As [`grayscale`].
///
/// # Thread Mapping
///
/// Grid-stride, `K` pixels a trip: thread `t` (its global index) converts `t`,
/// `t + step`, ..., `t + (K - 1) step`, then moves `K step` on, where `step` is the grid's
/// thread count; neighbouring lanes still touch neighbouring pixels.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn grayscale_k2(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract.
    unsafe { grid_stride::grayscale_unrolled::<2>(r, g, b, out, n, first, step) }
}

/// `K = 4`; see [`grayscale_k2`].
///
/// # Safety
///
/// As [`grayscale`].
///
/// # Parameters
///
/// As [`grayscale`].
///
/// # Thread Mapping
///
/// As [`grayscale_k2`], four pixels a trip.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn grayscale_k4(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract.
    unsafe { grid_stride::grayscale_unrolled::<4>(r, g, b, out, n, first, step) }
}

/// `K = 8`; see [`grayscale_k2`].
///
/// # Safety
///
/// As [`grayscale`].
///
/// # Parameters
///
/// As [`grayscale`].
///
/// # Thread Mapping
///
/// As [`grayscale_k2`], eight pixels a trip.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn grayscale_k8(r: *const f32, g: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract.
    unsafe { grid_stride::grayscale_unrolled::<8>(r, g, b, out, n, first, step) }
}

/// Counts a plane of quantised luma values into `bins` bins: `hist[v] += 1` for every pixel
/// value `v` below `bins`.
///
/// # Safety
///
/// `luma` must point to `n` readable `u16` values in device memory, and `hist` to `bins`
/// writable `u32` counters in device memory (zeroed by the host before the launch; the kernel
/// adds to them) that overlap the input nowhere. `bins` must be 1 to 4096, and the launch must
/// pass at least `bins * 4` bytes of dynamic shared memory (`sharedMemBytes` of
/// `cuLaunchKernel`). The kernel reads and writes nothing else.
///
/// # Parameters
///
/// - `luma`: the pixel values, `n` of them, each already quantised to its bin by the host
///   (`luma12 * bins / 4096` for a 12-bit luma); a value `bins` or above counts nowhere.
/// - `hist`: the histogram, `bins` counters; a launch adds the counts of its pixels.
/// - `n`: the number of pixels.
/// - `bins`: the number of bins, 1 to 4096 (4 to 16384 bytes of shared memory per block).
///
/// # Thread Mapping
///
/// Three phases, with a block-wide barrier between each: thread `threadIdx.x` zeroes private
/// bins `threadIdx.x`, `threadIdx.x + blockDim.x`, ... of its block's dynamic shared memory;
/// then a grid-stride loop over a 1D launch, as in [`grayscale`], where each pixel is one
/// block-scope atomic add on the shared bin of its value; then the thread adds the same
/// private bins as it zeroed, those that are not zero, to `hist` with device-scope atomics.
/// Any grid, any block size and any `n` count every pixel exactly once, and every bin is
/// zeroed and merged by exactly one thread of each block.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract (including `bins * 4` bytes of dynamic
    // shared memory per block); every thread of the block gets here with the same arguments,
    // and step >= 1 since both dimensions are.
    unsafe { histogram::histogram(luma, hist, n, bins, first, step) }
}

/// [`histogram`] with 8-byte vector loads (four pixels), one per thread per trip.
///
/// # Safety
///
/// As [`histogram`], with at least `bins * 4` bytes of dynamic shared memory per block. `luma` may
/// start anywhere (2-byte aligned): the pixels before its first 8-byte boundary are read one at a
/// time.
///
/// # Parameters
///
/// As [`histogram`].
///
/// # Thread Mapping
///
/// As [`histogram`], over vectors of 4 pixels instead of pixels
/// (`histogram::histogram_vectors`); the head and tail of fewer than a vector are counted one
/// pixel at a time by the first threads of the grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram_x4(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here with
    // the same arguments.
    unsafe { histogram::histogram_vectors::<histogram::Four, 1, false>(luma, hist, n, bins, first, step) }
}

/// [`histogram`] with 16-byte vector loads (eight pixels), one per thread per trip.
///
/// # Safety
///
/// As [`histogram`], with at least `bins * 4` bytes of dynamic shared memory per block. `luma` may
/// start anywhere (2-byte aligned): the pixels before its first 16-byte boundary are read one at a
/// time.
///
/// # Parameters
///
/// As [`histogram`].
///
/// # Thread Mapping
///
/// As [`histogram`], over vectors of 8 pixels instead of pixels
/// (`histogram::histogram_vectors`); the head and tail of fewer than a vector are counted one
/// pixel at a time by the first threads of the grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram_x8(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here with
    // the same arguments.
    unsafe { histogram::histogram_vectors::<histogram::Eight, 1, false>(luma, hist, n, bins, first, step) }
}

/// [`histogram`] with 16-byte vector loads, two per thread per trip, both issued before the first count.
///
/// # Safety
///
/// As [`histogram`], with at least `bins * 4` bytes of dynamic shared memory per block. `luma` may
/// start anywhere (2-byte aligned): the pixels before its first 16-byte boundary are read one at a
/// time.
///
/// # Parameters
///
/// As [`histogram`].
///
/// # Thread Mapping
///
/// As [`histogram`], over vectors of 8 pixels instead of pixels, 2 vectors a grid apart per trip
/// (`histogram::histogram_vectors`); the head and tail of fewer than a vector are counted one
/// pixel at a time by the first threads of the grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram_x8k2(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here with
    // the same arguments.
    unsafe { histogram::histogram_vectors::<histogram::Eight, 2, false>(luma, hist, n, bins, first, step) }
}

/// [`histogram`] with 16-byte vector loads, four per thread per trip, all issued before the first count.
///
/// # Safety
///
/// As [`histogram`], with at least `bins * 4` bytes of dynamic shared memory per block. `luma` may
/// start anywhere (2-byte aligned): the pixels before its first 16-byte boundary are read one at a
/// time.
///
/// # Parameters
///
/// As [`histogram`].
///
/// # Thread Mapping
///
/// As [`histogram`], over vectors of 8 pixels instead of pixels, 4 vectors a grid apart per trip
/// (`histogram::histogram_vectors`); the head and tail of fewer than a vector are counted one
/// pixel at a time by the first threads of the grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram_x8k4(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here with
    // the same arguments.
    unsafe { histogram::histogram_vectors::<histogram::Eight, 4, false>(luma, hist, n, bins, first, step) }
}

/// [`histogram`] with [`histogram_x8k2`] with one copy of the private bins per lane (`histogram::copies`).
///
/// # Safety
///
/// As [`histogram`], with at least `histogram::copies(bins) * bins * 4` bytes of dynamic shared memory per block. `luma` may
/// start anywhere (2-byte aligned): the pixels before its first 16-byte boundary are read one at a
/// time.
///
/// # Parameters
///
/// As [`histogram`].
///
/// # Thread Mapping
///
/// As [`histogram`], over vectors of 8 pixels instead of pixels, 2 vectors a grid apart per trip
/// (`histogram::histogram_vectors`); the head and tail of fewer than a vector are counted one
/// pixel at a time by the first threads of the grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram_x8k2c(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here with
    // the same arguments.
    unsafe { histogram::histogram_vectors::<histogram::Eight, 2, true>(luma, hist, n, bins, first, step) }
}

/// [`histogram`] with [`histogram_x8k4`] with one copy of the private bins per lane (`histogram::copies`).
///
/// # Safety
///
/// As [`histogram`], with at least `histogram::copies(bins) * bins * 4` bytes of dynamic shared memory per block. `luma` may
/// start anywhere (2-byte aligned): the pixels before its first 16-byte boundary are read one at a
/// time.
///
/// # Parameters
///
/// As [`histogram`].
///
/// # Thread Mapping
///
/// As [`histogram`], over vectors of 8 pixels instead of pixels, 4 vectors a grid apart per trip
/// (`histogram::histogram_vectors`); the head and tail of fewer than a vector are counted one
/// pixel at a time by the first threads of the grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn histogram_x8k4c(luma: *const u16, hist: *mut u32, n: usize, bins: u32) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here with
    // the same arguments.
    unsafe { histogram::histogram_vectors::<histogram::Eight, 4, true>(luma, hist, n, bins, first, step) }
}

/// Holds its stream until the host writes a non-zero value to `flag[0]`, or until
/// `timeout_ns` nanoseconds of the GPU's global timer have passed; on the timeout it writes 1
/// to `flag[1]`. The runner's cold timing enqueues it ahead of all its samples, so that they
/// run back to back once released (see [`spin`]).
///
/// # Safety
///
/// `flag` must point to two `u32`s that the device can read and write, such as mapped pinned
/// host memory; the host may write `flag[0]` at any time while the kernel runs.
///
/// # Parameters
///
/// - `flag`: `flag[0]` is the release (0 holds, anything else releases), `flag[1]` the
///   kernel's report (set to 1 when it gave up waiting).
/// - `timeout_ns`: how long to wait at most, in nanoseconds.
///
/// # Thread Mapping
///
/// One thread is enough: launch it as one block of one thread. Every thread of a larger
/// launch would spin on the same flag and return at the same time.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn block_until_released(flag: *mut u32, timeout_ns: u64) {
    // SAFETY: forwarded from this kernel's contract.
    unsafe { spin::block_until_released(flag, timeout_ns) }
}

/// Counts the 16-bit elements where `got` differs from `expected` in any bit, adding the count
/// to `found[0]` and lowering `found[1]` to the smallest such index (see [`mismatch`]).
///
/// # Safety
///
/// `got` and `expected` must each point to `count` readable 2-byte elements in device memory,
/// and `found` to two 8-byte aligned `u64`s in device memory that overlap neither (the host
/// sets `found[0] = 0` and `found[1] = u64::MAX` before the launch; the kernel only adds to the
/// first and lowers the second, atomically). The kernel reads and writes nothing else.
///
/// # Parameters
///
/// - `got`: the output under test, `count` elements.
/// - `expected`: the reference, `count` elements.
/// - `count`: the number of elements.
/// - `found`: `found[0]` gains the number of mismatching elements, `found[1]` becomes the
///   smallest mismatching index if that is below its value (it stays `u64::MAX` when every
///   element matches).
///
/// # Thread Mapping
///
/// Grid-stride loop over a 1D launch, as in [`grayscale`]: thread
/// `blockIdx.x * blockDim.x + threadIdx.x` compares that element, then steps by the whole grid
/// until it passes `count`, so any grid and block size compare every element exactly once and
/// a warp's loads coalesce. Each thread counts in a register and keeps its first mismatching
/// index; a thread that found any makes one `atom.global.add.u64` and one
/// `atom.global.min.u64`. No shared memory, no barrier.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn count_mismatches_b16(got: *const u16, expected: *const u16, count: usize, found: *mut u64) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { mismatch::count_mismatches(got, expected, count, found, first, step, |g, e| g != e) }
}

/// [`count_mismatches_b16`] over 32-bit elements.
///
/// # Safety
///
/// As [`count_mismatches_b16`], with `count` readable 4-byte elements behind `got` and
/// `expected`.
///
/// # Parameters
///
/// As [`count_mismatches_b16`].
///
/// # Thread Mapping
///
/// As [`count_mismatches_b16`].
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn count_mismatches_b32(got: *const u32, expected: *const u32, count: usize, found: *mut u64) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { mismatch::count_mismatches(got, expected, count, found, first, step, |g, e| g != e) }
}

/// [`count_mismatches_b16`] over 64-bit elements.
///
/// # Safety
///
/// As [`count_mismatches_b16`], with `count` readable 8-byte elements behind `got` and
/// `expected`.
///
/// # Parameters
///
/// As [`count_mismatches_b16`].
///
/// # Thread Mapping
///
/// As [`count_mismatches_b16`].
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn count_mismatches_b64(got: *const u64, expected: *const u64, count: usize, found: *mut u64) {
    let (first, step) = first_and_step();
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { mismatch::count_mismatches(got, expected, count, found, first, step, |g, e| g != e) }
}

/// [`count_mismatches_b16`] over `f32`s with a relative tolerance: an element whose bits
/// differ still matches when, in `f64`, `|g - e| <= tol * max(|g|, |e|)` (see [`mismatch`]).
///
/// # Safety
///
/// As [`count_mismatches_b16`], with `count` readable `f32`s behind `got` and `expected`.
///
/// # Parameters
///
/// As [`count_mismatches_b16`], and:
///
/// - `tolerance_bits`: the relative tolerance `tol`, the bits of an `f64`
///   (`f64::to_bits`). `0.0` accepts equal values only (`0.0` and `-0.0` among them); a NaN
///   tolerance accepts nothing but equal bits.
///
/// # Thread Mapping
///
/// As [`count_mismatches_b16`].
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn count_mismatches_f32(
    got: *const f32,
    expected: *const f32,
    count: usize,
    tolerance_bits: u64,
    found: *mut u64,
) {
    let (first, step) = first_and_step();
    let tolerance = f64::from_bits(tolerance_bits);
    let differ =
        |g: f32, e: f32| !mismatch::floats_match(g as f64, e as f64, g.to_bits() == e.to_bits(), tolerance);
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { mismatch::count_mismatches(got, expected, count, found, first, step, differ) }
}

/// [`count_mismatches_f32`] over `f64`s.
///
/// # Safety
///
/// As [`count_mismatches_b16`], with `count` readable `f64`s behind `got` and `expected`.
///
/// # Parameters
///
/// As [`count_mismatches_f32`].
///
/// # Thread Mapping
///
/// As [`count_mismatches_b16`].
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn count_mismatches_f64(
    got: *const f64,
    expected: *const f64,
    count: usize,
    tolerance_bits: u64,
    found: *mut u64,
) {
    let (first, step) = first_and_step();
    let tolerance = f64::from_bits(tolerance_bits);
    let differ = |g: f64, e: f64| !mismatch::floats_match(g, e, g.to_bits() == e.to_bits(), tolerance);
    // SAFETY: forwarded from this kernel's contract; step >= 1 since both dimensions are.
    unsafe { mismatch::count_mismatches(got, expected, count, found, first, step, differ) }
}
