/*!
PTX modules embedded in a program ([`EmbeddedPtx`], with their provenance stamps), their entry
points ([`KernelRef`]) and parameter lists, and the one module the runner embeds itself: that of
the blocking kernel of cold timing ([`BLOCKING_MODULE`]). A kernel's own module and its twins
come with its description ([`crate::Kernel`]); this repository's are embedded by the
`block-size-builtin` crate.
*/

use crate::measure::record::stamp::Stamp;

/// One PTX module, embedded in the program: this project's, or one of your own
/// ([`EmbeddedPtx::user`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedPtx {
    /// Short name used in tables and on the command line.
    pub label: &'static str,
    /// Its file under `kernels/ptx/`, without the extension; empty for a module of your own.
    pub file: &'static str,
    /// The PTX text, as the driver loads it.
    pub ptx: &'static str,
    /// The text of its `.stamp.toml`, which `ptx-stamp` writes; empty where it has none.
    pub stamp_text: &'static str,
}

/// One kernel: an entry point of an embedded module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelRef {
    /// The module that holds it.
    pub(crate) module: EmbeddedPtx,
    /// The entry point's name, as in the PTX's `.entry`.
    pub(crate) entry: &'static str,
}

impl EmbeddedPtx {
    /// A module of your own: `ptx` as cuda_builder (or nvcc) wrote it, under `label` (tables,
    /// messages and provenance name it so), with no stamp. Usually
    /// `EmbeddedPtx::user("mine", include_str!("../ptx/mine.ptx"))`; see
    /// [`EmbeddedPtx::with_stamp`] to add the stamp `ptx-stamp` wrote beside it.
    pub const fn user(label: &'static str, ptx: &'static str) -> Self {
        Self { label, file: "", ptx, stamp_text: "" }
    }

    /// This module with its provenance stamp (the text of a `.stamp.toml`), which the
    /// `--provenance` lines and the JSON export read. A stamp that does not parse reads as
    /// none.
    pub const fn with_stamp(self, stamp_text: &'static str) -> Self {
        Self { stamp_text, ..self }
    }

    /// Whether this module has a stamp that parses (every module of this project has one).
    pub fn is_stamped(&self) -> bool {
        Stamp::parse(self.stamp_text).is_ok()
    }

    /// The entry point `entry` of this module.
    pub const fn kernel(self, entry: &'static str) -> KernelRef {
        KernelRef { module: self, entry }
    }

    /// The parsed stamp; for a module without one ([`EmbeddedPtx::user`]), a stamp that says
    /// only what the PTX itself does (its hash, entries and target) and `unknown` for the rest.
    pub(crate) fn stamp(&self) -> Stamp {
        Stamp::parse(self.stamp_text).unwrap_or_else(|_| self.unstamped())
    }

    /// What can be said of a module without its stamp.
    fn unstamped(&self) -> Stamp {
        let target = self.ptx.lines().find_map(|line| line.trim().strip_prefix(".target "));
        Stamp {
            kernels: crate::measure::record::stamp::entry_names(self.ptx),
            arch: target
                .map_or_else(|| "unknown".to_string(), |target| target.trim().replace("sm_", "compute_")),
            compiler: "unknown (no stamp)".to_string(),
            inputs: Vec::new(),
            inputs_sha256: "unknown".to_string(),
            ptx_sha256: self.sha256(),
            toolchain: None,
            rustc: None,
            rust_cuda_rev: None,
            libnvvm: None,
            nvvm_ir: None,
            libnvvm_release: None,
            nvcc: None,
            flags: None,
            regenerate: "unknown".to_string(),
        }
    }

    /// SHA-256 of the embedded PTX, as stamps and evidence files record it.
    pub(crate) fn sha256(&self) -> String {
        crate::measure::record::stamp::sha256_hex(self.ptx.as_bytes())
    }
}

/// `kernels/ptx/<file>.ptx` and its `.stamp.toml`, embedded under `label`.
macro_rules! embedded {
    ($label:literal, $file:literal) => {
        EmbeddedPtx {
            label: $label,
            file: $file,
            ptx: include_str!(concat!("../../../ptx/", $file, ".ptx")),
            stamp_text: include_str!(concat!("../../../ptx/", $file, ".stamp.toml")),
        }
    };
}

/// The module holding `block_until_released`, the blocking kernel of cold timing
/// (`spin`, `kernels/src/spin.rs`): cuda_builder builds it
/// with this repository's kernels into `kernels/ptx/grayscale.ptx`, the one module the runner
/// embeds itself. The kernels it measures come from their descriptions, never from here.
pub const BLOCKING_MODULE: EmbeddedPtx = embedded!("cuda_builder", "grayscale");

/// Modules of this repository that the runner's own tests read (entries, stamps), beside
/// [`BLOCKING_MODULE`].
#[cfg(test)]
pub(crate) mod fixtures {
    use super::EmbeddedPtx;
    /// `kernels/cuda/grayscale.cu` through nvcc.
    pub const NVCC: EmbeddedPtx = embedded!("nvcc", "grayscale-nvcc");
    /// `kernels/cuda/histogram.cu` through nvcc.
    pub const HISTOGRAM_NVCC: EmbeddedPtx = embedded!("nvcc", "histogram-nvcc");
}

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
        let grayscale = super::entry_params(super::BLOCKING_MODULE.ptx, "grayscale").unwrap();
        assert_eq!(grayscale, ["u64"; 5]);
        let histogram = super::entry_params(super::fixtures::HISTOGRAM_NVCC.ptx, "histogram").unwrap();
        assert_eq!(histogram, ["u64", "u64", "u64", "u32"]);
    }

    #[test]
    fn every_embedded_ptx_is_the_one_its_stamp_describes() {
        for module in [super::BLOCKING_MODULE, super::fixtures::NVCC, super::fixtures::HISTOGRAM_NVCC] {
            assert!(module.is_stamped(), "{}", module.file);
            assert_eq!(module.stamp().ptx_sha256, module.sha256(), "{}", module.file);
        }
    }

    #[test]
    fn a_user_module_without_a_stamp_says_what_its_ptx_does() {
        let ptx = ".version 7.8\n.target sm_75\n.address_size 64\n.visible .entry mine(\n\t.param .u64 p\n)\n{\n}\n";
        let module = super::EmbeddedPtx::user("mine", ptx);
        assert_eq!((module.label, module.file, module.ptx), ("mine", "", ptx));
        assert!(!module.is_stamped());
        let stamp = module.stamp();
        assert_eq!(stamp.kernels, ["mine"]);
        assert_eq!(stamp.arch, "compute_75");
        assert_eq!(stamp.ptx_sha256, module.sha256());
        assert_eq!(stamp.compiler, "unknown (no stamp)");
        // With a stamp, the stamp's.
        let stamped = module.with_stamp(super::BLOCKING_MODULE.stamp_text);
        assert!(stamped.is_stamped());
        assert_eq!(stamped.stamp().compiler, "cuda_builder");
        assert_eq!(super::entry_params(module.ptx, "mine"), Some(vec!["u64".to_string()]));
    }
}
