//! `block-size occupancy`: the occupancy calculator, no GPU needed.

use block_size_runner::Error;
use block_size_runner::Settings;
use block_size_runner::commands::{self, DEFAULT_REGISTERS, presets};
use clap::builder::PossibleValuesParser;
use clap::{ArgAction, ArgGroup, Args};

// The options of `block-size occupancy`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Blocks per SM, occupancy and the binding limit for a preset GPU, from a model; no GPU needed",
    group(ArgGroup::new("which").args(["gpu", "compare_gpus"]).required(true))
)]
#[cfg_attr(doc, doc = "The options of `block-size occupancy`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct OccupancyCommand {
    /// The GPU to model
    #[arg(long, value_name = "PRESET", value_parser = preset_keys(), ignore_case = true)]
    pub gpu: Option<String>,

    /// Several presets side by side, comma-separated
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = preset_keys(),
        ignore_case = true,
        conflicts_with = "gpu",
        action = ArgAction::Set
    )]
    pub compare_gpus: Vec<String>,

    /// Registers per thread, 0 to 255 (ptxas -v, or the driver's NUM_REGS)
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = DEFAULT_REGISTERS)]
    pub regs: u32,

    /// Shared memory per block, static plus dynamic, in bytes
    #[arg(long, allow_negative_numbers = true, value_name = "BYTES", default_value_t = 0)]
    pub smem: u32,

    /// Threads per block, 1 to 1024
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = Settings::default().block_sizes, action = ArgAction::Set)]
    pub block_sizes: Vec<u32>,

    /// Block shapes instead of 1-D blocks (32x8,16x16,8x8x4), or 2d / 3d: every shape of each --block-sizes count whose sides are powers of two, x at least 32
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = crate::args::parse_block_shape_item, action = ArgAction::Set)]
    pub block_shapes: Vec<crate::args::BlockShapeItem>,
}

/// `--gpu` and `--compare-gpus` take the presets' keys.
fn preset_keys() -> PossibleValuesParser {
    PossibleValuesParser::new(presets().map(|(key, _)| key))
}

impl OccupancyCommand {
    /// The calculator's tables.
    pub fn exec(&self) -> Result<String, Error> {
        let gpus: Vec<String> = match &self.gpu {
            Some(gpu) => vec![gpu.to_ascii_lowercase()],
            None => self.compare_gpus.iter().map(|gpu| gpu.to_ascii_lowercase()).collect(),
        };
        let shapes = crate::args::BlockShapeItem::expand(&self.block_shapes, &self.block_sizes);
        commands::occupancy(&gpus, self.regs, self.smem, &self.block_sizes, &shapes)
    }
}
