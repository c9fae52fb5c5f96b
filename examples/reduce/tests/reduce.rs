//! The whole example program on the runner's mock driver, with a CPU emulation of the kernels:
//! a clean run of both entries, a wrong result caught, the same-as-first check, the exports,
//! bad input and no GPU; and every command docs/sweep-your-own-kernel.md shows parses.

use anyhow::{Result, bail, ensure};
use block_size_runner::mock::{EmulatedMemory, Launch, MockDriver, MockGpu, read_values, write_values};
use block_size_runner::{Console, exit};
use clap::Parser as _;
use reduce_example::{CUDA, Cli, PTX};

/// The kernels on the CPU, as the GPU computes them: each thread adds the squares of its
/// grid-stride elements into an f32 (fused multiply-adds), each block adds its threads' sums
/// as a tree in shared memory. Both entries take the same elements in the same order, so
/// they write the same partials. With `fault`, that partial is one too high.
fn emulate(launch: &Launch, memory: &mut dyn EmulatedMemory, fault: Option<usize>) -> Result<()> {
    let [x, n, partials] = launch.args.as_slice() else {
        bail!("three arguments, not {}", launch.args.len())
    };
    let (grid, block) = (launch.grid_blocks() as usize, launch.threads_per_block() as usize);
    ensure!(launch.dynamic_shared_memory as usize >= 4 * block, "a launch without its shared memory");
    let x = read_values::<f32>(memory.at(x)?, n.as_usize()?)?;
    let mut sums: Vec<f32> = (0..grid)
        .map(|b| {
            let mut shared: Vec<f32> = (0..block)
                .map(|t| {
                    (b * block + t..x.len())
                        .step_by(grid * block)
                        .fold(0.0f32, |sum, i| x[i].mul_add(x[i], sum))
                })
                .collect();
            let mut stride = block.next_power_of_two() / 2;
            while stride > 0 {
                for t in (0..stride).filter(|t| t + stride < block) {
                    shared[t] += shared[t + stride];
                }
                stride /= 2;
            }
            shared[0]
        })
        .collect();
    if let Some(partial) = fault.and_then(|index| sums.get_mut(index)) {
        *partial += 1.0;
    }
    write_values(memory.at_mut(partials)?, &sums)
}

fn gpu() -> MockGpu {
    let mut gpu = MockGpu::h200_like();
    // Both builds of both entries: the CUDA C++ twins compute what the Rust kernels do.
    for module in [PTX, CUDA] {
        gpu.emulate(module.kernel("sum_of_squares"), emulate)
            .emulate(module.kernel("sum_of_squares_x4"), emulate);
    }
    gpu
}

/// What one run printed and how it ended.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_on(gpu: MockGpu, args: &[&str]) -> Ran {
    let driver = MockDriver { cuda_version: 13000, devices: vec![gpu] };
    let cli = Cli::try_parse_from(std::iter::once("reduce-example").chain(args.iter().copied())).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = reduce_example::run(&driver, &cli, &mut Console { out: &mut out, err: &mut err });
    Ran { code, stdout: String::from_utf8(out).unwrap(), stderr: String::from_utf8(err).unwrap() }
}

/// A quick run: 100003 values, three block sizes, two samples a row.
fn run(extra: &[&str]) -> Ran {
    let args = ["--n", "100003", "--block-sizes", "32,100,1024", "--runs", "2", "--warmups", "0"];
    run_on(gpu(), &[&args[..], extra].concat())
}

#[test]
fn both_entries_at_every_block_size_pass_the_reference_check() {
    let ran = run(&[]);
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    assert!(ran.stdout.contains("Work: 100003 values, 0.4 MiB moved per pass\n"), "{}", ran.stdout);
    let table: Vec<&str> = ran.stdout.lines().skip_while(|line| !line.contains("thr/blk")).take(7).collect();
    assert!(table[0].trim_start().starts_with("items/thr  thr/blk"), "{}", ran.stdout);
    let rows: Vec<(&str, &str)> = table[1..]
        .iter()
        .map(|line| {
            let mut cells = line.split_whitespace();
            (cells.next().unwrap(), cells.next().unwrap())
        })
        .collect();
    assert_eq!(rows, [("1", "32"), ("1", "100"), ("1", "1024"), ("4", "32"), ("4", "100"), ("4", "1024")]);
    // Every launch had one f32 of shared memory per thread.
    assert!(ran.stdout.contains("+ each row's dynamic shared memory"), "{}", ran.stdout);
}

