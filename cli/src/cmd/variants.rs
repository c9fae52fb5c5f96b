//! `block-size variants`: vector loads and several pixels per thread against a copy.

use crate::args::{DeviceArgs, FrameArgs, ProvenanceArgs, TimingArg, WarmupsArgs};
use block_size_builtin::VariantsRequest;
use block_size_builtin::requests::{DEFAULT_VARIANT_RUNS, VARIANT_BLOCK_SIZES};
use block_size_runner::{DeviceChoice, Settings, TimingSettings};
use clap::{ArgAction, Args};

// The options of `block-size variants`.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[command(
    about = "Vector loads and several pixels per thread of the grayscale kernel (or with --kernel histogram, of the histogram), in Rust and C++, against a device-to-device copy"
)]
#[cfg_attr(doc, doc = "The options of `block-size variants`.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct VariantsCommand {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--device`.")]
    pub device: DeviceArgs,

    /// Whose variants: grayscale (vec4, k2, k4, k8 against k1) or histogram (x4, x8, x8k2, x8k4,
    /// x8k2c, x8k4c against k1; GB/s counts the luma read)
    #[arg(long, value_name = "KERNEL", default_value = "grayscale", value_parser = ["grayscale", "histogram"])]
    pub kernel: String,

    /// Histogram bins, 1 to 4096 (--kernel histogram only) [default: 256]
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub bins: Option<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,

    /// Threads per block, comma-separated, each 1 to the device's maximum, none twice
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = VARIANT_BLOCK_SIZES, action = ArgAction::Set)]
    pub block_sizes: Vec<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--warmups`.")]
    pub warmups: WarmupsArgs,

    /// Timed launches per row, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = DEFAULT_VARIANT_RUNS)]
    pub runs: u32,

    /// How each row's samples sit between CUDA events: launch (the default, as the copy
    /// ceiling: each launch between its own events), batch (--runs samples of 10 launches
    /// between one pair), cold (one launch a sample after an L2 flush, queued behind a
    /// blocking kernel) or graph (--runs replays of a CUDA graph of 10 launches, each between
    /// one pair); the copy ceiling is timed one copy per pair of events in every mode
    #[arg(long, value_name = "MODE", value_enum, default_value = "launch")]
    pub timing: TimingArg,

    /// Start every plane this many floats (the histogram's luma: pixels) past a 16-byte
    /// boundary, 0 to 1024 (grayscale 1-3, histogram 1-7: misaligned vectors)
    #[arg(long, allow_negative_numbers = true, value_name = "FLOATS", default_value_t = 0)]
    pub offset: u64,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,

    /// After the timed samples, read each row's hardware counters with Nsight Compute (ncu) on a
    /// replay, as the sweep's --counters does: a table of them and what bound each compiler's
    /// fastest row; no profiler or no permission: n/a and one warning
    #[arg(long)]
    pub counters: bool,
}

impl VariantsCommand {
    /// The library's request, recording `command` as the command line.
    pub fn request(&self, command: Vec<String>) -> VariantsRequest {
        VariantsRequest {
            kernel: self.kernel.clone(),
            bins: self.bins,
            width: self.frame.width,
            height: self.frame.height,
            offset: self.offset,
            settings: Settings {
                device: DeviceChoice::One(self.device.device),
                block_sizes: self.block_sizes.clone(),
                timing: TimingSettings {
                    mode: self.timing.mode(),
                    warmups: self.warmups.warmups,
                    runs: Some(self.runs),
                    ..TimingSettings::default()
                },
                provenance: self.provenance.provenance,
                command,
                counters: self.counters,
                ..Settings::default()
            },
        }
    }
}
