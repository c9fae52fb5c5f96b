//! The shared-memory luma histogram: per-block private bins in dynamic shared memory, merged
//! into one global histogram. Its twin for nvcc is `kernels/cuda/histogram.cu`.
//!
//! Two loops count the pixels: [`histogram`] reads one 2-byte value per thread per trip, and
//! [`histogram_vectors`] reads the luma as aligned 8- or 16-byte vectors ([`Four`],
//! [`Eight`]), `K` of them per thread per trip with every load issued before the first count,
//! and can spread the private bins over one copy per lane ([`copies`]) so that the lanes of a
//! warp never add to the same shared-memory word or bank at small bin counts.
//!
//! Unlike the grayscale kernels, this one uses shared memory, `bins * 4` bytes per block
//! passed at launch, so the block size and `bins` together decide how many blocks fit on an
//! SM: the shared memory a launch asks for is per block, whatever its size.
//!
//! # Values and bins
//!
//! The input is already quantised: value `v` counts in bin `v`. The host derives each value
//! from a 12-bit luma `l` (0 to 4095) as `l * bins / 4096`, which is below `bins` for every
//! `bins` from 1 to 4096. A value `v >= bins` counts nowhere: the host never writes one, and
//! the `v < bins` test keeps every shared-memory access inside the launch's allocation
//! whatever the input holds.
//!
//! # Atomics
//!
//! The per-pixel add is a relaxed, block-scope (`.cta`) atomic on the shared-memory state
//! space, `red.relaxed.cta.shared.add.u32`; the merge is a relaxed, device-scope (`.gpu`)
//! atomic on global memory, `red.relaxed.gpu.global.add.u32`. Both are written here as inline
//! PTX because cuda_std's block-scope `fetch_add` (`atomic::mid::atomic_fetch_add_u32_block`)
//! emits `atom.relaxed.cta.add.u32` on a *generic* address: correct, but it leaves the
//! state space to be resolved at run time, where nvcc's `atomicAdd_block` on an
//! `extern __shared__` array names `.shared` (`atom.shared.cta.add.u32`). No result is used,
//! so `red` (reduction) is the instruction PTX has for it. (`core::sync::atomic::AtomicU32`'s
//! `fetch_add` does reach `atom.shared.add.u32` and `atom.global.add.u32`, libNVVM resolving
//! the state space from the pointers' origin, but with PTX's default `.gpu` scope and no way
//! to ask for `.cta`.)

use crate::address::to_global;
use crate::barrier;
use core::arch::asm;
use core::cell::UnsafeCell;
use cuda_std::thread;

/// This block's dynamic shared memory, as `u32` counters: what a launch passes as
/// `sharedMemBytes`, and no static shared memory at all.
///
/// The same declaration as `cuda_std::shared::dynamic_shared_mem` except for its size. That
/// one declares a `u128`, `.extern .shared .align 16 .b8 _Zcuda_std_dyn_shared[16]`, and
/// ptxas counts a sized extern array as 16 bytes of *static* shared memory in every kernel
/// that uses it (`ptxas -v`: "16 bytes smem"). This one is a zero-length array, which libNVVM
/// writes as `.extern .shared .align 4 .b8 histogram_private_bins[]`, as nvcc writes
/// `extern __shared__ unsigned int privateBins[]` (`[]`, align 16): the kernel's shared
/// memory is then exactly the `bins * 4` dynamic bytes of the launch. Dynamic shared memory
/// starts at least 16-byte aligned whatever the declaration says.
#[inline(always)]
fn dynamic_shared_u32() -> *mut u32 {
    unsafe extern "C" {
        // nvvm_internal, not address_space: the latter only parses static definitions.
        #[nvvm_internal::addrspace(3)]
        #[allow(improper_ctypes)]
        #[link_name = "histogram_private_bins"]
        static PRIVATE_BINS: UnsafeCell<[u32; 0]>;
    }
    // SAFETY: taking the address of the extern shared array reads nothing.
    unsafe { PRIVATE_BINS.get() as *mut u32 }
}

