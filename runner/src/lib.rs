/*!
Sweep the block size of a CUDA kernel written in Rust: for each block size, the driver's
occupancy answer, one full wave of blocks (or a grid policy of your choice), CUDA-event timing
until the samples are steady, a check of every row, and `block_size.cu`'s table; exports
(JSON, CSV, Markdown, a self-contained HTML report) and an SVG plot. Then the same kernel
against its CUDA C++ twin ([`compare`]), the tail effect ([`tail`]) and its shapes against a
copy ceiling ([`variants`]).

The public face is small (at most `MAX_PUBLIC_ITEMS` of `xtask/src/public_items.rs`, `cargo xtask
public-items`):

- the kernel: [`Kernel`], its PTX ([`EmbeddedPtx`]) and entry points ([`KernelRef`]), its twins,
  buffers of an [`Element`] type, launch [`Arg`]s, dynamic shared memory, [`Axis`]es beyond the
  block size (each configuration a [`Variant`], each launch a [`LaunchShape`]), its result
  ([`Readback`] to [`Values`]) and its [`Check`] ([`Agreement`]); this repository's own kernels
  are described the same way (the `block-size-builtin` crate);
- the options: [`SweepArgs`], [`CompareArgs`], [`TailArgs`] and [`VariantsArgs`], each
  command's options as `block-size` takes them (clap `Args`: flatten them into your program's
  parser, or [`SweepArgs::from_args`] and its siblings), with `block-size`'s defaults and the
  validation `block-size` runs too ([`SweepArgs::validate_for`] and its siblings); blocks as
  shapes ([`BlockShape`]) for a kernel over a 2-D or 3-D domain ([`Kernel::domain`]; each
  launch's [`GridShape`]), the grid policies ([`GridPolicy`]) and the exports ([`Format`]);
- the commands, on a [`Driver`] ([`CudaDriver`]; with the `mock` feature, `mock::MockDriver`,
  a CPU stand-in running a CPU emulation of your kernel): [`sweep`] (one device, its
  [`Measured`] result) and [`sweep_and_print`] (one device or all, printed as `block-size`
  prints), [`compare`] (against its twins), [`tail`] and [`variants`]; [`commands`] holds the
  GPU-free ones (`diff`, `merge`, `report`, `occupancy`) and the supervisor of a sweep;
- the error: [`Error`], one line and the exit status it maps to ([`exit`]), printed through a
  [`Console`] ([`with_stdio`]);
- the program: [`launch`], the launcher half of a program in two binaries that starts where no
  driver is installed, and runs the sweep in a supervised worker.

```no_run
use block_size_runner::{Agreement, Arg, Check, CudaDriver, EmbeddedPtx, Kernel, SweepArgs};

// Your kernel's PTX as cuda_builder wrote it, embedded in the program.
const PTX: EmbeddedPtx = EmbeddedPtx::user("reduce", include_str!("../../examples/reduce/ptx/reduce.ptx"));

// `sum_of_squares(x: *const f32, n: usize, partials: *mut f32)`: one f32 partial per block,
// one f32 of dynamic shared memory per thread.
let n = 1 << 24;
let kernel = Kernel::new(PTX, "sum_of_squares")
    .items(n as u64, "values")
    .bytes_per_pass(4 * n as u64, "moved per pass")
    .input("x", vec![0.5f32; n])
    .output_per_block::<f32>("partials")
    .dynamic_shared_memory(|threads, _| threads * 4)
    .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("partials")])
    .result(|out, _| Ok(out.of::<f32>("partials")?.iter().map(|&p| f64::from(p)).sum::<f64>().into()))
    // Every row's sum within a millionth of the first row's (a float sum's rounding depends on
    // the block size); `Check::reference` compares with a CPU reference instead.
    .check(Check::same_as_first(Agreement::Within(1e-6)));

// The sweep's options as `block-size` takes them; a program's own parser can flatten them in.
let options = SweepArgs::from_args(["--block-sizes", "128,256,512,1024", "--grid", "per-item"]).expect("options");
match block_size_runner::sweep(&CudaDriver, &kernel, &options) {
    Ok(measured) => {
        print!("{}", measured.table(false));
        eprint!("{}", measured.failures());
        std::process::exit(measured.exit_status());
    }
    Err(error) => {
        eprintln!("Error: {error}");
        std::process::exit(error.exit_status());
    }
}
```
*/

#![warn(missing_docs)]

// The layers, bottom to top: each imports only those below it (tests/tests/layers.rs).
pub mod commands;
mod error;
mod files;
mod kernel;
mod measure;
mod model;
mod results;
mod search;

#[cfg(any(test, feature = "mock"))]
pub use crate::measure::gpu::mock;

#[cfg(test)]
mod tests;

/// docs/library.md, whose examples run as this crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/library.md")]
pub struct LibraryGuide;

/// The fuzz targets' entry points (`fuzz/`, `scripts/fuzz`), each the reader the program uses
/// on one kind of outside input and what it does with what it read: behind the `fuzzing`
/// feature, and not an API. A panic is the crash a target looks for.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::commands::fuzzing::{
        diff, emitted_winners, journal, kernel_tuner_cache, merge, ptx, report, stamp,
    };
}

/// The internals this repository's own tests hold against the committed PTX files (entry
/// signatures, the ISA floor, the blocking kernel): behind the tests-only `mock` feature, and
/// not an API.
#[cfg(feature = "mock")]
#[doc(hidden)]
pub mod testing {
    pub use crate::measure::gpu::backend::check_args;
    pub use crate::measure::gpu::compat::{
        ISA_FLOOR, ISA_RELEASES, Isa, Refusal, Unloadable, check as compat_check, parse_isa,
    };
    pub use crate::measure::gpu::ptx::{BLOCKING_MODULE, KernelRef, entry_params};
    pub use crate::model::ptx_facts::PtxFacts;
    /// The blocking kernel's entry point in [`BLOCKING_MODULE`].
    pub const BLOCKING_ENTRY: &str = crate::measure::sampling::timing::BLOCKING_KERNEL.entry;
}

pub use crate::commands::compare::compare;
pub use crate::commands::launch::launch;
pub use crate::commands::options::{CompareArgs, SweepArgs, TailArgs, VariantsArgs};
pub use crate::commands::sweep::{Measured, open_early, sweep, sweep_and_print};
pub use crate::commands::tail::tail;
pub use crate::commands::variants::variants;
pub use crate::error::{Console, Error, exit, with_stdio};
pub use crate::kernel::{
    Agreement, Arg, Axis, Check, Element, Kernel, LaunchShape, Readback, Values, Variant,
};
pub use crate::measure::gpu::backend::{Driver, EarlyOpen};
pub use crate::measure::gpu::cuda::CudaDriver;
pub use crate::measure::gpu::ptx::{EmbeddedPtx, KernelRef};
pub use crate::model::block_shape::{BlockShape, GridShape};
pub use crate::model::grid::GridPolicy;
pub use crate::results::export::Format;
