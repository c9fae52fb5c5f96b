//! The example programs through the library on a real GPU: `reduce-example` over every block
//! size it is given (its Rust kernels, and with `--source cuda` their CUDA C++ twins), its
//! corrupt-output self-test, `stencil-example` (the barrier regression kernel) at every block
//! size, and the transpose and the box blur over block shapes. Where no GPU is usable each test
//! prints SKIPPED with the reason and passes; with `REQUIRE_GPU=1` a skip is a failure.
//!
//! `stencil-example` and `bounds-example` link `libcuda.so.1` directly (through cust): without
//! the driver the loader stops them before `main` (exit 127); `reduce-example` and
//! `faults-example` are launchers that say so, exit 3 (tests/launchers.rs). The tests first ask
//! whether the driver loads.

use std::process::{Command, Output};

fn skip_or_fail(test: &str, reason: &str) {
    let line = format!("SKIPPED {test} (no GPU here): {reason}");
    if std::env::var_os("REQUIRE_GPU").is_some_and(|value| value == "1") {
        panic!("REQUIRE_GPU=1, so this may not be skipped: {line}");
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Runs `binary` with `args` where a GPU is usable; `None` (after saying SKIPPED) where not.
fn on_gpu(test: &str, binary: &str, args: &[&str]) -> Option<Output> {
    // SAFETY: loading the driver library runs its initialisers, as starting the binary would.
    if let Err(error) = unsafe { libloading::Library::new("libcuda.so.1") } {
        skip_or_fail(test, &format!("no NVIDIA driver: {error}"));
        return None;
    }
    let output = Command::new(binary).args(args).output().unwrap();
    if output.status.code() == Some(3) {
        skip_or_fail(test, String::from_utf8_lossy(&output.stderr).trim());
        return None;
    }
    Some(output)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const QUICK: [&str; 6] = ["--block-sizes", "32,100,256,1024", "--warmups", "1", "--runs", "3"];

#[test]
fn the_reduction_passes_its_reference_check_at_every_block_size() {
    let args = [&["--n", "1000003"][..], &QUICK].concat();
    let Some(output) = on_gpu("reduction", env!("CARGO_BIN_EXE_reduce-example"), &args) else { return };
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""), "{stdout}");
    assert!(stdout.contains("Work: 1000003 values"), "{stdout}");
    assert!(stdout.contains("agrees with the driver's blk/SM at 8 of 8 rows"), "{stdout}");
}

#[test]
fn the_cuda_twins_pass_the_reference_check_at_every_block_size_and_grid() {
    let args = [&["--n", "1000003", "--source", "cuda", "--grids", "one-wave,waves:2"][..], &QUICK].concat();
    let Some(output) = on_gpu("reduction-cuda", env!("CARGO_BIN_EXE_reduce-example"), &args) else { return };
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""), "{stdout}");
    assert!(stdout.contains("Work: 1000003 values"), "{stdout}");
    // 4 block sizes x items/thr 1, 4 x two grid policies, every row checked.
    assert!(stdout.contains("agrees with the driver's blk/SM at 16 of 16 "), "{stdout}");
}

#[test]
fn a_corrupted_output_fails_every_row_on_the_gpu() {
    let args = [&["--n", "1000003", "--corrupt-output", "0"][..], &QUICK].concat();
    let Some(output) = on_gpu("corrupt", env!("CARGO_BIN_EXE_reduce-example"), &args) else { return };
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.matches("check failed:").count(), 8, "{stderr}");
}

#[test]
fn the_stencil_with_the_unaligned_barrier_passes_at_every_block_size() {
    let args = [&["--n", "1000003", "--block-sizes", "32,64,96,100,128,256,512,1000,1024"][..], &QUICK[2..]]
        .concat();
    let Some(output) = on_gpu("stencil", env!("CARGO_BIN_EXE_stencil-example"), &args) else { return };
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""), "{stdout}");
    assert!(stdout.contains("9 of 9"), "{stdout}");
}

#[test]
fn a_kernel_that_faults_at_one_block_size_leaves_every_other_row_measured() {
    let args = [
        "--entry",
        "copy_faulting_at_1024",
        "--n",
        "1000003",
        "--block-sizes",
        "256,1024,512",
        "--runs",
        "3",
    ];
    let Some(output) = on_gpu("fault", env!("CARGO_BIN_EXE_faults-example"), &args) else { return };
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("1024 threads per block: the launch lost the GPU context"), "{stderr}");
    assert!(stderr.contains("check failed: at 1024 threads per block nothing was measured"), "{stderr}");
    assert_eq!(stderr.matches("check failed:").count(), 1, "{stderr}");
    assert!(stdout.contains("failed"), "{stdout}");
}

#[test]
fn a_kernel_that_hangs_at_one_block_size_is_named_and_the_rest_finish() {
    let args = [
        "--entry",
        "copy_hanging_at_512",
        "--n",
        "1000003",
        "--block-sizes",
        "256,512,1024",
        "--runs",
        "3",
        "--launch-timeout",
        "5",
    ];
    let Some(output) = on_gpu("hang", env!("CARGO_BIN_EXE_faults-example"), &args) else { return };
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("512 threads per block: hung: a wait on the GPU did not finish within 5.0 s"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("check failed:").count(), 1, "{stderr}");
    assert!(stdout.contains("hung"), "{stdout}");
}

