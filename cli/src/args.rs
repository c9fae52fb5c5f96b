/*!
The option groups the subcommands flatten in, each turned into the library's plain values:
clap reads the syntax (numbers, lists, names), the library's validation every rule, so a value
is refused with the same line whether it came from this command line or from a program of
your own ([`SweepArgs`]).
*/

use block_size_builtin::requests::{DEFAULT_ROUNDS, DEFAULT_TAIL_BLOCK_SIZE, DEFAULT_WAVES};
use block_size_builtin::{DEFAULT_HEIGHT, DEFAULT_WIDTH, KERNELS, KernelChoice};
use block_size_runner::commands::{DEFAULT_BATCH_LAUNCHES, DEFAULT_MIN_RUNS};
use block_size_runner::{
    BlockShape, DeviceChoice, Format, GridPolicy, Objective, Search, Settings, Shard, TimingMode,
    TimingSettings,
};
use clap::builder::PossibleValuesParser;
use clap::{ArgAction, Args, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

// `--kernel` and `--bins`: which of this repository's kernels a sweep, a comparison or `tail`
// measures.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    doc,
    doc = "`--kernel`, `--bins`, `--width` and `--height`: a kernel of this repository and its frame."
)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct KernelArgs {
    #[arg(
        long,
        value_name = "NAME",
        value_parser = PossibleValuesParser::new(KERNELS.map(|(name, _)| name)),
        default_value = KERNELS[0].0,
        help = kernel_help(),
    )]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: String,

    /// Histogram bins, 1 to 4096 (--kernel histogram only) [default: 256]: 4 bytes of dynamic
    /// shared memory each per block, so more bins fit fewer blocks on an SM (4096 bins: 16 KiB);
    /// in a sweep a list (256,4096) is an axis, a column of the table
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_delimiter = ',')]
    pub bins: Vec<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,
}

/// `--kernel`'s help: every kernel with its line.
fn kernel_help() -> String {
    let about: Vec<String> = KERNELS.iter().map(|(name, about)| format!("{name}: {about}")).collect();
    format!("The kernel measured; {}", about.join("; "))
}

impl KernelArgs {
    /// The kernel choice.
    pub fn choice(&self) -> KernelChoice {
        KernelChoice {
            kernel: self.kernel.clone(),
            bins: self.bins.clone(),
            width: self.frame.width,
            height: self.frame.height,
        }
    }
}

// `--width` and `--height`: the frame every device subcommand measures over.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--width` and `--height`: the frame every device subcommand measures over.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct FrameArgs {
    /// Frame width, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "PIXELS", default_value_t = DEFAULT_WIDTH)]
    pub width: u32,

    /// Frame height, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "PIXELS", default_value_t = DEFAULT_HEIGHT)]
    pub height: u32,
}

// What `--timing` takes. (No doc comments on the values: clap would print them as help.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(doc, doc = "What `--timing` takes.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub enum TimingArg {
    #[cfg_attr(doc, doc = "`batch`.")]
    Batch,
    #[cfg_attr(doc, doc = "`cold`.")]
    Cold,
    #[cfg_attr(doc, doc = "`launch`.")]
    Launch,
    #[cfg_attr(doc, doc = "`graph`.")]
    Graph,
}

impl TimingArg {
    /// The timing mode it names.
    pub fn mode(self) -> TimingMode {
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
fn parse_seconds(text: &str) -> Result<Duration, String> {
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
#[cfg_attr(doc, doc = "`--warmups`: untimed launches before each row.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct WarmupsArgs {
    /// Untimed launches before each row
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = TimingSettings::default().warmups)]
    pub warmups: u32,
}

