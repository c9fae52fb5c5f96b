/*!
[`OccupancyArgs`], `block-size occupancy`'s options, and the request they become.
*/

use crate::commands::occupancy::OccupancyRequest;
use crate::commands::options::groups::{BlockShapeItem, parse_block_shape_item};
use crate::commands::settings::Settings;
use crate::error::Error;
use crate::model::sm::{self, DEFAULT_REGISTERS};
use clap::builder::PossibleValuesParser;
use clap::{ArgAction, ArgGroup, Args};
use std::ffi::OsString;

// `block-size occupancy`'s options. (Its rustdoc is an attribute, as `CompareArgs`'s.)
#[cfg_attr(
    doc,
    doc = "`block-size occupancy`'s options: `--gpu` or `--compare-gpus` (a preset GPU's key, \
        any case), `--regs`, `--smem`, `--block-sizes` and `--block-shapes`. Flatten it into your \
        program's parser, or parse a list of them ([`OccupancyArgs::from_args`]); then hand it to \
        [`crate::commands::occupancy`]."
)]
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(group(ArgGroup::new("which").args(["gpu", "compare_gpus"]).required(true)))]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct OccupancyArgs {
    /// The GPU to model
    #[arg(long, value_name = "PRESET", value_parser = preset_keys(), ignore_case = true)]
    gpu: Option<String>,

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
    compare_gpus: Vec<String>,

    /// Registers per thread, 0 to 255 (ptxas -v, or the driver's NUM_REGS)
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = DEFAULT_REGISTERS)]
    regs: u32,

    /// Shared memory per block, static plus dynamic, in bytes
    #[arg(long, allow_negative_numbers = true, value_name = "BYTES", default_value_t = 0)]
    smem: u32,

    /// Threads per block, 1 to 1024
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = Settings::default().block_sizes, action = ArgAction::Set)]
    block_sizes: Vec<u32>,

    /// Block shapes instead of 1-D blocks (32x8,16x16,8x8x4), or 2d / 3d: every shape of each --block-sizes count whose sides are powers of two, x at least 32
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_shape_item, action = ArgAction::Set)]
    block_shapes: Vec<BlockShapeItem>,
}

/// `--gpu` and `--compare-gpus` take the presets' keys.
fn preset_keys() -> PossibleValuesParser {
    PossibleValuesParser::new(sm::PRESETS.iter().map(|preset| preset.key))
}

impl OccupancyArgs {
    /// The options in `args`, as `block-size occupancy` reads them after its name (`["--gpu",
    /// "h200", "--regs", "32"]`); an option it does not take, a preset it does not know, or a
    /// value it cannot read, is the one line `block-size` prints for it (exit 2).
    pub fn from_args(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<Self, Error> {
        super::parse(args)
    }

    /// The calculator's request, not yet validated.
    pub(crate) fn request(&self) -> OccupancyRequest {
        let gpus: Vec<String> = match &self.gpu {
            Some(gpu) => vec![gpu.to_ascii_lowercase()],
            None => self.compare_gpus.iter().map(|gpu| gpu.to_ascii_lowercase()).collect(),
        };
        OccupancyRequest {
            gpus,
            registers_per_thread: self.regs,
            shared_memory_per_block: self.smem,
            block_sizes: self.block_sizes.clone(),
            block_shapes: BlockShapeItem::expand(&self.block_shapes, &self.block_sizes),
        }
    }
}
