/*!
[`SweepArgs`], the sweep's options as `block-size` takes them, and the settings they become.
*/

use crate::commands::options::groups::{
    BlockSizesArgs, FormatArg, ObjectiveArg, ProvenanceArgs, SearchArg, TimingArgs, parse_device_choice,
    parse_seconds, parse_shard,
};
use crate::commands::settings::{DEFAULT_ENERGY_WINDOW, DeviceChoice, Settings, TimingSettings};
use crate::error::Error;
use crate::model::grid::GridPolicy;
use crate::model::shard::Shard;
use crate::results::export::Format;
use clap::Args;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The sweep's options as `block-size` takes them: `--block-sizes`, the timing options
/// (`--timing`, `--runs`, `--warmups`, ...), `--device`, `--grid`, `--corrupt-output`,
/// `--provenance`, `--stats`, `--format`, `--output`, `--plot`, the export files `--json`,
/// `--csv`, `--markdown`, `--html` and `--t4`, and the rest of `block-size --help`'s own.
/// Flatten it into your program's clap parser with `#[command(flatten)]`, or parse a list of
/// them ([`SweepArgs::from_args`]); then hand it to [`crate::sweep_and_print`] or
/// [`crate::sweep`]. [`SweepArgs::default`] is `block-size`'s defaults, which are
/// `block_size.cu`'s.
///
/// ```
/// use block_size_runner::SweepArgs;
/// use clap::Parser;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     sweep: SweepArgs,
/// }
///
/// let cli = Cli::parse_from(["my-sweep", "--block-sizes", "128,256", "--timing", "cold"]);
/// assert!(cli.sweep.validate().is_ok());
/// // The same options without a parser of your own.
/// assert_eq!(SweepArgs::from_args(["--block-sizes", "128,256", "--timing", "cold"])?, cli.sweep);
///
/// // Refused as `block-size` refuses them: one line, exit status 2.
/// let error = SweepArgs::from_args(["--block-sizes", "64,128,64"])?.validate().unwrap_err();
/// assert_eq!(error.to_string(), "block size 64 is listed twice in --block-sizes");
/// assert_eq!(error.exit_status(), 2);
/// let error = SweepArgs::from_args(["--runs", "many"]).unwrap_err();
/// assert_eq!(error.to_string(), "invalid value 'many' for '--runs <N>': invalid digit found in string");
/// # Ok::<(), block_size_runner::Error>(())
/// ```
#[derive(Args, Debug, Clone, PartialEq)]
// The rustdoc above is no help of the program that flattens it in: its own about stays.
#[command(about = None, long_about = None)]
pub struct SweepArgs {
    /// `--block-sizes`.
    #[command(flatten)]
    block_sizes: BlockSizesArgs,

    /// The timing options.
    #[command(flatten)]
    timing: TimingArgs,

    /// CUDA device ordinal, or `all` for one table per visible GPU
    #[arg(long, allow_negative_numbers = true, value_name = "INDEX|all", value_parser = parse_device_choice, default_value = "0")]
    device: DeviceChoice,

    /// Blocks each row launches: one-wave (the seed's: blk/SM x SMs), per-item (one thread per
    /// item: ceil(items / threads)) or waves:K (K full waves, K from 1); never more than one
    /// thread per item
    #[arg(long, allow_negative_numbers = true, value_name = "POLICY", default_value = "one-wave")]
    grid: GridPolicy,

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
    corrupt_output: Option<usize>,

    /// `--provenance`.
    #[command(flatten)]
    provenance: ProvenanceArgs,

    /// Add each row's min, max and median absolute deviation (ms) to the table
    #[arg(long)]
    stats: bool,