/// Block-scope relaxed add of `value` to the `u32` at `address` in shared memory.
///
/// # Safety
///
/// `address` must be a shared-state-space address (as from [`to_shared`]) of a 4-byte
/// aligned `u32` inside this block's shared memory.
#[inline(always)]
unsafe fn shared_add(address: u32, value: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "red.relaxed.cta.shared.add.u32 [{address}], {value};",
            address = in(reg32) address,
            value = in(reg32) value,
            options(nostack),
        );
    }
}

/// Device-scope relaxed add of `value` to the `u32` at `address` in global memory.
///
/// # Safety
///
/// `address` must be a global-state-space address (as from [`to_global`]) of a 4-byte
/// aligned `u32` in device memory.
#[inline(always)]
unsafe fn global_add(address: u64, value: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!(
            "red.relaxed.gpu.global.add.u32 [{address}], {value};",
            address = in(reg64) address,
            value = in(reg32) value,
            options(nostack),
        );
    }
}

/// The shared-state-space address of a generic pointer into shared memory. The shared
/// window is at most 228 KiB, so the address fits in 32 bits (nvcc's PTX uses 32-bit shared
/// addresses too).
#[inline(always)]
fn to_shared(pointer: *mut u32) -> u32 {
    let address: u64;
    // SAFETY: `cvta.to.shared` is arithmetic on the address; nothing is accessed.
    unsafe {
        asm!(
            "cvta.to.shared.u64 {address}, {pointer};",
            address = out(reg64) address,
            pointer = in(reg64) pointer,
            options(pure, nomem, nostack),
        );
    }
    address as u32
}

/// Counts values `first`, `first + step`, ... below `n` into this block's private bins,
/// then adds the block's non-zero bins to `hist`.
///
/// # Safety
///
/// - `luma` must point to `n` readable `u16` values and `hist` to `bins` writable `u32`
///   counters, both in global memory; the kernel only adds to the counters.
/// - The launch must give every block at least `bins * 4` bytes of dynamic shared memory.
/// - Every thread of the block must call this with the same `luma`, `hist`, `n`, `bins` and
///   `step` (it has two block-wide barriers, [`barrier::sync_threads`]), and `step` must be
///   at least 1.
#[inline(always)]
pub unsafe fn histogram(luma: *const u16, hist: *mut u32, n: usize, bins: u32, first: usize, step: usize) {
    let private = dynamic_shared_u32();
    let thread = thread::thread_idx_x();
    let threads = thread::block_dim_x();

    // 1. Zero the private bins: thread t takes bins t, t + threads, ...
    let mut bin = thread;
    while bin < bins {
        // SAFETY: bin < bins, and the launch gave `private` room for `bins` counters.
        unsafe { *private.add(bin as usize) = 0 };
        bin += threads;
    }
    barrier::sync_threads();

    // 2. Grid-stride over the pixels: one shared atomic per pixel with a value in range.
    let base = to_shared(private);
    let mut i = first;
    while i < n {
        // SAFETY: i < n, and `luma` holds n values.
        let value = u32::from(unsafe { *luma.add(i) });
        if value < bins {
            // SAFETY: value < bins, so 4 * value is inside the `bins * 4` bytes at `base`.
            unsafe { shared_add(base + 4 * value, 1) };
        }
        i += step;
    }
    barrier::sync_threads();

    // 3. Merge: thread t adds bins t, t + threads, ... to the global histogram, skipping
    //    empty ones.
    let global = to_global(hist);
    let mut bin = thread;
    while bin < bins {
        // SAFETY: bin < bins, for `private` and `hist` (at `global`) alike.
        unsafe {
            let count = *private.add(bin as usize);
            if count != 0 {
                global_add(global + 4 * u64::from(bin), count);
            }
        }
        bin += threads;
    }
}

