//! The whole program (`block-size-cuda`'s `main_with`) on a scripted driver: which modules
//! this driver can load, what is left out, every device of `--device all`, and frames too
//! large for the device or the host; exit status, standard output and standard error.

use block_size_builtin::ptx;
use block_size_builtin::{KERNELS, grayscale, histogram};
use block_size_cli::app;
use block_size_runner::Console;
use block_size_runner::mock::MockDriver;
use block_size_runner::testing::{ISA_RELEASES, Refusal, Unloadable, compat_check};

/// What one run printed and how it ended.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(driver: &MockDriver, args: &[&str]) -> Ran {
    let args: Vec<std::ffi::OsString> =
        std::iter::once("block-size").chain(args.iter().copied()).map(Into::into).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(driver, &args, &mut Console { out: &mut out, err: &mut err });
    Ran { code, stdout: String::from_utf8(out).unwrap(), stderr: String::from_utf8(err).unwrap() }
}

/// A small, quick frame and one timed launch per row.
const QUICK: [&str; 8] = ["--width", "64", "--height", "64", "--warmups", "0", "--runs", "1"];

fn quick(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = QUICK.to_vec();
    args.extend_from_slice(extra);
    args
}

fn compare_args() -> Vec<&'static str> {
    let mut args = vec!["compare"];
    args.extend([
        "--width",
        "64",
        "--height",
        "64",
        "--warmups",
        "0",
        "--rounds",
        "2",
        "--block-sizes",
        "64,256",
    ]);
    args
}

fn variants_args() -> Vec<&'static str> {
    let mut args = vec!["variants"];
    args.extend(["--width", "64", "--height", "64", "--warmups", "0", "--runs", "1", "--block-sizes", "128"]);
    args
}

/// CUDA 9.2 predates PTX ISA 6.3, the oldest that can target sm_75: no module of this
/// project can load on it, whatever ISA the committed PTX is written in.
const CUDA_9_2: i32 = 9020;

#[test]
fn a_clean_sweep_on_the_mock_is_the_seeds_table_and_exit_0() {
    let ran = run(&block_size_builtin::mock::h200(), &QUICK);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "");
    assert!(ran.stdout.starts_with("GPU: Mock H200 (compute capability 9.0)\n"), "{}", ran.stdout);
    assert!(ran.stdout.contains("agrees with the driver's blk/SM at 13 of 13 block sizes."));
}

#[test]
fn graph_timing_is_accepted_and_every_row_checked_for_both_kernels_and_variants() {
    let graph = [
        "--width",
        "64",
        "--height",
        "64",
        "--timing",
        "graph",
        "--launches-per-sample",
        "4",
        "--warmups",
        "1",
        "--runs",
        "2",
    ];
    let histogram = ["--kernel", "histogram", "--bins", "4096"];
    let line = "Timing: graph mode, median of 2 samples after 1 warm-ups, each sample one replay of a CUDA graph \
                of 4 launches between one pair of CUDA events, divided by 4";
    // The histogram adds to its zeroed bins: its check sees one pass of a graph of four.
    for args in [graph.to_vec(), [&graph[..], &histogram].concat(), [&graph[..], &["--flush-l2"]].concat()] {
        let ran = run(&shared_memory_driver(), &args);
        assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{args:?}: {}", ran.stdout);
        assert!(ran.stdout.contains(line), "{args:?}: {}", ran.stdout);
        let flushed = args.contains(&"--flush-l2");
        assert_eq!(ran.stdout.contains(", L2 flushed before each sample\n"), flushed, "{}", ran.stdout);
    }
    let ran =
        run(&block_size_builtin::mock::h200(), &[&variants_args()[..], &["--timing", "graph"]].concat());
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{}", ran.stdout);
    assert!(ran.stdout.contains("graph of 10 launches"), "{}", ran.stdout);
}

