//! A 1-D three-point stencil through a tile in dynamic shared memory: the regression kernel of
//! the aligned-barrier hazard (`docs/barriers.md`).
//!
//! Its shape is the one that hung on a GPU: a grid-stride loop over tiles of `blockDim.x`
//! values, every thread loading its value into the tile, thread 0 alone loading the two halo
//! values, a barrier, the stencil, a barrier. Between the barriers every thread tests
//! `i < n` twice (the load and the store) and thread 0 branches on its index: branches on the
//! thread index around a barrier, which a compiler can thread *through* the barrier call by
//! copying it into the arms. rustc_codegen_nvvm's LLVM passes do (LLVM 7's loop unswitching,
//! `docs/barriers.md`) where the barrier is not convergent: cuda_std's, whose entry has 5
//! barriers in its PTX for the source's 2. Ours is convergent, and its entry has 2.
//!
//! The body is written once, [`tiles`], generic over the barrier, and compiled twice:
//! [`stencil3`] with our unaligned, convergent barrier ([`crate::barrier::sync_threads`], PTX
//! `barrier.sync 0`), and [`stencil3_cuda_std_barrier`] with `cuda_std::thread::sync_threads()`
//! (PTX `bar.sync 0`, aligned), kept only to show the hazard in the PTX.

use crate::barrier;
use core::cell::UnsafeCell;
use cuda_std::prelude::*;

/// `y[i] = x[i - 1] + x[i] + x[i + 1]` for every `i < n`, the values outside `0..n` taken as
/// zero; added left to right, `(x[i - 1] + x[i]) + x[i + 1]`.
///
/// # Safety
///
/// - `x` must point to `n` readable `f32` values and `y` to `n` writable `f32` values, both in
///   device memory and not overlapping. The kernel reads and writes nothing else in global
///   memory.
/// - The launch must be one-dimensional (`blockDim.y = blockDim.z = 1`), of any grid and any
///   block size from 1 to 1024 threads, and must pass at least `(blockDim.x + 2) * 4` bytes of
///   dynamic shared memory (`sharedMemBytes` of `cuLaunchKernel`).
/// - sm_70 or newer (the unaligned barrier; see `barrier.rs`).
///
/// # Parameters
///
/// - `x`: the input, `n` values.
/// - `n`: the number of values; with `n = 0` the kernel does nothing.
/// - `y`: the output, `n` values, every one of them written.
///
/// # Thread Mapping
///
/// Grid-stride loop over tiles of `blockDim.x` values: block `b` takes the tiles starting at
/// `b * blockDim.x`, then every `gridDim.x * blockDim.x` values on. In each tile, thread `t`
/// loads `x[base + t]` into slot `t + 1` of the block's dynamic shared memory and thread 0
/// also loads the halo, `x[base - 1]` into slot 0 and `x[base + blockDim.x]` into slot
/// `blockDim.x + 1`; after a barrier, thread `t` writes `y[base + t]` from slots `t`, `t + 1`
/// and `t + 2`, and a second barrier keeps the next tile's loads from overwriting slots still
/// being read. The loop's condition depends on the block only, so every thread of the block
/// takes every barrier. Consecutive lanes take consecutive values: the loads and stores
/// coalesce at every block size.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn stencil3(x: *const f32, n: usize, y: *mut f32) {
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here.
    unsafe { tiles(x, n, y, barrier::sync_threads) }
}

/// [`stencil3`] with `cuda_std::thread::sync_threads()` (PTX `bar.sync 0`, an *aligned*
/// barrier) instead of our unaligned one: the regression entry of the hazard in
/// `docs/barriers.md`. **Never launch it** except to show the hang: in its PTX, the compiler
/// has put copies of the barrier in branches on the thread index, so the threads of a block
/// can wait at different `bar.sync` instructions, and the block may never finish. It is compiled, committed and checked only so that the hazard stays visible (the
/// repository's tests require it to keep an aligned barrier, and forbid one in every other
/// entry).
///
/// # Safety
///
/// As [`stencil3`], and a launch may hang the GPU context until it is reset or the driver's
/// watchdog kills it.
///
/// # Parameters
///
/// As [`stencil3`].
///
/// # Thread Mapping
///
/// As [`stencil3`].
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn stencil3_cuda_std_barrier(x: *const f32, n: usize, y: *mut f32) {
    // SAFETY: forwarded from this kernel's contract (whose only extra is that it may hang).
    unsafe { tiles(x, n, y, thread::sync_threads) }
}

/// This block's dynamic shared memory as `f32`s: the tile and its halo, `blockDim.x + 2`
/// values. A zero-length extern array, as `dynamic_shared_f32` in `lib.rs`, so that ptxas
/// counts no static shared memory.
#[inline(always)]
fn dynamic_shared_tile() -> *mut f32 {
    unsafe extern "C" {
        // nvvm_internal, not address_space: the latter only parses static definitions.
        #[nvvm_internal::addrspace(3)]
        #[allow(improper_ctypes)]
        #[link_name = "stencil3_tile"]
        static TILE: UnsafeCell<[f32; 0]>;
    }
    // SAFETY: taking the address of the extern shared array reads nothing.
    unsafe { TILE.get() as *mut f32 }
}

/// `x[i]`, or zero outside `0..n` (`i` wraps below zero to a value at or above `n`).
///
/// # Safety
///
/// `x` must hold `n` readable values.
#[inline(always)]
unsafe fn value_or_zero(x: *const f32, n: usize, i: usize) -> f32 {
    // SAFETY: i < n.
    if i < n { unsafe { *x.add(i) } } else { 0.0 }
}

/// The body of both entries, with `sync` as the block-wide barrier.
///
/// # Safety
///
/// [`stencil3`]'s contract; every thread of the block must call this with the same `x`, `n`
/// and `y` (it has block-wide barriers).
#[inline(always)]
unsafe fn tiles(x: *const f32, n: usize, y: *mut f32, sync: impl Fn()) {
    let tile = dynamic_shared_tile();
    let thread = thread::thread_idx_x() as usize;
    let threads = thread::block_dim_x() as usize;
    let step = thread::grid_dim_x() as usize * threads;
    let mut base = thread::block_idx_x() as usize * threads;
    // SAFETY: slots 0 to threads + 1 are inside the launch's (threads + 2) * 4 bytes; every
    // global access is below n (value_or_zero, and the i < n guard of the store).
    unsafe {
        while base < n {
            let i = base + thread;
            *tile.add(thread + 1) = value_or_zero(x, n, i);
            if thread == 0 {
                // base - 1 wraps to usize::MAX for the first tile: zero.
                *tile = value_or_zero(x, n, base.wrapping_sub(1));
                *tile.add(threads + 1) = value_or_zero(x, n, base + threads);
            }
            sync();
            if i < n {
                *y.add(i) = *tile.add(thread) + *tile.add(thread + 1) + *tile.add(thread + 2);
            }
            sync();
            base += step;
        }
    }
}
