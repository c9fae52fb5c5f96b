/*!
The sweep, `block-size`'s default command and the run of a kernel of your own: for each block
size, the driver's occupancy answer, one full wave (or the grid policy's), timed and checked
(`search::sweep`), then the table of `block_size.cu` with its summary, or an export, and a plot;
on one GPU or, with `--device all`, on each in turn.

A device's run is the same for every [`Kernel`]: open and load its kernels, check the request
against the device, build its host data, gather the provenance, measure, then decide what goes
where (`Outputs`, from the settings alone) and write it (`Delivery`).
*/

use crate::commands::counters;
use crate::commands::options::SweepArgs;
use crate::commands::session;
use crate::commands::settings::{DeviceChoice, Settings};
use crate::error::{Console, Error, exit, failed, shown};
use crate::files;
use crate::kernel::Kernel;
use crate::kernel::run::Run;
use crate::measure::gpu::backend::{Driver, EarlyOpen, Gpu};
use crate::measure::gpu::device::Facts;
use crate::measure::gpu::ptx::KernelRef;
use crate::measure::record::journal::{Durability, Journal, Key};
use crate::measure::record::provenance::Provenance;
use crate::measure::sampling::timing::Timing;
use crate::measure::sampling::wall_time::{Timed, WallTime};
use crate::measure::supervision::supervise::Supervision;
use crate::model::limits::DeviceLimits;
use crate::model::pass::Pass;
use crate::model::shard::ShardOf;
use crate::results::export::{self, Format};
use crate::results::plot;
use crate::results::table;
use crate::search::strategy;
use crate::search::sweep::EndedEarly;
use crate::search::sweep::{self, Sweep};
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// How each device's sweep of one run is measured: the settings, their timing as checked, and
/// what a supervisor told this process (read once where the sweep starts).
#[derive(Clone, Copy)]
pub(crate) struct Measuring<'a> {
    pub settings: &'a Settings,
    pub timing: Timing,
    pub supervision: &'a Supervision,
}

/// `--corrupt-output INDEX` must name an output element.
pub(crate) fn check_corrupt_output(index: Option<usize>, outputs: u64, whole: &str) -> Result<(), Error> {
    match index {
        Some(index) if index as u64 >= outputs => {
            Err(Error::new(exit::USAGE, format!("--corrupt-output {index} is outside the {whole}")))
        }
        _ => Ok(()),
    }
}

/// Sweeps `kernel` on `driver`'s device (`--device`) with the sweep's `options` and returns
/// what it measured; failed checks are in its sweep's failures ([`Measured::exit_status`] 1).
/// An [`Error`] is a run that did not reach its table: bad options or a kernel description that
/// does not hold (exit 2, before the device is touched), no device (3), the driver failing
/// mid-run (1). With `--device all`, use [`sweep_and_print`].
///
/// ```no_run
/// # fn kernel() -> block_size_runner::Kernel { unimplemented!() }
/// use block_size_runner::{CudaDriver, SweepArgs};
///
/// let options = SweepArgs::from_args(["--block-sizes", "128,256,512", "--grid", "per-item"])?;
/// let measured = block_size_runner::sweep(&CudaDriver, &kernel(), &options)?;
/// print!("{}", measured.table(false));
/// # Ok::<(), block_size_runner::Error>(())
/// ```
pub fn sweep<D: Driver>(driver: &D, kernel: &Kernel, options: &SweepArgs) -> Result<Measured, Error> {
    sweep_with(driver, kernel, &options.settings())
}

/// [`sweep`] with its settings already made.
pub(crate) fn sweep_with<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    settings: &Settings,
) -> Result<Measured, Error> {
    let DeviceChoice::One(ordinal) = settings.device else {
        return Err(Error::new(
            exit::USAGE,
            "sweep() measures one device; for every device use sweep_and_print()",
        ));
    };
    if settings.counters {
        // The counters' replay runs this program again, which must then launch the sweep
        // and print nothing: sweep_and_print does.
        return Err(Error::new(
            exit::USAGE,
            "--counters needs sweep_and_print(): it reads them on a replay of this program under Nsight Compute",
        ));
    }
    let (mut run, timing) = prepare::prepare(kernel, settings)?;
    let supervision = Supervision::from_env();
    measure(driver, ordinal, &mut run, Measuring { settings, timing, supervision: &supervision }, &mut |_| {})
}

