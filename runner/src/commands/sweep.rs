/*!
The sweep, `block-size`'s default command and the run of a kernel of your own: for each block
size, the driver's occupancy answer, one full wave (or the grid policy's), timed and checked
([`crate::search::sweep`]), then the table of `block_size.cu` with its summary, or an export
([`crate::results::export`]), and a plot ([`crate::results::plot`]); on one GPU or, with
[`DeviceChoice::All`], on each in turn.

What is swept is a [`Target`]: one of this repository's kernels ([`SweepRequest`]) or a
[`crate::UserKernel`]. A device's run is the same for both: open and load its kernels, check the
request against the device, gather the provenance, measure, then decide what goes where
([`Plan`], from the settings alone) and write it ([`Delivery`]).
*/

use super::{Chosen, KernelChoice};
use crate::commands::settings::{DeviceChoice, Settings};
use crate::error::{Console, Error, exit, failed};
use crate::measure::backend::{Device, Driver, Gpu};
use crate::measure::device::{self, Facts};
use crate::measure::journal::{Journal, Key};
use crate::measure::progress::{Phase, WithProgress};
use crate::measure::provenance::Provenance;
use crate::measure::ptx::KernelRef;
use crate::measure::supervise::Supervision;
use crate::measure::timing::Timing;
use crate::measure::workload::Workload;
use crate::model::axis_values::AxisValues;
use crate::model::limits::DeviceLimits;
use crate::model::pass::Pass;
use crate::results::export::{self, Format};
use crate::results::plot;
use crate::results::table;
use crate::search::race;
use crate::search::strategy::Search;
use crate::search::sweep::EndedEarly;
use crate::search::sweep::{self, Session, Sweep};
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// `block-size`'s sweep: one of this repository's kernels over a frame, with the sweep's
/// settings, and its axes where there are any.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SweepRequest {
    /// The kernel and its frame; several `bins` are an axis.
    pub kernel: KernelChoice,
    /// The grayscale kernel's axes (`--pixels-per-thread`, `--vector-width`).
    pub axes: KernelAxes,
    /// Devices, block sizes, timing, grid, outputs.
    pub settings: Settings,
}

/// Axes of this repository's grayscale kernel: its shapes (`block-size variants`) as axes of a
/// sweep. Each given is an axis (a column), even with one value; `--bins` with several values
/// is the histogram's ([`KernelChoice::bins`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelAxes {
    /// `--pixels-per-thread`: pixels one thread converts a loop trip, 1, 2, 4 or 8 (the entries
    /// `grayscale`, `grayscale_k2`, `grayscale_k4`, `grayscale_k8`); empty: each vector width's
    /// own (1, and 4 for a vector width of 4).
    pub pixels_per_thread: Vec<u32>,
    /// `--vector-width`: floats one load reads, 1 or 4 (16-byte vectors: `grayscale_vec4`, at 4
    /// pixels a thread alone); empty: 1.
    pub vector_width: Vec<u32>,
}

/// The grayscale kernel's shapes by (vector width, pixels per thread): their entry points.
const GRAYSCALE_SHAPES: [(u32, u32, &str); 5] = [
    (1, 1, "grayscale"),
    (1, 2, "grayscale_k2"),
    (1, 4, "grayscale_k4"),
    (1, 8, "grayscale_k8"),
    (4, 4, "grayscale_vec4"),
];

/// One configuration of a sweep over this repository's kernel: its values on the axes, its
/// kernel and parameters, the entry point it launches.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    axes: AxisValues,
    chosen: Chosen,
    kernel: KernelRef,
}

impl SweepRequest {
    /// Every check that needs no device, the first failing one as one line (exit 2).
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    fn checked(&self) -> Result<(Builtin, Timing), Error> {
        let target = self.parts()?;
        let timing = self.settings.checked()?;
        for part in &target.parts {
            let (outputs, whole) = (part.chosen.spec.outputs)(&part.chosen.params);
            check_corrupt_output(self.settings.corrupt_output, outputs, &whole)?;
        }
        Ok((target, timing))
    }