#[test]
fn a_sweep_on_a_driver_too_old_for_its_ptx_is_exit_3_with_one_line_and_no_table() {
    let driver = MockDriver { cuda_version: CUDA_9_2, ..block_size_builtin::mock::h200() };
    for args in [QUICK.to_vec(), vec!["tail", "--width", "64", "--height", "64", "--runs", "1"]] {
        let ran = run(&driver, &args);
        assert_eq!(ran.code, 3, "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stdout, "", "{args:?}: no row, no header");
        let expected = compat_check(ptx::RUST_CUDA, CUDA_9_2).unwrap_err();
        assert_eq!(ran.stderr, format!("Error: {expected}\n"));
        for fragment in [
            "the cuda_builder module (kernels/ptx/grayscale.ptx) is PTX ISA ",
            ", which needs CUDA ",
            "but this driver supports CUDA 9.2: update the NVIDIA driver to branch R",
        ] {
            assert!(ran.stderr.contains(fragment), "{fragment}: {}", ran.stderr);
        }
    }
}

#[test]
fn a_module_the_driver_refuses_stops_a_one_module_run_with_one_line() {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].refuses = vec![(ptx::RUST_CUDA.file, Refusal::UnsupportedPtxVersion)];
    let ran = run(&driver, &QUICK);
    assert_eq!((ran.code, ran.stdout.as_str()), (3, ""));
    let expected = Unloadable::refused(ptx::RUST_CUDA, 13000, Refusal::UnsupportedPtxVersion);
    assert_eq!(ran.stderr, format!("Error: {expected}\n"));
    assert!(
        ran.stderr.starts_with(
            "Error: the driver refused the cuda_builder module (kernels/ptx/grayscale.ptx) with \
             CUDA_ERROR_UNSUPPORTED_PTX_VERSION; the module is PTX ISA "
        ),
        "{}",
        ran.stderr
    );
}

#[test]
fn compare_leaves_out_a_module_the_driver_refuses_and_runs_the_others() {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].refuses = vec![(ptx::RUSTC_NVPTX.file, Refusal::InvalidPtx)];
    let ran = run(&driver, &compare_args());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let expected = Unloadable::refused(ptx::RUSTC_NVPTX, 13000, Refusal::InvalidPtx);
    assert_eq!(ran.stderr, format!("Left out: {expected}\n"));
    for label in ["cuda_builder", "nvcc", "rustc-nvptx-fma"] {
        assert!(ran.stdout.contains(&format!("Fastest {label} row: ")), "{label}: {}", ran.stdout);
    }
    assert!(!ran.stdout.contains("Fastest rustc-nvptx row: "), "{}", ran.stdout);
    assert!(ran.stdout.contains("cuda_builder / nvcc time: "), "nvcc stays the baseline");
}

/// The newest CUDA version some module of `modules` is too new for, by the check before
/// loading: the driver that leaves out the newest modules and only those.
fn driver_just_too_old(modules: &[block_size_runner::EmbeddedPtx]) -> i32 {
    let mut versions: Vec<i32> = ISA_RELEASES.iter().map(|(_, cuda)| cuda.to_driver()).collect();
    versions.push(CUDA_9_2);
    versions.sort_unstable();
    versions
        .into_iter()
        .rev()
        .find(|&version| modules.iter().any(|&module| compat_check(module, version).is_err()))
        .expect("CUDA 9.2 is too old for every module")
}

#[test]
fn compare_leaves_out_the_modules_too_new_for_this_driver() {
    let modules = [ptx::RUST_CUDA, ptx::NVCC, ptx::RUSTC_NVPTX, ptx::RUSTC_NVPTX_FMA];
    let version = driver_just_too_old(&modules);
    let driver = MockDriver { cuda_version: version, ..block_size_builtin::mock::h200() };
    let ran = run(&driver, &compare_args());
    let (too_new, loadable): (Vec<_>, Vec<_>) =
        modules.iter().partition(|&&module| compat_check(module, version).is_err());
    let expected: String = too_new
        .iter()
        .map(|&&module| format!("Left out: {}\n", compat_check(module, version).unwrap_err()))
        .collect();
    assert!(ran.stderr.starts_with(&expected), "{}", ran.stderr);
    if loadable.is_empty() {
        // Every module is written in the same ISA: none can run on this driver.
        assert_eq!(ran.code, 3, "{}", ran.stderr);
        assert_eq!(ran.stdout, "");
        assert_eq!(ran.stderr.lines().count(), too_new.len() + 1);
        assert!(
            ran.stderr.lines().last().unwrap().starts_with("Error: this driver (CUDA "),
            "{}",
            ran.stderr
        );
    } else {
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert_eq!(ran.stderr, expected, "only the left-out lines");
        for module in loadable {
            assert!(ran.stdout.contains(&format!("Fastest {} row: ", module.label)), "{}", ran.stdout);
        }
        for module in too_new {
            assert!(!ran.stdout.contains(&format!("Fastest {} row: ", module.label)), "{}", ran.stdout);
        }
    }
}

