/*!
[`TailArgs`], `tail`'s options as `block-size tail` takes them less the kernel's, and the
settings they become.
*/

use crate::commands::options::groups::{DeviceArgs, ProvenanceArgs, TimingArgs, parse_block_shape};
use crate::commands::settings::Settings;
use crate::error::Error;
use crate::model::block_shape::BlockShape;
use clap::{ArgAction, Args};
use std::ffi::OsString;

/// The grids `tail` launches unless `--waves` says otherwise, in waves: below one, one, just
/// past one and two, and many.
const DEFAULT_WAVES: [f64; 8] = [0.5, 1.0, 1.1, 1.5, 2.0, 2.1, 4.0, 8.0];
/// The one block size `tail` measures unless `--block-size` says otherwise.
const DEFAULT_TAIL_BLOCK_SIZE: u32 = 256;

// `tail`'s options for any kernel. (Its rustdoc is an attribute, as `CompareArgs`'s.)
#[cfg_attr(
    doc,
    doc = "`tail`'s options as `block-size tail` takes them, less the kernel's: `--device`, \
        `--block-size` or `--block-shape`, `--waves`, the timing options, `--provenance` and \
        `--counters`. Flatten it into a `tail` subcommand of your program (`block-size new` writes \
        one), or parse a list of them ([`TailArgs::from_args`]); then hand it to [`crate::tail`]. \
        [`TailArgs::default`] is `block-size tail`'s defaults."
)]
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct TailArgs {
    /// `--device`.
    #[command(flatten)]
    device: DeviceArgs,

    /// Threads per block, 1 to the device's maximum
    #[arg(long, allow_negative_numbers = true, value_name = "THREADS", default_value_t = DEFAULT_TAIL_BLOCK_SIZE)]
    block_size: u32,

    /// The block as a shape instead (32x8: x, y, z threads), for a kernel with a 2-D or 3-D
    /// domain; the grids stay in x, the kernel's blocks looping over the work
    #[arg(long, allow_hyphen_values = true, value_name = "SHAPE", conflicts_with = "block_size", value_parser = parse_block_shape)]
    block_shape: Option<BlockShape>,

    /// Grid sizes in waves (blocks/SM x SMs), comma-separated, each above 0 and at most 1000
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WAVES, action = ArgAction::Set)]
    pub(crate) waves: Vec<f64>,

    /// The timing options.
    #[command(flatten)]
    timing: TimingArgs,

    /// `--provenance`.
    #[command(flatten)]
    provenance: ProvenanceArgs,

    /// After the timed samples, read each grid's hardware counters with Nsight Compute (ncu) on
    /// a replay, as the sweep's --counters does: a table of them and what bound the grids; no
    /// profiler or no permission: n/a and one warning
    #[arg(long)]
    counters: bool,
}

impl TailArgs {
    /// The options in `args`, as `block-size tail` reads them after its name, less the
    /// kernel's (`["--block-size", "128"]`); an option it does not take, or a value it cannot
    /// read, is the one line `block-size` prints for it (exit 2). The values are checked once
    /// a kernel is known ([`TailArgs::validate_for`]).
    pub fn from_args(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<Self, Error> {
        super::parse(args)
    }

    /// The settings `tail` reads besides `--waves`, not yet validated; the command line
    /// recorded is this process's.
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            device: self.device.choice(),
            block_sizes: vec![self.block_size],
            block_shapes: self.block_shape.into_iter().collect(),
            timing: self.timing.settings(),
            provenance: self.provenance.provenance,
            counters: self.counters,
            ..Settings::default()
        }
    }
}

impl Default for TailArgs {
    /// `block-size tail`'s defaults: no option given.
    fn default() -> Self {
        super::defaults()
    }
}
