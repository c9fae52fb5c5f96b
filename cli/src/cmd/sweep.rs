//! The sweep, `block-size`'s default command: its options are the top level's own.

use crate::args::{KernelArgs, SweepArgs};
use block_size_runner::commands::SweepRequest;
use clap::Args;

// The sweep's options: `block-size`'s own, with no subcommand. Defaults are `block_size.cu`'s
// constants, so a bare run is the seed's run.
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(doc, doc = "The sweep's options: `block-size`'s own, with no subcommand.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct Sweep {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "The sweep's settings.")]
    pub sweep: SweepArgs,
}

impl Sweep {
    /// The library's request, recording `command` as the command line.
    pub fn request(&self, command: Vec<String>) -> SweepRequest {
        let mut settings = self.sweep.settings();
        settings.command = command;
        SweepRequest { kernel: self.kernel.choice(), settings }
    }
}
