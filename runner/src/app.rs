/*!
The sweep as a program: open the device, load the modules this driver can load, validate the
request against the device, run, print, and choose the exit status. Used by the
`block-size-cuda` binary, which `block-size` starts once it has found a driver; tests run it
through [`run_with`] on a [`MockDriver`](crate::backend::MockDriver).
*/

use crate::backend::{Device, DeviceLimits, Driver, Gpu, LoadError, OpenError, Timing};
use crate::cli::{
    self, CliError, CompareOptions, DeviceChoice, Options, Request, TailOptions, VariantsOptions,
};
use crate::compat::{self, Unloadable};
use crate::cuda::CudaDriver;
use crate::progress::WithProgress;
use crate::provenance::{self, Environment, Provenance};
use crate::sweep::Sweep;
use crate::workload::grayscale::GrayscaleWorkload;
use crate::workload::{KernelSpec, Params, Workload};
use crate::{compare, export, plot, ptx, report, sweep, tail, variants};
use std::ffi::OsString;
use std::io::Write;

/// Exit status for each way a run ends; `--help` documents the same numbers. With
/// `--device all`, the run's status is the highest of its devices' (3 before 2 before 1).
pub mod exit {
    /// Every check held.
    pub const SUCCESS: i32 = 0;
    /// A check failed, or the driver failed mid-run: the table is not a measurement.
    pub const FAILED: i32 = 1;
    /// Bad input: an option out of range, a block size the device cannot launch, a frame
    /// larger than the device's free memory or the host's available memory.
    pub const USAGE: i32 = 2;
    /// No NVIDIA driver, no GPU, no device at the requested index, or a driver that cannot
    /// load the kernel's PTX (too old for its PTX ISA, or refusing it).
    pub const NO_DEVICE: i32 = 3;
}

/// Why a run stopped before its verdict.
#[derive(Debug)]
pub struct Stop {
    pub code: i32,
    pub message: String,
}

impl Stop {
    fn new(code: i32, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

fn failed(error: anyhow::Error) -> Stop {
    Stop::new(exit::FAILED, format!("{error:#}"))
}

/// Where a run prints: standard output and standard error, or buffers in tests. Write
/// errors (a closed pipe) are ignored, as the table's streaming always did.
pub struct Console<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
}

impl Console<'_> {
    fn out(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    fn err(&mut self, text: &str) {
        let _ = self.err.write_all(text.as_bytes());
        let _ = self.err.flush();
    }
}

/// A device with the kernels this driver could load.
struct Opened<G> {
    gpu: G,
    /// The kernels asked for that loaded, in the order asked.
    loaded: Vec<ptx::KernelRef>,
    /// The modules the driver cannot load, each once.
    left_out: Vec<Unloadable>,
}

/// Opens device `ordinal` and loads each of `kernels` whose module passes
/// [`compat::check`] and the driver accepts.
fn open_loading<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernels: &[ptx::KernelRef],
) -> Result<Opened<D::Device>, Stop> {
    let mut gpu = driver.open(ordinal).map_err(open_stop)?;
    let version = driver.cuda_version();
    let mut loaded = Vec::new();
    let mut left_out: Vec<Unloadable> = Vec::new();
    for kernel in kernels {
        if left_out.iter().any(|unloadable| unloadable.module == kernel.module) {
            continue;
        }
        if let Err(unloadable) = compat::check(kernel.module, version) {
            left_out.push(unloadable);
            continue;
        }
        match gpu.load(kernel) {
            Ok(()) => loaded.push(*kernel),
            Err(LoadError::Refused(refusal)) => {
                left_out.push(Unloadable::refused(kernel.module, version, refusal));
            }
            Err(LoadError::Setup(error)) => return Err(failed(error)),
        }
    }
    Ok(Opened { gpu, loaded, left_out })
}

/// What a run measures: a kernel's workload, from these parameters.
#[derive(Clone, Copy)]
struct Job<'a> {
    spec: &'static KernelSpec,
    params: Params,
    block_sizes: &'a [u32],
}

/// Checks the request against the open device: every block size launchable with the
/// kernel's dynamic shared memory, the workload within free device memory and available host
/// memory.
fn check_request(
    gpu: &impl Device,
    job: Job,
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
) -> Result<(), Stop> {
    let usage = |message| Stop::new(exit::USAGE, message);
    let Job { spec, params, block_sizes } = job;
    cli::check_block_sizes(block_sizes, gpu.limits()).map_err(usage)?;
    cli::check_dynamic_shared_memory(block_sizes, |threads| (spec.dynamic_shared_memory)(&params, threads))
        .map_err(usage)?;
    let free = gpu.free_memory().map_err(failed)?;
    let scratch = scratch_bytes(gpu.limits());
    let footprint = (spec.footprint)(&params);
    cli::check_frame_fits(params.width, params.height, &footprint, scratch, free).map_err(usage)?;
    cli::check_host_memory(params.width, params.height, &footprint, crate::frame::host_memory_available())
        .map_err(usage)?;
    Ok(())
}

