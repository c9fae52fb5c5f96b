/*!
The committed PTX of this repository's kernels (`kernels/ptx/`, linked here as `ptx/`), each with
its provenance stamp, embedded at compile time. Five modules, all for `compute_75`/`sm_75`
(the driver JIT-compiles them for newer GPUs):

- [`RUST_CUDA`]: `kernels/` through rust-cuda's `cuda_builder` (rustc_codegen_nvvm + libNVVM):
  `grayscale` and its shapes, `histogram` and its shapes (and the runner's blocking kernel);
- [`NVCC`]: `kernels/cuda/grayscale.cu` through nvcc, the CUDA C++ twin of the grayscale kernels;
- [`HISTOGRAM_NVCC`]: `kernels/cuda/histogram.cu` through nvcc, the histogram's twin;
- [`RUSTC_NVPTX`]: `kernels/nvptx` through rustc's own NVPTX backend;
- [`RUSTC_NVPTX_FMA`]: the same with LLVM's FMA contraction switched on
  (`-C llvm-args=--fp-contract=fast`), which rustc leaves off and nvcc and libNVVM apply.

The tests in `tests/` prove each still matches its sources and assembles with `ptxas`.
*/

use block_size_runner::EmbeddedPtx;

/// `kernels/ptx/<file>.ptx` and its `.stamp.toml`, embedded under `label`.
macro_rules! embedded {
    ($label:literal, $file:literal) => {
        EmbeddedPtx {
            label: $label,
            file: $file,
            ptx: include_str!(concat!("../ptx/", $file, ".ptx")),
            stamp_text: include_str!(concat!("../ptx/", $file, ".stamp.toml")),
        }
    };
}

/// `kernels/` through rust-cuda's `cuda_builder`: the kernels the sweep measures.
pub const RUST_CUDA: EmbeddedPtx = embedded!("cuda_builder", "grayscale");
/// `kernels/cuda/grayscale.cu` through nvcc: the grayscale kernels' CUDA C++ twin.
pub const NVCC: EmbeddedPtx = embedded!("nvcc", "grayscale-nvcc");
/// `kernels/nvptx` through rustc's own NVPTX backend.
pub const RUSTC_NVPTX: EmbeddedPtx = embedded!("rustc-nvptx", "grayscale-nvptx");
/// The same with LLVM's FMA contraction switched on.
pub const RUSTC_NVPTX_FMA: EmbeddedPtx = embedded!("rustc-nvptx-fma", "grayscale-nvptx-fma");
/// `kernels/cuda/histogram.cu` through nvcc: the histogram's CUDA C++ twin.
pub const HISTOGRAM_NVCC: EmbeddedPtx = embedded!("nvcc", "histogram-nvcc");

/// Every module, the sweep's own first.
pub const ALL: [EmbeddedPtx; 5] = [RUST_CUDA, NVCC, RUSTC_NVPTX, RUSTC_NVPTX_FMA, HISTOGRAM_NVCC];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_ptx_is_the_one_its_stamp_describes() {
        for module in ALL {
            assert!(module.is_stamped(), "{}", module.file);
            let stamp = ptx_stamp::Stamp::parse(module.stamp_text).unwrap();
            assert_eq!(stamp.ptx_sha256, ptx_stamp::sha256_hex(module.ptx.as_bytes()), "{}", module.file);
        }
    }

    #[test]
    fn the_runners_blocking_module_is_the_cuda_builder_module() {
        // The runner embeds the same file for its blocking kernel: the two must not drift.
        assert_eq!(block_size_runner::testing::BLOCKING_MODULE, RUST_CUDA);
    }
}
