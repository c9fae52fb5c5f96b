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

pub mod frame;
pub mod grayscale;
pub mod histogram;
#[cfg(feature = "mock")]
pub mod mock;
pub mod ptx;
pub mod requests;

pub use crate::frame::Frame;
pub use crate::requests::{
    CompareRequest, DEFAULT_BINS, DEFAULT_HEIGHT, DEFAULT_WIDTH, KERNELS, KernelAxes, KernelChoice, MAX_BINS,
    SweepRequest, TailRequest, VariantsRequest,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_a_shape_of_its_family_and_in_every_module() {
        assert_eq!(KERNELS[0].0, "grayscale", "the default comes first");
        let histograms: Vec<&str> = histogram::SHAPES.iter().map(|shape| shape.entry).collect();
        assert_eq!(KERNELS[1].0, grayscale::NAME_2D);
        assert_eq!(KERNELS[2..].iter().map(|(name, _)| *name).collect::<Vec<_>>(), histograms);
        for module in [ptx::RUST_CUDA, ptx::NVCC] {
            assert!(module.ptx.contains(".entry grayscale_2d("), "{} lacks grayscale_2d", module.file);
        }
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