// How each row is timed: the mode, the warm-ups, the count or the noise-driven stop, the L2
// flush. The sweep and `tail` flatten it in.
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(doc, doc = "How each row is timed: mode, warm-ups, count or noise-driven stop, L2 flush.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct TimingArgs {
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
    pub timing: TimingArg,

    #[arg(long, allow_negative_numbers = true, value_name = "N", help = format!("Launches between one pair of events in a batch sample, or in the graph a graph sample replays (--timing batch and graph only) [default: {DEFAULT_BATCH_LAUNCHES}, more for a kernel whose {DEFAULT_BATCH_LAUNCHES} launches last under 0.1 ms]"))]
    #[cfg_attr(doc, doc = "`--launches-per-sample`.")]
    pub launches_per_sample: Option<u32>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--warmups`.")]
    pub warmups: WarmupsArgs,

    /// Exactly N samples per row, at least 1: no noise-driven stop (not with --min-runs,
    /// --max-noise or --max-time-per-row)
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub runs: Option<u32>,

    #[arg(long, allow_negative_numbers = true, value_name = "N", help = format!("Samples every row takes before the noise-driven stop may end it [default: {DEFAULT_MIN_RUNS}]"))]
    #[cfg_attr(doc, doc = "`--min-runs`.")]
    pub min_runs: Option<u32>,

    /// Noise-driven stop: a row takes samples until their median absolute deviation is at
    /// most FRACTION of their median, 0 to 1 [default: 0.005, half a percent]...
    #[arg(long, allow_negative_numbers = true, value_name = "FRACTION")]
    pub max_noise: Option<f64>,

    /// ...or until this much time has passed on it, in seconds (0.5) or with a unit (500ms)
    /// [default: 0.5]
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_seconds)]
    pub max_time_per_row: Option<Duration>,

    /// Before each sample, outside the timed interval, overwrite a scratch buffer of twice
    /// the L2, so no sample reads the previous one's data from L2 (batch and graph: before each
    /// batch or replay, so its first launch starts cold; --timing cold flushes unless
    /// --no-flush-l2)
    #[arg(long, conflicts_with = "no_flush_l2")]
    pub flush_l2: bool,

    /// With --timing cold: no L2 flush before each sample, so each finds in L2 what the one
    /// before left there (the samples still queue behind the blocking kernel)
    #[arg(long)]
    pub no_flush_l2: bool,
}

impl TimingArgs {
    /// The library's timing settings.
    pub fn settings(&self) -> TimingSettings {
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
#[cfg_attr(doc, doc = "`--block-sizes` at the sweep's defaults.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct BlockSizesArgs {
    /// Threads per block, comma-separated, each 1 to the device's maximum, none twice
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = Settings::default().block_sizes, action = ArgAction::Set)]
    pub block_sizes: Vec<u32>,

    /// Block shapes instead of block sizes (32x8,16x16,8x8x4), or 2d / 3d: every shape of each --block-sizes count whose sides are powers of two, x at least 32; a shape beyond x needs a kernel with a 2-D or 3-D domain, whose sweep takes 2d by default
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', value_parser = parse_block_shape_item, action = ArgAction::Set)]
    pub block_shapes: Vec<BlockShapeItem>,
}

impl BlockSizesArgs {
    /// `--block-shapes` with `2d` and `3d` made shapes of each of `--block-sizes`; empty where
    /// it was not given.
    pub fn block_shapes(&self) -> Vec<BlockShape> {
        BlockShapeItem::expand(&self.block_shapes, &self.block_sizes)
    }
}

/// One item of a `--block-shapes` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockShapeItem {
    /// A shape: `32x8`.
    Shape(BlockShape),
    /// `2d` or `3d`: every shape of each block size in this many dimensions whose sides are
    /// powers of two, x at least a warp ([`BlockShape::generate`]).
    Generated(u32),
}

impl BlockShapeItem {
    /// The shapes `items` stand for, with `block_sizes` the counts `2d` and `3d` shape.
    pub fn expand(items: &[Self], block_sizes: &[u32]) -> Vec<BlockShape> {
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
fn parse_block_shape(text: &str) -> Result<BlockShape, String> {
    text.trim().parse()
}

pub(crate) fn parse_block_shape_item(text: &str) -> Result<BlockShapeItem, String> {
    match text.trim() {
        "2d" | "2D" => Ok(BlockShapeItem::Generated(2)),
        "3d" | "3D" => Ok(BlockShapeItem::Generated(3)),
        shape => {
            shape.parse().map(BlockShapeItem::Shape).map_err(|why: String| format!("{why}, or 2d or 3d"))
        }
    }
}

// `--device` of the subcommands that measure one GPU.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--device` of the subcommands that measure one GPU.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct DeviceArgs {
    /// CUDA device ordinal
    #[arg(long, allow_negative_numbers = true, value_name = "INDEX", default_value_t = 0)]
    pub device: u32,
}

// `--provenance`, which every device subcommand takes.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--provenance`, which every device subcommand takes.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct ProvenanceArgs {
    /// Print what was measured with what (PTX sha256, compilers, driver, command, date) first
    #[arg(long)]
    pub provenance: bool,
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text)
}

