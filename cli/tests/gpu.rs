//! End-to-end runs of `block-size` on a real GPU. Each test first asks the program itself
//! whether a GPU is usable here (a one-pixel sweep); where none is, it prints SKIPPED with
//! the reason and passes, so a CPU-only CI run says plainly what it did not test.
//!
//! On a machine that should have a GPU, run them with `REQUIRE_GPU=1`: every SKIPPED is then
//! a failure with the same reason (no driver, no GPU, a driver too old for the PTX, no
//! compute-sanitizer), so a broken GPU machine cannot pass for a CPU-only one.

use assert_cmd::Command;

/// Whether `REQUIRE_GPU=1` is set: nothing may be skipped.
fn gpu_required() -> bool {
    std::env::var_os("REQUIRE_GPU").is_some_and(|value| value == "1")
}

/// Says SKIPPED on the terminal even when the test harness captures output (it captures
/// `eprintln!`, not writes to the stderr handle), so a run without a GPU says what it left out;
/// under `REQUIRE_GPU=1` fails the test with the same line instead.
macro_rules! skipped {
    ($($arg:tt)*) => {{
        let line = format!($($arg)*);
        if gpu_required() {
            panic!("REQUIRE_GPU=1, so this may not be skipped: {line}");
        }
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{line}");
    }};
}
use std::process::Output;

