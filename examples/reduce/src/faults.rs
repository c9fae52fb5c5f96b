//! The command line of `faults-example` and its worker `faults-example-cuda`: the launcher
//! parses it (its `--help` needs no driver) and hands it over unchanged to the worker, which
//! sweeps a test kernel that faults at 1024 threads per block or hangs at 512.

use crate::stencil;
use block_size_runner::SweepArgs;
use clap::Parser;

/// The example's options, then the sweep's.
#[derive(Parser, Debug)]
#[command(name = "faults-example", about = "Sweeps a test kernel that faults or hangs at one block size")]
pub struct FaultsCli {
    /// Values copied
    #[arg(long, default_value_t = 1 << 20)]
    pub n: usize,
    /// copy_faulting_at_1024 or copy_hanging_at_512
    #[arg(long, value_parser = [stencil::FAULTING_ENTRY, stencil::HANGING_ENTRY])]
    pub entry: String,
    /// The sweep's options.
    #[command(flatten)]
    pub sweep: SweepArgs,
}

impl FaultsCli {
    /// The entry point `--entry` names.
    pub fn entry(&self) -> &'static str {
        if self.entry == stencil::HANGING_ENTRY { stencil::HANGING_ENTRY } else { stencil::FAULTING_ENTRY }
    }
}