fn parse_device_choice(text: &str) -> Result<DeviceChoice, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(DeviceChoice::All);
    }
    text.parse().map(DeviceChoice::One).map_err(|_| "a device ordinal (0, 1, ...) or `all`".to_string())
}

// What `--format` takes. (No doc comments on the values: clap would print them as help.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(doc, doc = "What `--format` takes: the table, or an export.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub enum FormatArg {
    #[cfg_attr(doc, doc = "`table`: the seed's table.")]
    Table,
    #[cfg_attr(doc, doc = "`markdown`.")]
    Markdown,
    #[cfg_attr(doc, doc = "`json`.")]
    Json,
    #[cfg_attr(doc, doc = "`csv`.")]
    Csv,
    #[cfg_attr(doc, doc = "`html`.")]
    Html,
    #[cfg_attr(doc, doc = "`t4`: the T4 results file Kernel Tuner writes.")]
    T4,
}

// What `--search` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(doc, doc = "What `--search` takes.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub enum SearchArg {
    #[cfg_attr(doc, doc = "`exhaustive`: every configuration to the noise-driven stop.")]
    Exhaustive,
    #[cfg_attr(doc, doc = "`race`: a first round over all, then the survivors.")]
    Race,
    #[cfg_attr(doc, doc = "`rungs`: a race in rungs of 1, 2, 6, --min-runs, then doubling samples.")]
    Rungs,
}

impl SearchArg {
    /// The library's search.
    pub fn search(self) -> Search {
        match self {
            Self::Exhaustive => Search::Exhaustive,
            Self::Race => Search::Race,
            Self::Rungs => Search::Rungs,
        }
    }
}

// What `--objective` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(doc, doc = "What `--objective` takes.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub enum ObjectiveArg {
    #[cfg_attr(doc, doc = "`time`: the lowest median time.")]
    Time,
    #[cfg_attr(doc, doc = "`energy`: the fewest joules a pass.")]
    Energy,
    #[cfg_attr(doc, doc = "`edp`: the lowest energy-delay product.")]
    Edp,
}

impl ObjectiveArg {
    /// The library's objective.
    pub fn objective(self) -> Objective {
        match self {
            Self::Time => Objective::Time,
            Self::Energy => Objective::Energy,
            Self::Edp => Objective::Edp,
        }
    }
}

