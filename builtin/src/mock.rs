/*!
The CPU emulation of every kernel here, for the runner's stand-in for the driver
(`block_size_runner::mock`): [`emulate_all`] registers each entry point of each module on a
[`MockGpu`], so that every command runs on this repository's kernels in tests without a GPU;
[`h200`] is the mock driver of one H200-like device with them all.
*/

use crate::ptx::{HISTOGRAM_NVCC, NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA};
use crate::{grayscale, histogram};
use block_size_runner::mock::{Emulation, MockDriver, MockGpu};

/// Every (module, entry, emulation) of this repository's kernels.
pub fn emulations() -> Vec<(block_size_runner::KernelRef, Emulation)> {
    let mut all: Vec<(block_size_runner::KernelRef, Emulation)> = Vec::new();
    for module in [RUST_CUDA, NVCC, RUSTC_NVPTX, RUSTC_NVPTX_FMA] {
        for shape in grayscale::SHAPES {
            all.push((module.kernel(shape.entry), grayscale::emulation::emulate));
        }
    }
    for module in [RUST_CUDA, NVCC] {
        all.push((module.kernel(grayscale::NAME_2D), grayscale::emulation::emulate_2d));
    }
    for module in [RUST_CUDA, HISTOGRAM_NVCC] {
        for (index, shape) in histogram::SHAPES.iter().enumerate() {
            all.push((module.kernel(shape.entry), histogram::emulation::BY_SHAPE[index]));
        }
    }
    all
}

/// Registers the emulation of every kernel here on `gpu`.
pub fn emulate_all(gpu: &mut MockGpu) -> &mut MockGpu {
    for (kernel, emulation) in emulations() {
        gpu.emulate(kernel, emulation);
    }
    gpu
}

/// `MockGpu::h200_like()` with every kernel here emulated.
pub fn h200_like() -> MockGpu {
    let mut gpu = MockGpu::h200_like();
    emulate_all(&mut gpu);
    gpu
}

/// One [`h200_like`] device on a CUDA 13.0 driver.
pub fn h200() -> MockDriver {
    MockDriver { cuda_version: 13000, devices: vec![h200_like()] }
}