/// Opens the device for a run of one module: any module the driver cannot load stops the
/// run (exit 3) with its line; then [`check_request`].
fn open_one<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernel: ptx::KernelRef,
    job: Job,
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
) -> Result<D::Device, Stop> {
    let Opened { gpu, left_out, .. } = open_loading(driver, ordinal, &[kernel])?;
    if let Some(unloadable) = left_out.first() {
        return Err(Stop::new(exit::NO_DEVICE, unloadable.to_string()));
    }
    check_request(&gpu, job, scratch_bytes)?;
    Ok(gpu)
}

/// Opens the device for a run of several modules: each module the driver cannot load is
/// left out with one line on `console`'s stderr, and the rest run; none loadable is exit 3.
fn open_several<D: Driver>(
    driver: &D,
    ordinal: u32,
    kernels: &[ptx::KernelRef],
    job: Job,
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
    console: &mut Console,
) -> Result<Opened<D::Device>, Stop> {
    let opened = open_loading(driver, ordinal, kernels)?;
    for unloadable in &opened.left_out {
        console.err(&format!("Left out: {unloadable}\n"));
    }
    if opened.loaded.is_empty() {
        return Err(Stop::new(
            exit::NO_DEVICE,
            format!(
                "this driver (CUDA {}) can load none of the modules this command measures: each is named above",
                compat::driver_version_text(driver.cuda_version())
            ),
        ));
    }
    check_request(&opened.gpu, job, scratch_bytes)?;
    Ok(opened)
}

/// Device memory an L2 flush needs beside the frame: twice the L2, where asked.
fn flush_scratch(flush_l2: bool) -> impl FnOnce(&DeviceLimits) -> u64 {
    move |limits| if flush_l2 { 2 * u64::from(limits.l2_cache_bytes) } else { 0 }
}

/// The workload on the host (inputs and CPU reference); the host failing to hold it is bad
/// input, as a frame too large for the device is.
fn create_workload(spec: &KernelSpec, params: &Params) -> Result<Box<dyn Workload>, Stop> {
    (spec.create)(params).map_err(|error| Stop::new(exit::USAGE, format!("{error:#}")))
}

/// What a run's provenance is made of: the driver, the modules of the loaded `kernels` (one
/// per module) with their registers, the command line and the date. The first of `kernels`
/// is active afterwards.
fn run_facts(
    gpu: &mut dyn Gpu,
    cuda_version: i32,
    kernels: &[ptx::KernelRef],
    args: &[OsString],
) -> anyhow::Result<(Environment, String, String)> {
    let mut loaded = Vec::new();
    for &kernel in kernels {
        gpu.select_kernel(kernel)?;
        loaded.push((kernel.module, gpu.kernel_resources().ok().map(|r| r.registers_per_thread)));
    }
    if let Some(&first) = kernels.first() {
        gpu.select_kernel(first)?;
    }
    let environment = Environment {
        driver_release: provenance::driver_release(),
        driver_api_version: cuda_version,
        modules: loaded,
    };
    let command: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
    let date = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    Ok((environment, command.join(" "), date))
}

/// The `--provenance` lines for the loaded `kernels`, one per module.
fn provenance_lines(
    gpu: &mut dyn Gpu,
    cuda_version: i32,
    kernels: &[ptx::KernelRef],
    args: &[OsString],
) -> anyhow::Result<String> {
    let (environment, command, date) = run_facts(gpu, cuda_version, kernels, args)?;
    Ok(provenance::lines(gpu.limits(), &environment, &command, &date))
}