impl FormatArg {
    /// The export, or `None` for the seed's table.
    pub fn export(self) -> Option<Format> {
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

/// The sweep's options as `block-size` takes them: `--block-sizes`, the timing options
/// (`--timing`, `--runs`, `--warmups`, ...), `--device`, `--grid`, `--corrupt-output`,
/// `--provenance`, `--stats`, `--format`, `--output`, `--plot`, and the export files `--json`,
/// `--csv`, `--markdown`, `--html` and `--t4`. Flatten it into your
/// program's clap parser with `#[command(flatten)]`, then [`SweepArgs::settings`].
///
/// ```
/// use block_size_cli::SweepArgs;
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     sweep: SweepArgs,
/// }
///
/// let cli = Cli::parse_from(["my-sweep", "--block-sizes", "128,256", "--timing", "cold"]);
/// let settings = cli.sweep.settings();
/// assert_eq!(settings.block_sizes, [128, 256]);
/// assert!(settings.validate().is_ok());
/// ```
#[derive(Args, Debug, Clone, PartialEq)]
pub struct SweepArgs {
    /// `--block-sizes`.
    #[command(flatten)]
    pub block_sizes: BlockSizesArgs,

    /// The timing options.
    #[command(flatten)]
    pub timing: TimingArgs,

    /// CUDA device ordinal, or `all` for one table per visible GPU
    #[arg(long, allow_negative_numbers = true, value_name = "INDEX|all", value_parser = parse_device_choice, default_value = "0")]
    pub device: DeviceChoice,

    /// Blocks each row launches: one-wave (the seed's: blk/SM x SMs), per-item (one thread per
    /// item: ceil(items / threads)) or waves:K (K full waves, K from 1); never more than one
    /// thread per item
    #[arg(long, allow_negative_numbers = true, value_name = "POLICY", default_value = "one-wave")]
    pub grid: GridPolicy,

    /// Self-test: overwrite element INDEX of the kernel's first output on the device after every
    /// row's launches (with NaN, or an integer type's largest value), so every row must fail its
    /// check at INDEX and the run must exit 1
    // `--corrupt-pixel`, its name from before there were kernels other than grayscale, stays
    // hidden here: `block-size`'s own help shows it (`crate::cli::build`).
    // Read as a signed number first, so that `-1` is a value out of range.
    #[arg(
        long,
        allow_negative_numbers = true,
        value_name = "INDEX",
        alias = "corrupt-pixel",
        value_parser = clap::builder::RangedI64ValueParser::<usize>::new().range(0..)
    )]
    pub corrupt_output: Option<usize>,

    /// `--provenance`.
    #[command(flatten)]
    pub provenance: ProvenanceArgs,

    /// Add each row's min, max and median absolute deviation (ms) to the table
    #[arg(long)]
    pub stats: bool,

