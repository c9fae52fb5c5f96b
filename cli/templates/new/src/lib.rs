//! The host side of scaffold-name: sweeps `stencil3` (kernels/src/lib.rs) over block sizes with
//! block-size-runner, checking every row's output against a CPU stencil.
//!
//! Replace the kernel with your own: its PTX comes from kernels/ (`scripts/build-ptx`), its
//! launch is described by [`kernel`], its CPU stand-in for the tests by `tests/stencil3.rs`.
//!
//! The program is two binaries over this library: `scaffold-name` (src/main.rs), which links no
//! driver, so that it starts anywhere, and `scaffold-name-cuda` (src/bin/), which links the
//! driver's `libcuda.so.1` through cust and runs [`run`] on the GPU.

//@ if --cuda
use block_size_runner::{CompareArgs, exit};
//@ end
use block_size_runner::{
    Agreement, Arg, Check, Console, Driver, EmbeddedPtx, Error, Kernel, SweepArgs, TailArgs, Values,
};
use clap::{Args, Parser, Subcommand};

/// The kernels' PTX as cuda_builder wrote it, and its provenance stamp.
pub const PTX: EmbeddedPtx = EmbeddedPtx::user("scaffold-name", include_str!("../ptx/kernels.ptx"))
    .with_stamp(include_str!("../ptx/kernels.stamp.toml"));

//@ if --cuda
/// The same kernel in CUDA C++ (cuda/stencil3.cu) as nvcc compiled it (scripts/build-cuda-twin),
/// and its stamp: `compare` times it against [`PTX`]'s.
pub const CUDA: EmbeddedPtx = EmbeddedPtx::user("nvcc", include_str!("../ptx/stencil3-nvcc.ptx"))
    .with_stamp(include_str!("../ptx/stencil3-nvcc.stamp.toml"));

//@ end
/// The command line: a subcommand, or the sweep's options (`--block-sizes`, `--runs`, `--grid`,
/// `--format`, ...; `--help` lists them), as `block-size` takes them.
#[derive(Parser, Debug)]
#[command(name = "scaffold-name", about = "Sweeps the block size of the stencil3 kernel")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// A subcommand; none: the sweep.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The kernel's input.
    #[command(flatten)]
    pub input: Input,
    /// The sweep's options.
    #[command(flatten)]
    pub sweep: SweepArgs,
    //@ if --cuda
    /// `compare --cuda-ptx FILE`'s twin, once read: the check of the command line and the run
    /// take the same one, and FILE is read once a process.
    #[arg(skip)]
    twin_read: std::cell::OnceCell<EmbeddedPtx>,
    //@ end
}

/// The subcommands: each measures the same kernel as the sweep.
#[derive(Subcommand, Debug)]
pub enum Command {
    //@ if --cuda
    /// stencil3 from cuda_builder (ptx/kernels.ptx) and from nvcc (ptx/stencil3-nvcc.ptx), timed
    /// side by side in interleaved rounds
    Compare {
        /// The kernel's input.
        #[command(flatten)]
        input: Input,
        /// The twin's PTX read from FILE when the program runs, in place of the embedded
        /// ptx/stencil3-nvcc.ptx (`scripts/build-cuda-twin --out DIR` writes one with this
        /// machine's nvcc, at any PTX ISA its driver loads); its stamp from the .stamp.toml
        /// beside it where there is one
        #[arg(long, value_name = "FILE")]
        cuda_ptx: Option<std::path::PathBuf>,
        /// `compare`'s options.
        #[command(flatten)]
        compare: CompareArgs,
    },
    //@ end
    /// What a partial last wave costs: stencil3 at one block size, grids of 0.5 to 8 waves over
    /// the same input
    Tail {
        /// The kernel's input.
        #[command(flatten)]
        input: Input,
        /// `tail`'s options.
        #[command(flatten)]
        tail: TailArgs,
    },
}

/// The kernel's input, which the sweep and every subcommand take.
#[derive(Args, Debug, Clone, Copy)]
pub struct Input {
    /// Values in the stencil's input
    #[arg(long, default_value_t = 1 << 24, value_parser = clap::value_parser!(u32).range(1..))]
    pub n: u32,
}

impl Cli {
    /// This process's command line, checked as far as it can be without a device: `--help`
    /// prints and exits 0; a bad value ends the process with one `Error:` line, exit 2.
    pub fn from_command_line() -> Self {
        let cli = Self::try_parse().unwrap_or_else(|error| {
            if !error.use_stderr() {
                error.exit(); // --help
            }
            stop(&Error::from(error))
        });
        if let Err(error) = cli.validate() {
            stop(&error);
        }
        cli
    }

    /// The kernel over the input the command line asks for; `Err` (exit 2) where a file it
    /// names cannot be read or is not what it must be.
    fn kernel(&self) -> Result<Kernel, Error> {
        let input = match &self.command {
            None => &self.input,
            //@ if --cuda
            Some(Command::Compare { input, cuda_ptx: Some(path), .. }) => {
                let twin = match self.twin_read.get() {
                    Some(twin) => *twin,
                    None => {
                        let twin = twin_from_file(path)?;
                        *self.twin_read.get_or_init(|| twin)
                    }
                };
                return Ok(kernel_with_twin(input.n as usize, twin));
            }
            Some(Command::Compare { input, .. }) => input,
            //@ end
            Some(Command::Tail { input, .. }) => input,
        };
        Ok(kernel(input.n as usize))
    }