/// [`sweep`], printed as `block-size` prints a sweep: the head while the sweep runs, then the
/// table and summary (or the export of `--format`, to `--output` where given), the plot where
/// asked, failed checks on standard error; with `--device all`, every device and a summary
/// line each. Returns the exit status ([`crate::exit`]); an error is printed as one `Error: `
/// line on standard error.
///
/// It measures in this process. To run it in a supervised worker process instead, so that a
/// kernel that poisons the GPU context or hangs costs a worker and not the sweep, start the
/// program that calls it through [`crate::launch`].
pub fn sweep_and_print<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    options: &SweepArgs,
    console: &mut Console,
) -> i32 {
    sweep_and_print_with(driver, kernel, &options.settings(), console)
}

/// [`sweep_and_print`] with its settings already made.
pub(crate) fn sweep_and_print_with<D: Driver>(
    driver: &D,
    kernel: &Kernel,
    settings: &Settings,
    console: &mut Console,
) -> i32 {
    // What a supervisor told this process (crate::launch's worker), read here, once.
    let supervision = Supervision::from_env();
    let run = |console: &mut Console| {
        let (mut run, timing) = prepare::prepare(kernel, settings)?;
        on_devices(driver, &mut run, Measuring { settings, timing, supervision: &supervision }, console)
    };
    run(console).unwrap_or_else(|error| console.print_error(&error))
}

/// Starts opening the device a sweep with `options` measures on, on a thread of its own, so
/// that the driver's start (about 0.2 s on an H200: cuInit, then the device's primary context)
/// overlaps what the caller does before the sweep, such as building its inputs and their CPU
/// reference. Keep the value until the sweep has run and drop it before the process exits:
///
/// ```no_run
/// # fn inputs() -> block_size_runner::Kernel { unimplemented!() }
/// let (driver, options) = (block_size_runner::CudaDriver, block_size_runner::SweepArgs::default());
/// let status = block_size_runner::with_stdio(|console| {
///     let _device = block_size_runner::open_early(&driver, &options);
///     let kernel = inputs(); // meanwhile the driver starts
///     block_size_runner::sweep_and_print(&driver, &kernel, &options, console)
/// });
/// std::process::exit(status);
/// ```
///
/// It opens nothing with `--device all` outside a worker (the devices open in turn, or each in
/// a worker of its own), nor on a driver with nothing worth overlapping (the tests' mock); what
/// fails early is left to the sweep's own open to report.
pub fn open_early<D: Driver>(driver: &D, options: &SweepArgs) -> EarlyOpen {
    match early_ordinal(&options.settings(), &Supervision::from_env()) {
        Some(ordinal) => driver.open_early(ordinal),
        None => EarlyOpen::default(),
    }
}

/// The device a sweep with `settings` opens in this process, if it opens one alone: a worker's
/// part, else `--device N`.
fn early_ordinal(settings: &Settings, supervision: &Supervision) -> Option<u32> {
    if let Some(part) = &supervision.part {
        return Some(part.device);
    }
    match settings.device {
        DeviceChoice::One(ordinal) => Some(ordinal),
        DeviceChoice::All => None,
    }
}

/// A finished sweep on one device, with what rendering it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The rows, the checks, the summary's facts: what the table, exports and plot render.
    pub(crate) sweep: Sweep,
    /// What was measured with what, for the JSON export.
    pub(crate) provenance: Provenance,
    /// The lines before the table: the provenance lines where asked, the device, the work, the
    /// timing, and the grid where it is not one wave.
    pub(crate) head: String,
    /// Lines for standard error that are no refusal: a torn last line of a `--resume`
    /// journal dropped.
    pub(crate) warnings: Vec<String>,
}