    /// The configurations of the kernel's axes: its bins, and the grayscale kernel's shapes.
    fn parts(&self) -> Result<Builtin, Error> {
        let usage = |message: String| Error::new(exit::USAGE, message);
        let bins = self.kernel.chosen_at_each_bins()?;
        let spec = bins[0].spec;
        let mut names = Vec::new();
        if bins.len() > 1 {
            names.push("bins".to_string());
        }
        let KernelAxes { pixels_per_thread, vector_width } = &self.axes;
        let shaped = !pixels_per_thread.is_empty() || !vector_width.is_empty();
        let mut skipped = Vec::new();
        // (vector width, pixels per thread) of each shape swept, and its entry.
        let mut shapes = vec![(None, None, spec.entry)];
        if shaped {
            if spec.name != crate::kernel::workload::grayscale::KERNEL.name {
                let option =
                    if pixels_per_thread.is_empty() { "--vector-width" } else { "--pixels-per-thread" };
                return Err(usage(format!(
                    "{option} applies to --kernel grayscale alone, not --kernel {}",
                    spec.name
                )));
            }
            for (option, values, allowed) in [
                ("--pixels-per-thread", pixels_per_thread, &[1, 2, 4, 8][..]),
                ("--vector-width", vector_width, &[1, 4][..]),
            ] {
                if let Some(bad) = values.iter().find(|value| !allowed.contains(value)) {
                    let allowed: Vec<String> = allowed.iter().map(u32::to_string).collect();
                    return Err(usage(format!("{option} takes {}, not {bad}", allowed.join(", "))));
                }
                if let Some(twice) = crate::commands::settings::first_repeat(values) {
                    return Err(usage(format!("{option} lists {twice} twice")));
                }
            }
            if !vector_width.is_empty() {
                names.push("vector width".to_string());
            }
            if !pixels_per_thread.is_empty() {
                names.push("pixels/thr".to_string());
            }
            let widths = if vector_width.is_empty() { vec![1] } else { vector_width.clone() };
            shapes.clear();
            for &width in &widths {
                let pixels =
                    if pixels_per_thread.is_empty() { vec![width] } else { pixels_per_thread.clone() };
                for pixels in pixels {
                    match GRAYSCALE_SHAPES.iter().find(|&&(w, p, _)| (w, p) == (width, pixels)) {
                        Some(&(_, _, entry)) => shapes.push((
                            (!vector_width.is_empty()).then_some(width),
                            (!pixels_per_thread.is_empty()).then_some(pixels),
                            entry,
                        )),
                        None => skipped.push(format!("{pixels}")),
                    }
                }
            }
            if shapes.is_empty() {
                return Err(usage(format!(
                    "no grayscale kernel has a vector width of 4 at {} pixel(s) per thread: grayscale_vec4 converts 4",
                    skipped.join(", ")
                )));
            }
        }
        let mut parts = Vec::new();
        for chosen in &bins {
            for &(width, pixels, entry) in &shapes {
                let mut axes = AxisValues::none();
                if bins.len() > 1 {
                    axes.0.push(("bins".into(), chosen.params.bins.to_string()));
                }
                if let Some(width) = width {
                    axes.0.push(("vector width".into(), width.to_string()));
                }
                if let Some(pixels) = pixels {
                    axes.0.push(("pixels/thr".into(), pixels.to_string()));
                }
                parts.push(Part { axes, chosen: *chosen, kernel: chosen.spec.modules[0].kernel(entry) });
            }
        }
        let note = (!skipped.is_empty()).then(|| {
            format!(
                "Not swept: vector width 4 at {} pixel(s) per thread, which no kernel has (grayscale_vec4 converts 4)",
                skipped.join(", ")
            )
        });
        Ok(Builtin { names, parts, note, workloads: Vec::new() })
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
    let (mut target, timing) = request.checked()?;
    on_devices(driver, &mut target, &request.settings, timing, console)
}

/// What a sweep measures on a device: this repository's kernel, or one of yours.
pub(crate) trait Target {
    /// The kernels to load: one, or one per entry point its configurations launch.
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
    /// configurations of the axes.
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

/// One of this repository's kernels: its configurations (one, without axes), and their
/// workloads once built, one per kernel and parameters (the grayscale shapes share one).
struct Builtin {
    names: Vec<String>,
    parts: Vec<Part>,
    /// A line for the head: the shapes asked for that no kernel has.
    note: Option<String>,
    /// Each distinct (kernel, parameters) with its workload.
    workloads: Vec<(Chosen, Box<dyn Workload>)>,
}

impl Builtin {
    /// The index in `workloads` of `chosen`'s.
    fn workload_of(&self, chosen: &Chosen) -> Option<usize> {
        self.workloads.iter().position(|(known, _)| known == chosen)
    }
}

impl Target for Builtin {
    fn kernels(&self) -> Vec<KernelRef> {
        let mut kernels: Vec<KernelRef> = Vec::new();
        for part in &self.parts {
            if !kernels.contains(&part.kernel) {
                kernels.push(part.kernel);
            }
        }
        kernels
    }

