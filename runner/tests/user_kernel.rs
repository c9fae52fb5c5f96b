//! A kernel of one's own through every command of the library, on the mock driver: described
//! with the public API alone (as a user's program describes theirs), its Rust PTX and a CUDA
//! C++ twin with the same parameters, each run by a CPU emulation.

use anyhow::{Result, bail};
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, MockGpu, read_values, write_values};
use block_size_runner::{Arg, Check, CompareArgs, Console, EmbeddedPtx, Kernel, SweepArgs, TailArgs, exit};

/// `axpy(x: *const f32, n: usize, y: *mut f32)`: `y[i] = 3 x[i] + 1`, a grid-stride loop.
const fn module(label: &'static str) -> EmbeddedPtx {
    EmbeddedPtx::user(
        label,
        ".version 7.8\n.target sm_75\n.address_size 64\n\n\
         .visible .entry axpy(\n\t.param .u64 axpy_param_0,\n\t.param .u64 axpy_param_1,\n\t.param .u64 axpy_param_2\n)\n{\n\tret;\n}\n",
    )
}

/// The Rust build (cuda_builder's, in a real project).
const RUST: EmbeddedPtx = module("cuda_builder");
/// Its CUDA C++ twin (nvcc's).
const CUDA: EmbeddedPtx = module("nvcc");
/// A build whose entry takes a fourth parameter: not the same kernel.
const OTHER: EmbeddedPtx = EmbeddedPtx::user(
    "other",
    ".version 7.8\n.target sm_75\n.address_size 64\n\n\
     .visible .entry axpy(\n\t.param .u64 p0,\n\t.param .u64 p1,\n\t.param .u64 p2,\n\t.param .u32 p3\n)\n{\n\tret;\n}\n",
);

const N: usize = 10_000;

fn input(i: usize) -> f32 {
    (i % 13) as f32
}

fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [x, n, y] = launch.args.as_slice() else { bail!("axpy takes three arguments") };
    let n = n.as_usize()?;
    let mut out: Vec<f32> = read_values::<f32>(memory.at(x)?, n)?.iter().map(|x| 3.0 * x + 1.0).collect();
    if let Some(value) = fault.and_then(|index| out.get_mut(index)) {
        *value = -1.0;
    }
    write_values(memory.at_mut(y)?, &out)
}

fn kernel(twin: EmbeddedPtx) -> Kernel {
    Kernel::new(RUST, "axpy")
        .twin(twin)
        .items(N as u64, "values")
        .bytes_per_pass(8 * N as u64, "moved per pass")
        .input("x", (0..N).map(input).collect::<Vec<f32>>())
        .output::<f32>("y", N)
        .args(|_| vec![Arg::Buffer("x"), Arg::Usize(N), Arg::Buffer("y")])
        .check(Check::reference(|result, _| {
            let got = result.of::<f32>().ok_or("y is not f32")?;
            match (0..N).find(|&i| got.get(i) != Some(&(3.0 * input(i) + 1.0))) {
                Some(i) => Err(format!("y[{i}] is {:?}, the CPU's {}", got.get(i), 3.0 * input(i) + 1.0)),
                None => Ok(()),
            }
        }))
}

fn driver(configure: impl FnOnce(&mut MockGpu)) -> MockDriver {
    let mut gpu = MockGpu::h200_like();
    for module in [RUST, CUDA] {
        gpu.emulate(module.kernel("axpy"), emulate);
    }
    configure(&mut gpu);
    MockDriver { cuda_version: 13000, devices: vec![gpu] }
}

/// `compare` at `block_sizes` in `rounds` rounds, no warm-ups.
fn compare_options(block_sizes: &str, rounds: &str) -> CompareArgs {
    CompareArgs::from_args(["--warmups", "0", "--block-sizes", block_sizes, "--rounds", rounds]).unwrap()
}

/// What a command printed and how it ended.
fn ran(command: impl FnOnce(&mut Console) -> Result<i32, block_size_runner::Error>) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = command(&mut Console { out: &mut out, err: &mut err }).unwrap_or_else(|error| {
        err.extend(format!("Error: {error}\n").bytes());
        error.exit_status()
    });
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[test]
fn compare_times_the_rust_ptx_against_its_twin_and_checks_both() {
    let options = compare_options("64,256", "3");
    assert!(options.validate_for(&kernel(CUDA), &[]).is_ok());
    let (code, out, err) = ran(|console| {
        block_size_runner::compare(
            &driver(|gpu| gpu.kernel_time_factors = vec![(RUST.kernel("axpy"), 1.1)]),
            &kernel(CUDA),
            &options,
            &[],
            console,
        )
    });
    assert_eq!((code, err.as_str()), (exit::SUCCESS, ""), "{out}");
    assert!(out.contains("Work: 10000 values, 0.1 MiB moved per pass\n"), "{out}");
    assert!(out.contains("Registers/thread after the driver's JIT: cuda_builder 16, nvcc 16\n"), "{out}");
    // One column group a build, the twin the baseline the ratios divide by.
    let header = out.lines().find(|line| line.trim_start().starts_with("thr/blk")).expect("a table");
    assert!(header.contains("cuda_builder blk/SM") && header.contains("nvcc blk/SM"), "{header}");
    assert!(header.contains("cuda_builder/nvcc"), "{header}");
    let rows: Vec<&str> =
        out.lines().filter(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows.iter().all(|row| row.contains("1.100")), "the Rust build 10% slower in every row: {out}");
}

