//! The blocking kernel of cold timing: one thread that holds its stream until the host says
//! go, or until a timeout passes.
//!
//! The runner enqueues it first, then every cold sample behind it (an L2 flush, a start
//! event, the launch, a stop event), and only then releases it by writing a flag in mapped
//! pinned host memory. The samples then run back to back from a full queue: no sample waits
//! for the host to enqueue it, so no launch gap of the host's lands between a sample's events.
//!
//! A host that dies or stalls before the release must not hold the GPU: the kernel reads the
//! GPU's global nanosecond timer (`%globaltimer`) as it spins and gives up after
//! `timeout_ns`, writing 1 to the word after the flag so the host can tell that its samples
//! were not queued behind it.

use core::arch::asm;

/// The GPU's global timer, in nanoseconds (PTX `%globaltimer`; its resolution is a
/// microsecond or better on the GPUs this project supports).
#[inline(always)]
fn global_timer_ns() -> u64 {
    let now: u64;
    // SAFETY: reading a special register; nothing in memory is touched. Not `pure`: every
    // call must read the timer anew.
    unsafe {
        asm!(
            "mov.u64 {now}, %globaltimer;",
            now = out(reg64) now,
            options(nomem, nostack),
        );
    }
    now
}

/// Spins until `flag[0]` is not zero, or `timeout_ns` nanoseconds have passed since the
/// first read of the timer; on the timeout, writes 1 to `flag[1]`.
///
/// # Safety
///
/// `flag` must point to two `u32`s the device can read and write (mapped pinned host memory,
/// or device memory); the host writes `flag[0]` while the kernel runs, so both are accessed
/// with volatile loads and stores only.
#[inline(always)]
pub unsafe fn block_until_released(flag: *mut u32, timeout_ns: u64) {
    let start = global_timer_ns();
    loop {
        // SAFETY: the caller's contract; volatile, so the load is issued on every trip
        // (`ld.volatile`, which sees the host's store to mapped memory).
        if unsafe { core::ptr::read_volatile(flag) } != 0 {
            return;
        }
        if global_timer_ns().wrapping_sub(start) >= timeout_ns {
            // SAFETY: the caller's contract: `flag` has a second word.
            unsafe { core::ptr::write_volatile(flag.add(1), 1) };
            return;
        }
    }
}