#[test]
fn a_wrong_partial_is_caught_at_every_row_of_its_entry() {
    let mut gpu = gpu();
    gpu.wrong_kernel = Some(PTX.kernel("sum_of_squares_x4"));
    gpu.wrong_element = 0;
    let args = ["--n", "100003", "--block-sizes", "32,1024", "--runs", "2", "--warmups", "0"];
    let ran = run_on(gpu, &args);
    assert_eq!(ran.code, exit::FAILED);
    let failed: Vec<&str> = ran.stderr.lines().filter(|line| line.starts_with("check failed: ")).collect();
    assert_eq!(failed.len(), 2, "{}", ran.stderr);
    for (line, threads) in failed.iter().zip([32, 1024]) {
        let start =
            format!("check failed: items/thr 4: wrong output at {threads} threads per block: the sum is ");
        assert!(line.starts_with(&start) && line.contains("> bound"), "{line}");
    }
    assert!(ran.stderr.contains("2 check(s) failed"), "{}", ran.stderr);
}

#[test]
fn the_same_output_at_every_block_size_holds_within_a_tolerance_and_not_bit_for_bit() {
    let within = run(&["--check", "same-as-first", "--tolerance", "1e-5"]);
    assert_eq!((within.code, within.stderr.as_str()), (exit::SUCCESS, ""));
    // A float sum's rounding depends on how the block size splits it: not bit for bit.
    let bits = run(&["--check", "same-as-first", "--tolerance", "0"]);
    assert_eq!(bits.code, exit::FAILED, "{}", bits.stdout);
    assert!(
        bits.stderr.contains("not bit for bit the first row's (32 threads per block, items/thr 1)"),
        "{}",
        bits.stderr
    );
}

