/*!
Sweep the block size of a CUDA kernel written in Rust: for each block size, the driver's
occupancy answer, one full wave of blocks (or a grid policy of your choice), CUDA-event timing
until the samples are steady, a check of every row, and `block_size.cu`'s table; exports
(JSON, CSV, Markdown, a self-contained HTML report) and an SVG plot.

The public face is small:

- the kernel: [`UserKernel`] (its PTX, [`EmbeddedPtx`], and entry points, buffers, launch
  [`Arg`]s, dynamic shared memory, [`Axis`]es beyond the block size), checked by a [`Check`];
- the settings: [`Settings`] and [`TimingSettings`], with `block-size`'s defaults and the one
  validation `block-size` runs too;
- the results: [`Measured`] (a [`Sweep`] with its provenance, rendered as `block-size` renders
  it), and the types of its rows in [`results`];
- the error: [`Error`], one line and the exit status it maps to ([`exit`]).

[`sweep`] measures one device, [`sweep_each_device`] every device, [`sweep_and_print`] prints
as `block-size` prints. [`CudaDriver`] is the GPU; with the `mock` feature, `mock` is a CPU
stand-in for tests, running a CPU emulation of your kernel. [`commands`] is what the
`block-size` CLI runs for this repository's own kernels.

```no_run
use block_size_runner::{Agreement, Arg, Check, CudaDriver, EmbeddedPtx, GridPolicy, Settings, UserKernel};

// Your kernel's PTX as cuda_builder wrote it: usually `include_str!("../ptx/mine.ptx")` in a
// `const` (`EmbeddedPtx::user`); here read at run time.
let text = std::fs::read_to_string("examples/reduce/ptx/reduce.ptx")?;
let ptx = EmbeddedPtx::from_string("reduce", text);

// `sum_of_squares(x: *const f32, n: usize, partials: *mut f32)`: one f32 partial per block,
// one f32 of dynamic shared memory per thread.
let n = 1 << 24;
let mut kernel = UserKernel::new(ptx, "sum_of_squares")
    .items(n as u64, "values")
    .bytes_per_pass(4 * n as u64)
    .input("x", vec![0.5f32; n])
    .output_per_block::<f32>("partials")
    .dynamic_shared_memory(|threads, _| threads * 4)
    .args(move |_| vec![Arg::buffer("x"), Arg::Usize(n), Arg::buffer("partials")])
    .result(|out, _| Ok(out.f32("partials")?.iter().map(|&p| f64::from(p)).sum::<f64>().into()))
    // Every row's sum within a millionth of the first row's (a float sum's rounding depends on
    // the block size); `Check::reference` compares with a CPU reference instead.
    .check(Check::same_as_first(Agreement::Within(1e-6)));

let settings = Settings { block_sizes: vec![128, 256, 512, 1024], grid: GridPolicy::PerItem, ..Settings::default() };
match block_size_runner::sweep(&CudaDriver, &mut kernel, &settings) {
    Ok(measured) => {
        print!("{}", measured.report(false));
        eprint!("{}", measured.failures());
        std::process::exit(measured.exit_status());
    }
    Err(error) => {
        eprintln!("Error: {error}");
        std::process::exit(error.exit_status());
    }
}
# Ok::<(), std::io::Error>(())
```
*/

#![warn(missing_docs)]

mod axes;
mod backend;
mod checked;
mod cmd;
mod compare;
mod compat;
mod cuda;
mod diff;
mod document;
pub mod emit;
mod error;
mod export;
mod frame_size;
mod grid;
mod interrupt;
mod journal;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
mod model;
mod occupancy;
mod plot;
mod progress;
mod provenance;
mod prune;
mod ptx;
pub mod race;
mod report;
mod settings;
// The provenance stamp, shared with the PTX builders and the repository tests (stamp/): the
// same file, linked in, so this crate packages without a path dependency.
mod axes_sweep;
#[allow(dead_code)]
mod stamp;
mod stats;
mod supervise;
mod sweep;
mod tail;
mod timing;
mod user;
mod variants;
mod watchdog;
#[cfg(feature = "mock")]
#[doc(hidden)]
pub mod workload;
#[cfg(not(feature = "mock"))]
mod workload;

#[cfg(test)]
mod tests;

