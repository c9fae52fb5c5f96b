//! The whole program on block-size-runner's mock driver, with a CPU emulation of the kernel: a
//! clean sweep, a wrong value caught, `--corrupt-output`, bad input and no GPU; `tail`.
//@ if --cuda
//! And `compare`, the CUDA C++ twin emulated as the Rust kernel is.
//@ end

use anyhow::{Result, bail, ensure};
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, MockGpu, read_values, write_values};
use block_size_runner::{Console, exit};
use clap::Parser as _;
//@ if --cuda
use scaffold_name::CUDA;
//@ end
use scaffold_name::{Cli, PTX, STENCIL3_ITEMS};

/// `stencil3` on the CPU, as the GPU runs it: each block takes its tiles of `STENCIL3_ITEMS`
/// values a thread in a grid-stride loop, fills the tile and its halo in its shared memory, then
/// every thread writes its values. With `fault`, that output value is one too high.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [x, n, y] = launch.args.as_slice() else { bail!("three arguments, not {}", launch.args.len()) };
    let (grid, block) = (launch.grid_blocks() as usize, launch.threads_per_block() as usize);
    let width = STENCIL3_ITEMS as usize * block;
    ensure!(launch.dynamic_shared_memory as usize >= 4 * (width + 2), "a launch without its tile");
    let n = n.as_usize()?;
    let x = read_values::<f32>(memory.at(x)?, n)?;
    let at = |i: usize| x.get(i).copied().unwrap_or(0.0);
    let mut out = vec![f32::NAN; n];
    for b in 0..grid {
        let mut tile = vec![0.0f32; width + 2];
        for base in (b * width..n).step_by(grid * width) {
            for (slot, value) in tile[1..=width].iter_mut().enumerate() {
                *value = at(base + slot);
            }
            (tile[0], tile[width + 1]) = (at(base.wrapping_sub(1)), at(base + width));
            for slot in (0..width).filter(|slot| base + slot < n) {
                out[base + slot] = tile[slot] + tile[slot + 1] + tile[slot + 2];
            }
        }
    }
    if let Some(value) = fault.and_then(|index| out.get_mut(index)) {
        *value += 1.0;
    }
    write_values(memory.at_mut(y)?, &out)
}

/// The mock GPU, running [`emulate`] for every build of the kernel.
fn gpu() -> MockGpu {
    let mut gpu = MockGpu::h200_like();
    gpu.emulate(PTX.kernel("stencil3"), emulate);
    //@ if --cuda
    gpu.emulate(CUDA.kernel("stencil3"), emulate);
    //@ end
    gpu
}

/// What one run printed and how it ended.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The command line `scaffold-name ARGS...`.
fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("scaffold-name").chain(args.iter().copied()))
}

fn run_on(gpu: MockGpu, args: &[&str]) -> Ran {
    let driver = MockDriver { cuda_version: 13000, devices: vec![gpu] };
    let cli = parse(args).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = scaffold_name::run(&driver, &cli, &mut Console { out: &mut out, err: &mut err });
    Ran { code, stdout: String::from_utf8(out).unwrap(), stderr: String::from_utf8(err).unwrap() }
}

/// A quick sweep: 100003 values, three block sizes, two samples a row.
const QUICK: [&str; 8] = ["--n", "100003", "--block-sizes", "32,100,1024", "--runs", "2", "--warmups", "0"];

fn check_failures(ran: &Ran) -> Vec<&str> {
    ran.stderr.lines().filter(|line| line.starts_with("check failed: ")).collect()
}

#[test]
fn the_cpu_emulation_passes_the_check_at_every_block_size() {
    assert!(PTX.is_stamped(), "ptx/kernels.stamp.toml parses");
    let ran = run_on(gpu(), &QUICK);
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    assert!(ran.stdout.contains("100003 values"), "{}", ran.stdout);
    // Every launch had its tile: (threads + 2) * 4 bytes of dynamic shared memory.
    assert!(ran.stdout.contains("dynamic shared memory"), "{}", ran.stdout);
}

#[test]
fn a_wrong_value_is_caught_at_every_row() {
    let mut gpu = gpu();
    gpu.wrong_kernel = Some(PTX.kernel("stencil3"));
    gpu.wrong_element = 4321;
    let ran = run_on(gpu, &QUICK);
    assert_eq!(ran.code, exit::FAILED, "{}", ran.stdout);
    let failures = check_failures(&ran);
    assert_eq!(failures.len(), 3, "{}", ran.stderr);
    assert!(failures.iter().all(|line| line.contains("y 4321 is ")), "{}", ran.stderr);
}

#[test]
fn corrupt_output_fails_every_row() {
    let ran = run_on(gpu(), &[&QUICK[..], &["--corrupt-output", "0"]].concat());
    assert_eq!(ran.code, exit::FAILED, "{}", ran.stdout);
    assert_eq!(check_failures(&ran).len(), 3, "{}", ran.stderr);
}

