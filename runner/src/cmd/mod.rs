/*!
The subcommands, one module each: its options (clap derive) and their validation, its run on a
device, and its report. [`crate::cli`] puts them under one parser; the sweep's options are the
top level's own, so `block-size --width ...` sweeps.

Here: the option groups several subcommands flatten in ([`KernelArgs`], [`FrameArgs`],
[`BlockSizesArgs`], [`VariantBlockSizesArgs`], [`WarmupsArgs`], [`TimingArgs`], [`DeviceArgs`],
[`ProvenanceArgs`]), the seed's defaults, and the checks every list of block
sizes gets. [`device`] holds the steps every run on a GPU shares: open, load, validate, gather
its provenance, and the console and exit statuses it ends with.
*/

pub mod compare;
pub mod device;
pub mod occupancy;
pub mod sweep;
pub mod tail;
pub mod variants;

use crate::frame_size::FrameSize;
use crate::sweep::DEFAULT_BLOCK_SIZES;
use crate::timing::{NoiseStop, Timing, TimingMode};
use crate::workload::{self, KernelSpec, Params};
use clap::builder::{PossibleValuesParser, TypedValueParser as _};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, Args, ValueEnum};
use std::time::Duration;

/// One 4K frame, 8,294,400 pixels.
pub const DEFAULT_WIDTH: u32 = 3840;
/// The default frame's height (4K).
pub const DEFAULT_HEIGHT: u32 = 2160;
/// Untimed launches before each row: `block_size.cu`'s.
pub const DEFAULT_WARMUPS: u32 = 3;
/// Timed samples per row where a subcommand takes a fixed count: `block_size.cu`'s ten.
pub const DEFAULT_RUNS: u32 = 10;
/// Samples a row takes at least under the noise-driven stop: the seed's ten.
pub const DEFAULT_MIN_RUNS: u32 = 10;

/// Which options the command line itself gave, as opposed to their defaults: a kernel-specific
/// option given for a kernel that does not read it is an error, not silently ignored.
#[derive(Clone, Copy)]
pub struct Given<'a>(pub Option<&'a ArgMatches>);

impl Given<'_> {
    /// Whether option `id` was on the command line.
    pub fn contains(&self, id: &str) -> bool {
        self.0.is_some_and(|matches| {
            matches.try_get_raw(id).is_ok() && matches.value_source(id) == Some(ValueSource::CommandLine)
        })
    }
}

// `--kernel` and `--bins`: which kernel a sweep, a comparison or `tail` measures.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--kernel` and `--bins`: which kernel a sweep, a comparison or `tail` measures.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct KernelArgs {
    #[arg(
        long,
        value_name = "NAME",
        value_parser = PossibleValuesParser::new(workload::KERNELS.iter().map(|spec| spec.name))
            .map(|name| workload::spec(&name).expect("clap accepts registered names only")),
        default_value = workload::KERNELS[0].name,
        help = kernel_help(),
    )]
    #[cfg_attr(doc, doc = "The kernel measured.")]
    pub kernel: &'static KernelSpec,

    /// Histogram bins, 1 to 4096 (--kernel histogram only): 4 bytes of dynamic shared memory
    /// each per block, so more bins fit fewer blocks on an SM (4096 bins: 16 KiB a block)
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=i64::from(workload::histogram::MAX_BINS)),
        default_value_t = workload::histogram::DEFAULT_BINS
    )]
    pub bins: u32,
}

/// `--kernel`'s help: every registered kernel with its line.
fn kernel_help() -> String {
    let about: Vec<String> =
        workload::KERNELS.iter().map(|spec| format!("{}: {}", spec.name, spec.about)).collect();
    format!("The kernel measured; {}", about.join("; "))
}

impl KernelArgs {
    /// The kernel and its bins, where every kernel-specific option given is one the kernel
    /// reads.
    pub fn choice(&self, given: Given) -> Result<(&'static KernelSpec, u32), String> {
        let spec = self.kernel;
        for option in ["bins"] {
            if given.contains(option) && !spec.options.contains(&option) {
                let readers: Vec<&str> = workload::KERNELS
                    .iter()
                    .filter(|other| other.options.contains(&option))
                    .map(|other| other.name)
                    .collect();
                return Err(format!(
                    "--{option} does not apply to --kernel {}; it is an option of --kernel {}",
                    spec.name,
                    readers.join(", ")
                ));
            }
        }
        Ok((spec, self.bins))
    }
}

// What `--timing` takes. (No doc comments on the values: clap would print them as help.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[cfg_attr(doc, doc = "What `--timing` takes.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub enum TimingArg {
    #[cfg_attr(doc, doc = "Batch mode ([`TimingMode::Batch`]).")]
    Batch,
    #[cfg_attr(doc, doc = "Cold mode ([`TimingMode::Cold`]).")]
    Cold,
    #[cfg_attr(doc, doc = "Launch mode ([`TimingMode::Launch`]).")]
    Launch,
}

