//! What the mock tests of the example's 2-D kernels (tests/transpose.rs, tests/blur.rs) share:
//! an H200-like mock driver that runs one kernel by its CPU emulation, and settings of block
//! shapes under a grid policy, each row one launch.

use block_size_runner::mock::{Emulation, MockDriver, MockGpu};
use block_size_runner::{GridPolicy, KernelRef, Settings, TimingMode, TimingSettings};

/// One H200-like mock GPU on which `kernel` runs as `emulation` says.
pub fn driver(kernel: KernelRef, emulation: Emulation) -> MockDriver {
    let mut gpu = MockGpu::h200_like();
    gpu.emulate(kernel, emulation);
    MockDriver { cuda_version: 13000, devices: vec![gpu] }
}

/// A sweep of `shapes` (`32x8,16x16`) under `grid`: launch timing, no warm-up, one run a row.
pub fn settings(shapes: &str, grid: GridPolicy) -> Settings {
    Settings {
        block_shapes: shapes.split(',').map(|shape| shape.parse().unwrap()).collect(),
        grid,
        timing: TimingSettings {
            mode: TimingMode::Launch,
            warmups: 0,
            runs: Some(1),
            ..TimingSettings::default()
        },
        ..Settings::default()
    }
}
