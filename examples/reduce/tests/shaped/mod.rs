//! What the mock tests of the example's 2-D kernels (tests/transpose.rs, tests/blur.rs) share:
//! an H200-like mock driver that runs one kernel by its CPU emulation, and the sweep's options
//! of block shapes under a grid policy, each row one launch.

use block_size_runner::mock::{Emulation, MockDriver, MockGpu};
use block_size_runner::{KernelRef, SweepArgs};

/// One H200-like mock GPU on which `kernel` runs as `emulation` says.
pub fn driver(kernel: KernelRef, emulation: Emulation) -> MockDriver {
    let mut gpu = MockGpu::h200_like();
    gpu.emulate(kernel, emulation);
    MockDriver { cuda_version: 13000, devices: vec![gpu] }
}

/// A sweep of `shapes` (`32x8,16x16`) under `grid` (`per-item`) and `extra` options: launch
/// timing, no warm-up, one run a row.
pub fn options(shapes: &str, grid: &str, extra: &[&str]) -> SweepArgs {
    let options =
        ["--block-shapes", shapes, "--grid", grid, "--timing", "launch", "--warmups", "0", "--runs", "1"];
    SweepArgs::from_args([&options[..], extra].concat()).unwrap()
}