impl TimingArg {
    /// The timing mode it names.
    pub fn mode(self) -> TimingMode {
        match self {
            Self::Batch => TimingMode::Batch,
            Self::Cold => TimingMode::Cold,
            Self::Launch => TimingMode::Launch,
        }
    }
}

/// `--max-time-per-row`: seconds (`0.5`), or a duration with its unit (`500ms`, `2s`).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let duration = match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Duration::from_secs_f64(seconds),
        Ok(_) => return Err("a time of 0 seconds or more".to_string()),
        Err(_) => humantime::parse_duration(text.trim())
            .map_err(|_| "seconds (0.5) or a duration with its unit (500ms, 2s)".to_string())?,
    };
    Ok(duration)
}

/// `--max-noise`: a fraction, 0 to 1.
fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(fraction) if (0.0..=1.0).contains(&fraction) => Ok(fraction),
        _ => Err("a fraction from 0 to 1 (0.005 is half a percent)".to_string()),
    }
}

// How each row is timed: the mode, the warm-ups, the count or the noise-driven stop, the L2
// flush. The sweep and `tail` flatten it in.
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(doc, doc = "How each row is timed: mode, warm-ups, count or noise-driven stop, L2 flush.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct TimingArgs {
    /// How a row's samples sit between CUDA events. batch (block_size.cu's method): each
    /// sample is --launches-per-sample launches back to back between one pair of events,
    /// their mean. cold: each sample one launch between its own events after an L2 flush
    /// (unless --no-flush-l2), every sample queued behind a blocking kernel that the host
    /// releases once all are enqueued. launch: each sample one launch between its own events,
    /// the host enqueuing it after the previous one has finished
    #[arg(long, value_name = "MODE", value_enum, default_value = "batch")]
    pub timing: TimingArg,

    /// Launches between one pair of events in a batch sample (--timing batch only)
    #[arg(long, id = "launches-per-sample", value_name = "N", value_parser = clap::value_parser!(u32).range(1..), default_value_t = crate::timing::DEFAULT_BATCH_LAUNCHES)]
    pub launches_per_sample: u32,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--warmups`.")]
    pub warmups: WarmupsArgs,

    /// Exactly N samples per row: no noise-driven stop (instead of --min-runs, --max-noise
    /// and --max-time-per-row)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["min-runs", "max-noise", "max-time-per-row"])]
    pub runs: Option<u32>,

    /// Samples every row takes before the noise-driven stop may end it
    #[arg(long, id = "min-runs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..), default_value_t = DEFAULT_MIN_RUNS)]
    pub min_runs: u32,

    /// Noise-driven stop: a row takes samples until their median absolute deviation is at
    /// most FRACTION of their median (0.005: half a percent)...
    #[arg(long, id = "max-noise", value_name = "FRACTION", value_parser = parse_fraction, default_value = "0.005")]
    pub max_noise: f64,

    /// ...or until this much time has passed on it, in seconds (0.5) or with a unit (500ms)
    #[arg(long, id = "max-time-per-row", value_name = "SECONDS", value_parser = parse_seconds, default_value = "0.5")]
    pub max_time_per_row: Duration,

    /// Before each sample, outside the timed interval, overwrite a scratch buffer of twice
    /// the L2, so no sample reads the previous one's data from L2 (batch: before each batch,
    /// so its first launch starts cold; --timing cold flushes unless --no-flush-l2)
    #[arg(long, id = "flush-l2")]
    pub flush_l2: bool,

    /// With --timing cold: no L2 flush before each sample, so each finds in L2 what the one
    /// before left there (the samples still queue behind the blocking kernel)
    #[arg(long, id = "no-flush-l2", conflicts_with = "flush-l2")]
    pub no_flush_l2: bool,
}

impl TimingArgs {
    /// The timing asked for; `--launches-per-sample` given with another mode than batch is
    /// an error.
    pub fn timing(&self, given: Given) -> Result<Timing, String> {
        let mode = self.timing.mode();
        if given.contains("launches-per-sample") && mode != TimingMode::Batch {
            return Err(format!("--launches-per-sample applies to --timing batch, not --timing {mode}"));
        }
        if self.no_flush_l2 && mode != TimingMode::Cold {
            return Err(format!("--no-flush-l2 applies to --timing cold, not --timing {mode}"));
        }
        let timing = Timing {
            mode,
            warmups: self.warmups.warmups,
            runs: self.runs.unwrap_or(self.min_runs),
            launches_per_sample: if mode == TimingMode::Batch { self.launches_per_sample } else { 1 },
            flush_l2: self.flush_l2,
            cold_keeps_l2: self.no_flush_l2,
            stop: None,
        };
        Ok(match self.runs {
            Some(_) => timing,
            None => timing.until(NoiseStop {
                max_noise: self.max_noise,
                max_time_per_row: self.max_time_per_row,
                max_runs: NoiseStop::DEFAULT.max_runs.max(self.min_runs),
            }),
        })
    }
}

// `--width` and `--height`: the frame every device subcommand measures over.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--width` and `--height`: the frame every device subcommand measures over.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct FrameArgs {
    /// Frame width
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(1..), default_value_t = DEFAULT_WIDTH)]
    pub width: u32,

    /// Frame height
    #[arg(long, value_name = "PIXELS", value_parser = clap::value_parser!(u32).range(1..), default_value_t = DEFAULT_HEIGHT)]
    pub height: u32,
}

