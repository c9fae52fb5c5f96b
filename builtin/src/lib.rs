/*!
This repository's kernels, described for the runner with its public kernel API
([`block_size_runner::Kernel`]), exactly as a kernel of your own is: the grayscale conversion
and its shapes ([`grayscale`]), the luma histogram and its shapes ([`histogram`]), their host
side (inputs built on the host, CPU references), their committed PTX and CUDA C++ twins
([`ptx`]), and the typed requests the `block-size` command line makes of them ([`requests`]):
which kernel, over what frame, with which axes. The runner knows none of them.

With the `mock` feature, [`mock`] gives the runner's CPU stand-in for the driver the CPU
emulation of every kernel here, so that every command runs in tests without a GPU.
*/

#![warn(missing_docs)]

pub mod grayscale;
pub mod histogram;
#[cfg(feature = "mock")]
pub mod mock;
pub mod ptx;
pub mod requests;

pub use crate::requests::{
    CompareRequest, KernelAxes, KernelChoice, SweepRequest, TailRequest, VariantsRequest,
};

/// A frame of `width` x `height` pixels, what every kernel here covers in one pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// Pixels in a row.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl Frame {
    /// Its pixels (a `u32` times a `u32` always fits in 64 bits).
    pub fn pixels(self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }
}

/// `3840 x 2160`.
impl std::fmt::Display for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} x {}", self.width, self.height)
    }
}

/// One 4K frame, 8,294,400 pixels.
pub const DEFAULT_WIDTH: u32 = 3840;
/// The default frame's height (4K).
pub const DEFAULT_HEIGHT: u32 = 2160;
/// Histogram bins unless `--bins` says otherwise.
pub const DEFAULT_BINS: u32 = histogram::DEFAULT_BINS;
/// The most histogram bins (`--bins`): 16 KiB of shared memory a block.
pub const MAX_BINS: u32 = histogram::reference::MAX_BINS;

/// This repository's kernels by name, each with its one-line description: what `--kernel`
/// takes, the default first.
pub const KERNELS: [(&str, &str); 8] = [
    (grayscale::NAME, "Rec. 601 luma of three float planes, one pixel per thread per trip (the default)"),
    ("histogram", "luma histogram with per-block bins in dynamic shared memory (--bins x 4 bytes a block)"),
    ("histogram_x4", "the histogram with 8-byte vector loads (4 pixels)"),
    ("histogram_x8", "the histogram with 16-byte vector loads (8 pixels)"),
    ("histogram_x8k2", "the histogram with two 16-byte vector loads a thread a trip"),
    ("histogram_x8k4", "the histogram with four 16-byte vector loads a thread a trip"),
    (
        "histogram_x8k2c",
        "histogram_x8k2 with one copy of the bins per lane, up to 32 KiB a block (fewer copies above 256 bins)",
    ),
    (
        "histogram_x8k4c",
        "histogram_x8k4 with one copy of the bins per lane, up to 32 KiB a block (fewer copies above 256 bins)",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_a_shape_of_its_family_and_in_every_module() {
        assert_eq!(KERNELS[0].0, "grayscale", "the default comes first");
        let histograms: Vec<&str> = histogram::SHAPES.iter().map(|shape| shape.entry).collect();
        assert_eq!(KERNELS[1..].iter().map(|(name, _)| *name).collect::<Vec<_>>(), histograms);
        for shape in grayscale::SHAPES {
            for module in [ptx::RUST_CUDA, ptx::NVCC, ptx::RUSTC_NVPTX, ptx::RUSTC_NVPTX_FMA] {
                if module != ptx::RUST_CUDA && module != ptx::NVCC && shape.entry != grayscale::NAME {
                    continue; // the rustc NVPTX builds have the one-pixel kernel alone
                }
                assert!(
                    module.ptx.contains(&format!(".entry {}(", shape.entry)),
                    "{} lacks {}",
                    module.file,
                    shape.entry
                );
            }
        }
        for shape in histogram::SHAPES {
            for module in [ptx::RUST_CUDA, ptx::HISTOGRAM_NVCC] {
                assert!(
                    module.ptx.contains(&format!(".entry {}(", shape.entry)),
                    "{} lacks {}",
                    module.file,
                    shape.entry
                );
            }
        }
        assert_eq!(Frame { width: 3840, height: 2160 }.to_string(), "3840 x 2160");
        assert_eq!(Frame { width: u32::MAX, height: u32::MAX }.pixels(), u64::from(u32::MAX).pow(2));
    }
}