#[test]
fn compare_and_variants_with_no_loadable_module_are_exit_3() {
    let driver = MockDriver { cuda_version: CUDA_9_2, ..block_size_builtin::mock::h200() };
    for args in [compare_args(), variants_args()] {
        let ran = run(&driver, &args);
        assert_eq!(ran.code, 3, "{args:?}");
        assert_eq!(ran.stdout, "");
        let lines: Vec<&str> = ran.stderr.lines().collect();
        assert!(lines[..lines.len() - 1].iter().all(|line| line.starts_with("Left out: the ")), "{lines:?}");
        assert_eq!(
            lines.last().copied(),
            Some(
                "Error: this driver (CUDA 9.2) can load none of the modules this command measures: each is named above"
            )
        );
    }
}

#[test]
fn variants_without_the_cpp_module_runs_the_rust_kernels() {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].refuses = vec![(ptx::NVCC.file, Refusal::NoBinaryForGpu)];
    let ran = run(&driver, &variants_args());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let expected = Unloadable::refused(ptx::NVCC, 13000, Refusal::NoBinaryForGpu);
    assert_eq!(ran.stderr, format!("Left out: {expected}\n"));
    let rows: Vec<&str> = ran.stdout.lines().filter(|line| line.trim_start().starts_with("Rust ")).collect();
    assert_eq!(rows.len(), 5, "{}", ran.stdout);
    assert!(!ran.stdout.contains("C++"), "{}", ran.stdout);
    assert!(!ran.stdout.contains("Rust / C++ time"), "no pairs to compare: {}", ran.stdout);
}

#[test]
fn every_device_of_device_all_gets_its_table_or_its_line_and_the_worst_status() {
    let clean = block_size_builtin::mock::h200_like();
    let mut small_blocks = block_size_builtin::mock::h200_like();
    small_blocks.limits.max_threads_per_block = 512;
    let mut wrong = block_size_builtin::mock::h200_like();
    wrong.wrong_kernel = Some(ptx::RUST_CUDA.kernel(grayscale::NAME));
    let mut driver = MockDriver { cuda_version: 13000, devices: vec![clean, small_blocks, wrong] };

    let ran = run(&driver, &quick(&["--device", "all", "--block-sizes", "256,1024"]));
    assert_eq!(ran.code, 2, "bad input (2) outranks a failed check (1): {}", ran.stderr);
    assert_eq!(ran.stdout.matches(" thr/blk ").count(), 2, "devices 0 and 2 print tables: {}", ran.stdout);
    assert!(
        ran.stderr
            .contains("Error: GPU 1: block size 1024 is above Mock H200's limit of 512 threads per block\n"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("check failed: wrong output at 256 threads per block"), "{}", ran.stderr);
    let summaries: Vec<&str> = ran.stdout.lines().filter(|line| line.starts_with("GPU ")).collect();
    assert_eq!(summaries.len(), 3, "{}", ran.stdout);
    assert!(
        summaries[0].starts_with("GPU 0 (Mock H200): fastest ")
            && summaries[0].ends_with("every check held.")
    );
    assert_eq!(
        summaries[1],
        "GPU 1: not measured (exit 2): block size 1024 is above Mock H200's limit of 512 threads per block"
    );
    assert!(summaries[2].ends_with("; 2 check(s) failed."), "{}", summaries[2]);

    // A fourth device that cannot load the kernel: 3 outranks them all.
    let mut refusing = block_size_builtin::mock::h200_like();
    refusing.refuses = vec![(ptx::RUST_CUDA.file, Refusal::NoBinaryForGpu)];
    driver.devices.push(refusing);
    let ran = run(&driver, &quick(&["--device", "all", "--block-sizes", "256,1024"]));
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert_eq!(ran.stdout.matches(" thr/blk ").count(), 2);
    assert!(
        ran.stderr.contains("Error: GPU 3: the driver refused the cuda_builder module"),
        "{}",
        ran.stderr
    );

    // Only failed checks: 1.
    driver.devices.truncate(1);
    driver.devices.push(driver.devices[0].clone());
    driver.devices[1].wrong_kernel = Some(ptx::RUST_CUDA.kernel(grayscale::NAME));
    assert_eq!(run(&driver, &quick(&["--device", "all"])).code, 1);
}

#[test]
fn a_frame_whose_byte_count_overflows_is_bad_input() {
    // 2^30 x 2^30 pixels x 16 bytes wrapped to 0 bytes: it passed the device check and then
    // failed allocating host memory (exit 1), or panicked in a debug build.
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].free_memory = u64::MAX;
    let huge = ["--width", "1073741824", "--height", "1073741824"];
    for command in [&[][..], &["compare"], &["variants"], &["tail"]] {
        let args: Vec<&str> = command.iter().chain(&huge).copied().collect();
        let ran = run(&driver, &args);
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stdout, "");
        assert_eq!(
            ran.stderr,
            "Error: a 1073741824 x 1073741824 frame needs more than 16 EiB of device memory for its buffers red, green, \
             blue and out and what its checks compare with; no device has that\n"
        );
    }
}