fn block_size(args: &[&str]) -> Output {
    Command::cargo_bin("block-size").unwrap().args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `None` where a GPU is usable, else why not.
fn no_gpu_reason() -> Option<String> {
    let probe = block_size(&[
        "--width",
        "1",
        "--height",
        "1",
        "--block-sizes",
        "32",
        "--warmups",
        "0",
        "--runs",
        "1",
    ]);
    match probe.status.code() {
        Some(0) => None,
        Some(3) => Some(text(&probe.stderr).trim().to_string()),
        _ => panic!(
            "the GPU probe failed in an unexpected way:\n{}{}",
            text(&probe.stdout),
            text(&probe.stderr)
        ),
    }
}

macro_rules! require_gpu {
    () => {
        if let Some(reason) = no_gpu_reason() {
            skipped!(
                "SKIPPED {} (no GPU here): {reason}",
                std::thread::current().name().unwrap_or("gpu test")
            );
            return;
        }
    };
}

/// Runs one test of this file in a child test process, with or without `REQUIRE_GPU=1`.
fn this_test_alone(name: &str, require_gpu: bool) -> Output {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child.args([name, "--exact", "--nocapture", "--test-threads", "1"]);
    if require_gpu {
        child.env("REQUIRE_GPU", "1");
    } else {
        child.env_remove("REQUIRE_GPU");
    }
    child.output().unwrap()
}

#[test]
fn require_gpu_turns_a_skip_into_a_failure() {
    let test = "json_on_standard_output_is_one_clean_document";
    let relaxed = this_test_alone(test, false);
    assert!(relaxed.status.success(), "{}{}", text(&relaxed.stdout), text(&relaxed.stderr));
    let strict = this_test_alone(test, true);
    let said = format!("{}{}", text(&strict.stdout), text(&strict.stderr));
    match no_gpu_reason() {
        // No GPU here: the skip must become a failure that gives the reason.
        Some(reason) => {
            assert!(!strict.status.success(), "{said}");
            assert!(said.contains("REQUIRE_GPU=1, so this may not be skipped: SKIPPED "), "{said}");
            assert!(said.contains(&reason), "{said}");
            assert!(
                text(&relaxed.stderr).contains(&format!("SKIPPED {test} (no GPU here): ")),
                "{}",
                text(&relaxed.stderr)
            );
        }
        None => assert!(strict.status.success(), "{said}"),
    }
}

/// Table rows: lines of stdout that start with a block size: the seed's ten columns, then the
/// limiter (`warps`, `warps+blocks`, `shared memory`: one or two words).
fn table_rows(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .map(|line| line.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|words| {
            // Ten columns, the limiter (one or two words) and, where the noise-driven stop
            // gave rows different sample counts, `runs`.
            (11..=13).contains(&words.len()) && words[0].parse::<u32>().is_ok() && words[5].ends_with('%')
        })
        .collect()
}

#[test]
fn default_sweep_passes_every_check() {
    require_gpu!();
    let output = block_size(&[]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    assert_eq!(text(&output.stderr), "");
    let rows = table_rows(&stdout);
    let sizes: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    assert_eq!(
        sizes,
        ["16", "32", "64", "96", "100", "128", "160", "192", "256", "384", "512", "768", "1024"]
    );
    assert!(stdout.contains("Image: 3840 x 2160, 8294400 pixels, 126.6 MiB moved per pass"));
    assert!(stdout.contains("of 13 configurations reach at least 95 percent of that row."));
    for row in &rows {
        let blocks_per_sm: u32 = row[3].parse().unwrap();
        assert!(blocks_per_sm >= 1, "{row:?}");
    }
}

#[test]
fn corrupted_output_is_caught_at_its_index() {
    require_gpu!();
    let output = block_size(&[
        "--width",
        "1000",
        "--height",
        "100",
        "--block-sizes",
        "128,1024",
        "--corrupt-pixel",
        "40960",
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for threads in [128, 1024] {
        let expected =
            format!("check failed: wrong output at {threads} threads per block: pixel 40960 is NaN, ");
        assert!(stderr.contains(&expected), "{stderr}");
    }
    assert!(stderr.contains("2 check(s) failed: the table above is not a measurement"), "{stderr}");
}

#[test]
fn every_timing_mode_passes_every_check() {
    require_gpu!();
    for mode in ["batch", "cold", "launch", "graph"] {
        for count in [&["--runs", "4"][..], &["--max-time-per-row", "50ms"]] {
            let args = [
                &["--timing", mode, "--width", "1000", "--height", "999", "--block-sizes", "64,256"][..],
                count,
            ]
            .concat();
            let output = block_size(&args);
            let stdout = text(&output.stdout);
            assert_eq!(output.status.code(), Some(0), "{args:?}: {stdout}{}", text(&output.stderr));
            assert!(stdout.contains(&format!("Timing: {mode} mode, median of ")), "{stdout}");
            assert_eq!(table_rows(&stdout).len(), 2, "{stdout}");
        }
    }
}

#[test]
fn a_frame_past_64_mib_a_plane_goes_through_the_pinned_staging_both_ways() {
    require_gpu!();
    // 4096 x 4100 pixels: 67,174,400 bytes a plane, above the 64 MiB from which uploads and
    // downloads are staged in 32 MiB chunks; the last chunk is a partial one. A clean run
    // means every chunk arrived in its place both ways; a corrupted pixel in the last chunk
    // must come back where it was written.
    let frame = ["--width", "4096", "--height", "4100", "--block-sizes", "256", "--runs", "2"];
    let clean = block_size(&frame);
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean.stderr));
    let last = (4096 * 4100 - 3).to_string();
    let corrupted = block_size(&[&frame[..], &["--corrupt-pixel", &last]].concat());
    let stderr = text(&corrupted.stderr);
    assert_eq!(corrupted.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("pixel {last} is NaN, ")), "{stderr}");
}

#[test]
fn odd_frame_sizes_pass() {
    require_gpu!();
    // One pixel; a prime count (1,000,003); a frame whose size is no multiple of any block.
    for (width, height) in [("1", "1"), ("1000003", "1"), ("641", "479")] {
        let output = block_size(&["--width", width, "--height", height, "--runs", "3", "--warmups", "1"]);
        assert_eq!(output.status.code(), Some(0), "{width} x {height}: {}", text(&output.stderr));
        assert_eq!(table_rows(&text(&output.stdout)).len(), 13);
    }
}

#[test]
fn inputs_only_the_device_can_judge_are_rejected() {
    require_gpu!();
    let too_big_block = block_size(&["--block-sizes", "32,2048"]);
    assert_eq!(too_big_block.status.code(), Some(2), "{}", text(&too_big_block.stderr));
    assert!(text(&too_big_block.stderr).contains("block size 2048 is above"));

    let too_big_frame = block_size(&["--width", "4294967295", "--height", "4294967295"]);
    assert_eq!(too_big_frame.status.code(), Some(2), "{}", text(&too_big_frame.stderr));
    assert!(
        text(&too_big_frame.stderr)
            .contains("needs more than 16 EiB of device memory for its buffers red, green, blue and out")
    );

    let no_such_device = block_size(&["--device", "4096"]);
    assert_eq!(no_such_device.status.code(), Some(3), "{}", text(&no_such_device.stderr));
    assert!(text(&no_such_device.stderr).contains("there is no CUDA device 4096"));
    for output in [&too_big_block, &too_big_frame, &no_such_device] {
        assert_eq!(text(&output.stdout), "", "no table on bad input");
        assert_eq!(text(&output.stderr).lines().count(), 1);
    }
}

/// `compute-sanitizer` from the CUDA toolkit: on PATH, or under /usr/local/cuda.
fn compute_sanitizer() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([std::path::PathBuf::from("/usr/local/cuda/bin")])
        .map(|dir| dir.join("compute-sanitizer"))
        .find(|candidate| candidate.is_file())
}

