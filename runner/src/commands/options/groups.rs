/*!
The option groups the commands' options flatten in (`--block-sizes`, the timing options,
`--warmups`, `--device`, `--provenance`), the values `--timing`, `--format`, `--search` and
`--objective` take, and the readers of the values clap has no parser for: each turned into the
settings' plain values, which the settings' validation checks.
*/

use crate::commands::settings::{DEFAULT_MIN_RUNS, DeviceChoice, Settings, TimingSettings};
use crate::measure::sampling::timing::{DEFAULT_BATCH_LAUNCHES, TimingMode};
use crate::model::block_shape::BlockShape;
use crate::model::objective::Objective;
use crate::model::shard::Shard;
use crate::results::export::Format;
use crate::search::strategy::Search;
use clap::{ArgAction, Args, ValueEnum};
use std::time::Duration;

// What `--timing` takes. (No doc comments on the values: clap would print them as help.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimingArg {
    Batch,
    Cold,
    Launch,
    Graph,
}

impl TimingArg {
    /// The timing mode it names.
    pub(crate) fn mode(self) -> TimingMode {
        match self {
            Self::Batch => TimingMode::Batch,
            Self::Cold => TimingMode::Cold,
            Self::Launch => TimingMode::Launch,
            Self::Graph => TimingMode::Graph,
        }
    }
}

/// The longest `--max-time-per-row` and `--launch-timeout`: a day, far past any row or wait
/// worth timing, and far inside what a `Duration` and the clocks it is added to hold.
const MAX_SECONDS: u64 = 24 * 60 * 60;

/// `--max-time-per-row` and `--launch-timeout`: seconds (`0.5`), or a duration with its unit
/// (`500ms`, `2s`), from 0 to [`MAX_SECONDS`].
pub(crate) fn parse_seconds(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let duration = match text.parse::<f64>() {
        // Too large for a `Duration` is too large for the bound below.
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => {
            Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
        }
        Ok(_) => return Err("a time of 0 seconds or more".to_string()),
        Err(_) => humantime::parse_duration(text)
            .map_err(|_| "seconds (0.5) or a duration with its unit (500ms, 2s)".to_string())?,
    };
    if duration > Duration::from_secs(MAX_SECONDS) {
        return Err(format!("a time of at most a day ({MAX_SECONDS} s)"));
    }
    Ok(duration)
}

// `--warmups`: untimed launches before each row.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WarmupsArgs {
    /// Untimed launches before each row
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = TimingSettings::default().warmups)]
    pub(crate) warmups: u32,
}

// How each row is timed: the mode, the warm-ups, the count or the noise-driven stop, the L2
// flush. The sweep and `tail` flatten it in.
#[derive(Args, Debug, Clone, PartialEq)]
pub(crate) struct TimingArgs {
    /// How a row's samples sit between CUDA events; graph by default, the mode nearest Nsight
    /// Compute's own duration (docs/timing.md). batch (block_size.cu's method): each
    /// sample is --launches-per-sample launches back to back between one pair of events,
    /// their mean. cold: each sample one launch between its own events after an L2 flush
    /// (unless --no-flush-l2), every sample queued behind a blocking kernel that the host
    /// releases once all are enqueued. launch: each sample one launch between its own events,
    /// the host enqueuing it after the previous one has finished. graph: --launches-per-sample
    /// launches captured once a row into a CUDA graph, each sample one replay of it between
    /// one pair of events, their mean
    #[arg(long, value_name = "MODE", value_enum, default_value = "graph")]
    timing: TimingArg,

    #[arg(long, allow_negative_numbers = true, value_name = "N", help = format!("Launches between one pair of events in a batch sample, or in the graph a graph sample replays (--timing batch and graph only) [default: {DEFAULT_BATCH_LAUNCHES}, more for a kernel whose {DEFAULT_BATCH_LAUNCHES} launches last under 0.1 ms]"))]
    launches_per_sample: Option<u32>,

    #[command(flatten)]
    warmups: WarmupsArgs,

    /// Exactly N samples per row, at least 1: no noise-driven stop (not with --min-runs,
    /// --max-noise or --max-time-per-row)
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    runs: Option<u32>,

    #[arg(long, allow_negative_numbers = true, value_name = "N", help = format!("Samples every row takes before the noise-driven stop may end it [default: {DEFAULT_MIN_RUNS}]"))]
    min_runs: Option<u32>,

    /// Noise-driven stop: a row takes samples until their median absolute deviation is at
    /// most FRACTION of their median, 0 to 1 [default: 0.005, half a percent]...
    #[arg(long, allow_negative_numbers = true, value_name = "FRACTION")]
    max_noise: Option<f64>,

    /// ...or until this much time has passed on it, in seconds (0.5) or with a unit (500ms)
    /// [default: 0.5]
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_seconds)]
    max_time_per_row: Option<Duration>,

    /// Before each sample, outside the timed interval, overwrite a scratch buffer of twice
    /// the L2, so no sample reads the previous one's data from L2 (batch and graph: before each
    /// batch or replay, so its first launch starts cold; --timing cold flushes unless
    /// --no-flush-l2)
    #[arg(long, conflicts_with = "no_flush_l2")]
    flush_l2: bool,

    /// With --timing cold: no L2 flush before each sample, so each finds in L2 what the one
    /// before left there (the samples still queue behind the blocking kernel)
    #[arg(long)]
    no_flush_l2: bool,
}

