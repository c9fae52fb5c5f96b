/*!
The sweep as a program: open the device, validate the request against it, run, print, and
choose the exit status. Used by the `block-size-cuda` binary, which `block-size` starts once
it has found a driver.
*/

use crate::backend::{DeviceLimits, Gpu, Timing};
use crate::cli::{
    self, CliError, CompareOptions, DeviceChoice, Options, Request, TailOptions, VariantsOptions,
};
use crate::cuda::{CudaGpu, OpenError};
use crate::frame::{Frame, luma::KERNEL_NAME};
use crate::progress::WithProgress;
use crate::provenance::{self, Environment, Provenance};
use crate::sweep::Sweep;
use crate::{compare, export, plot, ptx, report, sweep, tail, variants};
use std::ffi::OsString;
use std::io::Write as _;

/// Exit status for each way a run ends; `--help` documents the same numbers.
pub mod exit {
    /// Every check held.
    pub const SUCCESS: i32 = 0;
    /// A check failed, or the driver failed mid-run: the table is not a measurement.
    pub const FAILED: i32 = 1;
    /// Bad input: an option out of range, a block size the device cannot launch, a frame
    /// larger than the device's free memory.
    pub const USAGE: i32 = 2;
    /// No NVIDIA driver, no GPU, or no device at the requested index.
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

/// Opens the device with `modules` and checks the request against it: every block size
/// launchable, the frame within free memory.
fn open_checked(
    device: u32,
    kernels: &[ptx::KernelRef],
    block_sizes: &[u32],
    (width, height): (u32, u32),
    scratch_bytes: impl FnOnce(&DeviceLimits) -> u64,
) -> Result<CudaGpu, Stop> {
    let gpu = CudaGpu::open(device, kernels).map_err(open_stop)?;
    cli::check_block_sizes(block_sizes, gpu.limits()).map_err(|m| Stop::new(exit::USAGE, m))?;
    let free = gpu.free_memory().map_err(failed)?;
    let scratch = scratch_bytes(gpu.limits());
    cli::check_frame_fits(width, height, scratch, free).map_err(|m| Stop::new(exit::USAGE, m))?;
    Ok(gpu)
}

/// Device memory an L2 flush needs beside the frame: twice the L2, where asked.
fn flush_scratch(flush_l2: bool) -> impl FnOnce(&DeviceLimits) -> u64 {
    move |limits| if flush_l2 { 2 * u64::from(limits.l2_cache_bytes) } else { 0 }
}

/// The grayscale kernel of each of `modules`.
fn grayscale_of(modules: &[ptx::EmbeddedPtx]) -> Vec<ptx::KernelRef> {
    modules.iter().map(|module| module.kernel(KERNEL_NAME)).collect()
}

/// What a run's provenance is made of: the driver, the loaded `modules` with the registers
/// of their kernels `kernel_indices`, the command line and the date.
fn run_facts(
    gpu: &mut CudaGpu,
    modules: &[ptx::EmbeddedPtx],
    kernel_indices: &[usize],
    args: &[OsString],
) -> anyhow::Result<(Environment, String, String)> {
    let mut loaded = Vec::new();
    for (module, &index) in modules.iter().zip(kernel_indices) {
        gpu.select_kernel(index)?;
        loaded.push((*module, gpu.kernel_resources().ok().map(|r| r.registers_per_thread)));
    }
    gpu.select_kernel(0)?;
    let environment = Environment {
        driver_release: provenance::driver_release(),
        driver_api_version: gpu.driver_api_version(),
        modules: loaded,
    };
    let command: Vec<String> = args.iter().map(|arg| arg.to_string_lossy().into_owned()).collect();
    let date = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    Ok((environment, command.join(" "), date))
}

/// The `--provenance` lines for the loaded `modules`, whose kernels are `kernel_indices`.
fn provenance_lines(
    gpu: &mut CudaGpu,
    modules: &[ptx::EmbeddedPtx],
    kernel_indices: &[usize],
    args: &[OsString],
) -> anyhow::Result<String> {
    let (environment, command, date) = run_facts(gpu, modules, kernel_indices, args)?;
    Ok(provenance::lines(gpu.limits(), &environment, &command, &date))
}

/// `block-size compare`: the three modules on the same buffers, nvcc as the baseline.
fn run_compare(options: &CompareOptions, args: &[OsString]) -> Result<i32, Stop> {
    let modules = ptx::ALL;
    let mut gpu = open_checked(
        options.device,
        &grayscale_of(&modules),
        &options.block_sizes,
        (options.width, options.height),
        |_| 0,
    )?;
    if options.provenance {
        print!("{}", provenance_lines(&mut gpu, &modules, &[0, 1, 2, 3], args).map_err(failed)?);
    }
    let frame = Frame::synthetic(options.width, options.height).map_err(failed)?;
    gpu.upload(&frame).map_err(failed)?;
    let labels: Vec<&str> = modules.iter().map(|module| module.label).collect();
    let baseline = modules.iter().position(|module| *module == ptx::NVCC).expect("nvcc is loaded");
    let result = compare::run(
        &mut gpu,
        &frame,
        &labels,
        baseline,
        &options.block_sizes,
        options.warmups,
        options.rounds,
    )
    .map_err(failed)?;
    print!("{}", report::comparison(&result));
    eprint!("{}", report::comparison_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

/// `block-size variants`: every variant from both compilers, the copy ceiling, one table.
fn run_variants(options: &VariantsOptions, args: &[OsString]) -> Result<i32, Stop> {
    let candidates = variants::candidates();
    let kernels: Vec<ptx::KernelRef> = candidates.iter().map(|candidate| candidate.kernel).collect();
    // The copy needs a source and a destination of half a pass each: one more frame.
    let frame_bytes =
        crate::frame::bytes_moved_per_pass(u64::from(options.width) * u64::from(options.height));
    let mut gpu = open_checked(
        options.device,
        &kernels,
        &options.block_sizes,
        (options.width, options.height),
        |_| frame_bytes + 64 * options.offset as u64,
    )?;
    if options.provenance {
        // One line per module: the Rust k1 and the C++ k1 kernels stand for their files.
        print!(
            "{}",
            provenance_lines(&mut gpu, &[ptx::RUST_CUDA, ptx::NVCC], &[0, candidates.len() / 2], args)
                .map_err(failed)?
        );
    }
    let frame = Frame::synthetic(options.width, options.height).map_err(failed)?;
    gpu.upload_at(&frame, options.offset).map_err(failed)?;
    let timing = Timing { warmups: options.warmups, runs: options.runs, flush_l2: false };
    let rows = candidates.len() * options.block_sizes.len();
    let mut with_progress = WithProgress::new(&mut gpu, rows);
    let result =
        variants::run(&mut with_progress, &frame, &candidates, &options.block_sizes, timing, options.offset);
    with_progress.finish();
    let result = result.map_err(failed)?;
    print!("{}", report::variants(&result));
    eprint!("{}", report::variants_stderr(&result));
    Ok(if result.failures.is_empty() { exit::SUCCESS } else { exit::FAILED })
}

fn open_stop(error: OpenError) -> Stop {
    match error {
        OpenError::NoDevice(error) => Stop::new(exit::NO_DEVICE, format!("{error:#}")),
        OpenError::Setup(error) => failed(error),
    }
}

/// `block-size tail`: one block size, grids of several waves, the same frame.
fn run_tail(options: &TailOptions, args: &[OsString]) -> Result<i32, Stop> {
    let mut gpu = open_checked(
        options.device,
        &grayscale_of(&[ptx::RUST_CUDA]),
        &[options.threads_per_block],
        (options.width, options.height),
        flush_scratch(options.flush_l2),
    )?;
    if options.provenance {
        print!("{}", provenance_lines(&mut gpu, &[ptx::RUST_CUDA], &[0], args).map_err(failed)?);
    }
    let frame = Frame::synthetic(options.width, options.height).map_err(failed)?;
    gpu.upload(&frame).map_err(failed)?;
    let timing = Timing { warmups: options.warmups, runs: options.runs, flush_l2: options.flush_l2 };
    let result =
        tail::run(&mut gpu, &frame, options.threads_per_block, &options.waves, timing).map_err(failed)?;
    print!("{}", report::tail(&result));
    eprint!("{}", report::tail_stderr(&result));
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

/// Runs what the command line asks; `Ok` carries the exit status of a run that reached its
/// table.
pub fn run(args: &[OsString]) -> Result<i32, Stop> {
    let options = match parse_or_stop(args)? {
        Request::Occupancy(options) => {
            print!("{}", report::occupancy(&options));
            return Ok(exit::SUCCESS);
        }
        Request::Compare(options) => return run_compare(&options, args),
        Request::Tail(options) => return run_tail(&options, args),
        Request::Variants(options) => return run_variants(&options, args),
        Request::Sweep(options) => options,
    };
    let ordinals = match options.device {
        DeviceChoice::One(ordinal) => vec![ordinal],
        DeviceChoice::All => {
            let count =
                CudaGpu::device_count().map_err(|error| Stop::new(exit::NO_DEVICE, format!("{error:#}")))?;
            (0..count).collect()
        }
    };
    let several = ordinals.len() > 1;
    let mut code = exit::SUCCESS;
    let mut summaries = String::new();
    for (position, &ordinal) in ordinals.iter().enumerate() {
        if position > 0 {
            println!();
        }
        let result = sweep_device(ordinal, &options, args, several)?;
        if !result.failures.is_empty() {
            code = exit::FAILED;
        }
        summaries += &report::device_summary(&result);
    }
    if options.device == DeviceChoice::All {
        print!("\n{summaries}");
    }
    Ok(code)
}

/// One device's sweep: the table (streamed) or an export, failures on stderr, the plot.
/// With `several`, output and plot files get the device's ordinal in their name.
fn sweep_device(ordinal: u32, options: &Options, args: &[OsString], several: bool) -> Result<Sweep, Stop> {
    let mut gpu = open_checked(
        ordinal,
        &grayscale_of(&[ptx::RUST_CUDA]),
        &options.block_sizes,
        (options.width, options.height),
        flush_scratch(options.flush_l2),
    )?;

    let timing = Timing { warmups: options.warmups, runs: options.runs, flush_l2: options.flush_l2 };
    let (environment, command, date) = run_facts(&mut gpu, &[ptx::RUST_CUDA], &[0], args).map_err(failed)?;
    let mut text = String::new();
    if options.provenance {
        text += &provenance::lines(gpu.limits(), &environment, &command, &date);
    }
    text += &report::header(gpu.limits(), options.width, options.height, timing);
    // The table streams: its header is on the terminal while the sweep runs.
    let streaming = options.format.is_none() && options.output.is_none();
    let mut stdout = std::io::stdout().lock();
    if streaming {
        let _ = write!(stdout, "{text}");
        let _ = stdout.flush();
    }

    let frame = Frame::synthetic(options.width, options.height).map_err(failed)?;
    gpu.upload(&frame).map_err(failed)?;
    let mut with_progress = WithProgress::new(&mut gpu, options.block_sizes.len());
    let result = sweep::run(&mut with_progress, &frame, &options.block_sizes, timing, options.corrupt_pixel);
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
        None if streaming => {
            let _ = write!(stdout, "{}", report::body(&result, options.stats));
        }
        None => {
            let _ = write!(stdout, "{document}");
        }
    }
    let _ = stdout.flush();
    eprint!("{}", report::stderr(&result));
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
