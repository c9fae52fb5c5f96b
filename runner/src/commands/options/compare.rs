/*!
[`CompareArgs`], `compare`'s options as `block-size compare` takes them less the kernel's, and
the settings they become.
*/

use crate::commands::options::groups::{BlockSizesArgs, DeviceArgs, ProvenanceArgs, WarmupsArgs};
use crate::commands::settings::{Settings, TimingSettings};
use crate::error::Error;
use crate::results::export::Format;
use clap::Args;
use std::ffi::OsString;
use std::path::PathBuf;

/// Interleaved rounds `compare` times at each block size unless `--rounds` says otherwise.
const DEFAULT_ROUNDS: u32 = 30;

// `compare`'s options for any kernel. (Its rustdoc is an attribute, not a doc comment: clap would
// take that as the long help of every command that flattens it in.)
#[cfg_attr(
    doc,
    doc = "`compare`'s options as `block-size compare` takes them, less the kernel's: `--block-sizes`, \
        `--warmups`, `--device`, `--rounds`, `--provenance`, `--json` and `--counters`. Flatten it \
        into a `compare` subcommand of your program (`block-size new --cuda` writes one), or parse \
        a list of them ([`CompareArgs::from_args`]); then hand it to [`crate::compare`]. \
        [`CompareArgs::default`] is `block-size compare`'s defaults."
)]
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct CompareArgs {
    /// `--block-sizes`.
    #[command(flatten)]
    block_sizes: BlockSizesArgs,

    /// `--warmups`.
    #[command(flatten)]
    warmups: WarmupsArgs,

    /// `--device`.
    #[command(flatten)]
    device: DeviceArgs,

    /// Interleaved rounds timed per block size, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = DEFAULT_ROUNDS)]
    pub(crate) rounds: u32,

    /// `--provenance`.
    #[command(flatten)]
    provenance: ProvenanceArgs,

    /// Also write the comparison as JSON to FILE: each build's registers, local memory and PTX
    /// facts, every row's round times and ratios, and the lines naming the cause of a gap
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// After the rounds, read each build's hardware counters at each block size with Nsight
    /// Compute (ncu) on a replay, as the sweep's --counters does: a table of them and what bound
    /// each build's fastest row; no profiler or no permission: n/a and one warning
    #[arg(long)]
    counters: bool,
}

impl CompareArgs {
    /// The options in `args`, as `block-size compare` reads them after its name, less the
    /// kernel's (`["--rounds", "10"]`); an option it does not take, or a value it cannot read,
    /// is the one line `block-size` prints for it (exit 2). The values are checked once a
    /// kernel is known ([`CompareArgs::validate_for`]).
    pub fn from_args(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<Self, Error> {
        super::parse(args)
    }

    /// The settings `compare` reads besides `--rounds`, not yet validated; the command line
    /// recorded is this process's.
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            device: self.device.choice(),
            block_sizes: self.block_sizes.block_sizes.clone(),
            block_shapes: self.block_sizes.block_shapes(),
            timing: TimingSettings { warmups: self.warmups.warmups, ..TimingSettings::default() },
            provenance: self.provenance.provenance,
            exports: self.json.iter().map(|path| (Format::Json, path.clone())).collect(),
            counters: self.counters,
            ..Settings::default()
        }
    }
}

impl Default for CompareArgs {
    /// `block-size compare`'s defaults: no option given.
    fn default() -> Self {
        super::defaults()
    }
}