    /// Every check of the command line that needs no device, the first failing one as one line
    /// (exit 2), cheap: the kernel's description holds no data yet ([`kernel`]).
    pub fn validate(&self) -> Result<(), Error> {
        let kernel = self.kernel()?;
        match &self.command {
            None => self.sweep.validate_for(&kernel),
            //@ if --cuda
            Some(Command::Compare { compare, .. }) => compare.validate_for(&kernel, &[]),
            //@ end
            Some(Command::Tail { tail, .. }) => tail.validate_for(&kernel),
        }
    }
}

/// Ends the process as `block-size` does on `error`: one `Error:` line, its exit status.
fn stop(error: &Error) -> ! {
    eprintln!("Error: {error}");
    std::process::exit(error.exit_status())
}

/// Values each thread of `stencil3` takes per tile: `ITEMS` of kernels/src/lib.rs (a
/// `#[kernel]` crate the host crate does not build), which sizes the tile in shared memory.
pub const STENCIL3_ITEMS: u32 = 4;

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

/// `stencil3` over [`values`]`(n)`: its output `y`, `(STENCIL3_ITEMS * threads + 2) * 4` bytes of
/// dynamic shared memory a block (the tile and its halo), every row's `y` checked bit for bit
/// against [`stencil3`] on the CPU (`Check::expected`: computed once, each row checked against it on
/// the GPU). The description holds no data: the input and the CPU's output are made the first
/// time a run needs them, once per run, and never in the launcher, which only checks the
/// command line.
pub fn kernel(n: usize) -> Kernel {
    let kernel = Kernel::new(PTX, "stencil3");
    //@ if --cuda
    let kernel = kernel.twin(CUDA);
    //@ end
    described(kernel, n)
}

//@ if --cuda
/// [`kernel`] with `twin` as its CUDA C++ twin in place of the embedded [`CUDA`]: `compare
/// --cuda-ptx FILE`'s ([`twin_from_file`]).
pub fn kernel_with_twin(n: usize, twin: EmbeddedPtx) -> Kernel {
    described(Kernel::new(PTX, "stencil3").twin(twin), n)
}

/// The twin `compare --cuda-ptx FILE` names: FILE's PTX, under the embedded twin's label, and
/// the stamp beside it (`FILE` with `.stamp.toml` for `.ptx`) where there is one. `Err` (exit 2)
/// where FILE cannot be read or holds no `.entry stencil3`; an ISA the driver cannot load is
/// its own refusal when the module loads (exit 3).
pub fn twin_from_file(path: &std::path::Path) -> Result<EmbeddedPtx, Error> {
    let refuse = |why: String| Error::new(exit::USAGE, format!("--cuda-ptx {:?}: {why}", path.display().to_string()));
    let ptx = std::fs::read_to_string(path).map_err(|error| refuse(error.to_string()))?;
    if !ptx.lines().any(|line| line.contains(".entry stencil3(")) {
        return Err(refuse("it holds no .entry stencil3: not the twin's PTX".into()));
    }
    let stamp = std::fs::read_to_string(path.with_extension("stamp.toml")).unwrap_or_default();
    // An `EmbeddedPtx` holds text for the whole run, as an embedded module's is: the program
    // reads one file, once, and keeps it to its end.
    let kept = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
    Ok(EmbeddedPtx::user(CUDA.label, kept(ptx)).with_stamp(kept(stamp)))
}

//@ end
/// The description of [`kernel`] past its modules.
fn described(kernel: Kernel, n: usize) -> Kernel {
    kernel
        .items(n as u64, "values")
        .bytes_per_pass(8 * n as u64, "moved per pass")
        .input_with("x", n, move || Ok(values(n)))
        .output::<f32>("y", n)
        .dynamic_shared_memory(|threads, _| (STENCIL3_ITEMS * threads + 2) * 4)
        .args(move |_| vec![Arg::Buffer("x"), Arg::Usize(n), Arg::Buffer("y")])
        .check(Check::expected(Agreement::BitForBit, move || Ok(Values::from(stencil3(&values(n))))).naming("y"))
}

/// The program on `driver`; returns its exit status (0 every row's check held, 1 one failed, 2
/// bad input, 3 no GPU).
pub fn run(driver: &impl Driver, cli: &Cli, console: &mut Console) -> i32 {
    let kernel = match cli.kernel() {
        Ok(kernel) => kernel,
        Err(error) => {
            let _ = writeln!(console.err, "Error: {error}");
            return error.exit_status();
        }
    };
    let ran = match &cli.command {
        None => return block_size_runner::sweep_and_print(driver, &kernel, &cli.sweep, console),
        //@ if --cuda
        Some(Command::Compare { compare, .. }) => {
            block_size_runner::compare(driver, &kernel, compare, &[], console)
        }
        //@ end
        Some(Command::Tail { tail, .. }) => block_size_runner::tail(driver, &kernel, tail, console),
    };
    ran.unwrap_or_else(|error| {
        let _ = writeln!(console.err, "Error: {error}");
        error.exit_status()
    })
}
