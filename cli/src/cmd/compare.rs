//! `block-size compare`: the kernel from every compiler that builds it, side by side.

use crate::args::KernelArgs;
use block_size_builtin::CompareRequest;
use block_size_runner::CompareArgs;
use clap::Args;

// The options of `block-size compare`: the kernel's, then those any program's `compare` takes.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "The kernel from cuda_builder and nvcc (and, for grayscale, rustc's NVPTX backend), timed side by side in interleaved rounds"
)]
#[cfg_attr(doc, doc = "The options of `block-size compare`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct CompareCommand {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--block-sizes`, `--warmups`, `--device`, `--rounds`, `--provenance`.")]
    pub compare: CompareArgs,
}

impl CompareCommand {
    /// The library's request.
    pub fn request(&self) -> CompareRequest {
        CompareRequest { kernel: self.kernel.choice(), options: self.compare.clone() }
    }
}
