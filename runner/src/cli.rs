/*!
Command line: the clap definition and its validation into [`Options`].

Defaults are `block_size.cu`'s constants, so a bare run is the seed's run. Checks that need
the device (a block size above its limit, a frame larger than its free memory) are here
too, as pure functions of the device's numbers; `main` calls them once the device is open.
*/

use crate::backend::DeviceLimits;
use crate::export::Format;
use crate::workload::{self, Footprint, KernelSpec, Params};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use std::ffi::OsString;
use std::path::PathBuf;

/// The seed's sweep. Below a warp (16); where the per-SM block cap binds first on small
/// cards (32, 64); sizes that do not divide a 32- or 64-warp SM evenly (96, 160, 192, 384,
/// 768); not a multiple of 32 at all (100); and the 128-1024 range the Best Practices Guide
/// suggests.
pub const DEFAULT_BLOCK_SIZES: [u32; 13] = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];
/// One 4K frame, 8,294,400 pixels.
pub const DEFAULT_WIDTH: u32 = 3840;
pub const DEFAULT_HEIGHT: u32 = 2160;
pub const DEFAULT_WARMUPS: u32 = 3;
pub const DEFAULT_RUNS: u32 = 10;

/// Which GPUs a sweep runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceChoice {
    One(u32),
    /// Every visible GPU, one table each, then a summary line per GPU.
    All,
}

fn parse_device_choice(text: &str) -> Result<DeviceChoice, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(DeviceChoice::All);
    }
    text.parse().map(DeviceChoice::One).map_err(|_| "a device ordinal (0, 1, ...) or `all`".to_string())
}

/// A validated command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub device: DeviceChoice,
    /// The kernel swept (`--kernel`).
    pub kernel: &'static KernelSpec,
    /// Histogram bins (`--bins`).
    pub bins: u32,
    pub width: u32,
    pub height: u32,
    pub block_sizes: Vec<u32>,
    pub warmups: u32,
    pub runs: u32,
    /// Print the provenance lines (PTX hash, toolchain, driver, command, date) first.
    pub provenance: bool,
    /// Overwrite this output element (a pixel, a bin) after every row's launches (a self-test
    /// of the check).
    pub corrupt_pixel: Option<usize>,
    /// Evict L2 before every timed launch.
    pub flush_l2: bool,
    /// Add min, max and MAD columns to the table.
    pub stats: bool,
    /// The sweep's output: the seed's table (`None`), or an export format.
    pub format: Option<Format>,
    /// Write the output here instead of standard output.
    pub output: Option<PathBuf>,
    /// An SVG plot of the sweep to write.
    pub plot: Option<PathBuf>,
}

impl Options {
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// What the workload is built from.
    pub fn params(&self) -> Params {
        Params { width: self.width, height: self.height, bins: self.bins, offset: 0 }
    }
}

/// What `block-size occupancy` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OccupancyOptions {
    /// Preset keys, one (`--gpu`) or several (`--compare-gpus`).
    pub gpus: Vec<String>,
    pub registers_per_thread: u32,
    pub shared_memory_per_block: u32,
    pub block_sizes: Vec<u32>,
}

/// What `block-size compare` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareOptions {
    pub device: u32,
    pub kernel: &'static KernelSpec,
    pub bins: u32,
    pub width: u32,
    pub height: u32,
    pub block_sizes: Vec<u32>,
    pub warmups: u32,
    pub rounds: u32,
    pub provenance: bool,
}

impl CompareOptions {
    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    pub fn params(&self) -> Params {
        Params { width: self.width, height: self.height, bins: self.bins, offset: 0 }
    }
}

/// What `block-size tail` was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct TailOptions {
    pub device: u32,
    pub kernel: &'static KernelSpec,
    pub bins: u32,
    pub width: u32,
    pub height: u32,
    pub threads_per_block: u32,
    pub waves: Vec<f64>,
    pub warmups: u32,
    pub runs: u32,
    pub flush_l2: bool,
    pub provenance: bool,
}

impl TailOptions {
    pub fn params(&self) -> Params {
        Params { width: self.width, height: self.height, bins: self.bins, offset: 0 }
    }
}

/// What `block-size variants` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariantsOptions {
    pub device: u32,
    pub width: u32,
    pub height: u32,
    pub block_sizes: Vec<u32>,
    pub warmups: u32,
    pub runs: u32,
    pub offset: usize,
    pub provenance: bool,
}

impl VariantsOptions {
    pub fn params(&self) -> Params {
        Params {
            width: self.width,
            height: self.height,
            bins: workload::histogram::DEFAULT_BINS,
            offset: self.offset,
        }
    }
}

/// Block sizes `variants` sweeps unless told otherwise: the plateau of the one-pixel sweep.
pub const VARIANT_BLOCK_SIZES: [u32; 4] = [128, 256, 512, 1024];

/// Interleaved rounds `compare` times per block size unless told otherwise.
pub const DEFAULT_ROUNDS: u32 = 30;

/// A validated command line: the sweep, the three-compiler comparison, or the GPU-free
/// occupancy calculator.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Sweep(Options),
    Compare(CompareOptions),
    Tail(TailOptions),
    Variants(VariantsOptions),
    Occupancy(OccupancyOptions),
}