#[test]
fn a_frame_that_fits_the_device_but_not_the_host_is_bad_input() {
    // 2^40 pixels: 20 TiB on the device (this one has all of it), 20 TiB on the host (the
    // three input planes, the output read back and the CPU reference every row is compared with).
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].free_memory = u64::MAX;
    let ran = run(&driver, &["--width", "1048576", "--height", "1048576"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(
        ran.stderr.starts_with("Error: a 1048576 x 1048576 frame needs 20971520.0 MiB of host memory")
            || ran.stderr.contains("cannot allocate"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_gpu_the_occupancy_model_does_not_know_is_measured_not_failed() {
    // A B200 (10.0) whose residency the model, had it guessed, would have disputed.
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].limits.compute_capability = (10, 0);
    driver.devices[0].limits.name = "Mock B200".into();
    driver.devices[0].blocks_per_sm = vec![(96, 20)];
    let ran = run(&driver, &quick(&["--block-sizes", "96"]));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "");
    assert!(
        ran.stdout.ends_with("Occupancy model: not checked: it does not know compute capability 10.0.\n"),
        "{}",
        ran.stdout
    );
}

/// The histogram's quick sweep: 4096 bins, a small frame.
fn histogram_args(extra: &[&'static str]) -> Vec<&'static str> {
    quick(&[&["--kernel", "histogram", "--bins", "4096"][..], extra].concat())
}

/// An H200 whose driver answers the histogram's 16 KiB per block as the real one does: 13
/// blocks/SM wherever warps would allow more.
fn shared_memory_driver() -> MockDriver {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].answer_16_kib_as_the_h200();
    driver
}

#[test]
fn a_histogram_sweep_on_the_mock_is_verified_and_names_its_limits() {
    let ran = run(&shared_memory_driver(), &histogram_args(&[]));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "");
    for line in [
        "Image: 64 x 64, 4096 pixels, 0.0 MiB of 16-bit luma read per pass (GB/s counts these bytes)\n",
        "Kernel: histogram of 4096 bins, 16384 B of dynamic shared memory per block; bins zeroed before each launch, outside the timed interval\n",
        "Occupancy model (16 registers/thread, 0 B static + 16384 B dynamic shared memory) agrees with the driver's blk/SM at 13 of 13 block sizes.\n",
    ] {
        assert!(ran.stdout.contains(line), "{line}{}", ran.stdout);
    }
    let rows: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|line| line.trim_start().starts_with(char::is_numeric) && line.contains('%'))
        .collect();
    assert_eq!(rows.len(), 13);
    assert!(rows[1].ends_with(" shared memory") && rows[1].contains(" 13 "), "{}", rows[1]);
    assert!(rows[8].ends_with(" warps"), "{}", rows[8]);
}

#[test]
fn a_driver_that_loses_the_shared_memory_fails_the_histogram_sweep() {
    // A driver that answers the grayscale column whatever the shared memory: the model, which
    // counts the 16 KiB, disagrees wherever shared memory binds, and the run fails.
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].blocks_per_sm = vec![(64, 32), (256, 8)];
    let ran = run(&driver, &histogram_args(&["--block-sizes", "64,256"]));
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "check failed: at 64 threads per block the occupancy model predicts 13 blocks/SM, the driver says 32\n\n\
         1 check(s) failed: the table above is not a measurement of this kernel.\n"
    );
}