    /// table (the seed's), markdown (for a README), json (provenance and every sample), csv (a
    /// row per block size), html (a self-contained page with the plot and an occupancy explorer)
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "table")]
    pub format: FormatArg,

    /// Write the output to FILE instead of standard output
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Plot GB/s (median, min-max whiskers) and occupancy against block size as SVG
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Append each finished configuration to FILE as one JSON line, flushed as it finishes
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,

    /// Skip the configurations FILE (a --journal) holds under the same GPU, driver, PTX, kernel,
    /// work, timing and grid; those under another are measured again
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,

    /// A wait on the GPU longer than this is a hang: the configuration is named as hung and the
    /// sweep goes on in a fresh worker [default: the longer of 10 s and 20 times the longest
    /// wait so far]
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_seconds)]
    pub launch_timeout: Option<Duration>,

    /// Also write the JSON export (provenance, every row, every sample) to FILE, besides the
    /// table or --format's output
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Also write the CSV export (a line per block size) to FILE
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Also write the Markdown export (the table and summary) to FILE
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Also write the HTML report to FILE: one self-contained page with the table, the plot, the
    /// provenance, the summary and an occupancy explorer
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<PathBuf>,

    /// Also write the T4 export to FILE: the open autotuning results schema Kernel Tuner writes,
    /// each configuration's block, axes, samples and validity
    #[arg(long, value_name = "FILE")]
    pub t4: Option<PathBuf>,

    /// exhaustive: every configuration samples to the noise-driven stop; race: every
    /// configuration gets --min-runs samples, the clearly slower ones stop there, the rest
    /// sample on; rungs: 1, 2, 6, --min-runs, then twice as many samples, the clearly slower
    /// stopping after each rung, a survivor once its median is known within --max-noise, then
    /// the leader and the rows tied with it measured in turn (a run-off) [default: race above 24 configurations, exhaustive with --runs]
    #[arg(long, value_name = "SEARCH", value_enum)]
    pub search: Option<SearchArg>,

    /// Write the winning configuration as Rust source to FILE (a const per axis and
    /// config_for(device name, compute capability)), and its JSON to FILE.json
    #[arg(long, value_name = "FILE.rs")]
    pub emit_rust: Option<PathBuf>,

    /// Let --emit-rust replace a file it did not write (one whose first line is not its own
    /// header, such as a hand-written main.rs); without it such a file is refused
    #[arg(long)]
    pub force: bool,

    /// After each row's samples, read its energy from the GPU's energy counter (NVML): the row
    /// runs back to back for at least --energy-window between two steps of the counter, and
    /// the table gains mJ/pass and W (n/a where NVML is missing)
    #[arg(long)]
    pub energy: bool,

    /// With --energy: the shortest window a row's energy is read over, in seconds or with a
    /// unit [default: 0.5]
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_seconds, requires = "energy")]
    pub energy_window: Option<Duration>,

    /// What makes a row the winner (the table's best, the summary, --emit-rust): time, energy
    /// (joules a pass) or edp (joules x seconds); energy and edp need --energy
    #[arg(long, value_name = "OBJECTIVE", value_enum, default_value = "time")]
    pub objective: ObjectiveArg,

    /// Measure shard I of N of the sweep's configurations alone, on one GPU (configuration k,
    /// counted from 0, is shard k mod N + 1's; every shard measures exhaustively); block-size
    /// merge puts the shards' --json files together
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,

    /// With --device all: split one sweep across this machine's GPUs (of one model), a shard a
    /// GPU, all at once, merged into one table
    #[arg(long)]
    pub split: bool,

    /// After the timed samples, read each row's hardware counters with Nsight Compute (ncu, on
    /// PATH, at /usr/local/cuda/bin/ncu, or named by BLOCK_SIZE_NCU) on a replay of the sweep:
    /// DRAM GB/s and its percentage of a device-to-device copy timed in the same run, achieved
    /// occupancy, warp and branch efficiency, L2 hit rate, shared-memory bank conflicts,
    /// barrier and memory stalls; the summary says what bound the winner. The times are those
    /// of the timed run; no profiler or no permission: n/a and one warning
    #[arg(long)]
    pub counters: bool,
}

impl SweepArgs {
    /// The library's settings, not yet validated (the library validates them as it runs, or
    /// [`Settings::validate`]); the command line recorded is this process's.
    pub fn settings(&self) -> Settings {
        Settings {
            device: self.device,
            block_sizes: self.block_sizes.block_sizes.clone(),
            block_shapes: self.block_sizes.block_shapes(),
            timing: TimingSettings {
                energy_window: self.energy.then(|| {
                    self.energy_window.unwrap_or(block_size_runner::commands::DEFAULT_ENERGY_WINDOW)
                }),
                ..self.timing.settings()
            },
            grid: self.grid,
            corrupt_output: self.corrupt_output,
            provenance: self.provenance.provenance,
            stats: self.stats,
            format: self.format.export(),
            output: self.output.clone(),
            plot: self.plot.clone(),
            exports: [
                (Format::Json, &self.json),
                (Format::Csv, &self.csv),
                (Format::Markdown, &self.markdown),
                (Format::Html, &self.html),
                (Format::T4, &self.t4),
            ]
            .into_iter()
            .filter_map(|(format, path)| path.clone().map(|path| (format, path)))
            .collect(),
            command: Vec::new(),
            journal: self.journal.clone(),
            resume: self.resume.clone(),
            launch_timeout: self.launch_timeout,
            search: self.search.map(SearchArg::search),
            emit_rust: self.emit_rust.clone(),
            force: self.force,
            objective: self.objective.objective(),
            shard: self.shard,
            split: self.split,
            counters: self.counters,
        }
    }
}