impl Measured {
    /// The table as `block-size` prints it: its head, its rows (with `stats`, the min, max and
    /// MAD columns), its summary.
    pub fn table(&self, stats: bool) -> String {
        format!("{}{}", self.head, table::body(&self.sweep, stats))
    }

    /// The sweep as JSON, CSV or Markdown.
    pub fn export(&self, format: Format) -> Result<String, Error> {
        export::render(&self.sweep, self.provenance.clone(), format).map_err(failed)
    }

    /// The sweep as an SVG plot.
    pub fn plot(&self) -> Result<String, Error> {
        plot::svg(&self.sweep).map_err(failed)
    }

    /// One `check failed:` line per failed check and the verdict; empty where every check held.
    pub fn failures(&self) -> String {
        table::stderr(&self.sweep)
    }

    /// 0 where every check held, 1 where one failed; 130 or 143 where SIGINT or SIGTERM ended
    /// the sweep early.
    pub fn exit_status(&self) -> i32 {
        match self.sweep.ended_early {
            Some(EndedEarly::Interrupted(signal)) => signal.exit_status(),
            _ if self.sweep.failures.is_empty() => exit::SUCCESS,
            _ => exit::FAILED,
        }
    }
}

/// The sweep on `settings.device`, or on every device; each device's table (or export, plot)
/// written as the settings say; `Ok` carries the worst exit status of the devices.
pub(crate) fn on_devices<D: Driver>(
    driver: &D,
    run: &mut Run,
    measuring: Measuring,
    console: &mut Console,
) -> Result<i32, Error> {
    let Measuring { settings, supervision, .. } = measuring;
    if let Some(order) = &supervision.replay {
        return counters::replay(driver, run, settings, order);
    }
    if let Some(part) = &supervision.part {
        return parallel::as_part(driver, run, measuring, part, console);
    }
    if let Some(path) = settings.emit_rust.as_deref().filter(|_| !settings.force) {
        let kernel = run.kernel();
        crate::results::emit::check_same_sweep(path, &kernel.pass.kernel, &kernel.axis_names())
            .map_err(|why| Error::new(exit::USAGE, why))?;
    }
    let count = match settings.device {
        DeviceChoice::One(ordinal) => {
            let measured = on_device(driver, ordinal, run, measuring, None, console)?;
            return Ok(measured.exit_status());
        }
        DeviceChoice::All => {
            driver.device_count().map_err(|error| Error::new(exit::NO_DEVICE, format!("{error:#}")))?
        }
    };
    settings.check_outputs_on(count).map_err(|why| Error::new(exit::USAGE, why))?;
    let count = match settings.split {
        true => {
            parallel::check_one_model(driver, count)?;
            parallel::gpus_for_split(run, settings, count, console)?
        }
        false => count,
    };
    if supervision.active() {
        // A worker for each GPU at once, this process their supervisor (with one GPU too, so
        // that `--device all` takes one path wherever it runs).
        return parallel::on_every_device(settings, count, supervision.journal.as_deref(), console);
    }
    if settings.split {
        return parallel::split_here(driver, run, measuring, count, console);
    }
    // Every device gets its table or its one error line; the status is the worst of them.
    let several = count > 1;
    let mut code = exit::SUCCESS;
    let mut summaries = String::new();
    for ordinal in 0..count {
        if ordinal > 0 {
            console.out("\n");
        }
        match on_device(driver, ordinal, run, measuring, several.then_some(ordinal), console) {
            Ok(measured) => {
                code = code.max(measured.exit_status());
                summaries += &table::device_summary(&measured.sweep);
            }
            Err(error) => {
                console.err(&format!("Error: GPU {ordinal}: {error}\n"));
                summaries += &not_measured(ordinal, error.exit_status(), &error.to_string());
                code = code.max(error.exit_status());
            }
        }
    }
    console.out(&format!("\n{summaries}"));
    Ok(code)
}

/// `--device all`'s closing line for a device that has no table.
pub(crate) fn not_measured(ordinal: u32, status: i32, why: &str) -> String {
    format!("GPU {ordinal}: not measured (exit {status}): {why}\n")
}

