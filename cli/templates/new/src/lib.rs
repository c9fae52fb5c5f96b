//! The host side of scaffold-name: sweeps `stencil3` (kernels/src/lib.rs) over block sizes with
//! block-size-runner, checking every row's output against a CPU stencil.
//!
//! Replace the kernel with your own: its PTX comes from kernels/ (`cargo run --release -p
//! ptx-builder` there), its launch is described by [`kernel`], its CPU stand-in for the tests
//! by `tests/stencil3.rs`.

use block_size_cli::SweepArgs;
use block_size_runner::{Arg, Check, Console, Driver, EmbeddedPtx, Kernel};
use clap::Parser;

/// The kernels' PTX as cuda_builder wrote it, and its provenance stamp.
pub const PTX: EmbeddedPtx = EmbeddedPtx::user("scaffold-name", include_str!("../ptx/kernels.ptx"))
    .with_stamp(include_str!("../ptx/kernels.stamp.toml"));

/// The command line: the program's own options, then the sweep's (`--block-sizes`, `--runs`,
/// `--grid`, `--format`, ...; `--help` lists them).
#[derive(Parser, Debug)]
#[command(name = "scaffold-name", about = "Sweeps the block size of the stencil3 kernel")]
pub struct Cli {
    /// Values in the stencil's input
    #[arg(long, default_value_t = 1 << 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub n: u32,
    #[command(flatten)]
    pub sweep: SweepArgs,
}

/// `n` input values: small integers, so that every sum of three is exact in `f32` and the
/// check can ask for the CPU's output bit for bit.
pub fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 17) as f32 - 8.0).collect()
}

/// The stencil on the CPU: `y[i] = x[i - 1] + x[i] + x[i + 1]`, zero outside `x`, added left to
/// right as the kernel adds them.
pub fn stencil3(x: &[f32]) -> Vec<f32> {
    let at = |i: usize| x.get(i).copied().unwrap_or(0.0);
    (0..x.len()).map(|i| at(i.wrapping_sub(1)) + at(i) + at(i + 1)).collect()
}

/// `stencil3` over `x`: its output `y`, `(threads + 2) * 4` bytes of dynamic shared memory a
/// block (the tile and its halo), every row's `y` checked against [`stencil3`] on the CPU.
pub fn kernel(x: Vec<f32>) -> Kernel {
    let n = x.len();
    let want = stencil3(&x);
    Kernel::new(PTX, "stencil3")
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .input("x", x)
        .output::<f32>("y", n)
        .dynamic_shared_memory(|threads, _| (threads + 2) * 4)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("y")])
        .check(Check::reference(move |result, _| {
            let got = result.of::<f32>().ok_or_else(|| "y is not f32".to_string())?;
            match got.iter().zip(&want).position(|(got, want)| got.to_bits() != want.to_bits()) {
                None if got.len() == want.len() => Ok(()),
                None => Err(format!("y has {} values, not {}", got.len(), want.len())),
                Some(i) => Err(format!("y[{i}] is {}, the CPU's {}", got[i], want[i])),
            }
        }))
}

/// The program on `driver`; returns its exit status (0 every row's check held, 1 one failed, 2
/// bad input, 3 no GPU).
pub fn run(driver: &impl Driver, cli: &Cli, console: &mut Console) -> i32 {
    let kernel = kernel(values(cli.n as usize));
    block_size_runner::sweep_and_print(driver, &kernel, &cli.sweep.settings(), console)
}