/// Shared-memory words (`u32` counters) the spread variants give their copies of the bins:
/// 32 KiB a block. `copies(bins) * bins` never exceeds it.
pub const SPREAD_WORDS: u32 = 8192;

/// How many copies of the `bins` private bins a block of the spread variants keeps: one per
/// lane (32) while 32 copies fit in [`SPREAD_WORDS`], else the largest power of two that fits
/// (16 at 257 to 512 bins, ..., 2 at 2731 to 4096), at least 1. Lane `l` of every warp counts
/// into copy `l % copies`; the host asks for `copies(bins) * bins * 4` bytes of dynamic shared
/// memory, computed by the same rule.
#[inline(always)]
pub fn copies(bins: u32) -> u32 {
    let fit = SPREAD_WORDS / bins.max(1);
    if fit >= 32 { 32 } else { 1 << (31 - fit.max(1).leading_zeros()) }
}

/// An aligned vector of luma values, read by one load: pixel `2w` is the low half of word `w`,
/// pixel `2w + 1` its high half (PTX is little-endian).
pub trait Vector: Copy {
    /// The pixels one vector holds.
    const PIXELS: usize;
    /// The vector of zeros, to initialise arrays of loads.
    const ZERO: Self;
    /// Its 32-bit word `w`, two pixels.
    fn word(&self, w: usize) -> u32;
}

/// Four pixels, one 8-byte load (`ld.global.v2.u32`).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Four(pub [u32; 2]);

/// Eight pixels, one 16-byte load (`ld.global.v4.u32`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Eight(pub [u32; 4]);

impl Vector for Four {
    const PIXELS: usize = 4;
    const ZERO: Self = Self([0; 2]);
    #[inline(always)]
    fn word(&self, w: usize) -> u32 {
        self.0[w]
    }
}

impl Vector for Eight {
    const PIXELS: usize = 8;
    const ZERO: Self = Self([0; 4]);
    #[inline(always)]
    fn word(&self, w: usize) -> u32 {
        self.0[w]
    }
}

/// Where one thread counts: its copy of the private bins, as a shared-state-space address,
/// and the bytes from one bin to the next within that copy.
#[derive(Clone, Copy)]
struct Counter {
    base: u32,
    stride: u32,
    bins: u32,
}

impl Counter {
    /// Adds 1 to the bin of `value`, if `value` is below `bins`.
    ///
    /// # Safety
    ///
    /// `base + stride * v` must be a shared-memory counter of this block for every `v < bins`.
    #[inline(always)]
    unsafe fn count(self, value: u32) {
        if value < self.bins {
            // SAFETY: value < bins, the caller's contract.
            unsafe { shared_add(self.base + self.stride * value, 1) };
        }
    }

    /// Counts both pixels of a 32-bit word.
    ///
    /// # Safety
    ///
    /// As [`Counter::count`].
    #[inline(always)]
    unsafe fn count_word(self, word: u32) {
        // SAFETY: the caller's contract.
        unsafe {
            self.count(word & 0xFFFF);
            self.count(word >> 16);
        }
    }

    /// Counts pixels `from + first`, `from + first + step`, ... below `to`, one load each.
    ///
    /// # Safety
    ///
    /// As [`Counter::count`]; `luma` must hold `to` readable values.
    #[inline(always)]
    unsafe fn count_pixels(self, luma: *const u16, from: usize, to: usize, first: usize, step: usize) {
        let mut i = from + first;
        while i < to {
            // SAFETY: i < to, the caller's contract.
            unsafe { self.count(u32::from(*luma.add(i))) };
            i += step;
        }
    }
}