#[test]
fn the_exports_carry_the_axes_and_the_grid() {
    let ran = run(&["--format", "json", "--grid", "per-item"]);
    assert_eq!(ran.code, exit::SUCCESS, "{}", ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!((&json["axes"], json["grid"].as_str()), (&serde_json::json!(["items/thr"]), Some("per-item")));
    assert_eq!(json["kernel"], "reduce");
    assert_eq!(json["provenance"]["compiler"], "cuda_builder", "the stamp is embedded with the PTX");
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(
        (rows[0]["grid_blocks"].as_u64(), rows[0]["axes"]["items/thr"].as_str()),
        (Some(3126), Some("1"))
    );
    let csv = run(&["--format", "csv", "--grid", "waves:2"]);
    assert!(csv.stdout.starts_with("items/thr,threads_per_block,"), "{}", csv.stdout);
    let markdown = run(&["--format", "markdown"]);
    assert!(markdown.stdout.contains("| items/thr | thr/blk |"), "{}", markdown.stdout);
}

#[test]
fn bad_input_and_no_gpu_end_with_the_runner_s_exit_statuses() {
    for bad in [&["--grid", "waves"][..], &["--n", "0"], &["--check", "close"]] {
        let error =
            Cli::try_parse_from(std::iter::once("reduce-example").chain(bad.iter().copied())).unwrap_err();
        assert_eq!(error.exit_code(), exit::USAGE, "{bad:?}");
    }
    // Values clap reads but the library refuses: its one line, exit 2, as block-size's.
    let zero = run_on(gpu(), &["--n", "1000", "--grid", "waves:0"]);
    assert_eq!((zero.code, zero.stdout.as_str()), (exit::USAGE, ""));
    assert_eq!(zero.stderr, "Error: --grid waves:0 launches nothing: give waves:1 or more\n");
    let twice = run_on(gpu(), &["--n", "1000", "--block-sizes", "64,64"]);
    assert_eq!(
        (twice.code, twice.stderr.as_str()),
        (exit::USAGE, "Error: block size 64 is listed twice in --block-sizes\n")
    );
    let too_large = run_on(gpu(), &["--n", "1000", "--block-sizes", "2048"]);
    assert_eq!(too_large.code, exit::USAGE, "{}", too_large.stderr);
    let driver = MockDriver { cuda_version: 13000, devices: Vec::new() };
    let cli = Cli::try_parse_from(["reduce-example", "--n", "10"]).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = reduce_example::run(&driver, &cli, &mut Console { out: &mut out, err: &mut err });
    assert_eq!((code, out.is_empty()), (exit::NO_DEVICE, true));
}

#[test]
fn every_command_the_guide_shows_parses() {
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/sweep-your-own-kernel.md"))
            .unwrap();
    let prefix = "cargo run --release -p reduce-example --";
    // `reduce-example`'s own command lines; another binary of the crate (`--bin`) has its own.
    let commands: Vec<&str> = guide
        .lines()
        .filter_map(|line| line.trim().strip_prefix(prefix))
        .filter(|args| !args.starts_with("bin "))
        .collect();
    assert!(commands.len() >= 3, "the guide shows how to run the example");
    for args in commands {
        let args = args.split('#').next().unwrap();
        let parsed = Cli::try_parse_from(std::iter::once("reduce-example").chain(args.split_whitespace()));
        let options = parsed
            .map_err(|error| error.to_string())
            .and_then(|cli| cli.sweep.validate().map_err(|error| error.to_string()));
        assert!(options.is_ok(), "`{prefix}{args}`: {}", options.unwrap_err());
    }
}

#[test]
fn the_guide_shows_the_example_s_code_as_it_is() {
    let root = env!("CARGO_MANIFEST_DIR");
    let guide = std::fs::read_to_string(format!("{root}/../../docs/sweep-your-own-kernel.md")).unwrap();
    for file in ["Cargo.toml", "src/lib.rs", "src/main.rs", "src/bin/reduce-example-cuda.rs"] {
        let text = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
        assert!(
            guide.contains(&format!("\n{text}```\n")),
            "docs/sweep-your-own-kernel.md does not show {file} as it is"
        );
    }
}

#[test]
fn a_third_axis_of_grid_policies_sweeps_every_combination_and_each_row_is_checked() {
    // Two million values: enough that one and two waves of small blocks are under one thread a
    // value.
    let args = ["--n", "2000000", "--block-sizes", "32,100,1024", "--runs", "2", "--warmups", "0"];
    let ran =
        run_on(gpu(), &[&args[..], &["--grids", "one-wave,waves:2,per-item", "--format", "json"]].concat());
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["axes"], serde_json::json!(["items/thr", "grid policy"]));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 3 * 3);
    // At 1024 threads: one wave of 2 blocks on each of 132 SMs, two waves, or one thread a value.
    let grids: Vec<(&str, u64)> = rows
        .iter()
        .filter(|row| row["threads_per_block"] == 1024 && row["axes"]["items/thr"] == "1")
        .map(|row| (row["axes"]["grid policy"].as_str().unwrap(), row["grid_blocks"].as_u64().unwrap()))
        .collect();
    assert_eq!(grids, [("one-wave", 264), ("waves:2", 528), ("per-item", 1954)]);
    let grids: Vec<(&str, u64)> = rows
        .iter()
        .filter(|row| row["threads_per_block"] == 32 && row["axes"]["items/thr"] == "1")
        .map(|row| (row["axes"]["grid policy"].as_str().unwrap(), row["grid_blocks"].as_u64().unwrap()))
        .collect();
    assert_eq!(grids, [("one-wave", 32 * 132), ("waves:2", 2 * 32 * 132), ("per-item", 62500)]);
    // Waves of zero launch nothing: refused in one line.
    let zero = run(&["--grids", "one-wave,waves:0"]);
    assert_eq!((zero.code, zero.stdout.as_str()), (exit::USAGE, ""));
    assert_eq!(
        zero.stderr,
        "Error: the axis `grid policy` has waves:0, which launches nothing: give waves:1 or more\n"
    );
}

