//! The `block-size` command on a machine without a GPU: bad input is exit 2 with one line,
//! a missing driver or GPU is exit 3 with one line, and nothing reaches stdout.

use assert_cmd::Command;

/// Says SKIPPED on the terminal even when the test harness captures output (it captures
/// `eprintln!`, not writes to the stderr handle), so a run without a GPU says what it left out.
macro_rules! skipped {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
use predicates::prelude::*;

fn block_size() -> Command {
    let mut command = Command::cargo_bin("block-size").unwrap();
    // Make sure the driver check sees this machine's real state, not a test harness's.
    command.env_remove("LD_LIBRARY_PATH");
    command
}

fn one_error_line(code: i32, fragment: &'static str) -> impl Fn(&[&str]) {
    move |args: &[&str]| {
        let assert = block_size().args(args).assert().code(code).stdout("");
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("Error: ") && stderr.contains(fragment), "{args:?}: {stderr}");
    }
}

#[test]
fn bad_input_is_exit_2_before_any_gpu_work() {
    let check = one_error_line(2, "");
    check(&["--width", "0"]);
    check(&["--height", "-1"]);
    check(&["--block-sizes", "32,zero"]);
    check(&["--block-sizes", "0"]);
    check(&["--runs", "0"]);
    check(&["--warmups", "many"]);
    check(&["--block-sizes", "64,64"]);
    check(&["--width", "4", "--height", "4", "--corrupt-pixel", "16"]);
    check(&["--no-such-option"]);
}

#[test]
fn help_and_version_exit_0() {
    block_size()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--block-sizes").and(predicate::str::contains("Exit status")));
    block_size().arg("--version").assert().success().stdout(predicate::str::starts_with("block-size "));
}

/// Where this machine has an NVIDIA driver, the no-driver path cannot be observed.
fn has_driver() -> bool {
    unsafe { libloading::Library::new("libcuda.so.1") }.is_ok()
}

#[test]
fn no_driver_is_exit_3() {
    if has_driver() {
        skipped!("SKIPPED no_driver_is_exit_3: this machine has libcuda.so.1");
        return;
    }
    one_error_line(3, "no NVIDIA driver")(&[]);
}

/// A real libcuda.so (Debian's libcuda1, which scripts/setup links as .cuda/lib64) with no
/// kernel module and no GPU behind it: the driver initialises and finds nothing.
#[test]
fn driver_without_gpu_is_exit_3() {
    if has_driver() {
        skipped!("SKIPPED driver_without_gpu_is_exit_3: this machine has a real driver");
        return;
    }
    let stub = concat!(env!("CARGO_MANIFEST_DIR"), "/../.cuda/lib64");
    assert!(
        std::path::Path::new(stub).join("libcuda.so.1").exists(),
        "{stub}/libcuda.so.1 is missing: run scripts/setup"
    );
    let assert = block_size().env("LD_LIBRARY_PATH", stub).assert().code(3).stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("Error: the CUDA driver found no usable GPU"), "{stderr}");
}

#[test]
fn occupancy_needs_no_gpu_and_compares_presets() {
    let output =
        block_size().args(["occupancy", "--compare-gpus", "t4,a100,rtx4090,h100,rtx5090"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    insta::assert_snapshot!("occupancy_compare_gpus", String::from_utf8(output.stdout).unwrap());
}

#[test]
fn occupancy_names_the_binding_limit() {
    let output = block_size()
        .args([
            "occupancy",
            "--gpu",
            "h200",
            "--regs",
            "128",
            "--smem",
            "49152",
            "--block-sizes",
            "64,256,1024",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!("occupancy_h200_limited", String::from_utf8(output.stdout).unwrap());
}

#[test]
fn occupancy_of_block_shapes_is_residency_of_their_threads_with_the_shape_shown() {
    let table = |args: &[&str]| {
        let output = block_size().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let shapes =
        table(&["occupancy", "--gpu", "h200", "--regs", "64", "--block-shapes", "32x8,16x16,8x8x4,256,1024"]);
    insta::assert_snapshot!("occupancy_h200_block_shapes", shapes);
    // Shapes of one thread count agree with the 1-D table at that count, column for column.
    let linear = table(&["occupancy", "--gpu", "h200", "--regs", "64", "--block-sizes", "256"]);
    let cells = |line: &str| line.split_whitespace().map(String::from).collect::<Vec<_>>();
    let row_256 = cells(linear.lines().last().unwrap());
    for line in shapes.lines().filter(|line| line.split_whitespace().nth(1) == Some("256")) {
        assert_eq!(cells(line)[1..], row_256[..], "{line}");
    }
    // 2d: every power-of-two shape of each block size, x a warp or wider.
    let generated =
        table(&["occupancy", "--compare-gpus", "t4,h200", "--block-sizes", "64,256", "--block-shapes", "2d"]);
    let firsts: Vec<&str> =
        generated.lines().skip(5).filter_map(|line| line.split_whitespace().next()).collect();
    assert_eq!(firsts, ["64", "32x2", "256", "128x2", "64x4", "32x8"], "{generated}");
}

/// Issue 25, hostile input on the command line: no panic (exit 101), no abort, one line.
mod hostile_command_line {
    use super::*;

    #[test]
    fn huge_and_negative_values_are_one_line_and_exit_2() {
        let check = one_error_line(2, "");
        for args in [
            &["--launch-timeout", "1e99"][..],
            &["--max-time-per-row", "1e20"],
            &["--runs", "18446744073709551615"],
            &["--runs", "4294967295"],
            &["--warmups", "4294967295"],
            &["--launches-per-sample", "4294967295"],
            &["--min-runs", "4294967295"],
            &["--grid", "waves:18446744073709551615"],
            &["--device", "-1"],
            &["--corrupt-output", "-1"],
            &["compare", "--rounds", "4294967295"],
            &["occupancy", "--gpu", "h200", "--regs", "-1"],
            &["occupancy", "--gpu", "h200", "--regs", "4294967295"],
            &["occupancy", "--gpu", "h200", "--block-shapes", "1x1x128"],
            &["occupancy", "--gpu", "h200", "--block-shapes", "64x32"],
            &["occupancy", "--gpu", "h200", "--block-shapes", "4294967295x4294967295"],
            &["occupancy", "--gpu", "h200", "--block-shapes", "32x0"],
            &["occupancy", "--gpu", "h200", "--block-shapes", "32x8,32x8"],
            &["--block-shapes", "32x8"],
            &["--kernel", "grayscale_2d", "--block-shapes", "1x1x128"],
            &["--kernel", "grayscale_2d", "--block-shapes", "32x0"],
            &["--kernel", "grayscale_2d", "--block-shapes", "16x16,16x16"],
            &["--kernel", "grayscale_2d", "--pixels-per-thread", "4"],
            &["compare", "--block-shapes", "32x8"],
            &["diff", "a.json"],
            &["diff", "a.json", "b.json", "--threshold", "-2%"],
            &["--kernel", "grey\nscale"],
        ] {
            check(args);
        }
    }

    #[test]
    fn occupancy_of_more_shared_memory_than_any_sm_has_is_no_block_not_a_panic() {
        let output = block_size()
            .args(["occupancy", "--compare-gpus", "h200,t4", "--smem", "4294967295", "--block-sizes", "1024"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        let table = String::from_utf8(output.stdout).unwrap();
        assert!(table.contains("shared memory"), "{table}");
    }
}
