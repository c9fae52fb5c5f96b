/*!
One engine for any kernel: what the sweep, `compare`, `tail` and the checks need to know about
the kernel they measure, behind `Workload`, and the table of kernels by name, [`KERNELS`].

A workload allocates its device buffers from host data (`Workload::upload`), says how the
active kernel is launched at a grid and block size (`Workload::launch`: its argument list,
its dynamic shared memory per block size, the buffers zeroed before each launch), checks what
the device computed against its CPU reference (`Workload::check`), and says what one pass
moves ([`Pass`], for GB/s). The engine (`search::sweep`, `commands::compare::engine`, `commands::tail::engine`)
knows nothing else of it; the mock backend (`mock::MockGpu`) runs its launches through the CPU
emulation its [`KernelSpec`] registers, so the whole pipeline runs in CPU tests for every
kernel.

A new kernel is one module in `kernels/` (its `#[kernel]`), one module here (its workload and
[`KernelSpec`]) and one line in [`KERNELS`].
*/

pub mod grayscale;
pub mod histogram;

use crate::measure::backend::Emulation;
use crate::measure::device::Footprint;
use crate::measure::ptx::{EmbeddedPtx, KernelRef};
use crate::measure::workload::Workload;
use crate::model::frame_size::FrameSize;
use crate::model::pass::Pass;
use anyhow::{Context as _, Result};

/// Every kernel `--kernel` offers, the default first.
pub const KERNELS: &[&KernelSpec] = &[
    &grayscale::KERNEL,
    &histogram::KERNEL,
    &histogram::KERNEL_X4,
    &histogram::KERNEL_X8,
    &histogram::KERNEL_X8K2,
    &histogram::KERNEL_X8K4,
    &histogram::KERNEL_X8K2C,
    &histogram::KERNEL_X8K4C,
];

/// The kernel `--kernel` names, if any.
pub fn spec(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().copied().find(|spec| spec.name == name)
}

#[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
/// The kernel whose workload launches entry point `entry` (its own, or a variant of it).
pub fn spec_of_entry(entry: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().copied().find(|spec| spec.entries.contains(&entry))
}

/// What a run was asked to build its workload from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// The frame measured over.
    pub frame: FrameSize,
    /// Histogram bins (the histogram's `--bins`).
    pub bins: u32,
    /// Elements every buffer starts past an aligned address (`variants --offset`).
    pub offset: usize,
}

impl Params {
    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    /// A frame of `width` x `height` pixels with every other parameter at its default.
    pub fn frame(width: u32, height: u32) -> Self {
        Self { frame: FrameSize::new(width, height), bins: histogram::DEFAULT_BINS, offset: 0 }
    }
}

/// A kernel the runner can measure: its name, entry point, modules, and what its workload
/// needs before it exists (memory, validation, header).
#[derive(Debug)]
pub struct KernelSpec {
    /// What `--kernel` takes.
    pub name: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// The entry point the sweep, `compare` and `tail` launch.
    pub entry: &'static str,
    /// Every entry point [`KernelSpec::emulate`] stands in for (the entry and its variants).
    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    pub entries: &'static [&'static str],
    /// The modules `compare` measures side by side, the sweep's (cuda_builder) first.
    pub modules: &'static [EmbeddedPtx],
    /// The module `compare` divides by: the CUDA C++ twin.
    pub baseline: EmbeddedPtx,
    /// The kernel-specific options this kernel reads (`bins`): any other one given is an error.
    pub options: &'static [&'static str],
    /// Checks `params` for this kernel, before any device is opened; the message is one line.
    pub validate: fn(&Params) -> Result<(), String>,
    /// Output elements, and how to say their count: (91, "91-pixel frame").
    pub outputs: fn(&Params) -> (u64, String),
    /// Device and host memory a run of `params` needs.
    pub footprint: fn(&Params) -> Footprint,
    /// Bytes of dynamic shared memory a block of the given size needs.
    pub dynamic_shared_memory: fn(&Params, u32) -> u32,
    /// What one pass of `params` is.
    pub pass: fn(&Params) -> Pass,
    /// Builds the workload on the host: inputs and CPU reference. An error is bad input (the
    /// host cannot hold it).
    pub create: fn(&Params) -> Result<Box<dyn Workload>>,
    /// Its CPU emulation, for the mock backend.
    #[cfg_attr(not(any(test, feature = "mock")), allow(dead_code))]
    pub emulate: Emulation,
}

impl KernelSpec {
    /// The entry point of `module`.
    pub fn kernel_in(&self, module: EmbeddedPtx) -> KernelRef {
        module.kernel(self.entry)
    }

    /// The sweep's kernel: the entry point in the cuda_builder module.
    pub fn rust_kernel(&self) -> KernelRef {
        self.kernel_in(self.modules[0])
    }
}

/// Kernels are the same kernel when their names are.
impl PartialEq for KernelSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for KernelSpec {}

/// The buffers of a workload, once uploaded.
fn uploaded<T: Copy>(buffers: Option<T>) -> Result<T> {
    buffers.context("the workload's buffers are not uploaded")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_found_by_its_name_and_its_entries() {
        assert_eq!(KERNELS[0].name, "grayscale", "the default comes first");
        for spec in KERNELS {
            assert_eq!(super::spec(spec.name), Some(*spec));
            assert!(spec.entries.contains(&spec.entry), "{}", spec.name);
            for entry in spec.entries {
                assert_eq!(spec_of_entry(entry), Some(*spec), "{entry}");
            }
            assert!(spec.modules.contains(&spec.baseline), "{}", spec.name);
            assert_eq!(
                spec.modules[0],
                crate::measure::ptx::RUST_CUDA,
                "{}: the sweep's module first",
                spec.name
            );
            for module in spec.modules {
                assert!(
                    module.ptx.contains(&format!(".entry {}(", spec.entry)),
                    "{} lacks {}",
                    module.file,
                    spec.entry
                );
            }
        }
        assert_eq!(super::spec("sobel"), None);
    }
}