/// One device's sweep, written where the plan says. With `name_for` (several devices), files
/// get the device's ordinal in their name.
fn on_device<D: Driver>(
    driver: &D,
    ordinal: u32,
    run: &mut Run,
    measuring: Measuring,
    name_for: Option<u32>,
    console: &mut Console,
) -> Result<Measured, Error> {
    let plan = Outputs::new(measuring.settings, name_for);
    let measured = measure(driver, ordinal, run, measuring, &mut |head| {
        if plan.streams {
            console.out(head);
        }
    })?;
    for warning in &measured.warnings {
        console.err(warning);
    }
    plan.deliver(&measured.sweep, &measured.head, || measured.provenance.clone())
        .map_err(failed)?
        .perform(console)?;
    Ok(measured)
}

/// Opens device `ordinal`, loads the kernel's entry points (a driver that cannot load one is
/// exit 3 with its line), checks the request against the device, builds the host data, hands
/// the head to `on_head` and measures; as a supervised worker where `supervision` says so (its
/// journal, its restarts, the exit status of a hang).
pub(crate) fn measure<D: Driver>(
    driver: &D,
    ordinal: u32,
    run: &mut Run,
    measuring: Measuring,
    on_head: &mut dyn FnMut(&str),
) -> Result<Measured, Error> {
    let Measuring { settings, timing, supervision } = measuring;
    let kernel = run.kernel();
    let blocks = settings.blocks_of(kernel).map_err(|why| Error::new(exit::USAGE, why))?;
    let configurations = kernel.configurations(&blocks);
    if let Some(shard) = settings.shard
        && shard.share(configurations) == 0
    {
        return Err(Error::new(
            exit::USAGE,
            format!("--shard {shard} holds no configuration: the sweep has {configurations}"),
        ));
    }
    let kernels = kernel.kernels();
    let started = std::time::Instant::now();
    let session::Opened { mut gpu, open_s: device_s, .. } =
        session::open(driver, ordinal, &kernels, session::Loading::Every)?;
    let scratch = if timing.flushes() { 2 * u64::from(gpu.limits().l2_cache_bytes) } else { 0 }
        + if settings.counters { counters::scratch(kernel.pass.bytes_per_pass) } else { 0 };
    let command = crate::measure::gpu::device::command_line();
    // The host data before the header: a host that cannot hold it is bad input, with nothing
    // on standard output. The sweep uploads it in its measuring loop, device by device.
    let prepared = session::prepare(
        &mut gpu,
        run,
        &session::Preparation {
            blocks: &blocks,
            scratch,
            describe: Some((&kernels, &command)),
            cuda_version: driver.cuda_version(),
            upload: false,
        },
    )?;
    let (facts, host_data_s) = (prepared.facts.expect("described"), prepared.host_data_s);
    let key = journal_key(&gpu, &facts, &kernels, &kernel.pass, timing, settings);
    let (mut journal, note, mut warnings) = open_journal(settings, supervision, key)?;
    gpu.watchdog().set_timeout(settings.launch_timeout);
    gpu.watchdog().set_supervised(supervision.active());
    if (settings.stats || timing.energy_window.is_some())
        && let Err(why) = gpu.sensors()
    {
        warnings.push(format!("Warning: no SM clock or energy readings ({why}): their columns say n/a\n"));
    }
    crate::measure::supervision::interrupt::install();
    let shard = settings.shard.map(|shard| ShardOf { shard, configurations });
    let mut head = head(gpu.limits(), &kernel.pass, timing, settings, &facts, shard);
    head += note.as_deref().unwrap_or_default();
    if !supervision.restarted() {
        on_head(&head);
    }
    let plan = sweep::Plan {
        blocks,
        timing,
        grid: settings.grid,
        corrupt: settings.corrupt_output,
        round: sweep::Round::All,
        shard: settings.shard,
        bounds: None,
        rungs_budget: sweep::RungsBudget::Exhaustive,
    };
    let search = settings.search_for(configurations, &timing);
    let mut timed = Timed::new(&mut gpu);
    let mut sweep = strategy::measure(run, &mut timed, &plan, search, journal.as_mut(), &mut warnings)?;
    sweep.wall_time =
        Some(WallTime { total_s: started.elapsed().as_secs_f64(), device_s, host_data_s, ..timed.spent });
    sweep.objective = settings.objective;
    nothing_left_out(&mut sweep, supervision)?;
    if settings.counters {
        counters::read(driver, gpu, ordinal, &mut sweep, timing, &mut warnings);
    }
    let provenance = facts.provenance(&sweep.limits);
    Ok(Measured { sweep, provenance, head, warnings })
}

