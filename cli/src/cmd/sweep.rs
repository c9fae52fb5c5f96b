//! The sweep, `block-size`'s default command: its options are the top level's own.

use crate::args::KernelArgs;
use block_size_builtin::{KernelAxes, SweepRequest};
use block_size_runner::SweepArgs;
use clap::Args;

// The sweep's options: `block-size`'s own, with no subcommand. Defaults are `block_size.cu`'s
// constants, so a bare run is the seed's run.
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(doc, doc = "The sweep's options: `block-size`'s own, with no subcommand.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct SweepCommand {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: KernelArgs,

    /// Grayscale pixels a thread converts a loop trip, a list: 1, 2, 4, 8 (the shapes of
    /// `variants`: k1, k2, k4, k8), an axis of the sweep, a column of the table (--kernel
    /// grayscale only) [default: 1, or 4 at --vector-width 4]
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',')]
    pub pixels_per_thread: Vec<u32>,

    /// Grayscale floats one load reads, a list: 1, or 4 (16-byte vectors, the vec4 shape, at 4
    /// pixels per thread alone), an axis of the sweep, a column of the table (--kernel
    /// grayscale only) [default: 1]
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',')]
    pub vector_width: Vec<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "The sweep's settings.")]
    pub sweep: SweepArgs,
}

impl SweepCommand {
    /// The library's request.
    pub fn request(&self) -> SweepRequest {
        let axes = KernelAxes {
            pixels_per_thread: self.pixels_per_thread.clone(),
            vector_width: self.vector_width.clone(),
        };
        SweepRequest { kernel: self.kernel.choice(), axes, options: self.sweep.clone() }
    }
}
