/*!
The committed PTX files and their provenance stamps, embedded at compile time.

Five modules, all for `compute_75`/`sm_75` (the driver JIT-compiles them for newer GPUs):

- [`RUST_CUDA`]: `kernels/` through rust-cuda's `cuda_builder` (rustc_codegen_nvvm + libNVVM),
  the kernels the sweep measures: `grayscale` and its variants, and `histogram`; and
  `block_until_released`, the blocking kernel of cold timing ([`crate::timing::BLOCKING_KERNEL`]);
- [`NVCC`]: `kernels/cuda/grayscale.cu` through nvcc, the CUDA C++ baseline of the grayscale
  kernels;
- [`HISTOGRAM_NVCC`]: `kernels/cuda/histogram.cu` through nvcc, the CUDA C++ baseline of the
  histogram;
- [`RUSTC_NVPTX`]: `kernels/nvptx` through rustc's own NVPTX backend;
- [`RUSTC_NVPTX_FMA`]: the same with LLVM's FMA contraction switched on
  (`-C llvm-args=--fp-contract=fast`), which rustc leaves off and nvcc and libNVVM apply.

The tests in `tests/` prove each still matches its sources and assembles with `ptxas`.
*/

use ptx_stamp::Stamp;

/// One embedded PTX module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedPtx {
    /// Short name used in tables and on the command line.
    pub label: &'static str,
    /// Its file under `kernels/ptx/`, without the extension.
    pub file: &'static str,
    pub ptx: &'static str,
    pub stamp_text: &'static str,
}

/// One kernel: an entry point of an embedded module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelRef {
    pub module: EmbeddedPtx,
    pub entry: &'static str,
}

impl EmbeddedPtx {
    /// The entry point `entry` of this module.
    pub const fn kernel(self, entry: &'static str) -> KernelRef {
        KernelRef { module: self, entry }
    }

    /// The parsed stamp.
    pub fn stamp(&self) -> Stamp {
        Stamp::parse(self.stamp_text).expect("the committed stamps parse (checked by the tests)")
    }

    /// SHA-256 of the embedded PTX, as stamps and evidence files record it.
    pub fn sha256(&self) -> String {
        ptx_stamp::sha256_hex(self.ptx.as_bytes())
    }
}

/// `kernels/ptx/<file>.ptx` and its `.stamp.toml`, embedded under `label`.
macro_rules! embedded {
    ($label:literal, $file:literal) => {
        EmbeddedPtx {
            label: $label,
            file: $file,
            ptx: include_str!(concat!("../../kernels/ptx/", $file, ".ptx")),
            stamp_text: include_str!(concat!("../../kernels/ptx/", $file, ".stamp.toml")),
        }
    };
}

pub const RUST_CUDA: EmbeddedPtx = embedded!("cuda_builder", "grayscale");
pub const NVCC: EmbeddedPtx = embedded!("nvcc", "grayscale-nvcc");
pub const RUSTC_NVPTX: EmbeddedPtx = embedded!("rustc-nvptx", "grayscale-nvptx");
pub const RUSTC_NVPTX_FMA: EmbeddedPtx = embedded!("rustc-nvptx-fma", "grayscale-nvptx-fma");
pub const HISTOGRAM_NVCC: EmbeddedPtx = embedded!("nvcc", "histogram-nvcc");

/// Every embedded module, the sweep's own first.
pub const ALL: [EmbeddedPtx; 5] = [RUST_CUDA, NVCC, RUSTC_NVPTX, RUSTC_NVPTX_FMA, HISTOGRAM_NVCC];

/// The parameter types of entry point `entry` in `ptx`, in order, without their dot: `u64`
/// for a pointer or a `usize`, `u32` for a `u32`. `None` where `ptx` has no such entry.
pub fn entry_params(ptx: &str, entry: &str) -> Option<Vec<String>> {
    let head = format!(".entry {entry}(");
    let start = ptx.find(&head)? + head.len();
    let end = start + ptx[start..].find(')')?;
    Some(
        ptx[start..end]
            .split(',')
            .filter_map(|param| param.split_whitespace().nth(1))
            .map(|ty| ty.trim_start_matches('.').to_string())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn entry_params_reads_the_parameter_list() {
        let ptx = ".visible .entry histogram(\n\t.param .u64 histogram_param_0,\n\t.param .u32 histogram_param_1\n)\n{";
        assert_eq!(super::entry_params(ptx, "histogram"), Some(vec!["u64".to_string(), "u32".to_string()]));
        assert_eq!(super::entry_params(ptx, "histo"), None);
        assert_eq!(super::entry_params(".entry empty()\n", "empty"), Some(Vec::new()));
        let grayscale = super::entry_params(super::RUST_CUDA.ptx, "grayscale").unwrap();
        assert_eq!(grayscale, ["u64"; 5]);
        let histogram = super::entry_params(super::HISTOGRAM_NVCC.ptx, "histogram").unwrap();
        assert_eq!(histogram, ["u64", "u64", "u64", "u32"]);
    }

    #[test]
    fn every_embedded_ptx_is_the_one_its_stamp_describes() {
        for module in super::ALL {
            assert_eq!(module.stamp().ptx_sha256, module.sha256(), "{}", module.file);
        }
    }
}