// `compare`'s options for any kernel. (Its rustdoc is an attribute, not a doc comment: clap would
// take that as the long help of every command that flattens it in.)
#[cfg_attr(
    doc,
    doc = "`compare`'s options as `block-size compare` takes them, less the kernel's: `--block-sizes`, \
        `--warmups`, `--device`, `--rounds` and `--provenance`. Flatten it into a `compare` subcommand \
        of your program (`block-size new --cuda` writes one), then hand [`CompareArgs::settings`] and \
        `rounds` to `block_size_runner::compare`."
)]
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct CompareArgs {
    /// `--block-sizes`.
    #[command(flatten)]
    pub block_sizes: BlockSizesArgs,

    /// `--warmups`.
    #[command(flatten)]
    pub warmups: WarmupsArgs,

    /// `--device`.
    #[command(flatten)]
    pub device: DeviceArgs,

    /// Interleaved rounds timed per block size, at least 1
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = DEFAULT_ROUNDS)]
    pub rounds: u32,

    /// `--provenance`.
    #[command(flatten)]
    pub provenance: ProvenanceArgs,

    /// Also write the comparison as JSON to FILE: each build's registers, local memory and PTX
    /// facts, every row's round times and ratios, and the lines naming the cause of a gap
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// After the rounds, read each build's hardware counters at each block size with Nsight
    /// Compute (ncu) on a replay, as the sweep's --counters does: a table of them and what bound
    /// each build's fastest row; no profiler or no permission: n/a and one warning
    #[arg(long)]
    pub counters: bool,
}

impl CompareArgs {
    /// The library's settings for `compare` (the rounds are its own argument), not yet
    /// validated; the command line recorded is this process's.
    pub fn settings(&self) -> Settings {
        Settings {
            device: DeviceChoice::One(self.device.device),
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

// `tail`'s options for any kernel. (Its rustdoc is an attribute, as `CompareArgs`'s.)
#[cfg_attr(
    doc,
    doc = "`tail`'s options as `block-size tail` takes them, less the kernel's: `--device`, \
        `--block-size`, `--waves`, the timing options and `--provenance`. Flatten it into a `tail` \
        subcommand of your program (`block-size new` writes one), then hand [`TailArgs::settings`] \
        and `waves` to `block_size_runner::tail`."
)]
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct TailArgs {
    /// `--device`.
    #[command(flatten)]
    pub device: DeviceArgs,

    /// Threads per block, 1 to the device's maximum
    #[arg(long, allow_negative_numbers = true, value_name = "THREADS", default_value_t = DEFAULT_TAIL_BLOCK_SIZE)]
    pub block_size: u32,

    /// The block as a shape instead (32x8: x, y, z threads), for a kernel with a 2-D or 3-D
    /// domain; the grids stay in x, the kernel's blocks looping over the work
    #[arg(long, allow_hyphen_values = true, value_name = "SHAPE", conflicts_with = "block_size", value_parser = parse_block_shape)]
    pub block_shape: Option<BlockShape>,

    /// Grid sizes in waves (blocks/SM x SMs), comma-separated, each above 0 and at most 1000
    #[arg(long, allow_hyphen_values = true, value_name = "LIST", value_delimiter = ',', default_values_t = DEFAULT_WAVES, action = ArgAction::Set)]
    pub waves: Vec<f64>,

    /// The timing options.
    #[command(flatten)]
    pub timing: TimingArgs,

    /// `--provenance`.
    #[command(flatten)]
    pub provenance: ProvenanceArgs,

    /// After the timed samples, read each grid's hardware counters with Nsight Compute (ncu) on
    /// a replay, as the sweep's --counters does: a table of them and what bound the grids; no
    /// profiler or no permission: n/a and one warning
    #[arg(long)]
    pub counters: bool,
}

impl TailArgs {
    /// The library's settings for `tail` (the grids are its own argument), not yet validated;
    /// the command line recorded is this process's.
    pub fn settings(&self) -> Settings {
        Settings {
            device: DeviceChoice::One(self.device.device),
            block_sizes: vec![self.block_size],
            block_shapes: self.block_shape.into_iter().collect(),
            timing: self.timing.settings(),
            provenance: self.provenance.provenance,
            counters: self.counters,
            ..Settings::default()
        }
    }
}
