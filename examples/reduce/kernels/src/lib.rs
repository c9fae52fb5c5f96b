//! An example kernel crate of your own for the block-size runner: the sum of squares of an
//! `f32` vector, one partial sum per block, the host adding the partials.
//!
//! Each block reduces its threads' sums in dynamic shared memory, one `f32` per thread, so a
//! launch of `threads_per_block` threads asks for `threads_per_block * 4` bytes of shared
//! memory per block: a kernel whose shared memory is a function of its block size. Two entries
//! share that contract: [`sum_of_squares`], one element per thread per loop trip, and
//! [`sum_of_squares_x4`], four (its tunable: items per thread), so a host can sweep
//! {block sizes} × {x1, x4}.
//!
//! The block-wide barrier is [`barrier::sync_threads`], PTX `barrier.sync 0`, not
//! `cuda_std::thread::sync_threads()` (`bar.sync 0`, an aligned barrier that the compilers'
//! optimisations can break; see `docs/barriers.md`). [`stencil`] holds the regression kernel
//! of that hazard, `stencil3`, and its demonstration twin with cuda_std's barrier.
//!
//! Built by `examples/reduce/kernels/builder` with rust-cuda's `cuda_builder` for `compute_75`,
//! as `kernels/` is; the PTX is committed in `examples/reduce/ptx/`.

// LLVM's `llvm.nvvm.barrier.sync` for the unaligned, convergent block barrier (`barrier.rs`).
#![cfg_attr(target_os = "cuda", feature(link_llvm_intrinsics))]
#![allow(internal_features)]

use core::cell::UnsafeCell;
use cuda_std::prelude::*;

pub mod barrier;
pub mod blur;
pub mod faults;
pub mod stencil;
pub mod transpose;

/// Sum of squares of `x[0..n]`: block `b` writes the sum over the elements its threads took to
/// `partials[b]`; the host adds the `gridDim.x` partials.
///
/// # Safety
///
/// - `x` must point to `n` readable `f32` values and `partials` to `gridDim.x` writable `f32`
///   values, both in device memory and not overlapping. The kernel reads and writes nothing
///   else in global memory.
/// - The launch must be one-dimensional (`blockDim.y = blockDim.z = 1`), of any grid and any
///   block size from 1 to 1024 threads, and must pass at least `blockDim.x * 4` bytes of
///   dynamic shared memory (`sharedMemBytes` of `cuLaunchKernel`).
///
/// # Parameters
///
/// - `x`: the vector, `n` values.
/// - `n`: the number of values; with `n = 0` every partial is `0.0`.
/// - `partials`: one `f32` per block, every one of them written.
///
/// # Thread Mapping
///
/// Grid-stride loop over a 1D launch: thread `blockIdx.x * blockDim.x + threadIdx.x` takes
/// that element, then steps by the whole grid (`gridDim.x * blockDim.x`), adding the squares
/// into its own `f32`. Consecutive lanes take consecutive elements, so each warp's loads
/// coalesce at every block size. Then the block adds its threads' sums as a tree in dynamic
/// shared memory (thread `t` owns slot `t`), with a barrier after each level, and thread 0
/// writes the block's sum to `partials[blockIdx.x]`.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn sum_of_squares(x: *const f32, n: usize, partials: *mut f32) {
    let (first, step) = first_and_step();
    let mut sum = 0.0f32;
    let mut i = first;
    while i < n {
        // SAFETY: i < n, and `x` holds n values.
        let value = unsafe { *x.add(i) };
        sum += value * value;
        i += step;
    }
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here.
    unsafe { block_sum_to(sum, partials) }
}