#[test]
fn memcheck_reports_no_errors_on_a_sweep() {
    require_gpu!();
    let Some(sanitizer) = compute_sanitizer() else {
        skipped!(
            "SKIPPED memcheck_reports_no_errors_on_a_sweep (no memory check run): compute-sanitizer is not on PATH \
             nor in /usr/local/cuda/bin; install the CUDA toolkit's compute-sanitizer to run it"
        );
        return;
    };
    // A frame that is no multiple of any block size, so every row has a ragged last wave; and
    // the same in graph timing, whose launches run from a captured graph (and whose graphs are
    // destroyed with the device: --leak-check).
    for timing in ["batch", "graph"] {
        let worker = Command::cargo_bin("block-size-cuda").unwrap().get_program().to_owned();
        let output = std::process::Command::new(&sanitizer)
            .args(["--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99"])
            .arg(worker)
            .args(["--width", "1021", "--height", "997", "--warmups", "1", "--runs", "2", "--timing", timing])
            .output()
            .unwrap();
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{timing}: {stdout}{}", text(&output.stderr));
        assert!(stdout.contains("ERROR SUMMARY: 0 errors"), "{timing}: {stdout}");
        println!("{stdout}");
    }
}

#[test]
fn compare_checks_and_times_all_three_kernels() {
    require_gpu!();
    let output = block_size(&[
        "compare",
        "--width",
        "1021",
        "--height",
        "997",
        "--block-sizes",
        "100,256",
        "--rounds",
        "5",
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    for label in ["cuda_builder", "nvcc", "rustc-nvptx"] {
        assert!(stdout.contains(&format!("Fastest {label} row: ")), "{stdout}");
    }
    assert!(stdout.contains("cuda_builder / nvcc time: row medians from "), "{stdout}");
}

#[test]
fn tail_runs_every_grid_and_checks_it() {
    require_gpu!();
    let output = block_size(&["tail", "--width", "2000", "--height", "1000", "--runs", "3"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    assert!(stdout.contains("blocks per wave"), "{stdout}");
    let rows =
        stdout.lines().filter(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit())).count();
    assert_eq!(rows, 8, "{stdout}");
}

#[test]
fn json_on_standard_output_is_one_clean_document() {
    require_gpu!();
    let output =
        block_size(&["--format", "json", "--width", "640", "--height", "480", "--block-sizes", "128,256"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let parsed: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is exactly one JSON document");
    assert_eq!(parsed["rows"].as_array().unwrap().len(), 2);
    assert_eq!(parsed["failures"].as_array().unwrap().len(), 0);
}

#[test]
fn every_visible_gpu_gets_a_table_and_a_summary_line() {
    require_gpu!();
    let dir = std::env::temp_dir().join(format!("block-size-all-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("sweep.json");
    let plot = dir.join("sweep.svg");
    let output = block_size(&[
        "--device",
        "all",
        "--width",
        "1024",
        "--height",
        "1024",
        "--block-sizes",
        "64,256",
        "--format",
        "json",
        "--output",
        json.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    let summaries =
        stdout.lines().filter(|line| line.starts_with("GPU ") && line.contains("): fastest ")).count();
    assert!(summaries >= 1, "{stdout}");
    // The documents went to files; standard output has only the summary lines.
    assert!(!stdout.contains(" thr/blk "), "{stdout}");
    // One GPU writes the plain names; several write one file per GPU.
    let written = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(written, 2 * summaries, "{stdout}");
    if summaries == 1 {
        let exported: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(exported["rows"].as_array().unwrap().len(), 2);
        assert!(exported["provenance"]["driver_release"].is_string(), "{exported}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_variant_is_right_at_any_alignment_and_frame_size() {
    require_gpu!();
    // A prime pixel count, so every vector tail is ragged; offsets 0 to 3 floats, so the
    // vector kernels see every alignment of their planes.
    for offset in ["0", "1", "2", "3"] {
        let output = block_size(&[
            "variants",
            "--width",
            "1000003",
            "--height",
            "1",
            "--offset",
            offset,
            "--block-sizes",
            "32,256,1024",
            "--runs",
            "2",
            "--warmups",
            "1",
        ]);
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "offset {offset}: {stdout}{}", text(&output.stderr));
        assert!(stdout.contains("Fastest Rust: ") && stdout.contains("Fastest C++: "), "{stdout}");
    }
}

#[test]
fn the_histogram_passes_every_check_and_shared_memory_binds_at_4096_bins() {
    require_gpu!();
    // A prime pixel count; 256 bins (the default) and 4096 bins (16 KiB of shared memory a
    // block), where the driver and the model must agree on the shared-memory-limited rows.
    for bins in ["256", "4096"] {
        let output = block_size(&[
            "--kernel",
            "histogram",
            "--bins",
            bins,
            "--width",
            "1000003",
            "--height",
            "1",
            "--runs",
            "3",
            "--warmups",
            "1",
        ]);
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "--bins {bins}: {stdout}{}", text(&output.stderr));
        assert_eq!(table_rows(&stdout).len(), 13, "{stdout}");
        assert!(stdout.contains("agrees with the driver's blk/SM at 13 of 13 block sizes"), "{stdout}");
        if bins == "4096" {
            assert!(stdout.contains(" shared memory\n"), "no row limited by shared memory: {stdout}");
        }
    }
}

#[test]
fn a_corrupted_histogram_bin_is_caught_at_its_index() {
    require_gpu!();
    let output = block_size(&[
        "--kernel",
        "histogram",
        "--width",
        "1000",
        "--height",
        "100",
        "--block-sizes",
        "128,1024",
        "--corrupt-pixel",
        "17",
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for threads in [128, 1024] {
        let expected =
            format!("check failed: wrong output at {threads} threads per block: bin 17 is 4294967295, ");
        assert!(stderr.contains(&expected), "{stderr}");
    }
}

#[test]
fn compare_and_tail_run_the_histogram() {
    require_gpu!();
    let output = block_size(&[
        "compare",
        "--kernel",
        "histogram",
        "--bins",
        "4096",
        "--width",
        "1021",
        "--height",
        "997",
        "--block-sizes",
        "64,256",
        "--rounds",
        "5",
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    assert!(stdout.contains("cuda_builder / nvcc time: row medians from "), "{stdout}");
    let output =
        block_size(&["tail", "--kernel", "histogram", "--width", "2000", "--height", "1000", "--runs", "3"]);
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
}

#[test]
fn memcheck_reports_no_errors_on_a_histogram_sweep() {
    require_gpu!();
    let Some(sanitizer) = compute_sanitizer() else {
        skipped!(
            "SKIPPED memcheck_reports_no_errors_on_a_histogram_sweep (no memory check run): compute-sanitizer is not on \
             PATH nor in /usr/local/cuda/bin"
        );
        return;
    };
    let worker = Command::cargo_bin("block-size-cuda").unwrap().get_program().to_owned();
    for tool in ["memcheck", "racecheck"] {
        let output = std::process::Command::new(&sanitizer)
            .args(["--tool", tool, "--error-exitcode", "99"])
            .arg(&worker)
            .args(["--kernel", "histogram", "--bins", "4096", "--width", "1021", "--height", "997"])
            .args(["--block-sizes", "32,100,1024", "--warmups", "0", "--runs", "1"])
            .output()
            .unwrap();
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{tool}: {stdout}{}", text(&output.stderr));
        assert!(
            stdout.contains("ERROR SUMMARY: 0 errors") || stdout.contains("RACECHECK SUMMARY: 0 hazards"),
            "{stdout}"
        );
    }
}

#[test]
fn the_2d_grayscale_covers_every_pixel_at_every_shape_and_grid() {
    require_gpu!();
    // A frame that is no multiple of any block side, the default shapes (2d of the block sizes)
    // and 3-D and skewed shapes, under each grid policy: every row checked against the CPU.
    for grid in ["one-wave", "per-item", "waves:2"] {
        for shapes in [None, Some("32x8,16x16,8x8x4,1x1024,1024,32x1x2,5x7")] {
            let mut args = vec!["--kernel", "grayscale_2d", "--width", "1021", "--height", "997"];
            args.extend(["--grid", grid, "--runs", "2", "--warmups", "1"]);
            if let Some(shapes) = shapes {
                args.extend(["--block-shapes", shapes]);
            }
            let output = block_size(&args);
            let stdout = text(&output.stdout);
            assert_eq!(output.status.code(), Some(0), "{grid} {shapes:?}: {stdout}{}", text(&output.stderr));
            assert!(stdout.contains(" thr/blk   block  warps"), "{stdout}");
            // Rows: a thread count, then the block's shape, then the rest of the seed's columns.
            let rows = stdout
                .lines()
                .map(|line| line.split_whitespace().collect::<Vec<_>>())
                .filter(|words| {
                    words.len() >= 12 && words[0].parse::<u32>().is_ok() && words[6].ends_with('%')
                })
                .count();
            // 2d of the 13 default block sizes: 28 shapes (powers of two from 64 get theirs).
            let expected = if shapes.is_some() { 7 } else { 28 };
            assert_eq!(rows, expected, "{grid} {shapes:?}: {stdout}");
        }
    }
}

#[test]
fn compare_checks_and_times_the_2d_grayscale_in_rust_and_cuda_cpp() {
    require_gpu!();
    let output = block_size(&[
        "compare",
        "--kernel",
        "grayscale_2d",
        "--width",
        "1021",
        "--height",
        "997",
        "--block-shapes",
        "32x8,16x16,256",
        "--rounds",
        "5",
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    for label in ["cuda_builder", "nvcc"] {
        assert!(stdout.contains(&format!("Fastest {label} row: ")), "{stdout}");
    }
    assert!(stdout.contains("cuda_builder / nvcc time: row medians from "), "{stdout}");
}

#[test]
fn memcheck_reports_no_errors_on_a_2d_sweep() {
    require_gpu!();
    let Some(sanitizer) = compute_sanitizer() else {
        skipped!(
            "SKIPPED memcheck_reports_no_errors_on_a_2d_sweep (no memory check run): compute-sanitizer is not on \
             PATH nor in /usr/local/cuda/bin; install the CUDA toolkit's compute-sanitizer to run it"
        );
        return;
    };
    // Rust's and nvcc's grayscale_2d (compare launches both) at shapes whose last blocks hang
    // over the frame's right and bottom edges, one wave and one thread per pixel.
    for grid in ["one-wave", "per-item"] {
        let worker = Command::cargo_bin("block-size-cuda").unwrap().get_program().to_owned();
        let mut command = std::process::Command::new(&sanitizer);
        command.args(["--tool", "memcheck", "--leak-check", "full", "--error-exitcode", "99"]).arg(&worker);
        let shapes = ["--block-shapes", "32x8,16x16,8x8x4,5x7"];
        command.args(["--kernel", "grayscale_2d", "--width", "1021", "--height", "997", "--grid", grid]);
        let output = command.args(shapes).args(["--warmups", "1", "--runs", "2"]).output().unwrap();
        let stdout = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{grid}: {stdout}{}", text(&output.stderr));
        assert!(stdout.contains("ERROR SUMMARY: 0 errors"), "{grid}: {stdout}");
        println!("{stdout}");
    }
    let worker = Command::cargo_bin("block-size-cuda").unwrap().get_program().to_owned();
    let output = std::process::Command::new(&sanitizer)
        .args(["--tool", "memcheck", "--error-exitcode", "99"])
        .arg(worker)
        .args(["compare", "--kernel", "grayscale_2d", "--width", "1021", "--height", "997"])
        .args(["--block-shapes", "32x8,5x7", "--rounds", "2", "--warmups", "1"])
        .output()
        .unwrap();
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "compare: {stdout}{}", text(&output.stderr));
    assert!(stdout.contains("ERROR SUMMARY: 0 errors"), "compare: {stdout}");
    println!("{stdout}");
}