#[test]
fn block_sizes_the_ptx_forbids_are_pruned_and_the_rest_pass_on_the_gpu() {
    // The driver folds `.maxntid 256` and `.reqntid 128` into the kernel's most threads a
    // block: a block size it would refuse with "invalid argument" is pruned, not failed.
    for (entry, launched, directive) in [
        (
            "double_at_most_256",
            "16,32,64,96,100,128,160,192,256",
            "above the PTX's `.maxntid 256` (256 threads)",
        ),
        ("double_exactly_128", "128", "the PTX's `.reqntid 128` requires exactly 128 threads per block"),
    ] {
        let args = ["--entry", entry, "--n", "1000003", "--warmups", "1", "--runs", "3", "--format", "json"];
        let Some(output) = on_gpu("bounds", env!("CARGO_BIN_EXE_bounds-example"), &args) else { return };
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""), "{entry}: {stdout}");
        let export: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let rows = export["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 13, "{entry}: the default block sizes");
        let measured: Vec<String> = rows
            .iter()
            .filter(|row| row["pruned"].is_null())
            .map(|row| row["threads_per_block"].to_string())
            .collect();
        assert_eq!(measured.join(","), launched, "{entry}");
        assert!(
            rows.iter()
                .filter(|row| !row["pruned"].is_null())
                .all(|row| row["pruned"].as_str().unwrap().contains(directive)),
            "{entry}"
        );
        assert!(rows.iter().all(|row| row["failed"].is_null()), "{entry}");
    }
}

#[test]
fn the_transpose_is_exact_at_every_shape_tile_and_grid_on_the_gpu() {
    // Sides no tile divides, so the last tiles of each row and column are ragged.
    for grid in ["one-wave", "per-item"] {
        let args = [
            "--rows",
            "1021",
            "--cols",
            "997",
            "--block-shapes",
            "32x8,16x16,64x4,32x32,1x64",
            "--grid",
            grid,
            "--warmups",
            "1",
            "--runs",
            "3",
        ];
        let Some(output) = on_gpu("transpose", env!("CARGO_BIN_EXE_transpose-example"), &args) else {
            return;
        };
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""), "{grid}: {stdout}");
        // 5 shapes x 3 tiles, every one checked bit for bit.
        assert!(stdout.contains("agrees with the driver's blk/SM at 15 of 15 "), "{grid}: {stdout}");
        let header = stdout.lines().find(|line| line.contains("thr/blk")).unwrap_or_default();
        assert_eq!(
            header.split_whitespace().take(3).collect::<Vec<_>>(),
            ["tile", "thr/blk", "block"],
            "{stdout}"
        );
    }
}

#[test]
fn the_blur_is_exact_at_every_shape_radius_and_grid_with_its_shapes_shared_memory_on_the_gpu() {
    // Sides no block divides, so the last tiles of each row and column are ragged; one radius
    // (the check on the GPU) and three (each row's output compared on the host).
    for (grid, radii, rows) in [("one-wave", "2", 6), ("per-item", "1,2,4", 18)] {
        let args = [
            "--width",
            "1021",
            "--height",
            "997",
            "--radii",
            radii,
            "--block-shapes",
            "32x8,16x16,64x4,8x32,256x1,1x256",
            "--grid",
            grid,
            "--warmups",
            "1",
            "--runs",
            "3",
        ];
        let Some(output) = on_gpu("blur", env!("CARGO_BIN_EXE_blur-example"), &args) else {
            return;
        };
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_eq!((output.status.code(), stderr.as_str()), (Some(0), ""), "{grid}: {stdout}");
        assert!(
            stdout.contains(&format!("agrees with the driver's blk/SM at {rows} of {rows} ")),
            "{grid}: {stdout}"
        );
        // Each shape's own bytes: (x + 2r) (y + 2r) 4 (radius 2: 1728 at 32x8, 1600 at 16x16).
        let header = stdout.lines().find(|line| line.contains("thr/blk")).unwrap_or_default();
        assert!(header.split_whitespace().any(|column| column == "smem"), "{stdout}");
        assert!(stdout.lines().any(|line| line.contains(" 32x8 ") && line.contains(" 1728 ")), "{stdout}");
        assert!(stdout.lines().any(|line| line.contains(" 16x16 ") && line.contains(" 1600 ")), "{stdout}");
    }
    // A wrong pixel is caught on the GPU's check and named.
    let args =
        ["--width", "1021", "--height", "997", "--block-shapes", "32x8,16x16", "--corrupt-output", "70"];
    let Some(output) = on_gpu("blur-corrupt", env!("CARGO_BIN_EXE_blur-example"), &args) else { return };
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.matches("check failed:").count(), 2, "{stderr}");
    assert!(stderr.contains("pixel 70 "), "{stderr}");
}
