//! State-space addresses of generic pointers, for the inline PTX of the atomics (`histogram.rs`,
//! `mismatch.rs`) that takes them: LLVM 7's NVPTX backend has no intrinsic for those forms, so
//! the kernels write the instructions and convert their pointers as nvcc does its kernel
//! parameters.

use core::arch::asm;

/// The global-state-space address of a generic pointer into global memory, as nvcc converts
/// its kernel pointer parameters.
#[inline(always)]
pub fn to_global<T>(pointer: *mut T) -> u64 {
    let address: u64;
    // SAFETY: `cvta.to.global` is arithmetic on the address; nothing is accessed.
    unsafe {
        asm!(
            "cvta.to.global.u64 {address}, {pointer};",
            address = out(reg64) address,
            pointer = in(reg64) pointer,
            options(pure, nomem, nostack),
        );
    }
    address
}
