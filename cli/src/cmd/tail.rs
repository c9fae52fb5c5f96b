//! `block-size tail`: what a partial last wave costs.

use crate::args::KernelArgs;
use block_size_builtin::TailRequest;
use block_size_runner::TailArgs;
use clap::Args;

// The options of `block-size tail`: the kernel's, then those any program's `tail` takes.
#[derive(Args, Debug, Clone, PartialEq)]
#[command(
    about = "What a partial last wave costs: one block size, grids of 0.5 to 8 waves over the same frame"
)]
#[cfg_attr(doc, doc = "The options of `block-size tail`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct TailCommand {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`, `--block-size`, `--waves`, the timing options, `--provenance`.")]
    pub tail: TailArgs,
}

impl TailCommand {
    /// The library's request.
    pub fn request(&self) -> TailRequest {
        TailRequest { kernel: self.kernel.choice(), options: self.tail.clone() }
    }
}
