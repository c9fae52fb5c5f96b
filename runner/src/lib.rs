/*!
Host side of the Rust block-size sweep.

The pipeline is [`cli`] (one clap parser over the subcommands of [`cmd`], each of which holds
its options, its run and its report) → [`workload`] (the kernel measured: its buffers, launch
arguments, dynamic shared memory and CPU reference; grayscale by default, or the histogram) →
[`backend::Gpu`] (the driver: occupancy, buffers, launches, events; [`cuda`] for real,
`mock::MockGpu` in tests, behind the `mock` feature) → the measuring engines ([`sweep`]: one
full wave per block size, every row checked against the workload's CPU reference; [`compare`],
[`tail`], [`variants`]) → [`report`], [`export`] and [`plot`] (functions of results alone).
[`app`] wires them together for the `block-size-cuda` binary; [`cmd::device`] loads only the
modules [`compat`] finds this driver can load. [`grid`] holds the grid policies (one wave, one
thread per item, `k` waves) and [`tunable`] the cross product with a tunable beyond the block
size.

# Sweep a kernel of your own

[`user`] is the same engine for a kernel of yours: your PTX ([`ptx::EmbeddedPtx::user`]), a
[`user::UserKernel`] describing its buffers, launch arguments, dynamic shared memory, work and
checks, and [`user::run`] (the [`sweep::Sweep`] the CLI renders) or [`user::run_and_print`] (printed
as `block-size` prints it). The renderers are public and take a [`sweep::Sweep`]:
[`cmd::sweep::header`], [`cmd::sweep::table`], [`cmd::sweep::body`] and [`cmd::sweep::stderr`]
(the table and its text), [`export::render`] (JSON, CSV, Markdown) and [`plot::svg`]. The CLI's
sweep measures through the same engine, [`sweep::measure`]. `examples/reduce/` is a whole host
crate built this way, and `docs/sweep-your-own-kernel.md` walks through it.

```no_run
use block_size_runner::user::{self, Agreement, Arg, Check, CudaDriver, EmbeddedPtx, GridPolicy};
use block_size_runner::user::{Options, UserKernel, Values};

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
    .result(|out, _| Ok(Values::from(out.f32("partials")?.iter().map(|&p| f64::from(p)).sum::<f64>())))
    // Every row's sum within a millionth of the first row's (a float sum's rounding depends on
    // the block size); `Check::reference` compares with a CPU reference instead.
    .check(Check::same_as_first(Agreement::Within(1e-6)));

let options = Options { block_sizes: vec![128, 256, 512, 1024], grid: GridPolicy::PerItem, ..Options::default() };
match user::run(&CudaDriver, &mut kernel, &options) {
    Ok(measured) => {
        print!("{}", measured.report(false));
        eprint!("{}", measured.failures());
        std::process::exit(measured.exit_code());
    }
    Err(stop) => {
        eprintln!("Error: {}", stop.message);
        std::process::exit(stop.code);
    }
}
# Ok::<(), std::io::Error>(())
```
*/

#![warn(missing_docs)]

pub mod app;
pub mod backend;
pub mod checked;
pub mod cli;
pub mod cmd;
pub mod compare;
pub mod compat;
pub mod cuda;
pub mod export;
pub mod frame;
pub mod frame_size;
pub mod grid;
pub mod histogram_reference;
#[cfg(any(test, feature = "mock"))]
pub mod mock;
pub mod model;
pub mod occupancy;
pub mod plot;
pub mod progress;
pub mod provenance;
pub mod ptx;
pub mod report;
pub mod stats;
pub mod sweep;
pub mod tail;
pub mod timing;
pub mod tunable;
pub mod user;
pub mod variants;
pub mod workload;