/// [`sum_of_squares`] with four elements per thread per loop trip, a grid apart: four loads a
/// trip that depend on nothing but the index, so all four can be in flight at once.
///
/// # Safety
///
/// As [`sum_of_squares`].
///
/// # Parameters
///
/// As [`sum_of_squares`].
///
/// # Thread Mapping
///
/// As [`sum_of_squares`], four elements a trip: thread `t` (its global index) loads `t`,
/// `t + step`, `t + 2 step` and `t + 3 step`, where `step` is the grid's thread count, then
/// moves `4 step` on; neighbouring lanes still load neighbouring elements. The last, partial
/// trip goes one element at a time. Each thread takes the same elements as in
/// [`sum_of_squares`] and adds their squares in the same order (one `fma.rn.f32` chain in
/// the PTX), so for the same launch both entries write the same partials. A launch needs a
/// quarter of the threads to cover `n` in one trip.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn sum_of_squares_x4(x: *const f32, n: usize, partials: *mut f32) {
    const ITEMS: usize = 4;
    let (first, step) = first_and_step();
    let mut sum = 0.0f32;
    let mut i = first;
    // SAFETY: a full trip reads i + k step for k < ITEMS, all below n by the loop condition;
    // the tail reads only indices below n.
    unsafe {
        while i + (ITEMS - 1) * step < n {
            let mut values = [0.0f32; ITEMS];
            for (k, value) in values.iter_mut().enumerate() {
                *value = *x.add(i + k * step);
            }
            for value in values {
                sum += value * value;
            }
            i += ITEMS * step;
        }
        while i < n {
            let value = *x.add(i);
            sum += value * value;
            i += step;
        }
    }
    // SAFETY: forwarded from this kernel's contract; every thread of the block gets here.
    unsafe { block_sum_to(sum, partials) }
}

/// Reads the launch's indices: this thread's first element and the grid's stride.
#[inline(always)]
fn first_and_step() -> (usize, usize) {
    let block_dim = thread::block_dim_x() as usize;
    let first = thread::block_idx_x() as usize * block_dim + thread::thread_idx_x() as usize;
    (first, thread::grid_dim_x() as usize * block_dim)
}

/// This block's dynamic shared memory, as `f32`s: what a launch passes as `sharedMemBytes`,
/// and no static shared memory at all.
///
/// The same declaration as `cuda_std::shared::dynamic_shared_mem` except for its size, as in
/// `kernels/src/histogram.rs`: that one declares a `u128`, which ptxas counts as 16 bytes of
/// *static* shared memory in every kernel that uses it. This zero-length array becomes
/// `.extern .shared .align 4 .b8 sum_of_squares_partials[]`, nvcc's `extern __shared__ float
/// partials[]`, so the kernel's shared memory is exactly the dynamic bytes of the launch.
#[inline(always)]
fn dynamic_shared_f32() -> *mut f32 {
    unsafe extern "C" {
        // nvvm_internal, not address_space: the latter only parses static definitions.
        #[nvvm_internal::addrspace(3)]
        #[allow(improper_ctypes)]
        #[link_name = "sum_of_squares_partials"]
        static PARTIALS: UnsafeCell<[f32; 0]>;
    }
    // SAFETY: taking the address of the extern shared array reads nothing.
    unsafe { PARTIALS.get() as *mut f32 }
}

/// Adds `value` over the threads of the block, and thread 0 writes the total to
/// `partials[blockIdx.x]`.
///
/// A tree in dynamic shared memory, for any block size: with `p` the block size rounded up to
/// a power of two, the first level adds slot `t + p/2` into slot `t` where that slot exists
/// (`t + p/2 < blockDim.x`), which leaves every thread's value in the first `p/2` slots; each
/// further level halves the stride. A block of one thread has no level.
///
/// # Safety
///
/// - Every thread of the block must call this (it has block-wide barriers,
///   [`barrier::sync_threads`]), in a 1D block.
/// - The launch must give the block at least `blockDim.x * 4` bytes of dynamic shared memory.
/// - `partials` must hold `gridDim.x` writable `f32`s.
#[inline(always)]
unsafe fn block_sum_to(value: f32, partials: *mut f32) {
    let shared = dynamic_shared_f32();
    let thread = thread::thread_idx_x();
    let threads = thread::block_dim_x();
    // SAFETY: thread < threads, and the launch gave `shared` room for `threads` values; slot
    // `thread + stride` is below `threads` by the guard. The stride depends on the block size
    // only, so every thread takes every barrier.
    unsafe {
        *shared.add(thread as usize) = value;
        barrier::sync_threads();
        let mut stride = threads.next_power_of_two() / 2;
        while stride > 0 {
            if thread < stride && thread + stride < threads {
                *shared.add(thread as usize) += *shared.add((thread + stride) as usize);
            }
            barrier::sync_threads();
            stride /= 2;
        }
        if thread == 0 {
            *partials.add(thread::block_idx_x() as usize) = *shared;
        }
    }
}