#[test]
fn a_corrupted_bin_fails_every_histogram_row_with_exit_1() {
    let ran = run(
        &shared_memory_driver(),
        &histogram_args(&["--block-sizes", "128,1024", "--corrupt-pixel", "4000"]),
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    for threads in [128, 1024] {
        let expected =
            format!("check failed: wrong output at {threads} threads per block: bin 4000 is 4294967295, ");
        assert!(ran.stderr.contains(&expected), "{}", ran.stderr);
    }
    assert!(ran.stderr.contains("2 check(s) failed"), "{}", ran.stderr);
}

#[test]
fn a_miscounting_histogram_kernel_fails_with_its_bin_and_total() {
    let mut driver = shared_memory_driver();
    driver.devices[0].wrong_kernel = Some(ptx::RUST_CUDA.kernel(histogram::SHAPES[0].entry));
    driver.devices[0].wrong_element = 12;
    let ran = run(&driver, &histogram_args(&["--block-sizes", "256"]));
    assert_eq!(ran.code, 1);
    assert!(ran.stderr.contains(": bin 12 is "), "{}", ran.stderr);
    assert!(ran.stderr.contains("; the bins sum to 4097, not the 4096 pixels\n"), "{}", ran.stderr);
}

#[test]
fn compare_of_the_histogram_measures_rust_against_cpp() {
    let driver = shared_memory_driver();
    let mut args = compare_args();
    args.extend(["--kernel", "histogram", "--bins", "4096"]);
    let ran = run(&driver, &args);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains(" thr/blk  cuda_builder blk/SM "), "{}", ran.stdout);
    assert!(ran.stdout.contains("cuda_builder / nvcc time: "), "{}", ran.stdout);
    assert!(!ran.stdout.contains("rustc-nvptx"), "{}", ran.stdout);
    // 64 threads: 13 blocks/SM for both, by the 16 KiB of shared memory each block asks for.
    let row = ran.stdout.lines().find(|line| line.trim_start().starts_with("64 ")).unwrap();
    assert_eq!(row.split_whitespace().filter(|&word| word == "13").count(), 2, "{row}");
}

#[test]
fn compare_of_the_histogram_without_its_cpp_twin_divides_by_the_rust_kernel() {
    let mut driver = shared_memory_driver();
    driver.devices[0].refuses = vec![(ptx::HISTOGRAM_NVCC.file, Refusal::InvalidPtx)];
    let mut args = compare_args();
    args.extend(["--kernel", "histogram", "--bins", "4096"]);
    let ran = run(&driver, &args);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let expected = Unloadable::refused(ptx::HISTOGRAM_NVCC, 13000, Refusal::InvalidPtx);
    assert_eq!(ran.stderr, format!("Left out: {expected}\n"));
    assert!(ran.stdout.contains("Fastest cuda_builder row: "), "{}", ran.stdout);
}

#[test]
fn tail_runs_the_histogram_in_waves_of_its_shared_memory() {
    let ran = run(
        &shared_memory_driver(),
        &[
            "tail",
            "--kernel",
            "histogram",
            "--bins",
            "4096",
            "--block-size",
            "64",
            "--width",
            "64",
            "--height",
            "64",
            "--runs",
            "1",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("Block size: 64 threads; 13 blocks/SM x 132 SMs = 1716 blocks per wave"),
        "{}",
        ran.stdout
    );
}

#[test]
fn histogram_options_out_of_range_are_exit_2_before_any_gpu_work() {
    for args in [
        &["--kernel", "histogram", "--bins", "0"][..],
        &["--kernel", "histogram", "--bins", "4097"],
        &["--bins", "64"],
        &["--kernel", "histogram", "--bins", "16", "--corrupt-pixel", "16"],
        &["compare", "--kernel", "histogram", "--bins", "5000"],
        &["tail", "--bins", "8"],
        &["variants", "--kernel", "histogram", "--bins", "4097"],
        &["variants", "--bins", "8"],
        &["--kernel", "histogram", "--width", "65536", "--height", "65537"],
    ] {
        let ran = run(&block_size_builtin::mock::h200(), args);
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stdout, "", "{args:?}");
        assert_eq!(ran.stderr.lines().count(), 1, "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn a_histogram_too_large_for_the_device_names_its_buffers() {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].free_memory = 1 << 20;
    let ran = run(&driver, &["--kernel", "histogram", "--width", "1024", "--height", "1024"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "Error: a 1024 x 1024 frame needs 2.0 MiB of device memory for its buffers luma and bins (and any L2 flush buffer), but only 1.0 MiB is free\n"
    );
}

#[test]
fn every_registered_kernel_runs_through_the_mock_with_its_compare() {
    // The spread histograms ask 32 KiB a block at 256 bins: 6 blocks of 256 threads fit on an
    // H200's SM, as the occupancy model says, where warps alone would allow 8.
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].shared_memory_residency = vec![(256, 32768, 6)];
    for (name, _) in KERNELS {
        let ran = run(&driver, &quick(&["--kernel", name, "--block-sizes", "256"]));
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        let mut args = compare_args();
        args.extend(["--kernel", name]);
        let ran = run(&driver, &args);
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        assert!(ran.stdout.contains("cuda_builder blk/SM"), "{name}: {}", ran.stdout);
    }
}

/// [`quick`] with arguments of any lifetime (file names made at run time).
fn quick_with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    QUICK.iter().copied().chain(extra.iter().copied()).collect()
}

/// A fresh, empty folder for one test's files, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("block-size-app-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn json_to_standard_output_is_one_json_document_and_nothing_else() {
    let ran =
        run(&block_size_builtin::mock::h200(), &quick_with(&["--format", "json", "--block-sizes", "64,256"]));
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    let document: serde_json::Value = serde_json::from_str(&ran.stdout).expect("stdout is one JSON document");
    assert_eq!(document["rows"].as_array().unwrap().len(), 2);
    assert_eq!(document["device"]["name"], "Mock H200");
    assert!(ran.stdout.starts_with("{\n") && ran.stdout.ends_with("}\n"), "no table header around it");
}