/// A sweep's journal where it keeps one, the note on what it resumes, and its warnings.
type OpenedJournal = (Option<Journal>, Option<String>, Vec<String>);

/// The sweep's journal, where it keeps one (`--journal`, a supervised worker's, one to resume):
/// the journal, the note on what it resumes, and its warnings.
fn open_journal(settings: &Settings, supervision: &Supervision, key: Key) -> Result<OpenedJournal, Error> {
    // One worker of several journals to its own file, which the process that started it
    // copies into the run's journal: no two processes append to one file.
    let journal_path = match supervision.part {
        Some(_) => supervision.journal.clone(),
        None => settings.journal.clone().or_else(|| supervision.journal.clone()),
    };
    let mut resumes: Vec<&Path> = settings.resume.iter().map(PathBuf::as_path).collect();
    if supervision.restarted() {
        resumes.extend(journal_path.as_deref());
    }
    Ok(if journal_path.is_some() || !resumes.is_empty() {
        let journal = journal_path.as_deref().map(|path| (path, durability(settings, supervision)));
        let (journal, note, warnings) = Journal::open(journal, &resumes, key)?;
        (Some(journal), note.filter(|_| settings.resume.is_some()), warnings)
    } else {
        (None, None, Vec::new())
    })
}

/// How far each journal entry goes: synced where the journal is the user's `--journal` (a
/// worker of a split sweep journals to a part of its own, which its supervisor copies), written
/// only where it is a supervisor's temporary one.
fn durability(settings: &Settings, supervision: &Supervision) -> Durability {
    if settings.journal.is_some() && supervision.part.is_none() {
        Durability::Synced
    } else {
        Durability::Written
    }
}

/// A sweep that measured nothing (every configuration pruned) is an error, exit 2; one that lost
/// the GPU's context is restarted where supervised (exit [`exit::RESTART`]), else the
/// configurations left are a failed check.
fn nothing_left_out(sweep: &mut Sweep, supervision: &Supervision) -> Result<(), Error> {
    // Every configuration pruned (by the model, or by the kernel's launch bounds): nothing was
    // launched, and a table of it would look like a sweep.
    if let Some(first) = sweep.rows.first()
        && sweep.ended_early.is_none()
        && sweep.rows.iter().all(|row| row.pruned.is_some())
    {
        return Err(Error::new(
            exit::USAGE,
            format!(
                "nothing to launch: the device cannot launch any configuration of this sweep; {}: {}",
                crate::model::axis_values::configuration_label(first.block, &first.axes),
                first.pruned.as_deref().unwrap_or_default()
            ),
        ));
    }
    if let Some(EndedEarly::ContextLost { configurations_left }) = sweep.ended_early {
        let last = sweep.rows.last().map_or(0, |row| row.threads_per_block);
        if supervision.active() && configurations_left > 0 {
            return Err(Error::new(
                exit::RESTART,
                format!(
                    "{last} threads per block: the launch lost the GPU context; a fresh worker measures the \
                     {configurations_left} configuration(s) left"
                ),
            ));
        }
        if configurations_left > 0 {
            sweep.failures.push(sweep::CheckFailure::NotMeasured { configurations: configurations_left });
        }
    }
    Ok(())
}

