/*!
The sweep, `block-size`'s default command and the run of a kernel of your own: for each block
size, the driver's occupancy answer, one full wave (or the grid policy's), timed and checked
([`crate::sweep`]), then the table of `block_size.cu` with its summary, or an export
([`crate::export`]), and a plot ([`crate::plot`]); on one GPU or, with
[`DeviceChoice::All`], on each in turn.

What is swept is a [`Target`]: one of this repository's kernels ([`SweepRequest`]) or a
[`crate::UserKernel`]. A device's run is the same for both: open and load its kernels, check the
request against the device, gather the provenance, measure, then decide what goes where
([`Plan`], from the settings alone) and write it ([`Delivery`]).
*/

use super::device::{self, Facts};
use super::{Chosen, KernelChoice};
use crate::backend::{Device, DeviceLimits, Driver, Gpu};
use crate::error::{Console, Error, exit, failed};
use crate::export::{self, Format};
use crate::journal::{Journal, Key};
use crate::plot;
use crate::progress::{Phase, WithProgress};
use crate::provenance::Provenance;
use crate::ptx::KernelRef;
use crate::race::{self, Search};
use crate::report;
use crate::settings::{DeviceChoice, Settings};
use crate::supervise::Supervision;
use crate::sweep::EndedEarly;
use crate::sweep::{self, Session, Sweep};
use crate::timing::Timing;
use crate::workload::{Pass, Workload};
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// `block-size`'s sweep: one of this repository's kernels over a frame, with the sweep's
/// settings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepRequest {
    /// The kernel and its frame.
    pub kernel: KernelChoice,
    /// Devices, block sizes, timing, grid, outputs.
    pub settings: Settings,
}

impl SweepRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    fn checked(&self) -> Result<(Chosen, Timing), Error> {
        let chosen = self.kernel.chosen()?;
        let timing = self.settings.checked()?;
        let (outputs, whole) = (chosen.spec.outputs)(&chosen.params);
        check_corrupt_output(self.settings.corrupt_output, outputs, &whole)?;
        Ok((chosen, timing))
    }
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

/// The sweep of `request` on one device, or on every device with [`DeviceChoice::All`];
/// `Ok` carries the exit status of a run that reached its tables.
pub fn exec<D: Driver>(driver: &D, request: &SweepRequest, console: &mut Console) -> Result<i32, Error> {
    let (chosen, timing) = request.checked()?;
    let mut target = Builtin { chosen, workload: None };
    on_devices(driver, &mut target, &request.settings, timing, console)
}

/// What a sweep measures on a device: this repository's kernel, or one of yours.
pub(crate) trait Target {
    /// The kernels to load: one, or one per value of a tunable.
    fn kernels(&self) -> Vec<KernelRef>;
    /// What one pass covers and moves.
    fn pass(&self) -> Pass;
    /// The request against the open device: every block size launchable with the kernel's
    /// dynamic shared memory, the buffers (and `scratch` bytes) within free device memory and
    /// the host's available memory.
    fn check(&mut self, gpu: &dyn Device, block_sizes: &[u32], scratch: u64) -> Result<(), Error>;
    /// Builds what the host holds (inputs, reference) where it is not built yet.
    fn build(&mut self) -> Result<(), Error>;
    /// Configurations a sweep of `block_sizes` measures: one per block size, times the
    /// tunable's values.
    fn configurations(&self, block_sizes: &[u32]) -> usize {
        block_sizes.len()
    }
    /// Uploads, then sweeps every kernel of [`Target::kernels`]; their sweeps combined.
    fn measure(
        &mut self,
        gpu: &mut dyn Gpu,
        settings: &sweep::Settings,
        journal: Option<&mut Journal>,
    ) -> Result<Sweep, Error>;
}

/// One of this repository's kernels: its spec and parameters, its workload once built.
struct Builtin {
    chosen: Chosen,
    workload: Option<Box<dyn Workload>>,
}

impl Target for Builtin {
    fn kernels(&self) -> Vec<KernelRef> {
        vec![self.chosen.spec.rust_kernel()]
    }