/// The internals this repository's own tests hold against the committed PTX files (entry
/// signatures, weights, ISA floor) and drive the engines with: behind the tests-only `mock`
/// feature, and not an API.
#[cfg(feature = "mock")]
#[doc(hidden)]
pub mod testing {
    pub use crate::backend::check_args;
    pub use crate::compat::{
        ISA_FLOOR, ISA_RELEASES, Isa, Refusal, Unloadable, check as compat_check, parse_isa,
    };
    pub use crate::ptx::{
        ALL, HISTOGRAM_NVCC, KernelRef, NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA, entry_params,
    };
    pub use crate::sweep::run as sweep;
    pub use crate::timing::BLOCKING_KERNEL;
    pub use crate::variants::VARIANTS;
    pub use crate::workload::grayscale::frame::luma;
    pub use crate::workload::histogram::reference::{quantise, synthetic_luma12};
}

pub use crate::axes::{Axis, AxisValues};
pub use crate::backend::Driver;
pub use crate::cmd::sweep::Measured;
pub use crate::cuda::CudaDriver;
pub use crate::error::{Console, Error, exit, with_stdio};
pub use crate::export::{Format, SCHEMA_VERSION};
pub use crate::grid::GridPolicy;
pub use crate::ptx::EmbeddedPtx;
pub use crate::race::Search;
pub use crate::settings::{DEFAULT_BLOCK_SIZES, DeviceChoice, Settings, TimingSettings};
pub use crate::sweep::Sweep;
pub use crate::timing::TimingMode;
pub use crate::user::{
    Agreement, Arg, Check, Element, Readback, ReferenceFn, Shape, UserKernel, Values, Variant,
};

/// The types a [`Sweep`] is made of: its rows, their statistics, the device, the checks.
pub mod results {
    pub use crate::backend::{DeviceLimits, KernelResources, Suggestion};
    pub use crate::model::Limiter;
    pub use crate::provenance::Provenance;
    pub use crate::stats::RunStats;
    pub use crate::sweep::{CheckFailure, ModelCheck, Row};
    pub use crate::timing::{L2Flush, NoiseStop, Stopped, Timing};
    pub use crate::workload::{Items, Mismatch, Pass};
}

/// What the `block-size` CLI runs: each subcommand as a typed request (validated here, not by
/// a command-line parser) and its `exec`, for this repository's own kernels.
pub mod commands {
    pub use crate::cmd::compare::{CompareRequest, DEFAULT_ROUNDS};
    pub use crate::cmd::diff::DiffRequest;
    pub use crate::cmd::occupancy::{DEFAULT_REGISTERS, OccupancyRequest, presets};
    pub use crate::cmd::report::ReportRequest;
    pub use crate::cmd::sweep::{KernelAxes, SweepRequest};
    pub use crate::cmd::tail::{DEFAULT_WAVES, TailRequest};
    pub use crate::cmd::variants::{VARIANT_BLOCK_SIZES, VariantsRequest};
    pub use crate::cmd::{
        DEFAULT_BINS, DEFAULT_HEIGHT, DEFAULT_RUNS, DEFAULT_WIDTH, KernelChoice, MAX_BINS, kernels,
    };
    pub use crate::diff::{CONFIDENCE, DEFAULT_THRESHOLD, RESAMPLES, Verdict};
    pub use crate::settings::{
        DEFAULT_MAX_NOISE, DEFAULT_MAX_TIME_PER_ROW, DEFAULT_MIN_RUNS, DEFAULT_WARMUPS,
    };
    pub use crate::supervise::supervise;
    pub use crate::timing::DEFAULT_BATCH_LAUNCHES;

    /// `block-size compare`.
    pub fn compare<D: crate::Driver>(
        driver: &D,
        request: &CompareRequest,
        console: &mut crate::Console,
    ) -> Result<i32, crate::Error> {
        crate::cmd::compare::exec(driver, request, console)
    }

    /// `block-size diff`, which needs no GPU: two sweeps' JSON exports compared configuration
    /// by configuration. `Ok` carries the exit status: 0, or 1 with
    /// [`DiffRequest::fail_if_slower`] where a configuration is SLOWER.
    pub fn diff(request: &DiffRequest, console: &mut crate::Console) -> Result<i32, crate::Error> {
        crate::cmd::diff::exec(request, console)
    }