/// Registers per thread `occupancy` assumes without `--regs`: the grayscale kernel's count
/// on sm_90 (ptxas -v on the committed PTX).
pub const DEFAULT_REGISTERS: u32 = 16;

/// Why the command line was not run.
#[derive(Debug)]
pub enum CliError {
    /// `--help` or `--version`: print it and exit 0.
    Info(clap::Error),
    /// Bad input, as one line: exit 2.
    Usage(String),
}

fn count(name: &'static str, min: i64, default: u32) -> Arg {
    Arg::new(name).long(name).value_parser(value_parser!(u32).range(min..)).default_value(default.to_string())
}

/// `--kernel` and `--bins`: which kernel a sweep, a comparison or `tail` measures.
fn kernel_args(command: Command) -> Command {
    let names: Vec<&str> = workload::KERNELS.iter().map(|spec| spec.name).collect();
    let about: Vec<String> =
        workload::KERNELS.iter().map(|spec| format!("{}: {}", spec.name, spec.about)).collect();
    command
        .arg(
            Arg::new("kernel")
                .long("kernel")
                .value_name("NAME")
                .value_parser(names)
                .default_value(workload::KERNELS[0].name)
                .help(format!("The kernel measured; {}", about.join("; "))),
        )
        .arg(
            Arg::new("bins")
                .long("bins")
                .value_name("N")
                .value_parser(value_parser!(u32).range(1..=i64::from(workload::histogram::MAX_BINS)))
                .default_value(workload::histogram::DEFAULT_BINS.to_string())
                .help(
                    "Histogram bins, 1 to 4096 (--kernel histogram only): 4 bytes of dynamic shared memory \
                     each per block, so more bins fit fewer blocks on an SM (4096 bins: 16 KiB a block)",
                ),
        )
}

/// The options a sweep and a comparison share: what frame, which block sizes.
fn launch_args(command: Command) -> Command {
    kernel_args(command)
        .arg(count("width", 1, DEFAULT_WIDTH).value_name("PIXELS").help("Frame width"))
        .arg(count("height", 1, DEFAULT_HEIGHT).value_name("PIXELS").help("Frame height"))
        .arg(block_sizes_arg().help("Threads per block, comma-separated, each 1 to the device's maximum"))
        .arg(count("warmups", 0, DEFAULT_WARMUPS).value_name("N").help("Untimed launches before each row"))
}

fn compare_command() -> Command {
    launch_args(Command::new("compare"))
        .arg(count("device", 0, 0).value_name("INDEX").help("CUDA device ordinal"))
        .about(
            "The kernel from cuda_builder and nvcc (and, for grayscale, rustc's NVPTX backend), timed side by side in interleaved rounds",
        )
        .arg(count("rounds", 1, DEFAULT_ROUNDS).value_name("N").help("Interleaved rounds timed per block size"))
        .arg(provenance_arg())
}

fn provenance_arg() -> Arg {
    Arg::new("provenance")
        .long("provenance")
        .action(ArgAction::SetTrue)
        .help("Print what was measured with what (PTX sha256, compilers, driver, command, date) first")
}

fn variants_command() -> Command {
    Command::new("variants")
        .about(
            "Vector loads and several pixels per thread of the grayscale kernel (grayscale only), in Rust and C++, against a device-to-device copy",
        )
        .arg(count("device", 0, 0).value_name("INDEX").help("CUDA device ordinal"))
        .arg(count("width", 1, DEFAULT_WIDTH).value_name("PIXELS").help("Frame width"))
        .arg(count("height", 1, DEFAULT_HEIGHT).value_name("PIXELS").help("Frame height"))
        .arg(
            block_sizes_arg()
                .default_values(VARIANT_BLOCK_SIZES.map(|size| size.to_string()))
                .help("Threads per block, comma-separated, each 1 to the device's maximum"),
        )
        .arg(count("warmups", 0, DEFAULT_WARMUPS).value_name("N").help("Untimed launches before each row"))
        .arg(count("runs", 1, DEFAULT_RUNS).value_name("N").help("Timed launches per row"))
        .arg(
            Arg::new("offset")
                .long("offset")
                .value_name("FLOATS")
                .value_parser(value_parser!(u64).range(0..=1024))
                .default_value("0")
                .help("Start every plane this many floats past a 16-byte boundary (1-3: misaligned vectors)"),
        )
        .arg(provenance_arg())
}

fn tail_command() -> Command {
    kernel_args(Command::new("tail"))
        .about("What a partial last wave costs: one block size, grids of 0.5 to 8 waves over the same frame")
        .arg(count("device", 0, 0).value_name("INDEX").help("CUDA device ordinal"))
        .arg(count("width", 1, DEFAULT_WIDTH).value_name("PIXELS").help("Frame width"))
        .arg(count("height", 1, DEFAULT_HEIGHT).value_name("PIXELS").help("Frame height"))
        .arg(
            count("block-size", 1, 256)
                .value_name("THREADS")
                .help("Threads per block, 1 to the device's maximum"),
        )
        .arg(
            Arg::new("waves")
                .long("waves")
                .value_name("LIST")
                .value_delimiter(',')
                .value_parser(value_parser!(f64))
                .default_values(crate::tail::DEFAULT_WAVES.map(|waves| waves.to_string()))
                .help("Grid sizes in waves (blocks/SM x SMs), comma-separated, each above 0"),
        )
        .arg(count("warmups", 0, DEFAULT_WARMUPS).value_name("N").help("Untimed launches before each row"))
        .arg(count("runs", 1, DEFAULT_RUNS).value_name("N").help("Timed launches per row"))
        .arg(
            Arg::new("flush-l2")
                .long("flush-l2")
                .action(ArgAction::SetTrue)
                .help("Evict L2 before each timed launch"),
        )
        .arg(provenance_arg())
}

