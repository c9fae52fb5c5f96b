//! What every command prints for this repository's kernels, end to end through the runner's
//! public API on its mock driver: the sweep's header, table, summary and stderr verdict,
//! `compare`, `tail` and `variants`, pinned by snapshots; and the sweep's table against
//! block_size.cu's layout.

use block_size_builtin::mock::h200_like;
use block_size_builtin::ptx::{HISTOGRAM_NVCC, NVCC, RUST_CUDA, RUSTC_NVPTX};
use block_size_builtin::{
    CompareRequest, KernelChoice, SweepRequest, TailRequest, VariantsRequest, histogram,
};
use block_size_runner::mock::{MockDriver, MockGpu};
use block_size_runner::{CompareArgs, Console, SweepArgs, TailArgs, VariantsArgs};

/// `block_size.cu`'s timing: batch mode, three warm-ups, ten samples.
const SEED_TIMING: [&str; 6] = ["--timing", "batch", "--warmups", "3", "--runs", "10"];

/// `block-size`'s block sizes unless `--block-sizes` says otherwise.
const DEFAULT_BLOCK_SIZES: [u32; 13] = [16, 32, 64, 96, 100, 128, 160, 192, 256, 384, 512, 768, 1024];

/// Times shaped like a memory-bound kernel: slow at the smallest blocks and at 100 threads,
/// flat elsewhere.
fn scripted_gpu() -> MockGpu {
    let mut gpu = h200_like();
    let times =
        [0.155, 0.080, 0.041, 0.0405, 0.046, 0.0402, 0.0407, 0.0404, 0.0401, 0.0409, 0.0403, 0.0431, 0.0412];
    gpu.milliseconds = DEFAULT_BLOCK_SIZES.into_iter().zip(times).collect();
    gpu
}

/// What one run printed and how it ended.
struct Printed {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `command` on a driver of `gpu` alone.
fn printed(
    gpu: MockGpu,
    command: impl FnOnce(&MockDriver, &mut Console) -> Result<i32, block_size_runner::Error>,
) -> Printed {
    let driver = MockDriver { cuda_version: 13000, devices: vec![gpu] };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = command(&driver, &mut Console { out: &mut out, err: &mut err }).unwrap();
    Printed { code, stdout: String::from_utf8(out).unwrap(), stderr: String::from_utf8(err).unwrap() }
}

fn frame(kernel: &str, width: u32, height: u32, bins: &[u32]) -> KernelChoice {
    KernelChoice { kernel: kernel.into(), width, height, bins: bins.to_vec() }
}

/// The sweep of `kernel` with `block_size.cu`'s timing and `options` on `gpu`.
fn sweep(gpu: MockGpu, kernel: KernelChoice, options: &[&str]) -> Printed {
    sweep_exactly(gpu, kernel, &[&SEED_TIMING[..], options].concat())
}

/// The sweep of `kernel` with `options` alone on `gpu`.
fn sweep_exactly(gpu: MockGpu, kernel: KernelChoice, options: &[&str]) -> Printed {
    let options = SweepArgs::from_args(options).unwrap();
    let request = SweepRequest { kernel, options, ..SweepRequest::default() };
    printed(gpu, |driver, console| request.exec(driver, console))
}

fn grayscale_640x480() -> KernelChoice {
    frame("grayscale", 640, 480, &[])
}

#[test]
fn clean_run_prints_header_table_and_summary() {
    let ran = sweep(scripted_gpu(), grayscale_640x480(), &[]);
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "a clean run prints nothing on stderr");
    insta::assert_snapshot!("clean_run_stdout", ran.stdout);
}

#[test]
fn stats_columns_and_noise_marks() {
    let mut gpu = scripted_gpu();
    gpu.run_spread = 0.02;
    let ran = sweep(gpu, grayscale_640x480(), &["--flush-l2", "--stats"]);
    // The last line says where the wall time went: host times, which vary from run to run.
    let (table, time) = ran.stdout.rsplit_once("Time: ").expect("a Time: line under --stats");
    assert!(time.ends_with(" s.\n") && time.contains(" s to measure: device "), "{time}");
    insta::assert_snapshot!("stats_and_flush_stdout", table);
}

#[test]
fn the_noise_driven_stop_adds_a_runs_column_and_says_how_rows_ended() {
    let mut gpu = scripted_gpu();
    // Steady samples for the first rows, then samples 3 percent apart for ever: the rows
    // from there on run to their budget, on the mock's clock (each sample's scripted time).
    gpu.sample_script = [&[1.0; 60][..], &[0.97, 1.0, 1.03].repeat(10_000)].concat();
    let options =
        ["--timing", "batch", "--warmups", "3", "--max-noise", "0.005", "--max-time-per-row", "20ms"];
    let ran = sweep_exactly(gpu, grayscale_640x480(), &options);
    assert!(ran.stdout.contains(" of best   runs "), "{}", ran.stdout);
    insta::assert_snapshot!("noise_driven_stop_stdout", ran.stdout);
}