impl TimingArgs {
    /// The timing settings.
    pub(crate) fn settings(&self) -> TimingSettings {
        TimingSettings {
            mode: self.timing.mode(),
            launches_per_sample: self.launches_per_sample,
            warmups: self.warmups.warmups,
            runs: self.runs,
            min_runs: self.min_runs,
            max_noise: self.max_noise,
            max_time_per_row: self.max_time_per_row,
            flush_l2: match (self.flush_l2, self.no_flush_l2) {
                (true, _) => Some(true),
                (false, true) => Some(false),
                (false, false) => None,
            },
            energy_window: None,
        }
    }
}

// `--block-sizes` at the sweep's defaults: the sweep, `compare` and a program's own sweep.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockSizesArgs {
    /// Threads per block, comma-separated, each 1 to the device's maximum, none twice
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = Settings::default().block_sizes, action = ArgAction::Set)]
    pub(crate) block_sizes: Vec<u32>,

    /// Block shapes instead of block sizes (32x8,16x16,8x8x4), or 2d / 3d: every shape of each --block-sizes count whose sides are powers of two, x at least 32; a shape beyond x needs a kernel with a 2-D or 3-D domain, whose sweep takes 2d by default
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_shape_item, action = ArgAction::Set)]
    block_shapes: Vec<BlockShapeItem>,
}

impl BlockSizesArgs {
    /// `--block-shapes` with `2d` and `3d` made shapes of each of `--block-sizes`; empty where
    /// it was not given.
    pub(crate) fn block_shapes(&self) -> Vec<BlockShape> {
        BlockShapeItem::expand(&self.block_shapes, &self.block_sizes)
    }
}

/// One item of a `--block-shapes` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockShapeItem {
    /// A shape: `32x8`.
    Shape(BlockShape),
    /// `2d` or `3d`: every shape of each block size in this many dimensions whose sides are
    /// powers of two, x at least a warp ([`BlockShape::generate`]).
    Generated(u32),
}

impl BlockShapeItem {
    /// The shapes `items` stand for, with `block_sizes` the counts `2d` and `3d` shape.
    pub(crate) fn expand(items: &[Self], block_sizes: &[u32]) -> Vec<BlockShape> {
        items
            .iter()
            .flat_map(|item| match *item {
                Self::Shape(shape) => vec![shape],
                Self::Generated(dimensions) => BlockShape::generate(block_sizes, dimensions),
            })
            .collect()
    }
}

/// `tail --block-shape`'s one shape (`32x8`).
pub(crate) fn parse_block_shape(text: &str) -> Result<BlockShape, String> {
    text.trim().parse()
}

/// One item of `--block-shapes`: a shape, `2d` or `3d`.
pub(crate) fn parse_block_shape_item(text: &str) -> Result<BlockShapeItem, String> {
    match text.trim() {
        "2d" | "2D" => Ok(BlockShapeItem::Generated(2)),
        "3d" | "3D" => Ok(BlockShapeItem::Generated(3)),
        shape => {
            shape.parse().map(BlockShapeItem::Shape).map_err(|why: String| format!("{why}, or 2d or 3d"))
        }
    }
}

// `--device` of the commands that measure one GPU.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeviceArgs {
    /// CUDA device ordinal
    #[arg(long, allow_negative_numbers = true, value_name = "INDEX", default_value_t = 0)]
    device: u32,
}

impl DeviceArgs {
    /// The one device it names.
    pub(crate) fn choice(self) -> DeviceChoice {
        DeviceChoice::One(self.device)
    }
}

// `--provenance`, which every command of the GPU takes.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProvenanceArgs {
    /// Print what was measured with what (PTX sha256, compilers, driver, command, date) first
    #[arg(long)]
    pub(crate) provenance: bool,
}

/// `--shard I/N`.
pub(crate) fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text)
}

/// The sweep's `--device`: an ordinal, or `all`.
pub(crate) fn parse_device_choice(text: &str) -> Result<DeviceChoice, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(DeviceChoice::All);
    }
    text.parse().map(DeviceChoice::One).map_err(|_| "a device ordinal (0, 1, ...) or `all`".to_string())
}

// What `--format` takes. (No doc comments on the values: clap would print them as help.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    Table,
    Markdown,
    Json,
    Csv,
    Html,
    T4,
}

impl FormatArg {
    /// The export, or `None` for the seed's table.
    pub(crate) fn export(self) -> Option<Format> {
        match self {
            Self::Table => None,
            Self::Markdown => Some(Format::Markdown),
            Self::Json => Some(Format::Json),
            Self::Csv => Some(Format::Csv),
            Self::Html => Some(Format::Html),
            Self::T4 => Some(Format::T4),
        }
    }
}

// What `--search` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SearchArg {
    Exhaustive,
    Race,
    Rungs,
}

impl SearchArg {
    /// The search it names.
    pub(crate) fn search(self) -> Search {
        match self {
            Self::Exhaustive => Search::Exhaustive,
            Self::Race => Search::Race,
            Self::Rungs => Search::Rungs,
        }
    }
}

// What `--objective` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ObjectiveArg {
    Time,
    Energy,
    Edp,
}

impl ObjectiveArg {
    /// The objective it names.
    pub(crate) fn objective(self) -> Objective {
        match self {
            Self::Time => Objective::Time,
            Self::Energy => Objective::Energy,
            Self::Edp => Objective::Edp,
        }
    }
}