#[test]
fn an_output_file_gets_the_output_and_standard_output_gets_nothing() {
    let scratch = Scratch::new("output");
    for (format, file) in [("table", "sweep.txt"), ("json", "sweep.json"), ("csv", "sweep.csv")] {
        let path = scratch.file(file);
        let ran =
            run(&block_size_builtin::mock::h200(), &quick_with(&["--format", format, "--output", &path]));
        assert_eq!(ran.code, 0, "{format}: {}", ran.stderr);
        assert_eq!((ran.stdout.as_str(), ran.stderr.as_str()), ("", ""), "{format}");
        let written = std::fs::read_to_string(&path).unwrap();
        match format {
            "table" => {
                assert!(written.starts_with("GPU: Mock H200") && written.contains(" thr/blk "), "{written}")
            }
            "json" => assert!(serde_json::from_str::<serde_json::Value>(&written).is_ok(), "{written}"),
            _ => assert!(written.starts_with("threads_per_block,"), "{written}"),
        }
    }
    // Failed checks still reach standard error, and the file is written all the same.
    let path = scratch.file("corrupted.json");
    let ran = run(
        &block_size_builtin::mock::h200(),
        &quick_with(&["--format", "json", "--output", &path, "--corrupt-pixel", "9"]),
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (1, ""));
    assert!(ran.stderr.contains("check failed: wrong output at "), "{}", ran.stderr);
    assert!(std::fs::read_to_string(&path).unwrap().contains("\"failures\": ["));
}

#[test]
fn device_all_names_every_export_and_plot_for_its_gpu() {
    let scratch = Scratch::new("device-all");
    let mut driver = block_size_builtin::mock::h200();
    let mut second = block_size_builtin::mock::h200_like();
    second.limits.name = "Mock Second".into();
    driver.devices.push(second);
    let (json, svg) = (scratch.file("sweep.json"), scratch.file("sweep.svg"));
    let ran = run(
        &driver,
        &quick_with(&["--device", "all", "--format", "json", "--output", &json, "--plot", &svg]),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(scratch.names(), ["sweep-gpu0.json", "sweep-gpu0.svg", "sweep-gpu1.json", "sweep-gpu1.svg"]);
    for (ordinal, name) in [(0, "Mock H200"), (1, "Mock Second")] {
        let written = std::fs::read_to_string(scratch.file(&format!("sweep-gpu{ordinal}.json"))).unwrap();
        let document: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            (document["device"]["ordinal"].as_u64(), document["device"]["name"].as_str()),
            (Some(ordinal), Some(name))
        );
    }
    // Standard output keeps only the closing summary, one line per GPU.
    let summaries: Vec<&str> = ran.stdout.lines().filter(|line| !line.is_empty()).collect();
    assert_eq!(summaries.len(), 2, "{}", ran.stdout);
    assert!(summaries[1].starts_with("GPU 1 (Mock Second): fastest "), "{}", summaries[1]);

    // One device: the names as given.
    let ran = run(
        &block_size_builtin::mock::h200(),
        &quick_with(&["--format", "json", "--output", &json, "--plot", &svg]),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        scratch.names().contains(&"sweep.json".to_string())
            && scratch.names().contains(&"sweep.svg".to_string())
    );
}