#[test]
fn cold_timing_says_so_in_its_header() {
    let options = ["--timing", "cold", "--warmups", "3", "--runs", "10", "--block-sizes", "64,128"];
    let ran = sweep_exactly(scripted_gpu(), frame("grayscale", 64, 64, &[]), &options);
    assert!(
        ran.stdout.contains(
            "Timing: cold mode, median of 10 runs after 3 warm-ups, each run one launch between its own CUDA events \
             after an L2 flush, every run queued behind a blocking kernel until all are enqueued\n"
        ),
        "{}",
        ran.stdout
    );
}

#[test]
fn corrupted_run_names_every_failed_row_and_disowns_the_table() {
    let ran = sweep(scripted_gpu(), grayscale_640x480(), &["--corrupt-output", "307199"]);
    assert_eq!(ran.code, 1);
    insta::assert_snapshot!("corrupted_run_stderr", ran.stderr);
}

/// block_size.cu prints its table with printf("%8s %6s %5s %7s %9s %6s %7s %9s %8s %8s")
/// and "%8d %6d %5d %7d %9d %5.0f%% %7d %9.3f %8.1f %8.2f"; the same widths here mean the
/// two programs' tables can be diffed column for column. The limiter column follows them,
/// 14 wide.
#[test]
fn table_layout_matches_block_size_cu() {
    let ran = sweep(scripted_gpu(), frame("grayscale", 64, 64, &[]), &[]);
    let table: Vec<&str> = ran.stdout.lines().skip_while(|line| !line.contains("thr/blk")).take(14).collect();
    let heading = format!(
        "{:>8} {:>6} {:>5} {:>7} {:>9} {:>6} {:>7} {:>9} {:>8} {:>8} {:>14}",
        "thr/blk", "warps", "idle", "blk/SM", "warps/SM", "occ", "grid", "ms", "GB/s", "of best", "limiter"
    );
    assert_eq!(table[0], heading);
    // 64 threads: 2 warps, 32 blocks and 64 warps a SM, 100 percent, a grid of 64 blocks for
    // 4096 pixels, 0.041 ms, 1.6 GB/s of 65536 bytes.
    let row = format!(
        "{:>8} {:>6} {:>5} {:>7} {:>9} {:>5.0}% {:>7} {:>9.3} {:>8.1} {:>8} {:>14}",
        64,
        2,
        0,
        32,
        64,
        100.0,
        64,
        0.041,
        65536.0 / 0.041e-3 / 1e9,
        "0.98",
        "warps+blocks"
    );
    assert_eq!(table[3], row, "{}", ran.stdout);
    assert_eq!(table.len(), 14);
}

#[test]
fn comparison_prints_each_kernel_and_its_ratio_to_the_baseline() {
    let mut gpu = scripted_gpu();
    let kernels = [RUST_CUDA.kernel("grayscale"), NVCC.kernel("grayscale"), RUSTC_NVPTX.kernel("grayscale")];
    gpu.kernel_time_factors = kernels.iter().copied().zip([1.0, 1.0, 1.05]).collect();
    // Its twins, in this order, are what it is compared against.
    let options = ["--rounds", "5", "--block-sizes", "64,128,256,1024", "--warmups", "3"];
    let request =
        CompareRequest { kernel: grayscale_640x480(), options: CompareArgs::from_args(options).unwrap() };
    let ran = printed(gpu, |driver, console| request.exec(driver, console));
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("comparison_stdout", ran.stdout);
}

#[test]
fn tail_table_compares_every_grid_with_one_wave() {
    // Modelled times: a partial last wave costs what the model says, so the table moves with
    // the grids the code chooses.
    let mut gpu = scripted_gpu();
    gpu.modelled_times = true;
    let options = TailArgs::from_args(["--timing", "batch", "--warmups", "1", "--runs", "3"]).unwrap();
    let request = TailRequest { kernel: grayscale_640x480(), options };
    let ran = printed(gpu, |driver, console| request.exec(driver, console));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    insta::assert_snapshot!("tail_stdout", ran.stdout);
}

