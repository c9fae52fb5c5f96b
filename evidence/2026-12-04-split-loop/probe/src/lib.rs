//! Two kernels with a branch on the thread index inside a loop that holds block barriers, built
//! four ways (one `--cfg` each, passed by `../build-variant.sh`):
//!
//! - none: the barrier is `asm!("barrier.sync 0;")`, as block-size's `barrier.rs` was up to
//!   round four;
//! - `barrier_cuda_std`: `cuda_std::thread::sync_threads()` (`llvm.nvvm.barrier0` behind
//!   rust-cuda's `__nvvm_block_barrier` wrapper, `bar.sync 0`);
//! - `barrier_intrinsic`: the `llvm.nvvm.barrier.sync` intrinsic (`barrier.sync 0`), which LLVM
//!   declares `convergent`;
//! - `probe_tid_asm`: the asm barrier, but stencil3's `thread == 0` reads `%tid.x` through an
//!   inline-asm `mov` inside the loop, so that no pass can hoist the test out of the loop.
//!
//! `stencil3` is `block-size new`'s example kernel as of 7b1698f; `tile_sums` is the common
//! case of a block reduction whose thread 0 writes the result, in a grid-stride loop over tiles.
#![cfg_attr(target_os = "cuda", feature(asm_experimental_arch, link_llvm_intrinsics))]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use core::cell::UnsafeCell;
use cuda_std::prelude::*;

#[inline(always)]
fn sync() {
    #[cfg(barrier_cuda_std)]
    cuda_std::thread::sync_threads();
    #[cfg(barrier_intrinsic)]
    {
        unsafe extern "C" {
            #[link_name = "llvm.nvvm.barrier.sync"]
            fn barrier_sync(id: u32);
        }
        unsafe { barrier_sync(0) }
    }
    #[cfg(not(any(barrier_cuda_std, barrier_intrinsic)))]
    unsafe {
        core::arch::asm!("barrier.sync 0;", options(nostack));
    }
}

#[inline(always)]
fn is_thread_zero(thread: usize) -> bool {
    #[cfg(probe_tid_asm)]
    {
        let _ = thread;
        let tid: u32;
        unsafe { core::arch::asm!("mov.u32 {0}, %tid.x;", out(reg32) tid, options(nostack)) };
        tid == 0
    }
    #[cfg(not(probe_tid_asm))]
    {
        thread == 0
    }
}

#[inline(always)]
fn shared_floats() -> *mut f32 {
    unsafe extern "C" {
        #[nvvm_internal::addrspace(3)]
        #[allow(improper_ctypes)]
        #[link_name = "probe_tile"]
        static TILE: UnsafeCell<[f32; 0]>;
    }
    unsafe { TILE.get() as *mut f32 }
}

#[inline(always)]
unsafe fn value_or_zero(x: *const f32, n: usize, i: usize) -> f32 {
    if i < n { unsafe { *x.add(i) } } else { 0.0 }
}

/// `block-size new`'s stencil3: `y[i] = x[i - 1] + x[i] + x[i + 1]`, a tile of `blockDim.x`
/// values and its halo in dynamic shared memory, thread 0 loading the halo.
#[kernel]
pub unsafe fn stencil3(x: *const f32, n: usize, y: *mut f32) {
    let tile = shared_floats();
    let thread = thread::thread_idx_x() as usize;
    let threads = thread::block_dim_x() as usize;
    let step = thread::grid_dim_x() as usize * threads;
    let mut base = thread::block_idx_x() as usize * threads;
    unsafe {
        while base < n {
            let i = base + thread;
            *tile.add(thread + 1) = value_or_zero(x, n, i);
            if is_thread_zero(thread) {
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

/// The sum of each tile of `blockDim.x` values (a power of two) into `sums[tile]`: a tree in
/// dynamic shared memory, thread 0 writing the tile's sum, tiles taken in a grid-stride loop.
#[kernel]
pub unsafe fn tile_sums(x: *const f32, n: usize, sums: *mut f32) {
    let tile = shared_floats();
    let thread = thread::thread_idx_x() as usize;
    let threads = thread::block_dim_x() as usize;
    let mut index = thread::block_idx_x() as usize;
    unsafe {
        while index * threads < n {
            *tile.add(thread) = value_or_zero(x, n, index * threads + thread);
            sync();
            let mut stride = threads / 2;
            while stride > 0 {
                if thread < stride {
                    *tile.add(thread) += *tile.add(thread + stride);
                }
                sync();
                stride /= 2;
            }
            if thread == 0 {
                *sums.add(index) = *tile;
            }
            sync();
            index += thread::grid_dim_x() as usize;
        }
    }
}