#[test]
fn the_table_and_every_export_in_one_run() {
    let scratch = Scratch::new("exports");
    let (json, csv, markdown) =
        (scratch.file("sweep.json"), scratch.file("sweep.csv"), scratch.file("sweep.md"));
    let ran = run(
        &block_size_builtin::mock::h200(),
        &quick_with(&["--block-sizes", "64,256", "--json", &json, "--csv", &csv, "--markdown", &markdown]),
    );
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    assert!(ran.stdout.starts_with("GPU: Mock H200") && ran.stdout.contains(" thr/blk "), "{}", ran.stdout);
    assert_eq!(scratch.names(), ["sweep.csv", "sweep.json", "sweep.md"]);
    let document: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(document["rows"].as_array().unwrap().len(), 2);
    assert!(std::fs::read_to_string(&csv).unwrap().starts_with("threads_per_block,"));
    assert!(std::fs::read_to_string(&markdown).unwrap().starts_with("**Mock H200**"));

    // --format and --output keep working beside them.
    let table = scratch.file("table.txt");
    let ran = run(
        &block_size_builtin::mock::h200(),
        &quick_with(&["--format", "csv", "--output", &table, "--json", &json]),
    );
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""), "{}", ran.stderr);
    assert!(std::fs::read_to_string(&table).unwrap().starts_with("threads_per_block,"));

    // A missing folder, or one file named twice, is refused before the device is opened.
    let mut driver = block_size_builtin::mock::h200();
    driver.devices.clear();
    for (args, message) in [
        (
            vec!["--markdown", "/no/such/folder/sweep.md"],
            "Error: cannot write /no/such/folder/sweep.md (--markdown): its folder does not exist\n"
                .to_string(),
        ),
        (
            vec!["--json", json.as_str(), "--csv", json.as_str()],
            format!("Error: --json and --csv both name {json}: give each its own file\n"),
        ),
    ] {
        let ran = run(&driver, &quick_with(&args));
        assert_eq!(
            (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
            (2, "", message.as_str()),
            "{args:?}"
        );
    }
}

#[test]
fn the_grayscale_shapes_and_the_histogram_bins_are_axes_of_the_sweep() {
    let ran = run(
        &block_size_builtin::mock::h200(),
        &quick(&["--vector-width", "1,4", "--pixels-per-thread", "1,4,8", "--block-sizes", "64,256"]),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // (1,1), (1,4), (1,8), (4,4): four shapes x two block sizes; (4,1) and (4,8) have no kernel.
    assert!(
        ran.stdout.contains(
            "Not swept: vector width 4 at 1, 8 pixel(s) per thread, which no kernel has (grayscale_vec4 converts 4)\n"
        ),
        "{}",
        ran.stdout
    );
    let table: Vec<&str> = ran.stdout.lines().skip_while(|line| !line.contains("thr/blk")).take(9).collect();
    assert!(table[0].starts_with("  vector width   pixels/thr  thr/blk"), "{}", ran.stdout);
    let shapes: Vec<(String, String, String)> = table[1..]
        .iter()
        .map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            (cells[0].into(), cells[1].into(), cells[2].into())
        })
        .collect();
    let expected: Vec<(String, String, String)> = [
        ("1", "1", "64"),
        ("1", "1", "256"),
        ("1", "4", "64"),
        ("1", "4", "256"),
        ("1", "8", "64"),
        ("1", "8", "256"),
        ("4", "4", "64"),
        ("4", "4", "256"),
    ]
    .iter()
    .map(|&(a, b, c)| (a.into(), b.into(), c.into()))
    .collect();
    assert_eq!(shapes, expected);
    assert!(ran.stdout.contains("agrees with the driver's blk/SM at 8 of 8 block sizes."), "{}", ran.stdout);

    // The histogram's bins: each row checked against its own bins' reference.
    let ran = run(
        &shared_memory_driver(),
        &quick(&[
            "--kernel",
            "histogram",
            "--bins",
            "7,4096",
            "--block-sizes",
            "64,1024",
            "--format",
            "json",
        ]),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["axes"], serde_json::json!(["bins"]));
    let rows: Vec<(String, u64, u64)> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["axes"]["bins"].as_str().unwrap().to_string(),
                row["threads_per_block"].as_u64().unwrap(),
                row["blocks_per_sm"].as_u64().unwrap(),
            )
        })
        .collect();
    // 4096 bins take 16 KiB a block: 13 blocks of 64 threads an SM, where 7 bins allow 32.
    assert_eq!(
        rows,
        [("7".into(), 64, 32), ("7".into(), 1024, 2), ("4096".into(), 64, 13), ("4096".into(), 1024, 2)]
    );
    assert!(json["head"].as_array().unwrap().iter().any(|line| {
        line.as_str()
            .unwrap()
            .starts_with("Kernel: histogram, histogram of each row's bins (the bins column)")
    }));

    // A corrupted bin fails every row of every bins value.
    let ran = run(
        &shared_memory_driver(),
        &quick(&["--kernel", "histogram", "--bins", "7,4096", "--corrupt-output", "3"]),
    );
    assert_eq!(ran.code, 1);
    assert_eq!(
        ran.stderr.lines().filter(|line| line.starts_with("check failed: bins ")).count(),
        26,
        "{}",
        ran.stderr
    );
}