#[test]
fn compare_fails_a_wrong_twin_and_refuses_one_of_other_parameters() {
    let options = compare_options("128", "2");
    let (code, out, err) = ran(|console| {
        block_size_runner::compare(
            &driver(|gpu| gpu.wrong_kernel = Some(CUDA.kernel("axpy"))),
            &kernel(CUDA),
            &options,
            &[],
            console,
        )
    });
    assert_eq!(code, exit::FAILED, "{out}");
    assert!(err.contains("nvcc") && err.contains("check failed"), "{err}");
    // A twin whose entry takes other parameters is not the same kernel: one line, exit 2,
    // before any device.
    let refused = options.validate_for(&kernel(OTHER), &[]).unwrap_err();
    assert_eq!(refused.exit_status(), exit::USAGE);
    assert_eq!(
        refused.to_string(),
        "the other kernel `axpy` takes (u64, u64, u64, u32), the cuda_builder kernel `axpy` (u64, u64, u64): compare needs the same parameters"
    );
    let (code, _, err) =
        ran(|console| block_size_runner::compare(&driver(|_| ()), &kernel(OTHER), &options, &[], console));
    assert_eq!((code, err.lines().count()), (exit::USAGE, 1), "{err}");
    // Without a twin, nothing to compare with.
    let alone = Kernel::new(RUST, "axpy")
        .items(1, "values")
        .output::<f32>("y", 1)
        .args(|_| vec![Arg::Buffer("y"), Arg::Usize(1), Arg::Buffer("y")])
        .check(Check::reference(|_, _| Ok(())));
    let error = options.validate_for(&alone, &[]).unwrap_err();
    assert!(error.to_string().starts_with("compare needs a second build of `axpy`"), "{error}");
}

#[test]
fn tail_measures_partial_waves_of_the_users_kernel() {
    let options = TailArgs::from_args([
        "--warmups",
        "0",
        "--runs",
        "2",
        "--block-size",
        "256",
        "--waves",
        "0.5,1,1.5,2",
    ])
    .unwrap();
    assert!(options.validate_for(&kernel(CUDA)).is_ok());
    let (code, out, err) = ran(|console| {
        block_size_runner::tail(&driver(|gpu| gpu.modelled_times = true), &kernel(CUDA), &options, console)
    });
    assert_eq!((code, err.as_str()), (exit::SUCCESS, ""), "{out}");
    // 256 threads: 8 blocks/SM x 132 SMs = 1056 blocks a wave.
    assert!(out.contains("8 blocks/SM x 132 SMs = 1056 blocks per wave"), "{out}");
    let rows: Vec<&str> =
        out.lines().filter(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect();
    assert_eq!(rows.len(), 4, "{out}");
    let grids: Vec<&str> = rows.iter().map(|row| row.split_whitespace().nth(1).unwrap()).collect();
    assert_eq!(grids, ["528", "1056", "1584", "2112"], "{out}");
    // Two block sizes are not one: tail measures one.
    let error = TailArgs::from_args(["--block-size", "128,256"]).unwrap_err();
    assert_eq!(
        (error.exit_status(), error.to_string().as_str()),
        (exit::USAGE, "invalid value '128,256' for '--block-size <THREADS>': invalid digit found in string")
    );
    // A wrong result fails the run.
    let (code, _, err) = ran(|console| {
        block_size_runner::tail(
            &driver(|gpu| gpu.wrong_kernel = Some(RUST.kernel("axpy"))),
            &kernel(CUDA),
            &options,
            console,
        )
    });
    assert_eq!(code, exit::FAILED, "{err}");
}

#[test]
fn the_sweep_of_the_same_kernel_holds_every_check() {
    let options =
        SweepArgs::from_args(["--warmups", "0", "--runs", "2", "--block-sizes", "32,1024"]).unwrap();
    let measured = block_size_runner::sweep(&driver(|_| ()), &kernel(CUDA), &options).unwrap();
    assert_eq!(measured.exit_status(), exit::SUCCESS, "{}", measured.failures());
    assert!(measured.table(false).contains("10000 values"), "{}", measured.table(false));
}