    fn pass(&self) -> Pass {
        (self.chosen.spec.pass)(&self.chosen.params)
    }

    fn check(&mut self, gpu: &dyn Device, block_sizes: &[u32], scratch: u64) -> Result<(), Error> {
        let Chosen { spec, params } = self.chosen;
        device::check_job(gpu, device::Job { spec, params, block_sizes }, |_| scratch)
    }

    fn build(&mut self) -> Result<(), Error> {
        if self.workload.is_none() {
            let building = Phase::start("building the frame and its CPU reference on every core");
            let workload = device::create_workload(self.chosen.spec, &self.chosen.params);
            building.finish();
            self.workload = Some(workload?);
        }
        Ok(())
    }

    fn measure(
        &mut self,
        gpu: &mut dyn Gpu,
        settings: &sweep::Settings,
        journal: Option<&mut Journal>,
    ) -> Result<Sweep, Error> {
        let workload = self.workload.as_mut().expect("built before it is measured").as_mut();
        let uploading = Phase::start("uploading the inputs");
        let uploaded = workload.upload(gpu);
        uploading.finish();
        uploaded.map_err(failed)?;
        sweep_uploaded(gpu, workload, settings, &mut Session { journal, tunable: None })
    }
}

/// Sweeps an uploaded `workload`, with a progress bar on a long sweep.
pub(crate) fn sweep_uploaded(
    gpu: &mut dyn Gpu,
    workload: &mut dyn Workload,
    settings: &sweep::Settings,
    session: &mut Session,
) -> Result<Sweep, Error> {
    let mut with_progress = WithProgress::new(gpu, settings.block_sizes.len());
    let result = sweep::measure_in(&mut with_progress, workload, settings, session);
    with_progress.finish();
    result.map_err(failed)
}

/// A finished sweep on one device, with what rendering it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The rows, the checks, the summary's facts: what the table, exports and plot render.
    pub sweep: Sweep,
    /// What was measured with what, for the JSON export.
    pub provenance: Provenance,
    /// The lines before the table: the provenance lines where asked, the device, the work, the
    /// timing, and the grid where it is not one wave.
    pub head: String,
}