impl FrameArgs {
    /// The frame they give.
    pub fn size(self) -> FrameSize {
        FrameSize::new(self.width, self.height)
    }
}

// `--block-sizes` at the sweep's defaults: the sweep, `compare` and a program's own sweep.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--block-sizes` at the sweep's defaults ([`DEFAULT_BLOCK_SIZES`]).")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct BlockSizesArgs {
    /// Threads per block, comma-separated, each 1 to the device's maximum
    #[arg(
        long,
        id = "block-sizes",
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = clap::value_parser!(u32).range(1..),
        default_values_t = DEFAULT_BLOCK_SIZES,
        action = ArgAction::Set
    )]
    pub block_sizes: Vec<u32>,
}

// `--block-sizes` at `variants`' defaults, the plateau of the one-pixel sweep.
#[derive(Args, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--block-sizes` at `variants`' defaults ([`variants::VARIANT_BLOCK_SIZES`]).")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct VariantBlockSizesArgs {
    /// Threads per block, comma-separated, each 1 to the device's maximum
    #[arg(
        long,
        id = "block-sizes",
        value_name = "LIST",
        value_delimiter = ',',
        value_parser = clap::value_parser!(u32).range(1..),
        default_values_t = variants::VARIANT_BLOCK_SIZES,
        action = ArgAction::Set
    )]
    pub block_sizes: Vec<u32>,
}

// `--warmups`: untimed launches before each row.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--warmups`: untimed launches before each row.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct WarmupsArgs {
    /// Untimed launches before each row
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..), default_value_t = DEFAULT_WARMUPS)]
    pub warmups: u32,
}

// `--device` of the subcommands that measure one GPU.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(doc, doc = "`--device` of the subcommands that measure one GPU.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct DeviceArgs {
    /// CUDA device ordinal
    #[arg(long, value_name = "INDEX", value_parser = clap::value_parser!(u32).range(0..), default_value_t = 0)]
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

/// `block_sizes` if no size is listed twice.
pub fn unique_block_sizes(block_sizes: &[u32]) -> Result<Vec<u32>, String> {
    for (index, size) in block_sizes.iter().enumerate() {
        if block_sizes[..index].contains(size) {
            return Err(format!("block size {size} is listed twice in --block-sizes"));
        }
    }
    Ok(block_sizes.to_vec())
}

/// Every file `--output` and `--plot` name can be created: its folder exists. The message is
/// one line.
pub fn output_folders_exist<'a>(
    paths: impl IntoIterator<Item = &'a std::path::PathBuf>,
) -> Result<(), String> {
    for path in paths {
        let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty());
        if folder.is_some_and(|folder| !folder.is_dir()) {
            return Err(format!("cannot write {}: its folder does not exist", path.display()));
        }
    }
    Ok(())
}

/// What a kernel's workload is built from: the frame, `bins` and no offset.
pub fn params(frame: FrameSize, bins: u32) -> Params {
    Params { frame, bins, offset: 0 }
}

/// clap's message without its "error: " prefix, usage block and hint: the first line.
pub fn usage_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid command line");
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// Parsing one subcommand's options on their own, for its tests.
#[cfg(test)]
pub(crate) mod testing {
    use clap::{ArgMatches, Args, Command, FromArgMatches};

    /// `args` (without the program name) parsed as the options `A` alone, with their matches;
    /// clap's refusal as its one line.
    pub fn parse<A: Args + FromArgMatches>(args: &[&str]) -> Result<(A, ArgMatches), String> {
        let command = A::augment_args(Command::new("block-size"));
        let all = std::iter::once("block-size").chain(args.iter().copied());
        let matches = command.try_get_matches_from(all).map_err(|error| super::usage_line(&error))?;
        let parsed = A::from_arg_matches(&matches).map_err(|error| super::usage_line(&error))?;
        Ok((parsed, matches))
    }
}