/// The sweep's `--device`, which also takes `all`.
fn sweep_device_arg() -> Arg {
    Arg::new("device")
        .long("device")
        .value_name("INDEX|all")
        .value_parser(parse_device_choice)
        .default_value("0")
        .help("CUDA device ordinal, or `all` for one table per visible GPU")
}

pub fn build() -> Command {
    let command = Command::new("block-size")
        .version(env!("CARGO_PKG_VERSION"))
        .about("How many threads per block? Sweeps block sizes for a Rust (rust-cuda) kernel: grayscale, or a shared-memory histogram.")
        .long_about(
            "How many threads per block? For each block size, asks the driver how many blocks of \
             the Rust kernel (--kernel: grayscale, or histogram with --bins of dynamic shared memory) \
             fit on one SM, launches exactly one full wave of them over a synthetic frame, times the \
             launches with CUDA events, checks the output against a CPU reference, and prints the \
             table of block_size.cu, with the limit that binds blocks/SM in its last column.",
        )
        .after_help(
            "Exit status: 0 every check held; 1 a check failed or the driver failed mid-run (the \
             table is then not a measurement); 2 bad input; 3 no NVIDIA driver, no GPU, no such device, \
             or a driver that cannot load the kernel's PTX (too old for its PTX ISA). With --device all, \
             the highest status of any device.",
        )
        .args_conflicts_with_subcommands(true)
        .subcommand(occupancy_command())
        .subcommand(compare_command())
        .subcommand(tail_command())
        .subcommand(variants_command());
    launch_args(command)
        .arg(sweep_device_arg())
        .arg(count("runs", 1, DEFAULT_RUNS).value_name("N").help("Timed launches averaged per row"))
        .arg(
            Arg::new("corrupt-pixel")
                .long("corrupt-pixel")
                .value_name("INDEX")
                .value_parser(value_parser!(usize))
                .visible_alias("corrupt-output")
                .help(
                    "Self-test: overwrite output element INDEX on the device after every row's launches \
                     (grayscale: a pixel, with -1; histogram: a bin, with 4294967295), so every row must \
                     fail its reference check at INDEX and the run must exit 1",
                ),
        )
        .arg(provenance_arg())
        .arg(Arg::new("flush-l2").long("flush-l2").action(ArgAction::SetTrue).help(
            "Before every timed launch, outside the timed interval, overwrite a scratch buffer of twice \
                 the L2, so no launch reads the previous one's data from L2",
        ))
        .arg(
            Arg::new("stats")
                .long("stats")
                .action(ArgAction::SetTrue)
                .help("Add each row's min, max and median absolute deviation (ms) to the table"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .value_parser(["table", "markdown", "json", "csv"])
                .default_value("table")
                .help("table (the seed's), markdown (for a README), json (provenance and every run), csv (a row per block size)"),
        )
        .arg(
            Arg::new("output")
                .long("output")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help("Write the output to FILE instead of standard output"),
        )
        .arg(
            Arg::new("plot")
                .long("plot")
                .value_name("FILE.svg")
                .value_parser(value_parser!(PathBuf))
                .help("Plot GB/s (median, min-max whiskers) and occupancy against block size as SVG"),
        )
}

fn block_sizes_arg() -> Arg {
    Arg::new("block-sizes")
        .long("block-sizes")
        .value_name("LIST")
        .value_delimiter(',')
        .value_parser(value_parser!(u32).range(1..))
        .default_values(DEFAULT_BLOCK_SIZES.map(|size| size.to_string()))
}

fn occupancy_command() -> Command {
    let presets: Vec<&str> = crate::model::PRESETS.iter().map(|preset| preset.key).collect();
    Command::new("occupancy")
        .about("Blocks per SM, occupancy and the binding limit for a preset GPU, from a model; no GPU needed")
        .arg(
            Arg::new("gpu")
                .long("gpu")
                .value_name("PRESET")
                .value_parser(presets.clone())
                .ignore_case(true)
                .help("The GPU to model"),
        )
        .arg(
            Arg::new("compare-gpus")
                .long("compare-gpus")
                .value_name("LIST")
                .value_delimiter(',')
                .value_parser(presets)
                .ignore_case(true)
                .conflicts_with("gpu")
                .help("Several presets side by side, comma-separated"),
        )
        .group(clap::ArgGroup::new("which").args(["gpu", "compare-gpus"]).required(true))
        .arg(
            Arg::new("regs")
                .long("regs")
                .value_name("N")
                .value_parser(value_parser!(u32).range(0..=255))
                .default_value(DEFAULT_REGISTERS.to_string())
                .help("Registers per thread (ptxas -v, or the driver's NUM_REGS)"),
        )
        .arg(
            Arg::new("smem")
                .long("smem")
                .value_name("BYTES")
                .value_parser(value_parser!(u32))
                .default_value("0")
                .help("Shared memory per block, static plus dynamic, in bytes"),
        )
        .arg(
            block_sizes_arg()
                .value_parser(value_parser!(u32).range(1..=1024))
                .help("Threads per block, 1 to 1024"),
        )
}

/// Parses and validates a command line (program name first).
pub fn parse<I, T>(args: I) -> Result<Request, CliError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = build().try_get_matches_from(args).map_err(|error| match error.kind() {
        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => CliError::Info(error),
        _ => CliError::Usage(one_line(&error)),
    })?;
    match matches.subcommand() {
        Some(("occupancy", sub)) => occupancy_from_matches(sub).map(Request::Occupancy),
        Some(("compare", sub)) => compare_from_matches(sub).map(Request::Compare),
        Some(("tail", sub)) => tail_from_matches(sub).map(Request::Tail),
        Some(("variants", sub)) => variants_from_matches(sub).map(Request::Variants),
        _ => from_matches(&matches).map(Request::Sweep),
    }
    .map_err(CliError::Usage)
}