impl Measured {
    /// The whole report as `block-size` prints it: the head, the table (with `stats`, the
    /// min, max and MAD columns), the summary.
    pub fn report(&self, stats: bool) -> String {
        format!("{}{}", self.head, report::body(&self.sweep, stats))
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
        report::stderr(&self.sweep)
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
    target: &mut dyn Target,
    settings: &Settings,
    timing: Timing,
    console: &mut Console,
) -> Result<i32, Error> {
    let count = match settings.device {
        DeviceChoice::One(ordinal) => {
            let measured = on_device(driver, ordinal, target, settings, timing, None, console)?;
            return Ok(measured.exit_status());
        }
        DeviceChoice::All => {
            driver.device_count().map_err(|error| Error::new(exit::NO_DEVICE, format!("{error:#}")))?
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
        match on_device(driver, ordinal, target, settings, timing, several.then_some(ordinal), console) {
            Ok(measured) => {
                code = code.max(measured.exit_status());
                summaries += &report::device_summary(&measured.sweep);
            }
            Err(error) => {
                console.err(&format!("Error: GPU {ordinal}: {error}\n"));
                summaries +=
                    &format!("GPU {ordinal}: not measured (exit {}): {error}\n", error.exit_status());
                code = code.max(error.exit_status());
            }
        }
    }
    console.out(&format!("\n{summaries}"));
    Ok(code)
}

/// One device's sweep, written where the plan says. With `name_for` (several devices), files
/// get the device's ordinal in their name.
fn on_device<D: Driver>(
    driver: &D,
    ordinal: u32,
    target: &mut dyn Target,
    settings: &Settings,
    timing: Timing,
    name_for: Option<u32>,
    console: &mut Console,
) -> Result<Measured, Error> {
    let plan = Plan::new(settings, name_for);
    let measured = measure(driver, ordinal, target, settings, timing, &mut |head| {
        if plan.streams {
            console.out(head);
        }
    })?;
    plan.deliver(&measured.sweep, &measured.head, || measured.provenance.clone())
        .map_err(failed)?
        .perform(console)?;
    Ok(measured)
}

/// Opens device `ordinal`, loads the target's kernels (a driver that cannot load one is exit 3
/// with its line), checks the request against the device, builds the host data, hands the
/// head to `on_head` and measures.
pub(crate) fn measure<D: Driver>(
    driver: &D,
    ordinal: u32,
    target: &mut dyn Target,
    settings: &Settings,
    timing: Timing,
    on_head: &mut dyn FnMut(&str),
) -> Result<Measured, Error> {
    let kernels = target.kernels();
    let device::Opened { mut gpu, left_out, .. } = device::open_loading(driver, ordinal, &kernels)?;
    if let Some(unloadable) = left_out.first() {
        return Err(Error::new(exit::NO_DEVICE, unloadable.to_string()));
    }
    let scratch = if timing.flushes() { 2 * u64::from(gpu.limits().l2_cache_bytes) } else { 0 };
    target.check(&gpu, &settings.block_sizes, scratch)?;
    let facts =
        Facts::gather(&mut gpu, driver.cuda_version(), &kernels, &settings.command_line()).map_err(failed)?;
    // The host data before the header: a host that cannot hold it is bad input, with nothing
    // on standard output.
    target.build()?;
    let supervision = Supervision::from_env();
    let key = journal_key(&gpu, &facts, &kernels, &target.pass(), timing, settings);
    let journal_path = settings.journal.clone().or_else(|| supervision.journal.clone());
    let mut resumes: Vec<&Path> = settings.resume.iter().map(PathBuf::as_path).collect();
    if supervision.restarted() {
        resumes.extend(journal_path.as_deref());
    }
    let (mut journal, note) = if journal_path.is_some() || !resumes.is_empty() {
        let (journal, note) = Journal::open(journal_path.as_deref(), &resumes, key)?;
        (Some(journal), note.filter(|_| settings.resume.is_some()))
    } else {
        (None, None)
    };
    crate::watchdog::set_timeout(settings.launch_timeout);
    crate::interrupt::install();
    let mut head = head(gpu.limits(), &target.pass(), timing, settings, &facts);
    head += note.as_deref().unwrap_or_default();
    if !supervision.restarted() {
        on_head(&head);
    }
    let sweep_settings = sweep::Settings {
        block_sizes: settings.block_sizes.clone(),
        timing,
        grid: settings.grid,
        corrupt: settings.corrupt_output,
        round: sweep::Round::All,
    };
    let search = settings.search_for(target.configurations(&settings.block_sizes), &timing);
    let mut sweep = measure_by(target, &mut gpu, &sweep_settings, search, journal.as_mut())?;
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
            sweep
                .failures
                .push(crate::sweep::CheckFailure::NotMeasured { configurations: configurations_left });
        }
    }
    let provenance = facts.provenance(&sweep.limits);
    Ok(Measured { sweep, provenance, head })
}

/// Measures `target` as `search` says: every configuration to the end, or a race
/// ([`crate::race`]): a first round of every configuration at the minimum count, then the
/// survivors again under the noise-driven stop. A first round that ends early (a signal, a lost
/// context) is the sweep; its rows are journaled as the first round's, so a resume takes them.
fn measure_by(
    target: &mut dyn Target,
    gpu: &mut dyn Gpu,
    settings: &sweep::Settings,
    search: Search,
    mut journal: Option<&mut Journal>,
) -> Result<Sweep, Error> {
    if search == Search::Exhaustive || settings.timing.stop.is_none() {
        return target.measure(gpu, settings, journal);
    }
    let first_round = sweep::Settings {
        timing: Timing { stop: None, ..settings.timing },
        round: sweep::Round::First,
        ..settings.clone()
    };
    let first = Sweep { search: Search::Race, ..target.measure(gpu, &first_round, journal.as_deref_mut())? };
    if first.ended_early.is_some() {
        return Ok(first);
    }
    let alive = race::survivors(&first.rows);
    let survivors = first
        .rows
        .iter()
        .zip(&alive)
        .filter(|&(_, &alive)| alive)
        .map(|(row, _)| (row.tunable.clone(), row.threads_per_block))
        .collect();
    let second_round = sweep::Settings { round: sweep::Round::Survivors(survivors), ..settings.clone() };
    let second = target.measure(gpu, &second_round, journal)?;
    Ok(race::merge(first, second, &alive))
}