    /// table (the seed's), markdown (for a README), json (provenance and every sample), csv (a
    /// row per block size), html (a self-contained page with the plot and an occupancy explorer)
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "table")]
    format: FormatArg,

    /// Write the output to FILE instead of standard output
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// Plot GB/s (median, min-max whiskers) and occupancy against block size as SVG
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,

    /// Append each finished configuration to FILE as one JSON line, flushed as it finishes
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,

    /// Skip the configurations FILE (a --journal) holds under the same GPU, driver, PTX, kernel,
    /// work, timing and grid; those under another are measured again
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,

    /// A wait on the GPU longer than this is a hang: the configuration is named as hung and the
    /// sweep goes on in a fresh worker [default: the longer of 10 s and 20 times the longest
    /// wait so far]
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_seconds)]
    launch_timeout: Option<Duration>,

    /// Also write the JSON export (provenance, every row, every sample) to FILE, besides the
    /// table or --format's output
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Also write the CSV export (a line per block size) to FILE
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,

    /// Also write the Markdown export (the table and summary) to FILE
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,

    /// Also write the HTML report to FILE: one self-contained page with the table, the plot, the
    /// provenance, the summary and an occupancy explorer
    #[arg(long, value_name = "FILE.html")]
    html: Option<PathBuf>,

    /// Also write the T4 export to FILE: the open autotuning results schema Kernel Tuner writes,
    /// each configuration's block, axes, samples and validity
    #[arg(long, value_name = "FILE")]
    t4: Option<PathBuf>,

    /// exhaustive: every configuration samples to the noise-driven stop; race: every
    /// configuration gets --min-runs samples, the clearly slower ones stop there, the rest
    /// sample on; rungs: 1, 2, 6, --min-runs, then twice as many samples, the clearly slower
    /// stopping after each rung, a survivor once its median is known within --max-noise, then
    /// the leader and the rows tied with it measured in turn (a run-off) [default: race above 24 configurations, exhaustive with --runs]
    #[arg(long, value_name = "SEARCH", value_enum)]
    search: Option<SearchArg>,

    /// Write the winning configuration as Rust source to FILE (a const per axis and
    /// config_for(device name, compute capability)), and its JSON to FILE.json
    #[arg(long, value_name = "FILE.rs")]
    emit_rust: Option<PathBuf>,

    /// Let --emit-rust replace a file it did not write (one whose first line is not its own
    /// header, such as a hand-written main.rs); without it such a file is refused
    #[arg(long)]
    force: bool,

    /// After each row's samples, read its energy from the GPU's energy counter (NVML): the row
    /// runs back to back for at least --energy-window between two steps of the counter, and
    /// the table gains mJ/pass and W (n/a where NVML is missing)
    #[arg(long)]
    energy: bool,

    /// With --energy: the shortest window a row's energy is read over, in seconds or with a
    /// unit [default: 0.5]
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = parse_seconds, requires = "energy")]
    energy_window: Option<Duration>,

    /// What makes a row the winner (the table's best, the summary, --emit-rust): time, energy
    /// (joules a pass) or edp (joules x seconds); energy and edp need --energy
    #[arg(long, value_name = "OBJECTIVE", value_enum, default_value = "time")]
    objective: ObjectiveArg,

    /// Measure shard I of N of the sweep's configurations alone, on one GPU (configuration k,
    /// counted from 0, is shard k mod N + 1's; every shard measures exhaustively); block-size
    /// merge puts the shards' --json files together
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<Shard>,

    /// With --device all: split one sweep across this machine's GPUs (of one model), a shard a
    /// GPU, all at once, merged into one table
    #[arg(long)]
    split: bool,

    /// After the timed samples, read each row's hardware counters with Nsight Compute (ncu, on
    /// PATH, at /usr/local/cuda/bin/ncu, or named by BLOCK_SIZE_NCU) on a replay of the sweep:
    /// DRAM GB/s and its percentage of a device-to-device copy timed in the same run, achieved
    /// occupancy, warp and branch efficiency, L2 hit rate, shared-memory bank conflicts,
    /// barrier and memory stalls; the summary says what bound the winner. The times are those
    /// of the timed run; no profiler or no permission: n/a and one warning
    #[arg(long)]
    counters: bool,
}

impl SweepArgs {
    /// The options in `args`, as `block-size` reads them after its program name (`["--runs",
    /// "20"]`); an option it does not take, or a value it cannot read, is the one line
    /// `block-size` prints for it (exit 2). The values are checked once a kernel is known
    /// ([`SweepArgs::validate_for`]), or now without one ([`SweepArgs::validate`]).
    pub fn from_args(args: impl IntoIterator<Item = impl Into<OsString>>) -> Result<Self, Error> {
        super::parse(args)
    }

    /// Every check of the options that needs neither a device nor the kernel; the first that
    /// fails as one line, exit status 2. [`SweepArgs::validate_for`] adds the kernel's.
    pub fn validate(&self) -> Result<(), Error> {
        self.settings().validate()
    }

    /// The `--journal` the sweep appends to, where given.
    pub(crate) fn journal(&self) -> Option<&Path> {
        self.journal.as_deref()
    }

    /// The settings, not yet validated; the command line recorded is this process's.
    pub(crate) fn settings(&self) -> Settings {
        Settings {
            device: self.device,
            block_sizes: self.block_sizes.block_sizes.clone(),
            block_shapes: self.block_sizes.block_shapes(),
            timing: TimingSettings {
                energy_window: self.energy.then(|| self.energy_window.unwrap_or(DEFAULT_ENERGY_WINDOW)),
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

impl Default for SweepArgs {
    /// `block-size`'s defaults: no option given.
    fn default() -> Self {
        super::defaults()
    }
}