#[test]
fn a_block_size_whose_shared_memory_no_block_may_have_is_pruned_with_its_reason() {
    // 64 B a thread: 1024 threads ask for 64 KiB, above the 48 KiB a block gets; 768 for 48 KiB.
    let ran = run_on(
        gpu(),
        &[
            "--n",
            "100003",
            "--block-sizes",
            "256,768,1024",
            "--runs",
            "2",
            "--warmups",
            "0",
            "--shared-bytes-per-thread",
            "64",
        ],
    );
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    let pruned: Vec<&str> = ran.stdout.lines().filter(|line| line.contains(" pruned ")).collect();
    assert_eq!(pruned.len(), 2, "{}", ran.stdout);
    assert!(
        pruned.iter().all(|line| line.contains(" 1024 ") && line.ends_with("cannot launch")),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(
            "Not launched, 2 configuration(s) the device cannot launch (docs/search.md): \
             1024 threads, items/thr 1; 1024 threads, items/thr 4: 65536 B of dynamic shared memory, above the 49152 B \
             a block gets without opting in."
        ),
        "{}",
        ran.stdout
    );
    // The model agrees with the driver at the four launched rows, 768 threads' 48 KiB included.
    assert!(ran.stdout.contains("agrees with the driver's blk/SM at 4 of 4 block sizes."), "{}", ran.stdout);
    // 4 B a thread is what the kernels use: fewer is refused.
    assert!(Cli::try_parse_from(["reduce-example", "--shared-bytes-per-thread", "2"]).is_err());
}

#[test]
fn the_cuda_twins_are_swept_with_source_cuda_and_pass_the_reference_check() {
    let ran = run(&["--source", "cuda", "--format", "json"]);
    assert_eq!((ran.code, ran.stderr.as_str()), (exit::SUCCESS, ""), "{}", ran.stdout);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["kernel"], "reduce-nvcc");
    assert_eq!(json["provenance"]["compiler"], "nvcc", "the nvcc stamp is embedded with its PTX");
    assert_eq!(json["axes"], serde_json::json!(["items/thr"]));
    let rows: Vec<(u64, &str)> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["threads_per_block"].as_u64().unwrap(), row["axes"]["items/thr"].as_str().unwrap()))
        .collect();
    assert_eq!(rows, [(32, "1"), (100, "1"), (1024, "1"), (32, "4"), (100, "4"), (1024, "4")]);
    // The default is the Rust build.
    let rust = run(&["--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&rust.stdout).unwrap();
    assert_eq!(
        (json["kernel"].as_str(), json["provenance"]["compiler"].as_str()),
        (Some("reduce"), Some("cuda_builder"))
    );
    assert!(Cli::try_parse_from(["reduce-example", "--source", "nvptx"]).is_err());
}

#[test]
fn source_cuda_launches_the_twins_and_not_the_rust_entries() {
    // A wrong partial from the CUDA twin of the x4 entry: only --source cuda sees it.
    let wrong = || {
        let mut gpu = gpu();
        gpu.wrong_kernel = Some(CUDA.kernel("sum_of_squares_x4"));
        gpu.wrong_element = 0;
        gpu
    };
    let args = ["--n", "100003", "--block-sizes", "32,1024", "--runs", "2", "--warmups", "0"];
    let cuda = run_on(wrong(), &[&args[..], &["--source", "cuda"]].concat());
    assert_eq!(cuda.code, exit::FAILED, "{}", cuda.stdout);
    assert_eq!(
        cuda.stderr.matches("check failed: items/thr 4: wrong output at ").count(),
        2,
        "{}",
        cuda.stderr
    );
    let rust = run_on(wrong(), &args);
    assert_eq!((rust.code, rust.stderr.as_str()), (exit::SUCCESS, ""), "{}", rust.stdout);
}