/// What a measurement of `target` on `gpu` depends on, for the journal.
fn journal_key(
    gpu: &dyn crate::backend::Device,
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
fn head(limits: &DeviceLimits, pass: &Pass, timing: Timing, settings: &Settings, facts: &Facts) -> String {
    let mut text = if settings.provenance { facts.lines(limits) } else { String::new() };
    text += &report::header(limits, pass, timing);
    text += &settings.grid.header_line();
    text
}

/// Where one device's sweep goes, from the options alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
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
    /// The winner's Rust source (`--emit-rust`, named for the device), its JSON beside it.
    pub emit_rust: Option<PathBuf>,
}

impl Plan {
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
            exports: settings.exports().into_iter().map(|(format, path)| (format, name(path))).collect(),
            emit_rust: settings.emit_rust.as_ref().map(name),
        }
    }

    /// What to write where, in order, for `result`, whose `head` (provenance and header
    /// lines) went out first where the plan streams: the table or export, the failed checks,
    /// the plot, then each export file. `Err` where an export or the plot cannot be rendered.
    pub fn deliver(
        &self,
        result: &Sweep,
        head: &str,
        provenance: impl Fn() -> crate::provenance::Provenance,
    ) -> anyhow::Result<Delivery> {
        let body = report::body(result, self.stats);
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
        effects.push(Effect::Stderr(report::stderr(result)));
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
            match (why_not, crate::emit::winner(result, &provenance)) {
                (None, Some(winner)) => {
                    effects.push(Effect::File(path.clone(), crate::emit::rust_source(&winner)));
                    let json = serde_json::to_string_pretty(&winner)? + "\n";
                    effects.push(Effect::File(crate::emit::json_path(path), json));
                }
                (why_not, _) => effects.push(Effect::Stderr(format!(
                    "--emit-rust: {} not written: {}\n",
                    path.display(),
                    why_not.unwrap_or("no configuration was measured")
                ))),
            }
        }
        effects.retain(
            |effect| !matches!(effect, Effect::Stdout(text) | Effect::Stderr(text) if text.is_empty()),
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
    /// A file and its text.
    File(PathBuf, String),
}

/// What one device's sweep writes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Delivery(pub Vec<Effect>);

impl Delivery {
    /// Writes each in turn. A file that cannot be written (its paths were checked before the
    /// sweep, but a disk can fill) is never lost: it goes to a file of the same name in the
    /// temporary folder, or where that fails too to standard output, and the run ends with
    /// exit 1 and one line naming where it went.
    pub fn perform(self, console: &mut Console) -> Result<(), Error> {
        let mut lost = None;
        for effect in self.0 {
            match effect {
                Effect::Stdout(text) => console.out(&text),
                Effect::Stderr(text) => console.err(&text),
                Effect::File(path, text) => {
                    if let Err(error) = std::fs::write(&path, &text) {
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
    let went = match std::fs::write(&fallback, text) {
        Ok(()) => format!("it went to {} instead", fallback.display()),
        Err(_) => {
            console.out(text);
            "it went to standard output instead".to_string()
        }
    };
    failed(anyhow!("writing {}: {error}; {went}", path.display()))
}

/// `sweep.json` for device 1 becomes `sweep-gpu1.json`.
pub(crate) fn per_device(path: &Path, ordinal: u32) -> PathBuf {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(extension) => format!("{stem}-gpu{ordinal}.{}", extension.to_string_lossy()),
        None => format!("{stem}-gpu{ordinal}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests;