    /// `block-size occupancy`, which needs no GPU: the calculator's tables.
    pub fn occupancy(request: &OccupancyRequest) -> Result<String, crate::Error> {
        crate::cmd::occupancy::exec(request)
    }

    /// `block-size report`, which needs no GPU: the HTML report of a sweep's JSON export,
    /// written to [`ReportRequest::html`].
    pub fn report(request: &ReportRequest) -> Result<(), crate::Error> {
        crate::cmd::report::exec(request)
    }

    /// `block-size`'s sweep of one of this repository's kernels.
    pub fn sweep<D: crate::Driver>(
        driver: &D,
        request: &SweepRequest,
        console: &mut crate::Console,
    ) -> Result<i32, crate::Error> {
        crate::cmd::sweep::exec(driver, request, console)
    }

    /// `block-size tail`.
    pub fn tail<D: crate::Driver>(
        driver: &D,
        request: &TailRequest,
        console: &mut crate::Console,
    ) -> Result<i32, crate::Error> {
        crate::cmd::tail::exec(driver, request, console)
    }

    /// `block-size variants`.
    pub fn variants<D: crate::Driver>(
        driver: &D,
        request: &VariantsRequest,
        console: &mut crate::Console,
    ) -> Result<i32, crate::Error> {
        crate::cmd::variants::exec(driver, request, console)
    }
}

/// Sweeps `kernel` on `driver`'s device [`Settings::device`] and returns what it measured;
/// failed checks are in its [`Sweep::failures`] ([`Measured::exit_status`] 1). An [`Error`] is a
/// run that did not reach its table: bad settings or a kernel description that does not hold
/// (exit 2, before the device is touched), no device (3), the driver failing mid-run (1).
/// With [`DeviceChoice::All`], use [`sweep_each_device`] or [`sweep_and_print`].
pub fn sweep<D: Driver>(driver: &D, kernel: &mut UserKernel, settings: &Settings) -> Result<Measured, Error> {
    let DeviceChoice::One(ordinal) = settings.device else {
        return Err(Error::new(
            exit::USAGE,
            "sweep() measures one device; for every device use sweep_each_device() or sweep_and_print()",
        ));
    };
    let timing = user::prepare(kernel, settings)?;
    cmd::sweep::measure(driver, ordinal, kernel, settings, timing, &mut |_| {})
}

/// [`sweep`] on every visible device in turn (whatever [`Settings::device`] says), one result
/// per device ordinal; `Err` where the settings do not hold or no device can be counted.
pub fn sweep_each_device<D: Driver>(
    driver: &D,
    kernel: &mut UserKernel,
    settings: &Settings,
) -> Result<Vec<Result<Measured, Error>>, Error> {
    let timing = user::prepare(kernel, settings)?;
    let count = driver.device_count().map_err(|error| Error::new(exit::NO_DEVICE, format!("{error:#}")))?;
    Ok((0..count)
        .map(|ordinal| cmd::sweep::measure(driver, ordinal, kernel, settings, timing, &mut |_| {}))
        .collect())
}

/// [`sweep`], printed as `block-size` prints a sweep: the head while the sweep runs, then the
/// table and summary (or the export of [`Settings::format`], to [`Settings::output`] where
/// given), the plot where asked, failed checks on standard error; with [`DeviceChoice::All`],
/// every device and a summary line each. Returns the exit status ([`exit`]); an error is printed
/// as one `Error: ` line on standard error.
pub fn sweep_and_print<D: Driver>(
    driver: &D,
    kernel: &mut UserKernel,
    settings: &Settings,
    console: &mut Console,
) -> i32 {
    let mut run = |console: &mut Console| {
        let timing = user::prepare(kernel, settings)?;
        if driver.isolates() && !supervise::is_worker() {
            // This program again, as a supervised worker: the same command line makes the
            // same kernel, and a fault or a hang costs that worker only.
            let program = std::env::current_exe().map_err(|error| {
                Error::new(exit::FAILED, format!("cannot find this program to run it as a worker: {error}"))
            })?;
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            return supervise::supervise(&program, &args, settings.journal.as_deref());
        }
        cmd::sweep::on_devices(driver, kernel, settings, timing, console)
    };
    run(console).unwrap_or_else(|error| console.report(&error))
}