/// What a measurement of a kernel on `gpu` depends on, for the journal.
fn journal_key(
    gpu: &dyn crate::measure::gpu::backend::Device,
    facts: &Facts,
    kernels: &[KernelRef],
    pass: &Pass,
    timing: Timing,
    settings: &Settings,
) -> Key {
    let mut ptx: Vec<String> =
        kernels.iter().map(|kernel| format!("{} {}", kernel.module.label, kernel.module.sha256())).collect();
    ptx.dedup();
    let environment = &facts.environment;
    Key {
        gpu: format!("{} {}", gpu.limits().name, gpu.uuid().unwrap_or_default()),
        driver: format!(
            "{} (driver API {})",
            environment.driver_release.clone().unwrap_or_default(),
            environment.driver_api_version
        ),
        ptx,
        kernel: kernels.iter().map(|kernel| kernel.entry.to_string()).collect(),
        work: format!("{pass:?}"),
        timing: format!("{timing:?}"),
        grid: settings.grid.name(),
    }
}

/// The lines before the table: the provenance (where asked), the device, the work, the timing,
/// the grid.
fn head(
    limits: &DeviceLimits,
    pass: &Pass,
    timing: Timing,
    settings: &Settings,
    facts: &Facts,
    shard: Option<ShardOf>,
) -> String {
    let mut text = if settings.provenance { facts.lines(limits) } else { String::new() };
    text += &table::header(limits, pass, timing);
    text += &settings.grid.header_line();
    text += &table::shard_line(shard);
    text
}

/// Where one device's sweep goes, from the options alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outputs {
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
    /// Exports written besides the main output (`--json`, `--csv`, `--markdown`), each named
    /// for the device.
    pub exports: Vec<(Format, PathBuf)>,
    /// The winners' Rust source (`--emit-rust`, one file for every device), its JSON beside it.
    pub emit_rust: Option<PathBuf>,
}

impl Outputs {
    /// The plan for `settings`; with `name_for`, every file named for that device.
    pub fn new(settings: &Settings, name_for: Option<u32>) -> Self {
        let name = |path: &PathBuf| match name_for {
            Some(ordinal) => per_device(path, ordinal),
            None => path.clone(),
        };
        Self {
            streams: settings.format.is_none() && settings.output.is_none(),
            format: settings.format,
            stats: settings.stats,
            output: settings.output.as_ref().map(name),
            plot: settings.plot.as_ref().map(name),
            exports: settings.exports.iter().map(|(format, path)| (*format, name(path))).collect(),
            // One file for every GPU: each device's winner is added to it (crate::results::emit).
            emit_rust: settings.emit_rust.clone(),
        }
    }

    /// What to write where, in order, for `result`, whose `head` (provenance and header
    /// lines) went out first where the plan streams: the table or export, the failed checks,
    /// the plot, then each export file. `Err` where an export or the plot cannot be rendered.
    pub fn deliver(
        &self,
        result: &Sweep,
        head: &str,
        provenance: impl Fn() -> crate::measure::record::provenance::Provenance,
    ) -> anyhow::Result<Delivery> {
        let body = table::body(result, self.stats);
        let provenance = provenance();
        let document = match self.format {
            None => format!("{head}{body}"),
            Some(format) => export::render(result, provenance.clone(), format)?,
        };
        let mut effects = Vec::new();
        match &self.output {
            Some(path) => effects.push(Effect::File(path.clone(), document)),
            None if self.streams => effects.push(Effect::Stdout(body)),
            None => effects.push(Effect::Stdout(document)),
        }
        effects.push(Effect::Stderr(table::stderr(result)));
        if let Some(path) = &self.plot {
            effects.push(Effect::File(path.clone(), plot::svg(result)?));
        }
        for (format, path) in &self.exports {
            effects.push(Effect::File(path.clone(), export::render(result, provenance.clone(), *format)?));
        }
        if let Some(path) = &self.emit_rust {
            // A winner to compile in only from a whole sweep whose every check held.
            let why_not = if !result.failures.is_empty() {
                Some("a check failed")
            } else if result.ended_early.is_some() {
                Some("the sweep ended before its last configuration")
            } else {
                None
            };
            match (why_not, crate::results::emit::winner(result, &provenance)) {
                (None, Some(winner)) => {
                    // One file for every GPU: this one's winner joins those already in it.
                    let json_path = crate::results::emit::json_path(path);
                    let existing = crate::results::emit::existing_winners(path);
                    let (winners, note) = crate::results::emit::Winners::merge(
                        existing.as_deref(),
                        result.axes.clone(),
                        winner,
                    );
                    if let Some(note) = note {
                        effects.push(Effect::Note(format!("--emit-rust: {} {note}\n", shown(&json_path))));
                    }
                    effects.push(Effect::File(path.clone(), crate::results::emit::rust_source(&winners)));
                    let json = serde_json::to_string_pretty(&winners)? + "\n";
                    effects.push(Effect::File(json_path, json));
                }
                (why_not, _) => effects.push(Effect::Note(format!(
                    "--emit-rust: {} not written: {}\n",
                    shown(path),
                    why_not.unwrap_or("no configuration was measured")
                ))),
            }
        }
        effects.retain(
            |effect| !matches!(effect, Effect::Stdout(text) | Effect::Stderr(text) | Effect::Note(text) if text.is_empty()),
        );
        Ok(Delivery(effects))
    }
}

