//! The host side of the example: sweeps the kernels of `examples/reduce/kernels` over block
//! sizes x items per thread with the block-size runner, checking every row's sum.

pub mod blur;
pub mod bounds;
pub mod faults;
pub mod reference;
pub mod stencil;
pub mod transpose;

/// A launcher's command line (`reduce-example`, `transpose-example`, `blur-example`, `faults-example`), read as
/// `block-size` reads its own: `--help` printed, bad input one `Error:` line and exit 2, the
/// sweep's options checked as far as they can be without a device or the kernel's data
/// ([`SweepArgs::validate`]); the worker checks the rest.
pub fn launcher_command_line<T: Parser>(sweep: impl Fn(&T) -> &SweepArgs) -> T {
    let stop = |error: block_size_runner::Error| -> ! {
        eprintln!("Error: {error}");
        std::process::exit(error.exit_status())
    };
    let cli = T::try_parse().unwrap_or_else(|error| {
        if !error.use_stderr() {
            error.exit(); // --help, --version
        }
        stop(block_size_runner::Error::from(error))
    });
    if let Err(error) = sweep(&cli).validate() {
        stop(error);
    }
    cli
}

use block_size_runner::{
    Agreement, Arg, Axis, Check, Console, Driver, EmbeddedPtx, GridPolicy, Kernel, SweepArgs,
};
use clap::{Parser, ValueEnum};

/// The kernels' PTX as cuda_builder wrote it, and its provenance stamp.
pub const PTX: EmbeddedPtx = EmbeddedPtx::user("reduce", include_str!("../ptx/reduce.ptx"))
    .with_stamp(include_str!("../ptx/reduce.stamp.toml"));

/// The CUDA C++ twins of both entries (`cuda/reduce.cu`) as CUDA 11.8's nvcc wrote them, and
/// their stamp: `--source cuda`.
pub const CUDA: EmbeddedPtx = EmbeddedPtx::user("reduce-nvcc", include_str!("../ptx/reduce-nvcc.ptx"))
    .with_stamp(include_str!("../ptx/reduce-nvcc.stamp.toml"));

/// The command line: the example's own options, then the sweep's.
#[derive(Parser, Debug)]
#[command(
    name = "reduce-example",
    about = "Sweeps the example sum-of-squares kernels over block sizes x items per thread (x grid policies)"
)]
pub struct Cli {
    /// Values to sum
    #[arg(long, default_value_t = 1 << 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub n: u32,
    /// How every row is checked: reference (the CPU sum, within the kernels' error bound) or
    /// same-as-first (the first row's sum, within --tolerance)
    #[arg(long, value_enum, default_value = "reference")]
    pub check: CheckArg,
    /// Relative tolerance of --check same-as-first (0: bit for bit)
    #[arg(long, default_value_t = 1e-5)]
    pub tolerance: f64,
    /// A third axis, the grid: each of these policies (one-wave, per-item, waves:K) for every
    /// block size and items/thr, instead of --grid's one (both kernels loop over the grid)
    #[arg(long, value_name = "POLICIES", value_delimiter = ',')]
    pub grids: Vec<GridPolicy>,
    /// Dynamic shared memory a block asks for per thread, at least the 4 the kernels use: more
    /// shows shared memory capping blk/SM, and a block size whose bytes no block may have
    /// pruned with its reason
    #[arg(long, value_name = "BYTES", default_value_t = 4, value_parser = clap::value_parser!(u32).range(4..))]
    pub shared_bytes_per_thread: u32,
    /// Which build of the kernels is swept: rust (cuda_builder's PTX) or cuda (the CUDA C++
    /// twins, nvcc's PTX), the same entries, arguments and shared memory
    #[arg(long, value_enum, default_value = "rust")]
    pub source: SourceArg,
    #[command(flatten)]
    pub sweep: SweepArgs,
}

/// What `--check` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckArg {
    Reference,
    SameAsFirst,
}

/// What `--source` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SourceArg {
    Rust,
    Cuda,
}

impl SourceArg {
    /// The module of this build: [`PTX`] or [`CUDA`].
    pub fn ptx(self) -> EmbeddedPtx {
        match self {
            SourceArg::Rust => PTX,
            SourceArg::Cuda => CUDA,
        }
    }
}

/// `n` values in [-1, 1].
pub fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 2001) as f32 / 1000.0 - 1.0).collect()
}

/// Both entries of `ptx` ([`PTX`] or [`CUDA`]), the axis "items/thr" (1 and 4), over `x`: one
/// f32 partial per block, `threads * shared_bytes_per_thread` bytes of dynamic shared memory
/// (the kernels use 4 a thread); a row's result is its partials' sum. With `grids`, a third
/// axis, "grid policy": both kernels loop over whatever grid they get.
pub fn kernel(
    ptx: EmbeddedPtx,
    x: Vec<f32>,
    check: Check,
    grids: &[GridPolicy],
    shared_bytes_per_thread: u32,
) -> Kernel {
    let n = x.len();
    let kernel = Kernel::new(ptx, "sum_of_squares")
        .axis(Axis::entries("items/thr", [("1", "sum_of_squares"), ("4", "sum_of_squares_x4")]))
        .items(n as u64, "values")
        .bytes_per_pass(4 * n as u64, "moved per pass")
        .input("x", x)
        .output_per_block::<f32>("partials")
        .dynamic_shared_memory(move |threads, _| threads * shared_bytes_per_thread)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("partials")])
        .result(|out, _| Ok(out.of::<f32>("partials")?.iter().map(|&p| f64::from(p)).sum::<f64>().into()))
        .check(check);
    if grids.is_empty() { kernel } else { kernel.axis(Axis::grid("grid policy", grids.iter().copied())) }
}

/// Every row's sum against the CPU's, within the bound of the launch's f32 roundings.
pub fn reference_check(x: &[f32]) -> Check {
    let (n, want) = (x.len(), reference::sum_of_squares(x));
    Check::reference(move |result, shape| {
        let got = result.of::<f64>().and_then(|sum| sum.first().copied()).unwrap_or(f64::NAN);
        let bound =
            reference::relative_error_bound(n, shape.grid_blocks as usize, shape.threads_per_block as usize);
        let error = (got - want).abs() / want;
        if error <= bound {
            return Ok(());
        }
        Err(format!("the sum is {got}, the CPU's {want}: relative error {error:.2e} > bound {bound:.2e}"))
    })
}

/// The program on `driver`; returns its exit status.
pub fn run(driver: &impl Driver, cli: &Cli, console: &mut Console) -> i32 {
    let x = values(cli.n as usize);
    let check = match cli.check {
        CheckArg::Reference => reference_check(&x),
        CheckArg::SameAsFirst if cli.tolerance == 0.0 => Check::same_as_first(Agreement::BitForBit),
        CheckArg::SameAsFirst => Check::same_as_first(Agreement::Within(cli.tolerance)),
    };
    let kernel = kernel(cli.source.ptx(), x, check, &cli.grids, cli.shared_bytes_per_thread);
    block_size_runner::sweep_and_print(driver, &kernel, &cli.sweep, console)
}