    fn pass(&self) -> Pass {
        let first = &self.parts[0].chosen;
        let mut pass = (first.spec.pass)(&first.params);
        if self.names.iter().any(|name| name == "bins") {
            pass.detail = Some(format!(
                "Kernel: {}, histogram of each row's bins (the bins column), zeroed before each launch, outside the timed interval",
                first.spec.name
            ));
        }
        if let Some(note) = &self.note {
            let detail = pass.detail.take().map_or_else(String::new, |detail| format!("{detail}\n"));
            pass.detail = Some(format!("{detail}{note}"));
        }
        pass
    }

    fn check(&mut self, gpu: &dyn Device, block_sizes: &[u32], scratch: u64) -> Result<(), Error> {
        let mut checked: Vec<Chosen> = Vec::new();
        for part in &self.parts {
            if checked.contains(&part.chosen) {
                continue;
            }
            let Chosen { spec, params } = part.chosen;
            crate::commands::job::check_job(
                gpu,
                crate::commands::job::Job { spec, params, block_sizes },
                |_| scratch,
            )?;
            checked.push(part.chosen);
        }
        Ok(())
    }

    fn build(&mut self) -> Result<(), Error> {
        for part in self.parts.clone() {
            if self.workload_of(&part.chosen).is_some() {
                continue;
            }
            let building = Phase::start("building the frame and its CPU reference on every core");
            let workload = crate::commands::job::create_workload(part.chosen.spec, &part.chosen.params);
            building.finish();
            self.workloads.push((part.chosen, workload?));
        }
        Ok(())
    }

    fn configurations(&self, block_sizes: &[u32]) -> usize {
        block_sizes.len() * self.parts.len()
    }

    fn measure(
        &mut self,
        gpu: &mut dyn Gpu,
        settings: &sweep::Settings,
        mut journal: Option<&mut Journal>,
    ) -> Result<Sweep, Error> {
        // Each measure is on a device of its own (or a round of its own): every workload is
        // uploaded to it once, the grayscale shapes sharing theirs.
        let uploading = Phase::start("uploading the inputs");
        let uploaded = self.workloads.iter_mut().try_for_each(|(_, workload)| workload.upload(gpu));
        uploading.finish();
        uploaded.map_err(failed)?;
        let mut results = Vec::with_capacity(self.parts.len());
        for part in self.parts.clone() {
            let index = self.workload_of(&part.chosen).expect("built before it is measured");
            let workload = &mut self.workloads[index].1;
            gpu.select_kernel(part.kernel).map_err(failed)?;
            let mut session = Session { journal: journal.as_deref_mut(), axes: part.axes.clone() };
            let result = sweep_uploaded(gpu, workload.as_mut(), settings, &mut session)?;
            let ended_early = result.ended_early.is_some();
            results.push((part.axes, result));
            if ended_early {
                break;
            }
        }
        let mut sweep = crate::search::assemble::assemble(self.names.clone(), results)
            .expect("a sweep has at least one configuration");
        // The pass as the head says it: with the bins axis and the shapes left out.
        sweep.pass = self.pass();
        Ok(sweep)
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
                summaries += &table::device_summary(&measured.sweep);
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
    crate::measure::watchdog::set_timeout(settings.launch_timeout);
    crate::measure::interrupt::install();
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
            sweep.failures.push(crate::search::sweep::CheckFailure::NotMeasured {
                configurations: configurations_left,
            });
        }
    }
    let provenance = facts.provenance(&sweep.limits);
    Ok(Measured { sweep, provenance, head })
}

/// Measures `target` as `search` says: every configuration to the end, or a race
/// ([`crate::search::race`]): a first round of every configuration at the minimum count, then the
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
        .map(|(row, _)| (row.axes.clone(), row.threads_per_block))
        .collect();
    let second_round = sweep::Settings { round: sweep::Round::Survivors(survivors), ..settings.clone() };
    let second = target.measure(gpu, &second_round, journal)?;
    Ok(race::merge(first, second, &alive))
}

/// What a measurement of `target` on `gpu` depends on, for the journal.
fn journal_key(
    gpu: &dyn crate::measure::backend::Device,
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
    text += &table::header(limits, pass, timing);
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
    /// The winners' Rust source (`--emit-rust`, one file for every device), its JSON beside it.
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
        provenance: impl Fn() -> crate::measure::provenance::Provenance,
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
                    let existing = std::fs::read_to_string(&json_path).ok();
                    let (winners, note) = crate::results::emit::Winners::merge(
                        existing.as_deref(),
                        result.axes.clone(),
                        winner,
                    );
                    if let Some(note) = note {
                        effects
                            .push(Effect::Stderr(format!("--emit-rust: {} {note}\n", json_path.display())));
                    }
                    effects.push(Effect::File(path.clone(), crate::results::emit::rust_source(&winners)));
                    let json = serde_json::to_string_pretty(&winners)? + "\n";
                    effects.push(Effect::File(json_path, json));
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
pub(crate) mod user;
