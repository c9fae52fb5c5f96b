/*!
The sweep, `block-size`'s default command: for each block size of one kernel, the driver's
occupancy answer, one full wave, timed and checked ([`crate::sweep`]), then the table of
`block_size.cu` with its summary, or an export ([`crate::export`]), and a plot
([`crate::plot`]); on one GPU or, with `--device all`, on each in turn.

A device's run is four steps: open and validate ([`device::open_one`]), measure
(`measure`), decide what goes where ([`Plan`], from the options alone: which stream or file
the table or export goes to, and each file's name per GPU), and write ([`Delivery`], a pure
function of the results and the plan, then performed).
*/

use super::device::{self, Console, Facts, Job, Stop, exit, failed};
use super::{BlockSizesArgs, FrameArgs, Given, KernelArgs, ProvenanceArgs, TimingArgs, unique_block_sizes};
use crate::backend::{DeviceLimits, Driver, Gpu, Timing};
use crate::export::{self, Format};
use crate::frame_size::FrameSize;
use crate::grid::GridPolicy;
use crate::plot;
use crate::progress::{Phase, WithProgress};
use crate::report::{self, Summary};
use crate::sweep::{self, Sweep};
use crate::workload::{KernelSpec, Params, Pass, Workload};
use anyhow::anyhow;
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Alignment, Padding, Style};

/// Which GPUs a sweep runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The device of this ordinal.
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

// What `--format` takes. (No doc comments on the values: clap would print them as help.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Table,
    Markdown,
    Json,
    Csv,
}

impl FormatArg {
    /// The export, or `None` for the seed's table.
    fn export(self) -> Option<Format> {
        match self {
            Self::Table => None,
            Self::Markdown => Some(Format::Markdown),
            Self::Json => Some(Format::Json),
            Self::Csv => Some(Format::Csv),
        }
    }
}

