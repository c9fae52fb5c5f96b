/*!
Sweep a kernel of your own: the runner as a library.

In your own host crate: embed the PTX cuda_builder wrote ([`EmbeddedPtx::user`]), describe the
kernel with a [`UserKernel`] (its entry point, or one per value of a tunable; its buffers; the
arguments of a launch; its dynamic shared memory per block size; what a pass covers and moves;
its checks), and sweep it on a [`Driver`] ([`CudaDriver`] for the GPU, `MockDriver` in tests)
with [`run`], which returns the same [`Sweep`] the `block-size` CLI renders, or with
[`run_and_print`], which prints it as `block-size` does (table, `--format`, `--output`,
`--plot`) and returns the exit status. [`SweepArgs`] gives your program the sweep's options.

Two ways to check a row ([`Check`]): against a CPU reference, or "the result at every block
size equals the first row's", bit for bit or within a tolerance ([`Agreement`]). Three grid
policies ([`GridPolicy`]): one full wave (the default), one thread per item, or `k` waves. A
tunable beyond the block size ([`UserKernel::tunable`]) runs the cross product, and the table
shows each combination with the tunable as its first column.

`examples/reduce/` is a whole host crate built this way, and `docs/sweep-your-own-kernel.md`
walks through it.

Exit statuses ([`exit`]) are `block-size`'s: 0 every check held, 1 a check failed (or the
driver failed mid-run), 2 bad input, 3 no driver, no GPU, or a driver that cannot load the PTX.
*/

mod args;
mod check;
mod kernel;
mod shape;

pub use self::args::{OutputFormat, SweepArgs};
pub use self::check::{Agreement, Check, ReferenceFn, Values};
pub use self::kernel::{Arg, Element, Readback, UserKernel};
pub use self::shape::{Shape, Variant};
pub use crate::backend::Driver;
pub use crate::cmd::device::{Console, Stop, exit};
pub use crate::cuda::CudaDriver;
pub use crate::export::Format;
pub use crate::grid::GridPolicy;
pub use crate::provenance::Provenance;
pub use crate::ptx::EmbeddedPtx;
pub use crate::sweep::{DEFAULT_BLOCK_SIZES, Sweep};
pub use crate::timing::{NoiseStop, Timing, TimingMode};

use crate::backend::{Device as _, Gpu as _, LoadError, OpenError};
use crate::cmd::device::{self, Facts, failed};
use crate::cmd::sweep::{Plan, body, header, stderr};
use crate::compat::{self, Unloadable};
use crate::frame_size::mib;
use crate::sweep::{self, Settings};
use crate::workload::Workload;
use std::ffi::OsString;
use std::path::PathBuf;

/// How to sweep: the device, the block sizes, the timing and the grid policy; and, for
/// [`run_and_print`], what to print where. [`Options::default`] is `block-size`'s defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// CUDA device ordinal.
    pub device: u32,
    /// Threads per block of each row, in order, each listed once.
    pub block_sizes: Vec<u32>,
    /// How each row is timed.
    pub timing: Timing,
    /// How many blocks each row launches.
    pub grid: GridPolicy,
    /// Add min, max and MAD columns to the table.
    pub stats: bool,
    /// An export instead of the table (`None`: the table).
    pub format: Option<Format>,
    /// Write the table or export here instead of standard output.
    pub output: Option<PathBuf>,
    /// Write an SVG plot here.
    pub plot: Option<PathBuf>,
    /// Print the provenance lines (PTX hash, driver, command, date) before the header.
    pub provenance: bool,
    /// The command line the provenance records (this process's by default).
    pub command: Vec<OsString>,
}

impl Default for Options {
    fn default() -> Self {
        SweepArgs::defaults().options().expect("the defaults are valid")
    }
}

/// A finished sweep of your kernel, with what rendering it needs.
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
        format!("{}{}", self.head, body(&self.sweep, stats))
    }

    /// The sweep as JSON, CSV or Markdown.
    pub fn export(&self, format: Format) -> anyhow::Result<String> {
        crate::export::render(&self.sweep, self.provenance.clone(), format)
    }

    /// The sweep as an SVG plot.
    pub fn plot(&self) -> anyhow::Result<String> {
        crate::plot::svg(&self.sweep)
    }

    /// One `check failed:` line per failed check and the verdict; empty where every check held.
    pub fn failures(&self) -> String {
        stderr(&self.sweep)
    }

    /// 0 where every check held, 1 where one failed.
    pub fn exit_code(&self) -> i32 {
        if self.sweep.failures.is_empty() { exit::SUCCESS } else { exit::FAILED }
    }
}

/// Sweeps `kernel` on `driver`'s device `options.device`: opens it, loads the kernel of every
/// value of the tunable, checks the request against the device, uploads the buffers, and runs
/// the sweep engine ([`sweep::measure`], as the CLI's sweep does) once per value, the values'
/// sweeps combined into one ([`crate::tunable::combine`]). Failed checks are in
/// [`Sweep::failures`]; a [`Stop`] is a run that did not reach its table, with its exit status.
pub fn run<D: Driver>(driver: &D, kernel: &mut UserKernel, options: &Options) -> Result<Measured, Stop> {
    measure(driver, kernel, options, &mut |_| {})
}