#[test]
fn axes_of_this_repositorys_kernels_that_do_not_hold_are_exit_2_in_one_line() {
    for (args, why) in [
        (&["--pixels-per-thread", "3"][..], "--pixels-per-thread takes 1, 2, 4, 8, not 3"),
        (&["--vector-width", "2"], "--vector-width takes 1, 4, not 2"),
        (
            &["--vector-width", "4", "--pixels-per-thread", "2"],
            "no grayscale kernel has a vector width of 4 at 2 pixel(s) per thread: grayscale_vec4 converts 4",
        ),
        (&["--pixels-per-thread", "2,2"], "--pixels-per-thread lists 2 twice"),
        (
            &["--kernel", "histogram", "--pixels-per-thread", "2"],
            "--pixels-per-thread applies to --kernel grayscale alone, not --kernel histogram",
        ),
        (&["--kernel", "histogram", "--bins", "16,16"], "--bins lists 16 twice"),
        (&["--kernel", "histogram", "--bins", "16,5000"], "--bins must be 1 to 4096, not 5000"),
        (&["--bins", "16,32"], "--bins does not apply to --kernel grayscale"),
    ] {
        let ran = run(&block_size_builtin::mock::h200(), &quick(args));
        assert_eq!((ran.code, ran.stdout.as_str()), (2, ""), "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.starts_with(&format!("Error: {why}")), "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn device_all_emits_one_rust_file_with_every_gpus_winner() {
    let scratch = Scratch::new("emit-all");
    let mut driver = block_size_builtin::mock::h200();
    let mut second = block_size_builtin::mock::h200_like();
    second.limits.name = "Mock Second".into();
    second.limits.compute_capability = (8, 0);
    driver.devices.push(second);
    let rust = scratch.file("winner.rs");
    let ran =
        run(&driver, &quick_with(&["--device", "all", "--pixels-per-thread", "1,2", "--emit-rust", &rust]));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(scratch.names(), ["winner.rs", "winner.rs.json"]);
    let source = std::fs::read_to_string(&rust).unwrap();
    for line in [
        "pub mod mock_h200_sm90 {",
        "pub mod mock_second_sm80 {",
        "(\"Mock H200\", (9, 0)) => Some(mock_h200_sm90::CONFIG),",
        "(\"Mock Second\", (8, 0)) => Some(mock_second_sm80::CONFIG),",
        "    pub pixels_thr: u32,",
    ] {
        assert!(source.contains(line), "{line}\n{source}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.file("winner.rs.json")).unwrap()).unwrap();
    assert_eq!(json["axes"], serde_json::json!(["pixels/thr"]));
    assert_eq!(json["winners"].as_array().unwrap().len(), 2);
    // A later run on one of them replaces its winner and keeps the other's.
    let ran = run(
        &block_size_builtin::mock::h200(),
        &quick_with(&["--pixels-per-thread", "1,2", "--emit-rust", &rust]),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.file("winner.rs.json")).unwrap()).unwrap();
    let gpus: Vec<&str> =
        json["winners"].as_array().unwrap().iter().map(|winner| winner["gpu"].as_str().unwrap()).collect();
    assert_eq!(gpus, ["Mock H200", "Mock Second"]);
}

#[test]
fn runs_at_two_sizes_keep_a_winner_each_and_config_for_size_chooses() {
    let scratch = Scratch::new("emit-sizes");
    let rust = scratch.file("winner.rs");
    for (width, height) in [("64", "64"), ("256", "256")] {
        let ran = run(
            &block_size_builtin::mock::h200(),
            &["--width", width, "--height", height, "--warmups", "0", "--runs", "1", "--emit-rust", &rust],
        );
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.file("winner.rs.json")).unwrap()).unwrap();
    let items: Vec<u64> =
        json["winners"].as_array().unwrap().iter().map(|winner| winner["items"].as_u64().unwrap()).collect();
    assert_eq!(items, [4096, 65536]);
    let source = std::fs::read_to_string(&rust).unwrap();
    for line in [
        "pub mod mock_h200_sm90_n4096 {",
        "pub mod mock_h200_sm90_n65536 {",
        "(\"Mock H200\", (9, 0)) => Some(mock_h200_sm90_n65536::CONFIG),",
        "    (\"Mock H200\", (9, 0), 4096, mock_h200_sm90_n4096::CONFIG),",
        "pub fn config_for_size(",
    ] {
        assert!(source.contains(line), "{line}\n{source}");
    }
    // The same size again replaces its own.
    let ran = run(&block_size_builtin::mock::h200(), &quick_with(&["--emit-rust", &rust]));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(scratch.file("winner.rs.json")).unwrap()).unwrap();
    assert_eq!(json["winners"].as_array().unwrap().len(), 2);
}
