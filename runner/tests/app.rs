//! The whole program (`block-size-cuda`'s `main_with`) on a scripted driver: which modules
//! this driver can load, what is left out, every device of `--device all`, and frames too
//! large for the device or the host; exit status, standard output and standard error.

use block_size_runner::app::{self, Console};
use block_size_runner::backend::{MockDriver, MockGpu};
use block_size_runner::compat::{self, ISA_RELEASES, Refusal, Unloadable};
use block_size_runner::ptx;

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
    let ran = run(&MockDriver::h200(), &QUICK);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stderr, "");
    assert!(ran.stdout.starts_with("GPU: Mock H200 (compute capability 9.0)\n"), "{}", ran.stdout);
    assert!(ran.stdout.contains("agrees with the driver's blk/SM at 13 of 13 block sizes."));
}

#[test]
fn a_sweep_on_a_driver_too_old_for_its_ptx_is_exit_3_with_one_line_and_no_table() {
    let driver = MockDriver { cuda_version: CUDA_9_2, ..MockDriver::h200() };
    for args in [QUICK.to_vec(), vec!["tail", "--width", "64", "--height", "64", "--runs", "1"]] {
        let ran = run(&driver, &args);
        assert_eq!(ran.code, 3, "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stdout, "", "{args:?}: no row, no header");
        let expected = compat::check(ptx::RUST_CUDA, CUDA_9_2).unwrap_err();
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
    let mut driver = MockDriver::h200();
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
    let mut driver = MockDriver::h200();
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
fn driver_just_too_old(modules: &[ptx::EmbeddedPtx]) -> i32 {
    let mut versions: Vec<i32> = ISA_RELEASES.iter().map(|(_, cuda)| cuda.to_driver()).collect();
    versions.push(CUDA_9_2);
    versions.sort_unstable();
    versions
        .into_iter()
        .rev()
        .find(|&version| modules.iter().any(|&module| compat::check(module, version).is_err()))
        .expect("CUDA 9.2 is too old for every module")
}

#[test]
fn compare_leaves_out_the_modules_too_new_for_this_driver() {
    let version = driver_just_too_old(&ptx::ALL);
    let driver = MockDriver { cuda_version: version, ..MockDriver::h200() };
    let ran = run(&driver, &compare_args());
    let (too_new, loadable): (Vec<_>, Vec<_>) =
        ptx::ALL.iter().partition(|&&module| compat::check(module, version).is_err());
    let expected: String = too_new
        .iter()
        .map(|&&module| format!("Left out: {}\n", compat::check(module, version).unwrap_err()))
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
    let driver = MockDriver { cuda_version: CUDA_9_2, ..MockDriver::h200() };
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
    let mut driver = MockDriver::h200();
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
    let clean = MockGpu::h200_like();
    let mut small_blocks = MockGpu::h200_like();
    small_blocks.limits.max_threads_per_block = 512;
    let mut wrong = MockGpu::h200_like();
    wrong.wrong_kernel = Some(0);
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
    let mut refusing = MockGpu::h200_like();
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
    driver.devices[1].wrong_kernel = Some(0);
    assert_eq!(run(&driver, &quick(&["--device", "all"])).code, 1);
}

#[test]
fn a_frame_whose_byte_count_overflows_is_bad_input() {
    // 2^30 x 2^30 pixels x 16 bytes wrapped to 0 bytes: it passed the device check and then
    // failed allocating host memory (exit 1), or panicked in a debug build.
    let mut driver = MockDriver::h200();
    driver.devices[0].free_memory = u64::MAX;
    let huge = ["--width", "1073741824", "--height", "1073741824"];
    for command in [&[][..], &["compare"], &["variants"], &["tail"]] {
        let args: Vec<&str> = command.iter().chain(&huge).copied().collect();
        let ran = run(&driver, &args);
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stdout, "");
        assert_eq!(
            ran.stderr,
            "Error: a 1073741824 x 1073741824 frame needs more than 16 EiB of device memory for its four planes; \
             no device has that\n"
        );
    }
}

#[test]
fn a_frame_that_fits_the_device_but_not_the_host_is_bad_input() {
    // 2^40 pixels: 16 TiB on the device (this one has all of it), 20 TiB on the host.
    let mut driver = MockDriver::h200();
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
    let mut driver = MockDriver::h200();
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