#[test]
fn bad_input_is_exit_status_2() {
    // What clap refuses, before the sweep.
    for bad in [&["--n", "0"][..], &["--runs", "many"], &["--block-sizes", "64,x"]] {
        assert_eq!(parse(bad).unwrap_err().exit_code(), exit::USAGE, "{bad:?}");
    }
    // What the sweep's settings refuse, as one line.
    let twice = run_on(gpu(), &["--n", "1000", "--block-sizes", "64,64"]);
    assert_eq!(
        (twice.code, twice.stdout.as_str(), twice.stderr.as_str()),
        (exit::USAGE, "", "Error: block size 64 is listed twice in --block-sizes\n")
    );
    for bad in [&["--grid", "waves:0"][..], &["--block-sizes", "0"], &["--block-sizes", "2048"]] {
        let ran = run_on(gpu(), &[&["--n", "1000"][..], bad].concat());
        assert_eq!((ran.code, ran.stderr.lines().count()), (exit::USAGE, 1), "{bad:?}: {}", ran.stderr);
    }
}

#[test]
fn tail_measures_each_grid_at_one_block_size() {
    let ran =
        run_on(gpu(), &["tail", "--n", "100003", "--block-size", "128", "--waves", "0.5,1,2", "--runs", "2"]);
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    assert!(ran.stdout.contains("Block size: 128 threads"), "{}", ran.stdout);
    let rows = ran
        .stdout
        .lines()
        .filter(|line| line.split_whitespace().next().is_some_and(|waves| waves.parse::<f64>().is_ok()))
        .count();
    assert_eq!(rows, 3, "one row per grid: {}", ran.stdout);
}

//@ if --cuda
#[test]
fn compare_times_the_rust_kernel_against_its_cuda_twin() {
    let ran = run_on(gpu(), &["compare", "--n", "100003", "--block-sizes", "32,256", "--rounds", "3"]);
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    // A column of each build, and the ratio of the Rust kernel's times to the twin's.
    for heading in ["scaffold-name blk/SM", "nvcc blk/SM", "scaffold-name/nvcc"] {
        assert!(ran.stdout.contains(heading), "no {heading}: {}", ran.stdout);
    }
}

#[test]
fn compare_loads_the_twin_from_a_file_when_asked() {
    // The committed twin read at run time is the embedded one: the mock runs it as such.
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/ptx/stencil3-nvcc.ptx");
    let args = ["compare", "--cuda-ptx", committed, "--n", "1000", "--block-sizes", "64", "--rounds", "2"];
    let ran = run_on(gpu(), &args);
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    assert!(ran.stdout.contains("scaffold-name/nvcc"), "{}", ran.stdout);
    // A file that is not there, or not the twin's PTX: one line, exit 2, before any device.
    let folder = std::env::temp_dir().join(format!("scaffold-name-twin-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let other = folder.join("other.ptx");
    std::fs::write(&other, ".version 8.5\n.target sm_90\n.visible .entry other(\n)\n{\n}\n").unwrap();
    for path in [folder.join("none.ptx"), other] {
        let path = path.to_str().unwrap();
        let ran = run_on(gpu(), &["compare", "--cuda-ptx", path, "--n", "1000", "--block-sizes", "64"]);
        assert_eq!(ran.code, exit::USAGE, "{path}: {}", ran.stderr);
        assert!(ran.stderr.starts_with("Error: --cuda-ptx ") && ran.stderr.lines().count() == 1, "{}", ran.stderr);
        assert!(ran.stdout.is_empty());
    }
    let _ = std::fs::remove_dir_all(&folder);
}

#[test]
fn compare_catches_a_wrong_value_of_either_build() {
    let mut gpu = gpu();
    gpu.wrong_kernel = Some(CUDA.kernel("stencil3"));
    gpu.wrong_element = 77;
    let ran = run_on(gpu, &["compare", "--n", "1000", "--block-sizes", "64", "--rounds", "2"]);
    assert_eq!(ran.code, exit::FAILED, "{}", ran.stdout);
    assert!(check_failures(&ran).iter().any(|line| line.contains("y 77 is ")), "{}", ran.stderr);
}

//@ end
#[test]
fn what_needs_no_device_is_checked_before_it() {
    let refused = |args: &[&str]| parse(args).unwrap().validate().unwrap_err();
    assert!(parse(&["--n", "1000"]).unwrap().validate().is_ok());
    let twice = refused(&["--block-sizes", "64,64"]);
    assert_eq!(
        (twice.exit_status(), twice.to_string()),
        (exit::USAGE, "block size 64 is listed twice in --block-sizes".into())
    );
    assert_eq!(refused(&["tail", "--waves", "0"]).exit_status(), exit::USAGE);
    //@ if --cuda
    assert_eq!(refused(&["compare", "--rounds", "0"]).to_string(), "--rounds must be at least 1, not 0");
    //@ end
    // The sweep's options are not a subcommand's, as in block-size.
    assert_eq!(parse(&["--runs", "3", "tail"]).unwrap_err().exit_code(), exit::USAGE);
}

#[test]
fn no_gpu_is_exit_status_3() {
    let driver = MockDriver { cuda_version: 13000, devices: Vec::new() };
    let cli = parse(&["--n", "10"]).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = scaffold_name::run(&driver, &cli, &mut Console { out: &mut out, err: &mut err });
    assert_eq!((code, out.is_empty()), (exit::NO_DEVICE, true));
}