/// [`run`], printed as `block-size` prints a sweep: the head while the sweep runs, then the
/// table and summary (or the export of `options.format`, to `options.output` where given), the
/// plot where asked, failed checks on standard error. Returns the exit status ([`exit`]); a
/// stop is printed as one `Error: ` line on standard error.
pub fn run_and_print<D: Driver>(
    driver: &D,
    kernel: &mut UserKernel,
    options: &Options,
    console: &mut Console,
) -> i32 {
    let plan = Plan {
        streams: options.format.is_none() && options.output.is_none(),
        format: options.format,
        stats: options.stats,
        output: options.output.clone(),
        plot: options.plot.clone(),
    };
    let measured = measure(driver, kernel, options, &mut |head| {
        if plan.streams {
            console.out(head);
        }
    });
    let delivered = measured.and_then(|measured| {
        let delivery =
            plan.deliver(&measured.sweep, &measured.head, || measured.provenance.clone()).map_err(failed)?;
        delivery.perform(console)?;
        Ok(measured.exit_code())
    });
    delivered.unwrap_or_else(|stop| {
        if !stop.message.is_empty() {
            console.err(&format!("Error: {}\n", stop.message));
        }
        stop.code
    })
}

/// [`run_and_print`] with the options of `args` (your program's flattened [`SweepArgs`]):
/// options that do not hold are bad input, printed as one `Error: ` line (exit 2).
pub fn run_with_args<D: Driver>(
    driver: &D,
    kernel: &mut UserKernel,
    args: &SweepArgs,
    console: &mut Console,
) -> i32 {
    match args.options() {
        Ok(options) => run_and_print(driver, kernel, &options, console),
        Err(stop) => {
            console.err(&format!("Error: {}\n", stop.message));
            stop.code
        }
    }
}

/// Runs `program` with standard output and standard error as its [`Console`].
pub fn with_stdio<T>(program: impl FnOnce(&mut Console) -> T) -> T {
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    program(&mut Console { out: &mut out, err: &mut err })
}

/// The run, `head` handed to `on_head` before the first row is measured.
fn measure<D: Driver>(
    driver: &D,
    kernel: &mut UserKernel,
    options: &Options,
    on_head: &mut dyn FnMut(&str),
) -> Result<Measured, Stop> {
    let usage = |message: String| Stop::new(exit::USAGE, message);
    if options.block_sizes.is_empty() {
        return Err(usage("no block sizes to sweep".into()));
    }
    if let Some(size) = options.block_sizes.iter().find(|&&size| size == 0) {
        return Err(usage(format!("block size {size} is not a block size")));
    }
    crate::cmd::unique_block_sizes(&options.block_sizes).map_err(usage)?;
    kernel.validate().map_err(usage)?;
    let module = kernel.module();
    let kernels = kernel.kernels();
    for kernel_ref in &kernels {
        if crate::ptx::entry_params(module.ptx, kernel_ref.entry).is_none() {
            let entries = module.stamp().kernels.join(", ");
            return Err(usage(format!(
                "the {} PTX has no kernel `{}`; its kernels: {entries}",
                module.label, kernel_ref.entry
            )));
        }
    }
    kernel.prepare(&options.block_sizes);

    let version = driver.cuda_version();
    let mut gpu = driver.open(options.device).map_err(|error| match error {
        OpenError::NoDevice(error) => Stop::new(exit::NO_DEVICE, format!("{error:#}")),
        OpenError::Setup(error) => failed(error),
    })?;
    compat::check(module, version)
        .map_err(|unloadable| Stop::new(exit::NO_DEVICE, unloadable.to_string()))?;
    for kernel_ref in &kernels {
        gpu.load(kernel_ref).map_err(|error| match error {
            LoadError::Refused(refusal) => {
                Stop::new(exit::NO_DEVICE, Unloadable::refused(module, version, refusal).to_string())
            }
            LoadError::Setup(error) => failed(error),
        })?;
    }

    // The request against the device: block sizes, dynamic shared memory, device memory.
    device::check_block_sizes(&options.block_sizes, gpu.limits()).map_err(usage)?;
    for index in 0..kernels.len() {
        kernel.select(index);
        device::check_dynamic_shared_memory(&options.block_sizes, |threads| {
            Workload::dynamic_shared_memory(kernel, threads)
        })
        .map_err(usage)?;
    }
    let scratch = if options.timing.flushes() { 2 * u64::from(gpu.limits().l2_cache_bytes) } else { 0 };
    let needed = kernel.device_bytes(crate::grid::GridPolicy::largest_grid(
        kernel.pass().item_count(),
        &options.block_sizes,
    )) + scratch;
    let free = gpu.free_memory().map_err(failed)?;
    if needed > free {
        return Err(usage(format!(
            "the kernel's buffers need {:.1} MiB of device memory (and any L2 flush buffer), but only {:.1} MiB is free",
            mib(needed as f64),
            mib(free as f64)
        )));
    }

    let facts = Facts::gather(&mut gpu, version, &kernels, &options.command).map_err(failed)?;
    let mut head = if options.provenance { facts.lines(gpu.limits()) } else { String::new() };
    head += &header(gpu.limits(), kernel.pass(), options.timing);
    head += &options.grid.header_line();
    on_head(&head);

    kernel.upload(&mut gpu).map_err(failed)?;
    let settings = Settings {
        block_sizes: options.block_sizes.clone(),
        timing: options.timing,
        grid: options.grid,
        corrupt: None,
    };
    let mut parts = Vec::with_capacity(kernels.len());
    for (index, kernel_ref) in kernels.iter().enumerate() {
        gpu.select_kernel(*kernel_ref).map_err(failed)?;
        kernel.select(index);
        let part = sweep::measure(&mut gpu, kernel, &settings).map_err(failed)?;
        parts.push((kernel.variants()[index].value.clone().unwrap_or_default(), part));
    }
    let sweep = match kernel.tunable_name() {
        Some(name) => crate::tunable::combine(name, parts),
        None => parts.pop().map(|(_, sweep)| sweep),
    }
    .expect("a kernel has at least one value to sweep (validated)");
    let provenance = facts.provenance(&sweep.limits);
    Ok(Measured { sweep, provenance, head })
}

#[cfg(test)]
mod tests;