fn unique_block_sizes(matches: &ArgMatches) -> Result<Vec<u32>, String> {
    let block_sizes: Vec<u32> =
        matches.get_many::<u32>("block-sizes").expect("has a default").copied().collect();
    for (index, size) in block_sizes.iter().enumerate() {
        if block_sizes[..index].contains(size) {
            return Err(format!("block size {size} is listed twice in --block-sizes"));
        }
    }
    Ok(block_sizes)
}

/// The kernel `--kernel` names and its `--bins`; a kernel-specific option given on the command
/// line for a kernel that does not read it is an error, not silently ignored.
fn kernel_choice(matches: &ArgMatches) -> Result<(&'static KernelSpec, u32), String> {
    let name = matches.get_one::<String>("kernel").expect("has a default");
    let spec = workload::spec(name).expect("clap accepts registered names only");
    for option in ["bins"] {
        if matches.value_source(option) == Some(ValueSource::CommandLine) && !spec.options.contains(&option) {
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
    Ok((spec, *matches.get_one::<u32>("bins").expect("has a default")))
}

/// Checks `params` against the kernel's own rules.
fn validate_kernel(spec: &KernelSpec, params: &Params) -> Result<(), String> {
    (spec.validate)(params)
}

fn compare_from_matches(matches: &ArgMatches) -> Result<CompareOptions, String> {
    let number = |name: &str| *matches.get_one::<u32>(name).expect("every count has a default");
    let (kernel, bins) = kernel_choice(matches)?;
    let options = CompareOptions {
        device: number("device"),
        kernel,
        bins,
        width: number("width"),
        height: number("height"),
        block_sizes: unique_block_sizes(matches)?,
        warmups: number("warmups"),
        rounds: number("rounds"),
        provenance: matches.get_flag("provenance"),
    };
    validate_kernel(kernel, &options.params())?;
    Ok(options)
}

fn variants_from_matches(matches: &ArgMatches) -> Result<VariantsOptions, String> {
    let number = |name: &str| *matches.get_one::<u32>(name).expect("every count has a default");
    Ok(VariantsOptions {
        device: number("device"),
        width: number("width"),
        height: number("height"),
        block_sizes: unique_block_sizes(matches)?,
        warmups: number("warmups"),
        runs: number("runs"),
        offset: *matches.get_one::<u64>("offset").expect("has a default") as usize,
        provenance: matches.get_flag("provenance"),
    })
}

fn tail_from_matches(matches: &ArgMatches) -> Result<TailOptions, String> {
    let number = |name: &str| *matches.get_one::<u32>(name).expect("every count has a default");
    let waves: Vec<f64> = matches.get_many::<f64>("waves").expect("has a default").copied().collect();
    if let Some(bad) = waves.iter().find(|waves| !(waves.is_finite() && **waves > 0.0 && **waves <= 1000.0)) {
        return Err(format!("--waves {bad} is not a grid size: give waves above 0 and at most 1000"));
    }
    let (kernel, bins) = kernel_choice(matches)?;
    let options = TailOptions {
        device: number("device"),
        kernel,
        bins,
        width: number("width"),
        height: number("height"),
        threads_per_block: number("block-size"),
        waves,
        warmups: number("warmups"),
        runs: number("runs"),
        flush_l2: matches.get_flag("flush-l2"),
        provenance: matches.get_flag("provenance"),
    };
    validate_kernel(kernel, &options.params())?;
    Ok(options)
}

fn occupancy_from_matches(matches: &ArgMatches) -> Result<OccupancyOptions, String> {
    let gpus: Vec<String> = match matches.get_one::<String>("gpu") {
        Some(gpu) => vec![gpu.to_ascii_lowercase()],
        None => matches
            .get_many::<String>("compare-gpus")
            .expect("group is required")
            .map(|g| g.to_ascii_lowercase())
            .collect(),
    };
    Ok(OccupancyOptions {
        gpus,
        registers_per_thread: *matches.get_one::<u32>("regs").expect("has a default"),
        shared_memory_per_block: *matches.get_one::<u32>("smem").expect("has a default"),
        block_sizes: unique_block_sizes(matches)?,
    })
}

fn from_matches(matches: &ArgMatches) -> Result<Options, String> {
    let number = |name: &str| *matches.get_one::<u32>(name).expect("every count has a default");
    let block_sizes = unique_block_sizes(matches)?;
    let (kernel, bins) = kernel_choice(matches)?;
    let options = Options {
        device: *matches.get_one::<DeviceChoice>("device").expect("has a default"),
        kernel,
        bins,
        width: number("width"),
        height: number("height"),
        block_sizes,
        warmups: number("warmups"),
        runs: number("runs"),
        provenance: matches.get_flag("provenance"),
        corrupt_pixel: matches.get_one::<usize>("corrupt-pixel").copied(),
        flush_l2: matches.get_flag("flush-l2"),
        stats: matches.get_flag("stats"),
        format: match matches.get_one::<String>("format").map(String::as_str) {
            Some("markdown") => Some(Format::Markdown),
            Some("json") => Some(Format::Json),
            Some("csv") => Some(Format::Csv),
            _ => None,
        },
        output: matches.get_one::<PathBuf>("output").cloned(),
        plot: matches.get_one::<PathBuf>("plot").cloned(),
    };
    for path in options.output.iter().chain(&options.plot) {
        let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty());
        if folder.is_some_and(|folder| !folder.is_dir()) {
            return Err(format!("cannot write {}: its folder does not exist", path.display()));
        }
    }
    validate_kernel(kernel, &options.params())?;
    let (outputs, whole) = (kernel.outputs)(&options.params());
    if let Some(index) = options.corrupt_pixel
        && index as u64 >= outputs
    {
        return Err(format!("--corrupt-pixel {index} is outside the {whole}"));
    }
    Ok(options)
}

/// clap's message without its "error: " prefix, usage block and hint: the first line.
fn one_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or("invalid command line");
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// Every block size must be launchable on this device.
pub fn check_block_sizes(block_sizes: &[u32], limits: &DeviceLimits) -> Result<(), String> {
    match block_sizes.iter().find(|&&size| size > limits.max_threads_per_block) {
        Some(size) => Err(format!(
            "block size {size} is above {}'s limit of {} threads per block",
            limits.name, limits.max_threads_per_block
        )),
        None => Ok(()),
    }
}

/// A block's dynamic shared memory must be within the 48 KiB every CUDA device gives a block
/// without the `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` opt-in, which this program
/// does not set. No kernel here asks for more (4096 bins are 16 KiB); a new one that does must
/// opt in first.
pub fn check_dynamic_shared_memory(block_sizes: &[u32], shared: impl Fn(u32) -> u32) -> Result<(), String> {
    match block_sizes
        .iter()
        .map(|&size| (size, shared(size)))
        .find(|&(_, bytes)| bytes > DEFAULT_SHARED_MEMORY_LIMIT)
    {
        Some((size, bytes)) => Err(format!(
            "at {size} threads per block the kernel needs {bytes} B of dynamic shared memory per block, \
             above the {DEFAULT_SHARED_MEMORY_LIMIT} B a block gets without opting in"
        )),
        None => Ok(()),
    }
}

/// Dynamic shared memory a block may use without the opt-in attribute: 48 KiB.
pub const DEFAULT_SHARED_MEMORY_LIMIT: u32 = 48 * 1024;

/// The workload's device buffers, and `scratch_bytes` more (the L2 flush buffer), must fit in
/// the device memory that is free now. Byte counts are checked: a frame whose count overflows
/// 64 bits (1073741824 x 1073741824 pixels and up, for grayscale) is too large, not 0 bytes.
pub fn check_frame_fits(
    width: u32,
    height: u32,
    footprint: &Footprint,
    scratch_bytes: u64,
    free_bytes: u64,
) -> Result<(), String> {
    let what = footprint.device_what;
    let Some(needed) = footprint.device_bytes.and_then(|bytes| bytes.checked_add(scratch_bytes)) else {
        return Err(format!(
            "a {width} x {height} frame needs more than 16 EiB of device memory for {what}; no device has that"
        ));
    };
    if needed > free_bytes {
        return Err(format!(
            "a {width} x {height} frame needs {:.1} MiB of device memory for {what} (and any L2 flush buffer), but only {:.1} MiB is free",
            mib(needed),
            mib(free_bytes)
        ));
    }
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The workload's host data (for grayscale: the frame's three planes, its CPU reference and
/// the output read back) must fit in the host memory available now (`MemAvailable`; `None`
/// where the system does not say, and then only the allocations themselves can tell).
pub fn check_host_memory(
    width: u32,
    height: u32,
    footprint: &Footprint,
    available_bytes: Option<u64>,
) -> Result<(), String> {
    let Some(needed) = footprint.host_bytes else {
        return Err(format!(
            "a {width} x {height} frame needs more than 16 EiB of host memory; no machine has that"
        ));
    };
    match available_bytes {
        Some(available) if needed > available => Err(format!(
            "a {width} x {height} frame needs {:.1} MiB of host memory ({}), but only {:.1} MiB is available",
            mib(needed),
            footprint.host_what,
            mib(available)
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::MockGpu;
    use crate::workload::{grayscale, histogram};

    fn grayscale_footprint(width: u32, height: u32) -> Footprint {
        (grayscale::KERNEL.footprint)(&Params::frame(width, height))
    }

    fn parse_ok(args: &[&str]) -> Options {
        let mut all = vec!["block-size"];
        all.extend_from_slice(args);
        match parse(all) {
            Ok(Request::Sweep(options)) => options,
            other => panic!("{args:?} should parse as a sweep: {other:?}"),
        }
    }

    fn parse_occupancy(args: &[&str]) -> OccupancyOptions {
        let mut all = vec!["block-size", "occupancy"];
        all.extend_from_slice(args);
        match parse(all) {
            Ok(Request::Occupancy(options)) => options,
            other => panic!("{args:?} should parse as occupancy: {other:?}"),
        }
    }

    #[test]
    fn compare_reads_its_own_options() {
        let parsed = parse(["block-size", "compare", "--width", "8160", "--height", "8160", "--rounds", "5"]);
        match parsed {
            Ok(Request::Compare(options)) => assert_eq!(
                options,
                CompareOptions {
                    device: 0,
                    kernel: &grayscale::KERNEL,
                    bins: histogram::DEFAULT_BINS,
                    width: 8160,
                    height: 8160,
                    block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
                    warmups: DEFAULT_WARMUPS,
                    rounds: 5,
                    provenance: false,
                }
            ),
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse(["block-size", "compare", "--rounds", "0"]), Err(CliError::Usage(_))));
        assert!(matches!(parse(["block-size", "compare", "--runs", "3"]), Err(CliError::Usage(_))));
    }

    #[test]
    fn variants_reads_its_options() {
        match parse(["block-size", "variants", "--offset", "3", "--width", "11520", "--height", "5760"]) {
            Ok(Request::Variants(options)) => {
                assert_eq!((options.offset, options.width, options.height), (3, 11520, 5760));
                assert_eq!(options.block_sizes, VARIANT_BLOCK_SIZES);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse(["block-size", "variants", "--offset", "2000"]), Err(CliError::Usage(_))));
    }

    #[test]
    fn tail_reads_its_options_and_rejects_empty_grids() {
        match parse(["block-size", "tail", "--block-size", "128", "--waves", "1,1.25"]) {
            Ok(Request::Tail(options)) => {
                assert_eq!((options.threads_per_block, options.waves), (128, vec![1.0, 1.25]));
                assert_eq!(
                    (options.width, options.runs, options.flush_l2),
                    (DEFAULT_WIDTH, DEFAULT_RUNS, false)
                );
            }
            other => panic!("{other:?}"),
        }
        match parse(["block-size", "tail"]) {
            Ok(Request::Tail(options)) => assert_eq!(options.waves, crate::tail::DEFAULT_WAVES),
            other => panic!("{other:?}"),
        }
        for bad in ["0", "-1", "nan", "inf"] {
            assert!(
                matches!(parse(["block-size", "tail", "--waves", bad]), Err(CliError::Usage(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn occupancy_takes_one_gpu_or_a_comparison() {
        let one =
            parse_occupancy(&["--gpu", "H200", "--regs", "128", "--smem", "49152", "--block-sizes", "256"]);
        assert_eq!(
            one,
            OccupancyOptions {
                gpus: vec!["h200".into()],
                registers_per_thread: 128,
                shared_memory_per_block: 49152,
                block_sizes: vec![256]
            }
        );
        let several = parse_occupancy(&["--compare-gpus", "t4,rtx5090,h100"]);
        assert_eq!(several.gpus, ["t4", "rtx5090", "h100"]);
        assert_eq!((several.registers_per_thread, several.shared_memory_per_block), (DEFAULT_REGISTERS, 0));
        assert_eq!(several.block_sizes, DEFAULT_BLOCK_SIZES);
    }

    #[test]
    fn occupancy_rejects_unknown_gpus_and_impossible_kernels() {
        let error = |args: &[&str]| usage_error(&[&["occupancy"], args].concat());
        assert!(error(&["--gpu", "v100"]).contains("invalid value 'v100' for '--gpu <PRESET>'"));
        assert!(error(&[]).contains("required"));
        assert!(error(&["--gpu", "t4", "--compare-gpus", "h100"]).contains("cannot be used with"));
        assert!(error(&["--gpu", "t4", "--regs", "256"]).contains("--regs"));
        assert!(error(&["--gpu", "t4", "--block-sizes", "2048"]).contains("--block-sizes"));
        assert!(error(&["--gpu", "t4", "--width", "5"]).contains("--width"));
    }

    fn usage_error(args: &[&str]) -> String {
        let mut all = vec!["block-size"];
        all.extend_from_slice(args);
        match parse(all) {
            Err(CliError::Usage(message)) => message,
            other => panic!("{args:?} should be a usage error, got {other:?}"),
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        build().debug_assert();
    }

    #[test]
    fn defaults_are_the_seed_constants() {
        let options = parse_ok(&[]);
        assert_eq!(
            options,
            Options {
                device: DeviceChoice::One(0),
                kernel: &grayscale::KERNEL,
                bins: histogram::DEFAULT_BINS,
                width: DEFAULT_WIDTH,
                height: DEFAULT_HEIGHT,
                block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
                warmups: DEFAULT_WARMUPS,
                runs: DEFAULT_RUNS,
                provenance: false,
                corrupt_pixel: None,
                flush_l2: false,
                stats: false,
                format: None,
                output: None,
                plot: None,
            }
        );
        assert_eq!(options.pixels(), 8_294_400);
    }

    #[test]
    fn every_option_is_read() {
        let options = parse_ok(&[
            "--device",
            "1",
            "--width",
            "7",
            "--height",
            "13",
            "--block-sizes",
            "256,32",
            "--warmups",
            "0",
            "--runs",
            "2",
            "--provenance",
            "--corrupt-pixel",
            "90",
            "--flush-l2",
            "--stats",
            "--format",
            "csv",
            "--output",
            "sweep.csv",
            "--plot",
            "sweep.svg",
        ]);
        assert_eq!(
            options,
            Options {
                device: DeviceChoice::One(1),
                kernel: &grayscale::KERNEL,
                bins: histogram::DEFAULT_BINS,
                width: 7,
                height: 13,
                block_sizes: vec![256, 32],
                warmups: 0,
                runs: 2,
                provenance: true,
                corrupt_pixel: Some(90),
                flush_l2: true,
                stats: true,
                format: Some(Format::Csv),
                output: Some(PathBuf::from("sweep.csv")),
                plot: Some(PathBuf::from("sweep.svg")),
            }
        );
    }

    #[test]
    fn zero_sizes_and_counts_are_rejected_in_one_line() {
        for args in [
            &["--width", "0"][..],
            &["--height", "0"],
            &["--runs", "0"],
            &["--block-sizes", "0"],
            &["--block-sizes", "64,0,128"],
        ] {
            let message = usage_error(args);
            assert!(message.contains("is not in 1.."), "{args:?}: {message}");
            assert!(!message.contains('\n'), "{args:?}: {message}");
        }
    }

    #[test]
    fn malformed_values_are_rejected() {
        assert!(usage_error(&["--width", "wide"]).contains("invalid value 'wide' for '--width <PIXELS>'"));
        assert!(usage_error(&["--block-sizes", "64,,128"]).contains("--block-sizes"));
        assert!(usage_error(&["--runs=-3"]).contains("--runs"));
        assert!(usage_error(&["--frobnicate"]).contains("unexpected argument '--frobnicate'"));
    }

    #[test]
    fn device_is_an_ordinal_or_all() {
        assert_eq!(parse_ok(&["--device", "all"]).device, DeviceChoice::All);
        assert_eq!(parse_ok(&["--device", "ALL"]).device, DeviceChoice::All);
        assert_eq!(parse_ok(&["--device", "3"]).device, DeviceChoice::One(3));
        assert!(usage_error(&["--device", "gpu0"]).contains("a device ordinal (0, 1, ...) or `all`"));
        assert!(usage_error(&["--device=-1"]).contains("--device"));
    }

    #[test]
    fn corrupt_pixel_must_be_inside_the_frame() {
        assert_eq!(
            usage_error(&["--width", "7", "--height", "13", "--corrupt-pixel", "91"]),
            "--corrupt-pixel 91 is outside the 91-pixel frame"
        );
    }

    #[test]
    fn an_export_into_a_missing_folder_is_rejected_before_any_gpu_work() {
        assert_eq!(
            usage_error(&["--format", "json", "--output", "/no/such/folder/sweep.json"]),
            "cannot write /no/such/folder/sweep.json: its folder does not exist"
        );
    }

    #[test]
    fn formats_are_named_and_others_rejected() {
        assert_eq!(parse_ok(&["--format", "markdown"]).format, Some(Format::Markdown));
        assert_eq!(parse_ok(&["--format", "table"]).format, None);
        assert!(usage_error(&["--format", "xml"]).contains("invalid value 'xml' for '--format <FORMAT>'"));
    }

    #[test]
    fn duplicate_block_sizes_are_rejected() {
        assert_eq!(
            usage_error(&["--block-sizes", "64,128,64"]),
            "block size 64 is listed twice in --block-sizes"
        );
    }

    #[test]
    fn help_is_information_not_an_error() {
        assert!(matches!(parse(["block-size", "--help"]), Err(CliError::Info(_))));
        assert!(matches!(parse(["block-size", "occupancy", "--help"]), Err(CliError::Info(_))));
        assert!(matches!(parse(["block-size", "--version"]), Err(CliError::Info(_))));
    }

    #[test]
    fn block_sizes_above_the_device_limit_are_rejected() {
        let limits = MockGpu::h200_like().limits;
        let fine = parse_ok(&["--block-sizes", "1,1024"]);
        assert_eq!(check_block_sizes(&fine.block_sizes, &limits), Ok(()));
        let too_big = parse_ok(&["--block-sizes", "256,1025"]);
        assert_eq!(
            check_block_sizes(&too_big.block_sizes, &limits).unwrap_err(),
            "block size 1025 is above Mock H200's limit of 1024 threads per block"
        );
    }

    #[test]
    fn frame_must_fit_in_free_memory() {
        let footprint = grayscale_footprint(3840, 2160);
        assert_eq!(check_frame_fits(3840, 2160, &footprint, 0, 132_710_400), Ok(()));
        assert_eq!(
            check_frame_fits(3840, 2160, &footprint, 0, 132_710_399).unwrap_err(),
            "a 3840 x 2160 frame needs 126.6 MiB of device memory for its four planes (and any L2 flush buffer), \
             but only 126.6 MiB is free"
        );
        assert!(check_frame_fits(3840, 2160, &footprint, 1, 132_710_400).is_err(), "the flush buffer counts");
    }

    #[test]
    fn a_frame_whose_byte_count_overflows_is_too_large_not_empty() {
        // 2^30 x 2^30 pixels x 16 bytes = 2^64 bytes, which wrapped to 0 and fitted anywhere.
        let message = "a 1073741824 x 1073741824 frame needs more than 16 EiB of device memory for its four planes; \
                       no device has that";
        let fits = |width, height, scratch| {
            check_frame_fits(width, height, &grayscale_footprint(width, height), scratch, u64::MAX)
        };
        assert_eq!(fits(1 << 30, 1 << 30, 0).unwrap_err(), message);
        assert!(fits(u32::MAX, u32::MAX, 0).unwrap_err().contains("more than 16 EiB"));
        // Just below the overflow, the flush buffer's bytes are added with a check too.
        assert!(fits(1 << 30, (1 << 30) - 1, u64::MAX).is_err());
        let footprint = grayscale_footprint(u32::MAX, u32::MAX);
        assert!(
            check_host_memory(u32::MAX, u32::MAX, &footprint, None)
                .unwrap_err()
                .contains("16 EiB of host memory")
        );
    }

    #[test]
    fn the_frame_must_fit_in_available_host_memory() {
        // 4K: 20 bytes a pixel, 158.2 MiB.
        let footprint = grayscale_footprint(3840, 2160);
        assert_eq!(check_host_memory(3840, 2160, &footprint, Some(165_888_000)), Ok(()));
        assert_eq!(
            check_host_memory(3840, 2160, &footprint, None),
            Ok(()),
            "unknown: the allocations decide"
        );
        assert_eq!(
            check_host_memory(3840, 2160, &footprint, Some(100 << 20)).unwrap_err(),
            "a 3840 x 2160 frame needs 158.2 MiB of host memory (three input planes, the CPU reference and the \
             output read back), but only 100.0 MiB is available"
        );
    }

    #[test]
    fn kernel_and_bins_are_read_by_the_sweep_compare_and_tail() {
        let options = parse_ok(&["--kernel", "histogram", "--bins", "4096"]);
        assert_eq!((options.kernel.name, options.bins), ("histogram", 4096));
        assert_eq!(parse_ok(&["--kernel", "histogram"]).bins, histogram::DEFAULT_BINS);
        match parse(["block-size", "compare", "--kernel", "histogram", "--bins", "1"]) {
            Ok(Request::Compare(options)) => {
                assert_eq!((options.kernel.name, options.bins), ("histogram", 1))
            }
            other => panic!("{other:?}"),
        }
        match parse(["block-size", "tail", "--kernel", "histogram", "--bins", "300"]) {
            Ok(Request::Tail(options)) => assert_eq!((options.kernel.name, options.bins), ("histogram", 300)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bins_out_of_range_or_for_another_kernel_are_rejected() {
        for bins in ["0", "4097", "-1", "many"] {
            let message = usage_error(&["--kernel", "histogram", &format!("--bins={bins}")]);
            assert!(message.contains("--bins <N>"), "{bins}: {message}");
        }
        assert_eq!(
            usage_error(&["--bins", "512"]),
            "--bins does not apply to --kernel grayscale; it is an option of --kernel histogram"
        );
        assert!(usage_error(&["--kernel", "sobel"]).contains("invalid value 'sobel' for '--kernel <NAME>'"));
        assert!(
            usage_error(&["variants", "--kernel", "histogram"]).contains("unexpected argument '--kernel'")
        );
        assert!(usage_error(&["variants", "--bins", "16"]).contains("unexpected argument '--bins'"));
    }

    #[test]
    fn corrupt_pixel_of_the_histogram_is_a_bin() {
        assert_eq!(
            parse_ok(&["--kernel", "histogram", "--bins", "64", "--corrupt-pixel", "63"]).corrupt_pixel,
            Some(63)
        );
        assert_eq!(parse_ok(&["--kernel", "histogram", "--corrupt-output", "7"]).corrupt_pixel, Some(7));
        assert_eq!(
            usage_error(&["--kernel", "histogram", "--bins", "64", "--corrupt-pixel", "64"]),
            "--corrupt-pixel 64 is outside the 64-bin histogram"
        );
    }

    #[test]
    fn a_histogram_frame_past_32_bit_counts_is_rejected() {
        let message = usage_error(&["--kernel", "histogram", "--width", "65536", "--height", "65536"]);
        assert!(message.ends_with("the histogram's 32-bit bins count at most 4294967295"), "{message}");
        // Grayscale has no such limit.
        parse_ok(&["--width", "65536", "--height", "65536"]);
    }

    #[test]
    fn dynamic_shared_memory_above_48_kib_is_rejected() {
        assert_eq!(check_dynamic_shared_memory(&[64, 1024], |_| 16 * 1024), Ok(()));
        assert_eq!(check_dynamic_shared_memory(&[64], |_| 48 * 1024), Ok(()));
        assert_eq!(
            check_dynamic_shared_memory(&[64, 1024], |threads| threads * 64).unwrap_err(),
            "at 1024 threads per block the kernel needs 65536 B of dynamic shared memory per block, \
             above the 49152 B a block gets without opting in"
        );
    }
}
