/*!
[`VariantsArgs`], `variants`' options as `block-size variants` takes them less the kernel's,
and the settings they become.
*/

use crate::commands::options::groups::{DeviceArgs, ProvenanceArgs, TimingArg, WarmupsArgs};
use crate::commands::settings::{Settings, TimingSettings};
use crate::error::Error;
use clap::{ArgAction, Args};
use std::ffi::OsString;

/// The block sizes `variants` measures unless `--block-sizes` says otherwise.
const VARIANT_BLOCK_SIZES: [u32; 4] = [128, 256, 512, 1024];
/// The samples `variants` takes of each row (and of the copy) unless `--runs` says otherwise,
/// each one launch between its own events (launch timing, as the copy's).
const DEFAULT_VARIANT_RUNS: u32 = 10;

// `variants`' options for any kernel. (Its rustdoc is an attribute, as `CompareArgs`'s.)
#[cfg_attr(
    doc,
    doc = "`variants`' options as `block-size variants` takes them, less the kernel's: `--device`, \
        `--block-sizes`, `--warmups`, `--runs`, `--timing`, `--provenance` and `--counters`. \
        Flatten it into your program's parser, or parse a list of them \
        ([`VariantsArgs::from_args`]); then hand it to [`crate::variants`]. \
        [`VariantsArgs::default`] is `block-size variants`' defaults."
)]
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct VariantsArgs {
    /// `--device`.
    #[command(flatten)]
    device: DeviceArgs,

    /// Threads per block, comma-separated, each 1 to the device's maximum, none twice
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = VARIANT_BLOCK_SIZES, action = ArgAction::Set)]
    block_sizes: Vec<u32>,

    /// `--warmups`.
    #[command(flatten)]
    warmups: WarmupsArgs,

    /// Timed launches per row, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = DEFAULT_VARIANT_RUNS)]
    runs: u32,

    /// How each row's samples sit between CUDA events: launch (the default, as the copy
    /// ceiling: each launch between its own events), batch (--runs samples of 10 launches
    /// between one pair), cold (one launch a sample after an L2 flush, queued behind a
    /// blocking kernel) or graph (--runs replays of a CUDA graph of 10 launches, each between
    /// one pair); the copy ceiling is timed one copy per pair of events in every mode
    #[arg(long, value_name = "MODE", value_enum, default_value = "launch")]
    timing: TimingArg,

    /// `--provenance`.
    #[command(flatten)]
    provenance: ProvenanceArgs,

    /// After the timed samples, read each row's hardware counters with Nsight Compute (ncu) on a
    /// replay, as the sweep's --counters does: a table of them and what bound each compiler's
    /// fastest row; no profiler or no permission: n/a and one warning
    #[arg(long)]
    counters: bool,
}

impl VariantsArgs {
    /// The options in `args`, as `block-size variants` reads them after its name, less the
    /// kernel's (`["--runs", "20"]`); an option it does not take, or a value it cannot read, is
    /// the one line `block-size` prints for it (exit 2). The values are checked once a kernel
    /// is known ([`VariantsArgs::validate_for`]).
    pub fn from_args(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<Self, Error> {
        super::parse(args)
    }

    /// The settings `variants` reads, not yet validated; the command line recorded is this
    /// process's.
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            device: self.device.choice(),
            block_sizes: self.block_sizes.clone(),
            timing: TimingSettings {
                mode: self.timing.mode(),
                warmups: self.warmups.warmups,
                runs: Some(self.runs),
                ..TimingSettings::default()
            },
            provenance: self.provenance.provenance,
            counters: self.counters,
            ..Settings::default()
        }
    }
}

impl Default for VariantsArgs {
    /// `block-size variants`' defaults: no option given.
    fn default() -> Self {
        super::defaults()
    }
}