#[test]
fn device_summary_names_the_gpu_its_fastest_row_and_its_verdict() {
    let ran = sweep(scripted_gpu(), frame("grayscale", 64, 64, &[]), &["--device", "all"]);
    assert!(
        ran.stdout.ends_with(
            "\nGPU 0 (Mock H200): fastest 256 threads per block at 0.040 ms (1.6 GB/s); 9 of 13 rows within 95 percent; every check held.\n"
        ),
        "{}",
        ran.stdout
    );
    let broken = ["--device", "all", "--corrupt-output", "5", "--block-sizes", "64,128"];
    let ran = sweep(scripted_gpu(), frame("grayscale", 64, 64, &[]), &broken);
    assert!(ran.stdout.ends_with("; 2 check(s) failed.\n"), "{}", ran.stdout);
}

/// `variants`' timing (each launch between its own events, as its copy ceiling) at
/// `block_sizes`, three warm-ups, ten samples.
fn variants_options(block_sizes: &str) -> VariantsArgs {
    VariantsArgs::from_args(["--block-sizes", block_sizes, "--warmups", "3", "--runs", "10"]).unwrap()
}

#[test]
fn variants_table_reports_each_row_against_the_copy_and_the_peak() {
    // Modelled times: each variant's grid and bytes decide its row, as on a GPU.
    let mut gpu = scripted_gpu();
    gpu.modelled_times = true;
    gpu.limits.name = "Mock NVIDIA H200".into();
    gpu.copy_gb_per_s = 3300.0;
    let entries = ["grayscale", "grayscale_vec4", "grayscale_k2", "grayscale_k4", "grayscale_k8"];
    let kernels = [RUST_CUDA, NVCC].into_iter().flat_map(|module| entries.map(|entry| module.kernel(entry)));
    let factors = [1.0, 0.97, 0.99, 0.98, 0.985, 1.0, 0.97, 0.99, 0.98, 0.985];
    gpu.kernel_time_factors = kernels.zip(factors).collect();
    let request = VariantsRequest {
        width: 640,
        height: 480,
        offset: 2,
        options: variants_options("128,256"),
        ..VariantsRequest::default()
    };
    let ran = printed(gpu, |driver, console| request.exec(driver, console));
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("variants_stdout", ran.stdout);
}

#[test]
fn histogram_variants_table_counts_the_luma_read_against_the_copy() {
    let mut gpu = scripted_gpu();
    gpu.limits.name = "Mock NVIDIA H200".into();
    gpu.copy_gb_per_s = 4000.0;
    let factors = [1.0, 0.6, 0.5, 0.4, 0.42, 0.38, 0.41];
    gpu.kernel_time_factors = [RUST_CUDA, HISTOGRAM_NVCC]
        .into_iter()
        .flat_map(|module| histogram::SHAPES.iter().map(move |shape| module.kernel(shape.entry)))
        .zip(factors.iter().chain(&factors).copied())
        .collect();
    let request = VariantsRequest {
        kernel: "histogram".into(),
        bins: Some(256),
        width: 640,
        height: 480,
        offset: 3,
        options: variants_options("256,1024"),
    };
    let ran = printed(gpu, |driver, console| request.exec(driver, console));
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("histogram_variants_stdout", ran.stdout);
}

/// The scripted H200; at 4096 bins its driver answers as the H200's does for 16 KiB a block
/// (`MockGpu::answer_16_kib_as_the_h200`), at fewer (1 KiB and less a block) the grayscale
/// column, which shared memory does not bind.
fn histogram_gpu(bins: u32) -> MockGpu {
    let mut gpu = scripted_gpu();
    if bins == 4096 {
        gpu.answer_16_kib_as_the_h200();
    }
    gpu
}

#[test]
fn histogram_table_names_shared_memory_where_it_binds() {
    let ran = sweep(histogram_gpu(4096), frame("histogram", 640, 480, &[4096]), &[]);
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("histogram_stdout", ran.stdout);
}

#[test]
fn histogram_comparison_prints_rust_against_cpp() {
    let mut gpu = histogram_gpu(4096);
    gpu.kernel_time_factors =
        vec![(RUST_CUDA.kernel("histogram"), 1.02), (HISTOGRAM_NVCC.kernel("histogram"), 1.0)];
    let options = ["--rounds", "5", "--block-sizes", "64,256,1024", "--warmups", "3"];
    let request = CompareRequest {
        kernel: frame("histogram", 640, 480, &[4096]),
        options: CompareArgs::from_args(options).unwrap(),
    };
    let ran = printed(gpu, |driver, console| request.exec(driver, console));
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("histogram_comparison_stdout", ran.stdout);
}

#[test]
fn a_corrupted_histogram_names_the_bin_in_every_row() {
    let options = ["--block-sizes", "64,1024", "--corrupt-output", "255"];
    let ran = sweep(histogram_gpu(256), frame("histogram", 640, 480, &[]), &options);
    assert_eq!(ran.code, 1);
    insta::assert_snapshot!("histogram_corrupted_stderr", ran.stderr);
}
