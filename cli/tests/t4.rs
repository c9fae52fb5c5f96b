//! T4, Kernel Tuner's results format (docs/kernel-tuner.md): `--t4 FILE` and `--format t4` of
//! a mock sweep, and `block-size diff` and `block-size report` of a T4 file, Kernel Tuner's own
//! (written by kernel_tuner 1.5.0 from synthetic numbers: runner/src/tests/t4/make_fixture.py)
//! or block-size's; a T4 file block-size cannot read is one line, exit 2, and `merge` refuses one.

use assert_cmd::Command;
use block_size_cli::app;
use block_size_runner::Console;
use std::path::{Path, PathBuf};

/// Kernel Tuner's T4 file.
const KERNEL_TUNER: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../runner/src/tests/t4/kernel-tuner.t4.json");

/// Kernel Tuner's cache of the same results, closed and left open.
const KERNEL_TUNER_CACHE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../runner/src/tests/t4/kernel-tuner.cache.json");
const KERNEL_TUNER_OPEN_CACHE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../runner/src/tests/t4/kernel-tuner-open.cache.json");

fn run(args: &[&str]) -> (i32, String, String) {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].run_spread = 0.02;
    let args: Vec<std::ffi::OsString> =
        std::iter::once("block-size").chain(args.iter().copied()).map(Into::into).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = app::main_with(&driver, &args, &mut Console { out: &mut out, err: &mut err });
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn scratch(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("block-size-t4-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

fn block_size() -> Command {
    let mut command = Command::cargo_bin("block-size").unwrap();
    command.env_remove("LD_LIBRARY_PATH");
    command
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

const SWEEP: [&str; 8] = ["--width", "64", "--height", "64", "--warmups", "0", "--runs", "5"];

#[test]
fn a_sweep_s_t4_file_is_its_json_s_rows_and_diffs_the_same() {
    let folder = scratch("sweep");
    let (json, t4) = (folder.join("sweep.json"), folder.join("sweep.t4.json"));
    let mut args = SWEEP.to_vec();
    args.extend(["--block-sizes", "64,256", "--json", text(&json), "--t4", text(&t4)]);
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let document: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&t4).unwrap()).unwrap();
    assert_eq!(document["schema_version"], "1.0.0");
    assert_eq!(document["results"].as_array().unwrap().len(), 2);
    // The same samples in either file: every configuration SAME.
    let output = block_size().args(["diff", text(&json), text(&t4)]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("NEW: ")
            && stdout.contains("(a T4 results file (schema 1.0.0); GPU Mock H200, kernel grayscale)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Note: NEW is a T4 results file (schema 1.0.0): it records each configuration's samples and validity, not its PTX, work,"),
        "{stdout}"
    );
    // The same five samples in either file: ratio 1, the interval symmetric about it.
    assert!(stdout.contains("      64  0.9800  0.9800  1.000   0.961-1.041"), "{stdout}");
    assert!(stdout.contains("2 configurations compared: "), "{stdout}");
    // --format t4 prints the same document.
    let mut args = SWEEP.to_vec();
    args.extend(["--block-sizes", "64,256", "--format", "t4"]);
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let printed: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(printed["results"].as_array().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn kernel_tuner_s_file_reports_and_diffs() {
    let folder = scratch("kt");
    let page = folder.join("kt.html");
    let output = block_size().args(["report", KERNEL_TUNER, "--html", text(&page)]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let page = std::fs::read_to_string(&page).unwrap();
    for part in [
        "<th>items_per_thread</th>",
        "<td>128x2</td><td>256</td><td>7</td>",
        "T4 invalidity `runtime`: failed at run time",
        "T4 invalidity `constraints`: ruled out by the tuner&#39;s restrictions",
        "Fastest by median runtime: 256 threads, items_per_thread 4 at 0.0390 ms.",
        "not its GPU, kernel, PTX, work, timing, occupancy, clocks, energy or provenance.",
    ] {
        assert!(page.contains(part), "missing {part:?}: {page}");
    }
    let output = block_size().args(["diff", KERNEL_TUNER, KERNEL_TUNER]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("                4      128    128  0.0410  0.0410  1.000"), "{stdout}");
    assert!(stdout.contains("4 configurations compared: "), "{stdout}");
    assert!(stdout.contains("1 failed in a file, with no measurement to judge"), "{stdout}");
    assert!(stdout.contains("failed in both"), "{stdout}");
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn kernel_tuner_s_cache_diffs_the_same_as_its_t4_file_and_reports_open_or_closed() {
    let folder = scratch("cache");
    // The same synthetic results in Kernel Tuner's cache and its T4 file: every configuration
    // measured in both SAME, the GPU and kernel the cache names.
    let output = block_size().args(["diff", KERNEL_TUNER, KERNEL_TUNER_CACHE]).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        stdout.contains("(a Kernel Tuner cache file; GPU NVIDIA H200, kernel sum_of_squares_tuned)"),
        "{stdout}"
    );
    assert!(stdout.contains("4 configurations compared: "), "{stdout}");
    for cache in [KERNEL_TUNER_CACHE, KERNEL_TUNER_OPEN_CACHE] {
        let page = folder.join("cache.html");
        let output = block_size().args(["report", cache, "--html", text(&page)]).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{cache}: {}", String::from_utf8_lossy(&output.stderr));
        let page = std::fs::read_to_string(&page).unwrap();
        assert!(
            page.contains("Fastest by median runtime: 256 threads, items_per_thread 4 at 0.0390 ms."),
            "{page}"
        );
        assert!(page.contains("a Kernel Tuner cache file"), "{page}");
    }
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn a_t4_file_block_size_cannot_read_is_one_line_exit_2() {
    let folder = scratch("bad");
    let kernel_tuner = std::fs::read_to_string(KERNEL_TUNER).unwrap();
    let malformed = folder.join("malformed.json");
    std::fs::write(&malformed, &kernel_tuner[..kernel_tuner.len() / 2]).unwrap();
    let unblocked = folder.join("unblocked.json");
    std::fs::write(&unblocked, kernel_tuner.replace("\"block_size_x\"", "\"threads\"")).unwrap();
    let page = folder.join("page.html");
    for (file, why) in [
        (&malformed, "not a JSON export of a block-size sweep (--json, --format json): EOF while parsing"),
        (&unblocked, "a T4 results file (Kernel Tuner): results[0] has no block_size_x in its configuration"),
    ] {
        for args in
            [vec!["report", text(file), "--html", text(&page)], vec!["diff", KERNEL_TUNER, text(file)]]
        {
            let output = block_size().args(&args).output().unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.contains(why), "{stderr}");
            assert!(output.stdout.is_empty());
        }
    }
    let output = block_size().args(["merge", KERNEL_TUNER]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("a T4 results file: merge takes block-size's own JSON (--json)"), "{stderr}");
    let _ = std::fs::remove_dir_all(folder);
}
