//! The block-wide barrier of our cuda_std kernels: LLVM's `llvm.nvvm.barrier.sync` intrinsic,
//! PTX `barrier.sync 0`, the *unaligned* barrier, which LLVM declares *convergent*; in place of
//! `cuda_std::thread::sync_threads()`.
//!
//! This file is copied byte for byte into `examples/reduce/kernels/src/barrier.rs` and into the
//! kernels crate that `block-size new` writes (tests keep the three equal): a cuda_std crate of
//! your own needs the same module; see `docs/barriers.md`.
//!
//! # Why not `cuda_std::thread::sync_threads()`, nor an `asm!` barrier
//!
//! At rust-cuda 946c91f that function is a call to `__nvvm_block_barrier`, rust-cuda's wrapper
//! around `llvm.nvvm.barrier0`, which libNVVM writes as `bar.sync 0`, an *aligned* barrier
//! (`barrier.sync.aligned 0`): every thread of the block must execute the *same* barrier
//! instruction. The wrapper is declared `nounwind` but not `convergent`, and so is an
//! `asm!("barrier.sync 0;")`: to rustc_codegen_nvvm's LLVM 7 passes either is an ordinary call.
//! Their loop unswitching (LLVM's `LoopUnswitch`) then hoists a loop-invariant test on the thread
//! index, such as `if thread == 0 { load the halo }` between two barriers of a grid-stride loop,
//! out of the loop and gives thread 0 a copy of the whole loop, barriers and all. With the
//! aligned barrier the block hangs; with an unaligned `asm!` barrier it stays correct, but warp
//! 0 runs two loops that meet only at the barriers: the example kernel of `block-size new` took
//! 1.165 to 1.495 times the time of nvcc's build of the same source on an H200
//! (`docs/barriers.md`; `evidence/2026-12-04-split-loop/` shows where the loop is split).
//!
//! `llvm.nvvm.barrier.sync` is the unaligned barrier as an LLVM intrinsic, and LLVM declares it
//! `convergent`: no pass may make it depend on a condition it did not depend on before, so no
//! loop is unswitched and no jump threaded across it, and the PTX has the barriers the source
//! has, as nvcc's does with `__syncthreads()`. And being unaligned, `barrier.sync 0` counts the
//! threads that arrive at barrier 0 from *any* instruction, so a copy some other compiler pass
//! made (rustc's MIR `JumpThreading`, rust-lang/rust#137086, knows no `convergent`) would still
//! be one block-wide barrier. Its memory ordering is that of `bar.sync`: the shared and global
//! memory accesses a thread made before the barrier are performed relative to every thread of
//! the block once it completes.
//!
//! # Requirements
//!
//! - sm_70 or newer, PTX ISA 6.0 or newer: before sm_70 `barrier.sync` behaves as
//!   `barrier.sync.aligned`, and before PTX ISA 6.0 it does not exist. The project's PTX
//!   targets `compute_75` with PTX ISA 7.8, so both hold. libNVVM 11.8 takes the intrinsic.
//! - `#![cfg_attr(target_os = "cuda", feature(link_llvm_intrinsics))]` and
//!   `#![allow(internal_features)]` in the crate root, for the `llvm.` link name.

/// Waits until every thread of the block has arrived at a `sync_threads()` (any call of it,
/// and any copy of that call a compiler made); the shared and global memory accesses a
/// thread made before its call are then visible to every thread of the block. The drop-in
/// replacement for `cuda_std::thread::sync_threads()` in our kernels: PTX `barrier.sync 0;`.
///
/// # Safety
///
/// A safe function, as `cuda_std::thread::sync_threads()` is: a barrier that some thread of
/// the block never reaches hangs the block, which is a liveness bug, not undefined behaviour.
/// Every thread of the block must reach a barrier the same number of times, as with
/// `__syncthreads()`; unlike `bar.sync`, it does not have to be the same instruction. Needs
/// sm_70 or newer.
///
/// The intrinsic is neither `readnone` nor `readonly` to LLVM: no load or store moves across
/// it, and it is never removed or merged with another.
#[inline(always)]
pub fn sync_threads() {
    unsafe extern "C" {
        // `convergent nounwind` in LLVM's intrinsic table (IntrinsicsNVVM.td); PTX
        // `barrier.sync $id`.
        #[link_name = "llvm.nvvm.barrier.sync"]
        fn barrier_sync(barrier: u32);
    }
    // SAFETY: barrier 0 is the block-wide barrier `__syncthreads()` uses; the call touches no
    // memory of its own.
    unsafe { barrier_sync(0) }
}
