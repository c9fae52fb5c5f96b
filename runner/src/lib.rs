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

// The layers, bottom to top: each imports only those below it (tests/tests/layers.rs).
pub mod commands;
mod error;
mod kernel;
mod measure;
mod model;
pub mod results;
mod search;

#[cfg(feature = "mock")]
#[doc(hidden)]
pub use crate::kernel::workload;
#[cfg(any(test, feature = "mock"))]
pub use crate::measure::mock;

#[cfg(test)]
mod tests;

/// The internals this repository's own tests hold against the committed PTX files (entry
/// signatures, weights, ISA floor) and drive the engines with: behind the tests-only `mock`
/// feature, and not an API.
#[cfg(feature = "mock")]
#[doc(hidden)]
pub mod testing {
    pub use crate::commands::variants::engine::VARIANTS;
    pub use crate::kernel::workload::grayscale::frame::luma;
    pub use crate::kernel::workload::histogram::reference::{quantise, synthetic_luma12};
    pub use crate::measure::backend::check_args;
    pub use crate::measure::compat::{
        ISA_FLOOR, ISA_RELEASES, Isa, Refusal, Unloadable, check as compat_check, parse_isa,
    };
    pub use crate::measure::ptx::{
        ALL, HISTOGRAM_NVCC, KernelRef, NVCC, RUST_CUDA, RUSTC_NVPTX, RUSTC_NVPTX_FMA, entry_params,
    };
    pub use crate::measure::timing::BLOCKING_KERNEL;
    pub use crate::search::sweep::run as sweep;
}

pub use crate::commands::settings::{DeviceChoice, Settings, TimingSettings};

pub use crate::commands::sweep::Measured;
pub use crate::error::{Console, Error, exit, with_stdio};
pub use crate::kernel::axes::Axis;
pub use crate::kernel::{
    Agreement, Arg, Check, Element, Readback, ReferenceFn, Shape, UserKernel, Values, Variant,
};
pub use crate::measure::backend::Driver;
pub use crate::measure::cuda::CudaDriver;
pub use crate::measure::ptx::EmbeddedPtx;
pub use crate::measure::timing::TimingMode;
pub use crate::model::axis_values::AxisValues;
pub use crate::model::grid::GridPolicy;
pub use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
pub use crate::results::export::Format;
pub use crate::results::schema::SCHEMA_VERSION;
pub use crate::search::strategy::Search;
pub use crate::search::sweep::Sweep;

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
    let timing = crate::commands::sweep::user::prepare(kernel, settings)?;
    crate::commands::sweep::measure(driver, ordinal, kernel, settings, timing, &mut |_| {})
}

/// [`sweep`] on every visible device in turn (whatever [`Settings::device`] says), one result
/// per device ordinal; `Err` where the settings do not hold or no device can be counted.
pub fn sweep_each_device<D: Driver>(
    driver: &D,
    kernel: &mut UserKernel,
    settings: &Settings,
) -> Result<Vec<Result<Measured, Error>>, Error> {
    let timing = crate::commands::sweep::user::prepare(kernel, settings)?;
    let count = driver.device_count().map_err(|error| Error::new(exit::NO_DEVICE, format!("{error:#}")))?;
    Ok((0..count)
        .map(|ordinal| {
            crate::commands::sweep::measure(driver, ordinal, kernel, settings, timing, &mut |_| {})
        })
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
        let timing = crate::commands::sweep::user::prepare(kernel, settings)?;
        if driver.isolates() && !crate::measure::supervise::is_worker() {
            // This program again, as a supervised worker: the same command line makes the
            // same kernel, and a fault or a hang costs that worker only.
            let program = std::env::current_exe().map_err(|error| {
                Error::new(exit::FAILED, format!("cannot find this program to run it as a worker: {error}"))
            })?;
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            return crate::measure::supervise::supervise(&program, &args, settings.journal.as_deref());
        }
        crate::commands::sweep::on_devices(driver, kernel, settings, timing, console)
    };
    run(console).unwrap_or_else(|error| console.report(&error))
}
