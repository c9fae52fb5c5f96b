//! Test kernels of a sweep that must survive them (docs/options.md, `--journal`, the watchdog):
//! a copy that faults at one block size and one that hangs at one block size. Neither is a
//! hazard of the compiler: each does what its name says on purpose, so that the runner's fault
//! isolation and watchdog can be shown on a GPU. **Launch them only for that.**

use cuda_std::prelude::*;

/// `y[i] = x[i]` for `i < n`, except that a block of exactly 1024 threads stores its first
/// thread's value 2^31 elements past the end of `y`: an illegal address at that block size,
/// which poisons the CUDA context; every other block size copies correctly.
///
/// # Safety
///
/// `x` must point to `n` readable and `y` to `n` writable `f32` values in device memory, not
/// overlapping; one-dimensional launches. At 1024 threads per block it writes out of bounds on
/// purpose.
///
/// # Parameters
///
/// - `x`, `n`: the input and its length.
/// - `y`: the output, `n` values.
///
/// # Thread Mapping
///
/// A grid-stride loop over `0..n`, one element per thread per trip.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn copy_faulting_at_1024(x: *const f32, n: usize, y: *mut f32) {
    let stride = (thread::grid_dim_x() * thread::block_dim_x()) as usize;
    let mut i = thread::index_1d() as usize;
    if thread::block_dim_x() == 1024 && i == 0 {
        // SAFETY: none; this store is the fault the kernel exists to make.
        unsafe { *y.add(n + (1 << 31)) = 1.0 };
    }
    while i < n {
        // SAFETY: `i < n`, inside both buffers by the contract.
        unsafe { *y.add(i) = *x.add(i) };
        i += stride;
    }
}

/// `y[i] = x[i]` for `i < n`, except that blocks of exactly 512 threads wait for a flag in
/// `x[n]` (the element past the input, which the host leaves 0) that nothing ever sets: the
/// launch never finishes at that block size, as a kernel whose barrier not every thread reaches.
///
/// # Safety
///
/// `x` must point to `n + 1` readable and `y` to `n` writable `f32` values in device memory;
/// one-dimensional launches. At 512 threads per block it does not return.
///
/// # Parameters
///
/// - `x`, `n`: the input (with the flag at `x[n]`) and its length.
/// - `y`: the output, `n` values.
///
/// # Thread Mapping
///
/// A grid-stride loop over `0..n`, one element per thread per trip.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn copy_hanging_at_512(x: *const f32, n: usize, y: *mut f32) {
    if thread::block_dim_x() == 512 {
        // SAFETY: `x[n]` is readable by the contract; volatile, so every trip reads it again.
        while unsafe { core::ptr::read_volatile(x.add(n)) } == 0.0 {}
    }
    let stride = (thread::grid_dim_x() * thread::block_dim_x()) as usize;
    let mut i = thread::index_1d() as usize;
    while i < n {
        // SAFETY: `i < n`, inside both buffers by the contract.
        unsafe { *y.add(i) = *x.add(i) };
        i += stride;
    }
}