/// `block-size compare`: the kernel's modules on the same buffers, its CUDA C++ twin as the
/// baseline (or, where this driver cannot load that, the first module loaded).
fn run_compare<D: Driver>(
    driver: &D,
    options: &CompareOptions,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let spec = options.kernel;
    let kernels: Vec<ptx::KernelRef> = spec.modules.iter().map(|&module| spec.kernel_in(module)).collect();
    let job = Job { spec, params: options.params(), block_sizes: &options.block_sizes };
    let Opened { mut gpu, loaded, .. } = open_several(driver, options.device, &kernels, job, |_| 0, console)?;
    if options.provenance {
        let lines = provenance_lines(&mut gpu, driver.cuda_version(), &loaded, args);
        console.out(&lines.map_err(failed)?);
    }
    let mut workload = create_workload(spec, &job.params)?;
    workload.upload(&mut gpu).map_err(failed)?;
    let twin = spec.kernel_in(spec.baseline);
    let baseline = if loaded.contains(&twin) { twin } else { loaded[0] };
    let result = compare::run(
        &mut gpu,
        workload.as_mut(),
        &loaded,
        baseline,
        &options.block_sizes,
        options.warmups,
        options.rounds,
    )
    .map_err(failed)?;
    console.out(&report::comparison(&result));
    console.err(&report::comparison_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// `block-size variants`: every variant from both compilers (those this driver can load),
/// the copy ceiling, one table.
fn run_variants<D: Driver>(
    driver: &D,
    options: &VariantsOptions,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let all = variants::candidates();
    let kernels: Vec<ptx::KernelRef> = all.iter().map(|candidate| candidate.kernel).collect();
    // The copy needs a source and a destination of half a pass each: one more frame.
    let frame_bytes =
        crate::frame::bytes_moved_per_pass(u64::from(options.width) * u64::from(options.height));
    let offset_bytes = 64 * options.offset as u64;
    let spec = &crate::workload::grayscale::KERNEL;
    let job = Job { spec, params: options.params(), block_sizes: &options.block_sizes };
    let Opened { mut gpu, loaded, .. } = open_several(
        driver,
        options.device,
        &kernels,
        job,
        // Saturating: a count past 64 bits then fails the fit check's own checked sum.
        |_| frame_bytes.map_or(u64::MAX, |bytes| bytes.saturating_add(offset_bytes)),
        console,
    )?;
    let candidates: Vec<variants::Candidate> =
        all.into_iter().filter(|candidate| loaded.contains(&candidate.kernel)).collect();
    if options.provenance {
        // One line per module: its first loaded kernel stands for its file.
        let mut firsts: Vec<ptx::KernelRef> = Vec::new();
        for candidate in &candidates {
            if !firsts.iter().any(|first| first.module == candidate.kernel.module) {
                firsts.push(candidate.kernel);
            }
        }
        let lines = provenance_lines(&mut gpu, driver.cuda_version(), &firsts, args);
        console.out(&lines.map_err(failed)?);
    }
    let mut workload =
        GrayscaleWorkload::new(&job.params).map_err(|error| Stop::new(exit::USAGE, format!("{error:#}")))?;
    workload.upload(&mut gpu).map_err(failed)?;
    let timing = Timing { warmups: options.warmups, runs: options.runs, flush_l2: false };
    let rows = candidates.len() * options.block_sizes.len();
    let mut with_progress = WithProgress::new(&mut gpu, rows);
    let result = variants::run(
        &mut with_progress,
        &mut workload,
        &candidates,
        &options.block_sizes,
        timing,
        options.offset,
    );
    with_progress.finish();
    let result = result.map_err(failed)?;
    console.out(&report::variants(&result));
    console.err(&report::variants_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

fn open_stop(error: OpenError) -> Stop {
    match error {
        OpenError::NoDevice(error) => Stop::new(exit::NO_DEVICE, format!("{error:#}")),
        OpenError::Setup(error) => failed(error),
    }
}

/// `block-size tail`: one block size, grids of several waves, the same frame.
fn run_tail<D: Driver>(
    driver: &D,
    options: &TailOptions,
    args: &[OsString],
    console: &mut Console,
) -> Result<i32, Stop> {
    let spec = options.kernel;
    let kernel = spec.rust_kernel();
    let job = Job { spec, params: options.params(), block_sizes: &[options.threads_per_block] };
    let mut gpu = open_one(driver, options.device, kernel, job, flush_scratch(options.flush_l2))?;
    if options.provenance {
        let lines = provenance_lines(&mut gpu, driver.cuda_version(), &[kernel], args);
        console.out(&lines.map_err(failed)?);
    }
    let mut workload = create_workload(spec, &job.params)?;
    workload.upload(&mut gpu).map_err(failed)?;
    let timing = Timing { warmups: options.warmups, runs: options.runs, flush_l2: options.flush_l2 };
    let result = tail::run(&mut gpu, workload.as_mut(), options.threads_per_block, &options.waves, timing)
        .map_err(failed)?;
    console.out(&report::tail(&result));
    console.err(&report::tail_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// Parses the command line, or says how to stop: help and version print and exit 0,
/// anything else is a one-line usage error.
pub fn parse_or_stop(args: &[OsString]) -> Result<Request, Stop> {
    cli::parse(args).map_err(|error| match error {
        CliError::Info(info) => {
            let _ = info.print();
            Stop::new(exit::SUCCESS, String::new())
        }
        CliError::Usage(message) => Stop::new(exit::USAGE, message),
    })
}

/// Runs what the command line asks on the CUDA driver, printing to standard output and
/// error; `Ok` carries the exit status of a run that reached its table.
pub fn run(args: &[OsString]) -> Result<i32, Stop> {
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    run_with(&CudaDriver, args, &mut Console { out: &mut out, err: &mut err })
}

/// The `block-size-cuda` program: [`run_with`] on `driver`, a stop printed as one
/// `Error: ` line on `console`'s stderr; returns the exit status.
pub fn main_with<D: Driver>(driver: &D, args: &[OsString], console: &mut Console) -> i32 {
    run_with(driver, args, console).unwrap_or_else(|stop| {
        if !stop.message.is_empty() {
            console.err(&format!("Error: {}\n", stop.message));
        }
        stop.code
    })
}

/// Runs what the command line asks on `driver`, printing to `console`. A `Stop` is the
/// caller's to print, as `Error: ` and its message on one line.
pub fn run_with<D: Driver>(driver: &D, args: &[OsString], console: &mut Console) -> Result<i32, Stop> {
    let options = match parse_or_stop(args)? {
        Request::Occupancy(options) => {
            console.out(&report::occupancy(&options));
            return Ok(exit::SUCCESS);
        }
        Request::Compare(options) => return run_compare(driver, &options, args, console),
        Request::Tail(options) => return run_tail(driver, &options, args, console),
        Request::Variants(options) => return run_variants(driver, &options, args, console),
        Request::Sweep(options) => options,
    };
    let count = match options.device {
        DeviceChoice::One(ordinal) => {
            let result = sweep_device(driver, ordinal, &options, args, false, console)?;
            return Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED });
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
        match sweep_device(driver, ordinal, &options, args, several, console) {
            Ok(result) => {
                if !result.failures.is_empty() {
                    code = code.max(exit::FAILED);
                }
                summaries += &report::device_summary(&result);
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

/// One device's sweep: the table (streamed) or an export, failures on stderr, the plot.
/// With `several`, output and plot files get the device's ordinal in their name.
fn sweep_device<D: Driver>(
    driver: &D,
    ordinal: u32,
    options: &Options,
    args: &[OsString],
    several: bool,
    console: &mut Console,
) -> Result<Sweep, Stop> {
    let spec = options.kernel;
    let kernel = spec.rust_kernel();
    let job = Job { spec, params: options.params(), block_sizes: &options.block_sizes };
    let mut gpu = open_one(driver, ordinal, kernel, job, flush_scratch(options.flush_l2))?;

    let timing = Timing { warmups: options.warmups, runs: options.runs, flush_l2: options.flush_l2 };
    let (environment, command, date) =
        run_facts(&mut gpu, driver.cuda_version(), &[kernel], args).map_err(failed)?;
    let mut text = String::new();
    if options.provenance {
        text += &provenance::lines(gpu.limits(), &environment, &command, &date);
    }
    text += &report::header(gpu.limits(), &(spec.pass)(&job.params), timing);
    // The workload before the header: a host that cannot hold it is bad input, with nothing
    // on standard output.
    let mut workload = create_workload(spec, &job.params)?;
    // The table streams: its header is on the terminal while the sweep runs.
    let streaming = options.format.is_none() && options.output.is_none();
    if streaming {
        console.out(&text);
    }

    workload.upload(&mut gpu).map_err(failed)?;
    let mut with_progress = WithProgress::new(&mut gpu, options.block_sizes.len());
    let result = sweep::run(
        &mut with_progress,
        workload.as_mut(),
        &options.block_sizes,
        timing,
        options.corrupt_pixel,
    );
    with_progress.finish();
    let result = result.map_err(failed)?;

    let document = match options.format {
        None => text + &report::body(&result, options.stats),
        Some(format) => {
            let provenance = Provenance::new(gpu.limits(), &environment, &command, &date);
            export::render(&result, provenance, format).map_err(failed)?
        }
    };
    let name = |path: &std::path::Path| if several { per_device(path, ordinal) } else { path.to_path_buf() };
    match &options.output {
        Some(path) => std::fs::write(name(path), &document)
            .map_err(|error| failed(anyhow::anyhow!("writing {}: {error}", name(path).display())))?,
        None if streaming => console.out(&report::body(&result, options.stats)),
        None => console.out(&document),
    }
    console.err(&report::stderr(&result));
    if let Some(path) = &options.plot {
        plot::write(&result, &name(path)).map_err(failed)?;
    }
    Ok(result)
}

/// `sweep.json` for device 1 becomes `sweep-gpu1.json`.
pub fn per_device(path: &std::path::Path, ordinal: u32) -> std::path::PathBuf {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(extension) => format!("{stem}-gpu{ordinal}.{}", extension.to_string_lossy()),
        None => format!("{stem}-gpu{ordinal}"),
    };
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::per_device;
    use std::path::{Path, PathBuf};

    #[test]
    fn per_device_names_keep_folder_and_extension() {
        assert_eq!(per_device(Path::new("out/sweep.json"), 1), PathBuf::from("out/sweep-gpu1.json"));
        assert_eq!(per_device(Path::new("plot"), 0), PathBuf::from("plot-gpu0"));
    }
}