/// One thing a sweep writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Text for standard output.
    Stdout(String),
    /// Text for standard error.
    Stderr(String),
    /// A line for standard error about a file's writing (`--emit-rust`'s): it goes with the
    /// files where the table and the files are written by different processes.
    Note(String),
    /// A file and its text.
    File(PathBuf, String),
}

/// What one device's sweep writes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Delivery(pub Vec<Effect>);

impl Delivery {
    /// What goes to the terminal: the table or export on standard output, the failed checks.
    pub fn printed(self) -> Self {
        Self(
            self.0
                .into_iter()
                .filter(|effect| matches!(effect, Effect::Stdout(_) | Effect::Stderr(_)))
                .collect(),
        )
    }

    /// What goes to files, and the notes on their writing.
    pub fn written(self) -> Self {
        Self(
            self.0
                .into_iter()
                .filter(|effect| matches!(effect, Effect::File(..) | Effect::Note(_)))
                .collect(),
        )
    }

    /// Writes each in turn, each file whole ([`files::write_whole`]: a failed write keeps the
    /// file that was there). A file that cannot be written (its paths were checked before the
    /// sweep, but a disk can fill) is never lost: it goes to a file of the same name in the
    /// temporary folder, or where that fails too to standard output, and the run ends with
    /// exit 1 and one line naming where it went.
    pub fn perform(self, console: &mut Console) -> Result<(), Error> {
        let mut lost = None;
        for effect in self.0 {
            match effect {
                Effect::Stdout(text) => console.out(&text),
                Effect::Stderr(text) | Effect::Note(text) => console.err(&text),
                Effect::File(path, text) => {
                    if let Err(error) = files::write_whole(&path, text.as_bytes()) {
                        lost = lost.or(Some(rescue(&path, &text, &error, console)));
                    }
                }
            }
        }
        lost.map_or(Ok(()), Err)
    }
}

/// Writes `text`, which could not go to `path`, somewhere it is kept, and says where.
fn rescue(path: &Path, text: &str, error: &std::io::Error, console: &mut Console) -> Error {
    let name = path.file_name().map_or_else(|| "sweep".into(), |name| name.to_string_lossy().into_owned());
    let fallback = std::env::temp_dir().join(format!("block-size-{}-{name}", std::process::id()));
    let went = match files::write_whole(&fallback, text.as_bytes()) {
        Ok(()) => format!("it went to {} instead", shown(&fallback)),
        Err(_) => {
            console.out(text);
            "it went to standard output instead".to_string()
        }
    };
    failed(anyhow!("writing {}: {error}; {went}", shown(path)))
}

pub(crate) use crate::files::per_device;

pub(crate) mod parallel;
pub(crate) mod prepare;
#[cfg(test)]
mod tests;