// The sweep's options: `block-size`'s own, with no subcommand. Defaults are `block_size.cu`'s
// constants, so a bare run is the seed's run.
#[derive(Args, Debug, Clone, PartialEq)]
#[cfg_attr(doc, doc = "The sweep's options: `block-size`'s own, with no subcommand.")]
#[cfg_attr(not(doc), allow(missing_docs))]
pub struct SweepArgs {
    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--kernel` and `--bins`.")]
    pub kernel: KernelArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--width` and `--height`.")]
    pub frame: FrameArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--block-sizes`.")]
    pub block_sizes: BlockSizesArgs,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "The timing options.")]
    pub timing: TimingArgs,

    /// CUDA device ordinal, or `all` for one table per visible GPU
    #[arg(long, value_name = "INDEX|all", value_parser = parse_device_choice, default_value = "0")]
    pub device: DeviceChoice,

    /// Self-test: overwrite output element INDEX on the device after every row's launches
    /// (grayscale: a pixel, with -1; histogram: a bin, with 4294967295), so every row must fail
    /// its reference check at INDEX and the run must exit 1
    #[arg(long, id = "corrupt-pixel", value_name = "INDEX", visible_alias = "corrupt-output")]
    pub corrupt_pixel: Option<usize>,

    #[command(flatten)]
    #[cfg_attr(doc, doc = "`--provenance`.")]
    pub provenance: ProvenanceArgs,

    /// Add each row's min, max and median absolute deviation (ms) to the table
    #[arg(long)]
    pub stats: bool,

    /// table (the seed's), markdown (for a README), json (provenance and every run), csv (a row
    /// per block size)
    #[arg(long, value_name = "FORMAT", value_enum, default_value = "table")]
    format: FormatArg,

    /// Write the output to FILE instead of standard output
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Plot GB/s (median, min-max whiskers) and occupancy against block size as SVG
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Blocks each row launches: one-wave (the seed's: blk/SM x SMs), per-item (one thread per
    /// item: ceil(pixels / threads)) or waves:K (K full waves); never more than one thread per item
    #[arg(long, value_name = "POLICY", value_parser = crate::grid::parse, default_value = "one-wave")]
    pub grid: GridPolicy,
}

/// A validated sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// One GPU, or every visible one.
    pub device: DeviceChoice,
    /// The kernel swept (`--kernel`).
    pub kernel: &'static KernelSpec,
    /// Histogram bins (`--bins`).
    pub bins: u32,
    /// The frame the kernel converts.
    pub frame: FrameSize,
    /// Threads per block of each row.
    pub block_sizes: Vec<u32>,
    /// How each row is timed: `--timing`, its counts and the L2 flush.
    pub timing: Timing,
    /// Print the provenance lines (PTX hash, toolchain, driver, command, date) first.
    pub provenance: bool,
    /// Overwrite this output element (a pixel, a bin) after every row's launches (a self-test
    /// of the check).
    pub corrupt_pixel: Option<usize>,
    /// Add min, max and MAD columns to the table.
    pub stats: bool,
    /// The sweep's output: the seed's table (`None`), or an export format.
    pub format: Option<Format>,
    /// Write the output here instead of standard output.
    pub output: Option<PathBuf>,
    /// An SVG plot of the sweep to write.
    pub plot: Option<PathBuf>,
    /// How many blocks each row launches (`--grid`).
    pub grid: GridPolicy,
}

impl Options {
    /// What the workload is built from.
    pub fn params(&self) -> Params {
        super::params(self.frame, self.bins)
    }

    /// How each row is timed.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// What the sweep engine measures ([`sweep::measure`], which [`crate::user::run`] uses too).
    pub fn settings(&self) -> sweep::Settings {
        sweep::Settings {
            block_sizes: self.block_sizes.clone(),
            timing: self.timing(),
            grid: self.grid,
            corrupt: self.corrupt_pixel,
        }
    }
}

impl SweepArgs {
    /// The options, once every check that needs no device holds; the message is one line.
    pub fn validate(&self, given: Given) -> Result<Options, String> {
        let block_sizes = unique_block_sizes(&self.block_sizes.block_sizes)?;
        let (kernel, bins) = self.kernel.choice(given)?;
        let options = Options {
            device: self.device,
            kernel,
            bins,
            frame: self.frame.size(),
            block_sizes,
            timing: self.timing.timing(given)?,
            provenance: self.provenance.provenance,
            corrupt_pixel: self.corrupt_pixel,
            stats: self.stats,
            format: self.format.export(),
            output: self.output.clone(),
            plot: self.plot.clone(),
            grid: self.grid,
        };
        super::output_folders_exist(options.output.iter().chain(&options.plot))?;
        (kernel.validate)(&options.params())?;
        let (outputs, whole) = (kernel.outputs)(&options.params());
        if let Some(index) = options.corrupt_pixel
            && index as u64 >= outputs
        {
            return Err(format!("--corrupt-pixel {index} is outside the {whole}"));
        }
        Ok(options)
    }
}

/// The sweep on one device, or on every device with `--device all`; `Ok` carries the exit
/// status of a run that reached its tables.
pub fn exec<D: Driver>(
    driver: &D,
    options: &Options,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let count = match options.device {
        DeviceChoice::One(ordinal) => {
            let result = sweep_device(driver, ordinal, options, args, None, console)?;
            return Ok(status(&result));
        }
        DeviceChoice::All => {
            driver.device_count().map_err(|error| Stop::new(exit::NO_DEVICE, format!("{error:#}")))?
        }
    };
    // Every device gets its table or its one error line; the status is the worst of them.
    let several = count > 1;
    let mut code = exit::SUCCESS;
    let mut summaries = String::new();
    for ordinal in 0..count {
        if ordinal > 0 {
            console.out("\n");
        }
        match sweep_device(driver, ordinal, options, args, several.then_some(ordinal), console) {
            Ok(result) => {
                code = code.max(status(&result));
                summaries += &device_summary(&result);
            }
            Err(stop) => {
                console.err(&format!("Error: GPU {ordinal}: {}\n", stop.message));
                summaries += &format!("GPU {ordinal}: not measured (exit {}): {}\n", stop.code, stop.message);
                code = code.max(stop.code);
            }
        }
    }
    console.out(&format!("\n{summaries}"));
    Ok(code)
}

/// Exit 0 where every check held, 1 where one failed.
fn status(result: &Sweep) -> i32 {
    if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED }
}

/// One device's sweep: open and validate, measure, then write what the plan says where it
/// says. With `name_for` (several devices), files get the device's ordinal in their name.
fn sweep_device<D: Driver>(
    driver: &D,
    ordinal: u32,
    options: &Options,
    args: &[OsString],
    name_for: Option<u32>,
    console: &mut Console,
) -> Result<Sweep, Stop> {
    let spec = options.kernel;
    let kernel = spec.rust_kernel();
    let job = Job { spec, params: options.params(), block_sizes: &options.block_sizes };
    let mut gpu =
        device::open_one(driver, ordinal, kernel, job, device::flush_scratch(options.timing.flushes()))?;
    let facts = Facts::gather(&mut gpu, driver.cuda_version(), &[kernel], args).map_err(failed)?;
    let plan = Plan::new(options, name_for);
    let head = head(gpu.limits(), options, &facts);
    // The workload before the header: a host that cannot hold it is bad input, with nothing
    // on standard output.
    let building = Phase::start("building the frame and its CPU reference on every core");
    let workload = device::create_workload(spec, &job.params);
    building.finish();
    let mut workload = workload?;
    if plan.streams {
        console.out(&head);
    }
    let result = measure(&mut gpu, workload.as_mut(), options)?;
    plan.deliver(&result, &head, || facts.provenance(&result.limits)).map_err(failed)?.perform(console)?;
    Ok(result)
}

/// The lines before the table: the provenance (where asked), the device, the image, the timing.
fn head(limits: &DeviceLimits, options: &Options, facts: &Facts) -> String {
    let mut text = if options.provenance { facts.lines(limits) } else { String::new() };
    text += &header(limits, &(options.kernel.pass)(&options.params()), options.timing());
    text += &options.grid.header_line();
    text
}

/// Uploads the workload and sweeps it, with a progress bar on a long sweep.
fn measure(gpu: &mut dyn Gpu, workload: &mut dyn Workload, options: &Options) -> Result<Sweep, Stop> {
    let uploading = Phase::start("uploading the frame");
    let uploaded = workload.upload(gpu);
    uploading.finish();
    uploaded.map_err(failed)?;
    let mut with_progress = WithProgress::new(gpu, options.block_sizes.len());
    let result = sweep::measure(&mut with_progress, workload, &options.settings());
    with_progress.finish();
    result.map_err(failed)
}

/// Where one device's sweep goes, from the options alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The table streams to standard output: its header is on the terminal while the sweep runs.
    pub streams: bool,
    /// The export, or `None` for the table.
    pub format: Option<Format>,
    /// Add the min, max and MAD columns to the table.
    pub stats: bool,
    /// The file the table or export goes to (`--output`, named for the device); standard
    /// output where `None`.
    pub output: Option<PathBuf>,
    /// The SVG plot's file (`--plot`, named for the device).
    pub plot: Option<PathBuf>,
}

impl Plan {
    /// The plan for `options`; with `name_for`, every file named for that device.
    pub fn new(options: &Options, name_for: Option<u32>) -> Self {
        let name = |path: &PathBuf| match name_for {
            Some(ordinal) => per_device(path, ordinal),
            None => path.clone(),
        };
        Self {
            streams: options.format.is_none() && options.output.is_none(),
            format: options.format,
            stats: options.stats,
            output: options.output.as_ref().map(name),
            plot: options.plot.as_ref().map(name),
        }
    }

    /// What to write where, in order, for `result`, whose `head` (provenance and header
    /// lines) went out first where the plan streams. `Err` where an export or the plot cannot
    /// be rendered.
    pub fn deliver(
        &self,
        result: &Sweep,
        head: &str,
        provenance: impl FnOnce() -> crate::provenance::Provenance,
    ) -> anyhow::Result<Delivery> {
        let body = body(result, self.stats);
        let document = match self.format {
            None => format!("{head}{body}"),
            Some(format) => export::render(result, provenance(), format)?,
        };
        let mut effects = Vec::new();
        match &self.output {
            Some(path) => effects.push(Effect::File(path.clone(), document)),
            None if self.streams => effects.push(Effect::Stdout(body)),
            None => effects.push(Effect::Stdout(document)),
        }
        effects.push(Effect::Stderr(stderr(result)));
        if let Some(path) = &self.plot {
            effects.push(Effect::File(path.clone(), plot::svg(result)?));
        }
        effects.retain(
            |effect| !matches!(effect, Effect::Stdout(text) | Effect::Stderr(text) if text.is_empty()),
        );
        Ok(Delivery(effects))
    }
}

/// One thing a sweep writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Text for standard output.
    Stdout(String),
    /// Text for standard error.
    Stderr(String),
    /// A file and its text.
    File(PathBuf, String),
}

/// What one device's sweep writes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery(pub Vec<Effect>);

impl Delivery {
    /// Writes each in turn; a file that cannot be written stops the run (exit 1) there.
    pub fn perform(self, console: &mut Console) -> Result<(), Stop> {
        for effect in self.0 {
            match effect {
                Effect::Stdout(text) => console.out(&text),
                Effect::Stderr(text) => console.err(&text),
                Effect::File(path, text) => std::fs::write(&path, text)
                    .map_err(|error| failed(anyhow!("writing {}: {error}", path.display())))?,
            }
        }
        Ok(())
    }
}

/// `sweep.json` for device 1 becomes `sweep-gpu1.json`.
pub fn per_device(path: &Path, ordinal: u32) -> PathBuf {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(extension) => format!("{stem}-gpu{ordinal}.{}", extension.to_string_lossy()),
        None => format!("{stem}-gpu{ordinal}"),
    };
    path.with_file_name(name)
}

/// Column headings and the width `block_size.cu` prints each one in, so that the two
/// programs' tables line up character for character.
const COLUMNS: [(&str, usize); 10] = [
    ("thr/blk", 8),
    ("warps", 6),
    ("idle", 5),
    ("blk/SM", 7),
    ("warps/SM", 9),
    ("occ", 6),
    ("grid", 7),
    ("ms", 9),
    ("GB/s", 8),
    ("of best", 8),
];

/// The last column, after the seed's ten (and `--stats`' three): which resources bind
/// blocks/SM at this size, by the occupancy model.
const LIMITER_COLUMN: (&str, usize) = ("limiter", 14);

/// Samples each row took, before the limiter, where the noise-driven stop made them differ.
const RUNS_COLUMN: (&str, usize) = ("runs", 6);

/// The lines printed before the sweep starts.
pub fn header(limits: &DeviceLimits, pass: &Pass, timing: Timing) -> String {
    report::device_and_image(limits, pass) + &report::timing_line(timing)
}

/// Extra columns `--stats` adds after the seed's ten, with their widths.
const STATS_COLUMNS: [(&str, usize); 3] = [("min ms", 9), ("max ms", 9), ("MAD ms", 9)];

/// The seed's ten columns, one row per block size; with `stats`, three more columns; where
/// rows took different numbers of samples, how many each took; last, the binding limit.
pub fn table(sweep: &Sweep, stats: bool) -> String {
    let runs = sweep.samples_vary();
    let mut columns: Vec<(&str, usize)> = COLUMNS
        .iter()
        .chain(if stats { &STATS_COLUMNS[..] } else { &[] })
        .chain(if runs { &[RUNS_COLUMN][..] } else { &[] })
        .chain([&LIMITER_COLUMN])
        .copied()
        .collect();
    let mut records = vec![columns.iter().map(|(name, _)| name.to_string()).collect::<Vec<_>>()];
    for row in &sweep.rows {
        let mut record = vec![
            row.threads_per_block.to_string(),
            row.warps_per_block.to_string(),
            row.idle_lanes.to_string(),
            row.blocks_per_sm.to_string(),
            row.resident_warps.to_string(),
            format!("{:.0}%", sweep.occupancy_percent(row)),
            row.grid_blocks.to_string(),
            format!("{:.3}", row.stats.median),
            format!("{:.1}", sweep.gigabytes_per_second(row)),
            format!(
                "{:.2}{}",
                sweep.fraction_of_best(row),
                if sweep.within_noise_of_best(row) { "*" } else { "" }
            ),
        ];
        if stats {
            record.extend([row.stats.min, row.stats.max, row.stats.mad].map(|ms| format!("{ms:.4}")));
        }
        if runs {
            record.push(row.run_ms.len().to_string());
        }
        record.push(report::limiter_cell(&row.limiters));
        records.push(record);
    }
    // A tunable beyond the block size (a sweep of your own kernel): its value comes first.
    if let Some(name) = &sweep.tunable {
        columns.insert(0, (name.as_str(), name.len() + 2));
        records[0].insert(0, name.clone());
        for (record, row) in records[1..].iter_mut().zip(&sweep.rows) {
            record.insert(0, row.tunable.clone().unwrap_or_default());
        }
    }
    let mut table = Builder::from_iter(records.iter().cloned()).build();
    table.with(Style::blank()).with(Padding::zero()).with(Alignment::right());
    // Widen each column to block_size.cu's printf width with left padding, so the cells
    // stay right-aligned; a wider value simply widens its column, as printf would.
    for (index, (_, width)) in columns.iter().enumerate() {
        let natural = records.iter().map(|record| record[index].chars().count()).max().unwrap_or(0);
        table.modify(Columns::one(index), Padding::new(width.saturating_sub(natural), 0, 0, 0));
    }
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// What follows the header once the sweep is done: a blank line, the table, a blank line,
/// the summary.
pub fn body(sweep: &Sweep, stats: bool) -> String {
    format!("\n{}\n{}", table(sweep, stats), Summary::of(sweep).lines())
}

/// Everything for standard error: one line per failed check, then the verdict. Empty when
/// every check held.
pub fn stderr(sweep: &Sweep) -> String {
    report::failure_lines(&sweep.failures, "the table above is not a measurement of this kernel")
}

/// One line for `--device all`'s closing summary.
pub fn device_summary(sweep: &Sweep) -> String {
    let verdict = if sweep.failures.is_empty() {
        "every check held".to_string()
    } else {
        format!("{} check(s) failed", sweep.failures.len())
    };
    match sweep.best() {
        Some(best) => format!(
            "GPU {} ({}): fastest {} threads per block at {:.3} ms ({:.1} GB/s); {} of {} rows within 95 percent; {verdict}.\n",
            sweep.limits.ordinal,
            sweep.limits.name,
            best.threads_per_block,
            best.stats.median,
            sweep.gigabytes_per_second(best),
            sweep.rows_near_best(),
            sweep.rows.len()
        ),
        None => format!("GPU {} ({}): no rows; {verdict}.\n", sweep.limits.ordinal, sweep.limits.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::testing::parse;
    use crate::cmd::{DEFAULT_HEIGHT, DEFAULT_MIN_RUNS, DEFAULT_WARMUPS, DEFAULT_WIDTH};
    use crate::mock::MockGpu;
    use crate::sweep::DEFAULT_BLOCK_SIZES;
    use crate::timing::{NoiseStop, TimingMode};
    use crate::workload::{grayscale, histogram};

    fn options(args: &[&str]) -> Result<Options, String> {
        let (parsed, matches) = parse::<SweepArgs>(args)?;
        parsed.validate(Given(Some(&matches)))
    }

    fn parse_ok(args: &[&str]) -> Options {
        options(args).unwrap_or_else(|error| panic!("{args:?} should parse as a sweep: {error}"))
    }

    fn usage_error(args: &[&str]) -> String {
        options(args).expect_err("a usage error")
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
                frame: FrameSize::new(DEFAULT_WIDTH, DEFAULT_HEIGHT),
                block_sizes: DEFAULT_BLOCK_SIZES.to_vec(),
                timing: Timing::fixed(TimingMode::Batch, DEFAULT_WARMUPS, DEFAULT_MIN_RUNS)
                    .until(NoiseStop::DEFAULT),
                provenance: false,
                corrupt_pixel: None,
                stats: false,
                format: None,
                output: None,
                plot: None,
                grid: GridPolicy::OneWave,
            }
        );
        assert_eq!(options.frame.pixels(), 8_294_400);
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
                frame: FrameSize::new(7, 13),
                block_sizes: vec![256, 32],
                timing: Timing { flush_l2: true, ..Timing::fixed(TimingMode::Batch, 0, 2) },
                provenance: true,
                corrupt_pixel: Some(90),
                stats: true,
                format: Some(Format::Csv),
                output: Some(PathBuf::from("sweep.csv")),
                plot: Some(PathBuf::from("sweep.svg")),
                grid: GridPolicy::OneWave,
            }
        );
        assert_eq!(options.timing().stop, None, "--runs is a fixed count");
    }

    #[test]
    fn timing_takes_a_mode_and_a_fixed_count_or_the_noise_driven_stop() {
        let timing = |args: &[&str]| parse_ok(args).timing;
        // The default: batch of 10, at least 10 samples, until half a percent or half a second.
        let default = timing(&[]);
        assert_eq!((default.mode, default.launches(), default.runs), (TimingMode::Batch, 10, 10));
        assert_eq!(default.stop, Some(NoiseStop::DEFAULT));
        assert_eq!(timing(&["--timing", "launch"]).mode, TimingMode::Launch);
        let cold = timing(&["--timing", "cold", "--runs", "7"]);
        assert_eq!((cold.mode, cold.runs, cold.stop, cold.flushes()), (TimingMode::Cold, 7, None, true));
        assert!(!timing(&["--timing", "cold", "--no-flush-l2"]).flushes(), "cold without its flush");
        assert_eq!(timing(&["--launches-per-sample", "4"]).launches(), 4);
        let adaptive = timing(&[
            "--min-runs",
            "20",
            "--max-noise",
            "0.01",
            "--max-time-per-row",
            "250ms",
            "--warmups",
            "1",
        ]);
        assert_eq!((adaptive.runs, adaptive.warmups), (20, 1));
        assert_eq!(
            adaptive.stop,
            Some(NoiseStop {
                max_noise: 0.01,
                max_time_per_row: std::time::Duration::from_millis(250),
                max_runs: 10_000
            })
        );
        assert_eq!(timing(&["--max-time-per-row", "2"]).stop.unwrap().max_time_per_row.as_secs(), 2);
        assert_eq!(
            timing(&["--min-runs", "20000"]).stop.unwrap().max_runs,
            20_000,
            "the cap is never below the minimum"
        );
    }

    #[test]
    fn a_fixed_count_and_the_stop_s_limits_do_not_mix() {
        for limit in [&["--min-runs", "5"][..], &["--max-noise", "0.01"], &["--max-time-per-row", "1"]] {
            let message = usage_error(&[&["--runs", "5"][..], limit].concat());
            assert!(message.contains("cannot be used with"), "{limit:?}: {message}");
        }
        assert_eq!(
            usage_error(&["--timing", "cold", "--launches-per-sample", "4"]),
            "--launches-per-sample applies to --timing batch, not --timing cold"
        );
        assert_eq!(
            usage_error(&["--no-flush-l2"]),
            "--no-flush-l2 applies to --timing cold, not --timing batch"
        );
        assert!(usage_error(&["--max-noise", "2"]).contains("a fraction from 0 to 1"));
        assert!(usage_error(&["--max-time-per-row", "soon"]).contains("500ms"));
        assert!(usage_error(&["--timing", "warm"]).contains("invalid value 'warm' for '--timing <MODE>'"));
        assert!(usage_error(&["--launches-per-sample", "0"]).contains("is not in 1.."));
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
        assert_eq!(
            usage_error(&["--plot", "/no/such/folder/sweep.svg"]),
            "cannot write /no/such/folder/sweep.svg: its folder does not exist"
        );
    }

    #[test]
    fn formats_are_named_and_others_rejected() {
        assert_eq!(parse_ok(&["--format", "markdown"]).format, Some(Format::Markdown));
        assert_eq!(parse_ok(&["--format", "json"]).format, Some(Format::Json));
        assert_eq!(parse_ok(&["--format", "table"]).format, None);
        assert!(usage_error(&["--format", "xml"]).contains("invalid value 'xml' for '--format <FORMAT>'"));
        assert!(usage_error(&["--format", "JSON"]).contains("invalid value 'JSON'"), "case matters");
    }

    #[test]
    fn duplicate_block_sizes_are_rejected() {
        assert_eq!(
            usage_error(&["--block-sizes", "64,128,64"]),
            "block size 64 is listed twice in --block-sizes"
        );
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
    fn per_device_names_keep_folder_and_extension() {
        assert_eq!(per_device(Path::new("out/sweep.json"), 1), PathBuf::from("out/sweep-gpu1.json"));
        assert_eq!(per_device(Path::new("plot"), 0), PathBuf::from("plot-gpu0"));
    }

    /// A small sweep on the mock, with one failed check where `corrupt`.
    fn measured(corrupt: Option<usize>) -> Sweep {
        let mut gpu = MockGpu::h200_with(&[grayscale::KERNEL.rust_kernel()]);
        gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
        let options =
            parse_ok(&["--width", "16", "--height", "16", "--block-sizes", "64,128", "--runs", "2"]);
        let mut workload = (grayscale::KERNEL.create)(&options.params()).unwrap();
        workload.upload(&mut gpu).unwrap();
        sweep::run(&mut gpu, workload.as_mut(), &options.block_sizes, options.timing(), corrupt).unwrap()
    }

    fn provenance() -> crate::provenance::Provenance {
        let environment = crate::provenance::Environment {
            driver_release: None,
            driver_api_version: 13000,
            modules: Vec::new(),
        };
        let limits = MockGpu::h200_like().limits;
        crate::provenance::Provenance::new(&limits, &environment, "block-size", "2026-11-30T12:00:00Z")
    }

    #[test]
    fn the_table_streams_its_header_first_and_its_body_after() {
        let plan = Plan::new(&parse_ok(&["--stats"]), None);
        assert!(plan.streams);
        let result = measured(None);
        let delivery = plan.deliver(&result, "HEAD\n", provenance).unwrap();
        assert_eq!(delivery, Delivery(vec![Effect::Stdout(body(&result, true))]), "the head went out before");
    }

    #[test]
    fn an_export_to_standard_output_is_the_document_alone() {
        let plan = Plan::new(&parse_ok(&["--format", "json"]), None);
        assert!(!plan.streams);
        let Delivery(effects) = plan.deliver(&measured(None), "HEAD\n", provenance).unwrap();
        let [Effect::Stdout(json)] = effects.as_slice() else { panic!("{effects:?}") };
        let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(parsed["rows"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn an_output_file_takes_the_whole_document_and_failures_stay_on_stderr() {
        let plan = Plan::new(&parse_ok(&["--output", "table.txt", "--plot", "sweep.svg"]), None);
        assert!(!plan.streams);
        let result = measured(Some(3));
        let Delivery(effects) = plan.deliver(&result, "HEAD\n", provenance).unwrap();
        let [Effect::File(table, document), Effect::Stderr(failures), Effect::File(svg, plot)] =
            effects.as_slice()
        else {
            panic!("{effects:?}")
        };
        assert_eq!((table.as_path(), svg.as_path()), (Path::new("table.txt"), Path::new("sweep.svg")));
        assert_eq!(*document, format!("HEAD\n{}", body(&result, false)));
        assert_eq!(*failures, stderr(&result));
        assert!(failures.contains("2 check(s) failed"), "{failures}");
        assert!(plot.starts_with("<svg"));
    }

    #[test]
    fn with_several_devices_every_file_is_named_for_its_device() {
        let options = parse_ok(&["--format", "csv", "--output", "src/sweep.csv", "--plot", "sweep.svg"]);
        let plan = Plan::new(&options, Some(1));
        assert_eq!(plan.output, Some(PathBuf::from("src/sweep-gpu1.csv")));
        assert_eq!(plan.plot, Some(PathBuf::from("sweep-gpu1.svg")));
        assert_eq!(Plan::new(&options, None).output, Some(PathBuf::from("src/sweep.csv")));
    }
}
