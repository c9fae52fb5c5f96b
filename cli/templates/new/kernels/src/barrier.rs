//! The block-wide barrier of our cuda_std kernels: PTX `barrier.sync 0`, the *unaligned*
//! barrier, in place of `cuda_std::thread::sync_threads()`.
//!
//! This file is copied byte for byte into `examples/reduce/kernels/src/barrier.rs` (a test
//! keeps the two equal): a cuda_std crate of your own needs the same module; see
//! `docs/barriers.md`.
//!
//! # Why not `cuda_std::thread::sync_threads()`
//!
//! At rust-cuda 946c91f that function is `llvm.nvvm.barrier0`, which libNVVM writes as
//! `bar.sync 0`, an *aligned* barrier (`barrier.sync.aligned 0`): every thread of the block
//! must execute the *same* barrier instruction, and if threads of the block wait at different
//! `bar.sync` instructions, the behaviour is undefined; in practice the block hangs. Source that
//! calls the barrier where every thread of the block gets to the same call is not enough: a
//! compiler can copy the call into the arms of a branch on the thread index (such as
//! `if thread == 0 { load the halo }` between two barriers in a loop), after which the threads
//! of one block wait at different copies of it. rustc's MIR `JumpThreading` pass can
//! (rust-lang/rust#137086): MIR has no `convergent` attribute. And rustc_codegen_nvvm's LLVM
//! passes do, in `examples/reduce/kernels/src/stencil.rs`: they see cuda_std's barrier as a
//! call to `__nvvm_block_barrier`, a `nounwind` function that is not `convergent` either.
//!
//! `barrier.sync 0` without `.aligned` counts the threads that arrive at barrier 0 from *any*
//! instruction, so copies of it in different arms still make one block-wide barrier, whatever
//! a compiler pass duplicates. Its memory ordering is that of `bar.sync`: the shared and global
//! memory accesses a thread made before the barrier are performed relative to every thread of
//! the block once it completes.
//!
//! # Requirements
//!
//! - sm_70 or newer, PTX ISA 6.0 or newer: before sm_70 `barrier.sync` behaves as
//!   `barrier.sync.aligned`, and before PTX ISA 6.0 it does not exist. The project's PTX
//!   targets `compute_75` with PTX ISA 7.8, so both hold.
//! - `#![cfg_attr(target_os = "cuda", feature(asm_experimental_arch))]` in the crate root, for
//!   `asm!` on the NVPTX target.

use core::arch::asm;

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
/// `__syncthreads()`; unlike `bar.sync`, it does not have to be the same instruction, which is
/// the whole point (see the module's documentation). Needs sm_70 or newer.
///
/// The `asm!` has neither `nomem` nor `pure`: the compiler must assume it reads and writes any
/// memory, so no load or store moves across it and it is never removed or merged with another.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: a block-wide barrier reads and writes no memory of its own and touches no
    // register; the memory clobber (no `nomem`) only stops the compiler from moving accesses
    // across it.
    unsafe {
        asm!("barrier.sync 0;", options(nostack));
    }
}
