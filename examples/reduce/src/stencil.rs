//! The barrier regression kernel's host side: `stencil3` (a 1-D three-point stencil over tiles
//! in a grid-stride loop, thread 0 loading the tile's halo between two barriers) swept through
//! the library with a CPU reference, and its twin `stencil3_cuda_std_barrier`, the same body with
//! cuda_std's aligned barrier, which rust-cuda's LLVM loop unswitching splits so that the block deadlocks
//! on the GPU (docs/barriers.md). The twin is launched only to show that hang, under a timeout.

use crate::PTX;
use block_size_runner::{Arg, Check, Kernel};

/// The entry with this repository's unaligned barrier: safe at every block size.
pub const SAFE_ENTRY: &str = "stencil3";
/// The entry with cuda_std's aligned `bar.sync`: the hazard, kept to show it.
pub const HAZARD_ENTRY: &str = "stencil3_cuda_std_barrier";

/// `n` inputs with no pattern the stencil could hide a wrong halo in.
pub fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0).collect()
}

/// The CPU stencil: `y[i] = x[i - 1] + x[i] + x[i + 1]`, zero outside `0..n`, in the order the
/// kernel adds.
pub fn reference(x: &[f32]) -> Vec<f32> {
    let at = |i: isize| if i < 0 || i as usize >= x.len() { 0.0 } else { x[i as usize] };
    (0..x.len() as isize).map(|i| at(i - 1) + x[i as usize] + at(i + 1)).collect()
}

/// `entry` over `x`: one output per input, `threads + 2` f32s of dynamic shared memory a block
/// (the tile and its two halo values), every row checked exactly against [`reference`].
pub fn kernel(entry: &'static str, x: Vec<f32>) -> Kernel {
    let n = x.len();
    let want = reference(&x);
    Kernel::new(PTX, entry)
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .input("x", x)
        .output::<f32>("y", n)
        .dynamic_shared_memory(|threads, _| (threads + 2) * 4)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("y")])
        .check(exactly(want, "the CPU stencil says"))
}

/// Every row's `y` bit for bit equal to `want`; a difference is named with `says` ("the CPU
/// stencil says") before the wanted value.
fn exactly(want: Vec<f32>, says: &'static str) -> Check {
    Check::reference(move |result, _| {
        let got = result.of::<f32>().ok_or("the output is not f32")?;
        match got.iter().zip(&want).position(|(got, want)| got.to_bits() != want.to_bits()) {
            Some(i) => Err(format!("y[{i}] is {}, {says} {}", got[i], want[i])),
            None => Ok(()),
        }
    })
}

/// The entry of the test kernel that stores out of bounds at 1024 threads per block.
pub const FAULTING_ENTRY: &str = "copy_faulting_at_1024";
/// The entry of the test kernel that never finishes at 512 threads per block.
pub const HANGING_ENTRY: &str = "copy_hanging_at_512";

/// One of the test kernels of `examples/reduce/kernels/src/faults.rs` over `x`: `y` must equal
/// `x` at every block size it finishes at. The input has one more value than the copy, 0: the
/// flag the hanging kernel waits on.
pub fn copy_kernel(entry: &'static str, x: Vec<f32>) -> Kernel {
    let n = x.len();
    let want = x.clone();
    let mut input = x;
    input.push(0.0);
    Kernel::new(PTX, entry)
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .input("x", input)
        .output::<f32>("y", n)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("y")])
        .check(exactly(want, "x holds"))
}
