//! `block-size occupancy`: the occupancy calculator, no GPU needed.

use block_size_runner::Error;
use block_size_runner::commands::{self, OccupancyArgs};
use clap::Args;

// The options of `block-size occupancy`: the library's.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Blocks per SM, occupancy and the binding limit for a preset GPU, from a model; no GPU needed"
)]
#[cfg_attr(doc, doc = "The options of `block-size occupancy`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct OccupancyCommand {
    #[command(flatten)]
    #[cfg_attr(
        doc,
        doc = "`--gpu` or `--compare-gpus`, `--regs`, `--smem`, `--block-sizes`, `--block-shapes`."
    )]
    pub occupancy: OccupancyArgs,
}

impl OccupancyCommand {
    /// The calculator's tables.
    pub fn exec(&self) -> Result<String, Error> {
        commands::occupancy(&self.occupancy)
    }
}