/// [`histogram`] reading the luma as vectors `V` (8 or 16 bytes), `K` per thread per trip, with
/// one copy of the private bins per block (`SPREAD = false`) or [`copies`]`(bins)` of them
/// (`SPREAD = true`).
///
/// The pixels before the luma's first `size_of::<V>()`-byte boundary (the head, at most 7) and
/// after the last whole vector (the tail, at most 7) are counted one load each by threads
/// `first < 8`; vector `v` of the body, pixels `head + v * V::PIXELS` onwards, is read by the
/// thread whose `first` is `v` modulo `step`, `K` vectors a grid apart per trip (a warp's lanes
/// read neighbouring vectors), the last trips one vector at a time. Any `n`, any 2-byte
/// aligned `luma`, any grid and any block size count every pixel exactly once.
///
/// # Safety
///
/// - `luma` must point to `n` readable `u16` values (2-byte aligned) and `hist` to `bins`
///   writable `u32` counters, both in global memory; the kernel only adds to the counters.
/// - The launch must give every block at least `bins * 4` bytes of dynamic shared memory, or
///   `copies(bins) * bins * 4` with `SPREAD`.
/// - Every thread of the block must call this with the same `luma`, `hist`, `n`, `bins` and
///   `step` (it has two block-wide barriers, [`barrier::sync_threads`]); `step` at least 1 and
///   `bins` at most 4096.
#[inline(always)]
pub unsafe fn histogram_vectors<V: Vector, const K: usize, const SPREAD: bool>(
    luma: *const u16,
    hist: *mut u32,
    n: usize,
    bins: u32,
    first: usize,
    step: usize,
) {
    let private = dynamic_shared_u32();
    let thread = thread::thread_idx_x();
    let threads = thread::block_dim_x();
    let copies = if SPREAD { copies(bins) } else { 1 };

    // 1. Zero every copy of the private bins: thread t takes words t, t + threads, ...
    let words = bins * copies;
    let mut word = thread;
    while word < words {
        // SAFETY: word < copies * bins, the launch's allocation.
        unsafe { *private.add(word as usize) = 0 };
        word += threads;
    }
    barrier::sync_threads();

    // 2. Count. Bin b of copy c is word b * copies + c; this thread's copy is its lane's.
    let counter =
        Counter { base: to_shared(private) + 4 * (thread & (copies - 1)), stride: 4 * copies, bins };
    let size = core::mem::size_of::<V>();
    let head = ((size - luma as usize % size) % size / 2).min(n);
    let vectors = (n - head) / V::PIXELS;
    let tail = head + vectors * V::PIXELS;
    // SAFETY: head <= tail <= n; vector v covers pixels head + v PIXELS .. head + (v + 1) PIXELS,
    // at most tail, and starts on a size-byte boundary; every counted value is below bins.
    unsafe {
        counter.count_pixels(luma, 0, head, first, step);
        let body = luma.add(head) as *const V;
        let mut v = first;
        while v + (K - 1) * step < vectors {
            let mut loaded = [V::ZERO; K];
            for k in 0..K {
                loaded[k] = *body.add(v + k * step);
            }
            for k in 0..K {
                for w in 0..V::PIXELS / 2 {
                    counter.count_word(loaded[k].word(w));
                }
            }
            v += K * step;
        }
        while v < vectors {
            let vector = *body.add(v);
            for w in 0..V::PIXELS / 2 {
                counter.count_word(vector.word(w));
            }
            v += step;
        }
        counter.count_pixels(luma, tail, n, first, step);
    }
    barrier::sync_threads();

    // 3. Merge: thread t adds bins t, t + threads, ... of every copy to the global histogram,
    //    skipping empty ones. Neighbouring threads start at neighbouring copies, so their
    //    reads fall in different banks.
    let global = to_global(hist);
    let mut bin = thread;
    while bin < bins {
        let row = bin * copies;
        let mut count = 0u32;
        for c in 0..copies {
            // SAFETY: row + c' < (bin + 1) copies <= copies * bins.
            count = count.wrapping_add(unsafe { *private.add((row + ((c + bin) & (copies - 1))) as usize) });
        }
        if count != 0 {
            // SAFETY: bin < bins.
            unsafe { global_add(global + 4 * u64::from(bin), count) };
        }
        bin += threads;
    }
}
