//! The GPU side of this project: one example kernel, [`stencil3`], a 1-D three-point stencil
//! through a tile in dynamic shared memory, so that its shared memory grows with the block
//! size and a barrier orders the tile's loads before its reads.
//!
//! Built by `builder/` with rust-cuda's `cuda_builder` for `compute_75`; the PTX is committed
//! in `../ptx/kernels.ptx` and embedded by the host crate. Replace [`stencil3`] with your own
//! kernels, keeping the barrier rule: block-wide barriers come from [`barrier`], never from
//! `cuda_std::thread::sync_threads()` (the builder refuses PTX with an aligned barrier).

// LLVM's `llvm.nvvm.barrier.sync` for the unaligned, convergent barrier of `barrier.rs`.
#![cfg_attr(target_os = "cuda", feature(link_llvm_intrinsics))]
#![allow(internal_features)]

use core::cell::UnsafeCell;
use cuda_std::prelude::*;

pub mod barrier;

/// Values each thread loads, and writes, per tile: `ITEMS * blockDim.x` values a tile. Each
/// thread's `ITEMS` loads are independent and issued before the tile's barrier, so that a block
/// keeps `ITEMS` times more bytes in flight than with one value a thread; with one, a barrier
/// between every load and its use leaves too few loads in flight to cover the memory's latency.
/// The CUDA C++ twin (`cuda/stencil3.cu`, where the project has one) and the host crate's shared
/// memory (`src/lib.rs`) use the same number.
pub const ITEMS: usize = 4;

/// `y[i] = x[i - 1] + x[i] + x[i + 1]` for every `i < n`, the values outside `0..n` taken as
/// zero; added left to right, `(x[i - 1] + x[i]) + x[i + 1]`.
///
/// # Safety
///
/// - `x` must point to `n` readable `f32` values and `y` to `n` writable `f32` values, both in
///   device memory and not overlapping. The kernel reads and writes nothing else in global
///   memory.
/// - The launch must be one-dimensional (`blockDim.y = blockDim.z = 1`), of any grid and any
///   block size from 1 to 1024 threads, and must pass at least `(ITEMS * blockDim.x + 2) * 4`
///   bytes of dynamic shared memory (`sharedMemBytes` of `cuLaunchKernel`).
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
/// Grid-stride loop over tiles of `width = ITEMS * blockDim.x` values: block `b` takes the tile
/// starting at `b * width`, then every `gridDim.x * width` values on. In each tile, thread `t`
/// loads `x[base + t + k * blockDim.x]` into slot `t + k * blockDim.x + 1` of the block's
/// dynamic shared memory for `k` in `0..ITEMS`, and thread 0 also loads the halo, `x[base - 1]`
/// into slot 0 and `x[base + width]` into slot `width + 1`; after a barrier, thread `t` writes
/// `y[base + t + k * blockDim.x]` from the three slots around it, and a second barrier keeps
/// the next tile's loads from overwriting slots still being read. The loop's condition depends
/// on the block only, so every thread of the block takes every barrier. Consecutive lanes take
/// consecutive values: the loads and stores coalesce at every block size.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn stencil3(x: *const f32, n: usize, y: *mut f32) {
    let tile = dynamic_shared_tile();
    let thread = thread::thread_idx_x() as usize;
    let threads = thread::block_dim_x() as usize;
    let width = ITEMS * threads;
    let step = thread::grid_dim_x() as usize * width;
    let mut base = thread::block_idx_x() as usize * width;
    // SAFETY: slots 0 to width + 1 are inside the launch's (width + 2) * 4 bytes; every global
    // access is below n (value_or_zero, and the i < n guard of the store).
    unsafe {
        while base < n {
            for k in 0..ITEMS {
                let slot = thread + k * threads;
                *tile.add(slot + 1) = value_or_zero(x, n, base + slot);
            }
            if thread == 0 {
                // base - 1 wraps to usize::MAX for the first tile: zero.
                *tile = value_or_zero(x, n, base.wrapping_sub(1));
                *tile.add(width + 1) = value_or_zero(x, n, base + width);
            }
            barrier::sync_threads();
            for k in 0..ITEMS {
                let slot = thread + k * threads;
                let i = base + slot;
                if i < n {
                    *y.add(i) = *tile.add(slot) + *tile.add(slot + 1) + *tile.add(slot + 2);
                }
            }
            barrier::sync_threads();
            base += step;
        }
    }
}

/// This block's dynamic shared memory as `f32`s: the tile and its halo, `ITEMS * blockDim.x +
/// 2` values, exactly the bytes the launch passes.
///
/// A zero-length extern array in the shared state space (`.extern .shared .align 4 .b8
/// stencil3_tile[]`, nvcc's `extern __shared__ float tile[]`), rather than
/// `cuda_std::shared::dynamic_shared_mem`, whose `u128` declaration ptxas counts as 16 bytes
/// of static shared memory.
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
