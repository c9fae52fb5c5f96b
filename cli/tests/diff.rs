//! `block-size diff` on the JSON exports of mock sweeps: twins are SAME, a scripted slowdown
//! is SLOWER where it was scripted and nowhere else, different GPUs are refused unless
//! `--allow-different`, and bad files are one line, exit 2; and on two real H200 sweeps
//! committed in evidence/.

use assert_cmd::Command;
use block_size_cli::app;
use block_size_runner::Console;
use block_size_runner::mock::MockDriver;
use std::path::{Path, PathBuf};

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

/// A folder of its own for one test's files.
fn scratch(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("block-size-diff-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

/// A mock sweep of four block sizes (or `--block-sizes` of `extra`), ten samples a row spread by
/// 1 percent, written as JSON.
fn sweep_json(driver: &MockDriver, path: &Path, extra: &[&str]) {
    let sizes = if extra.contains(&"--block-sizes") { None } else { Some("64,128,256,512") };
    let mut args = vec![
        "--width",
        "64",
        "--height",
        "64",
        "--warmups",
        "0",
        "--runs",
        "10",
        "--format",
        "json",
        "--output",
        path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    if let Some(sizes) = sizes {
        args.extend(["--block-sizes", sizes]);
    }
    let ran = run(driver, &args);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

/// An H200 mock whose samples are 1 ms at every size, spread by 1 percent, but `scripted`.
fn driver(scripted: &[(u32, f32)]) -> MockDriver {
    let mut driver = block_size_builtin::mock::h200();
    driver.devices[0].run_spread = 0.01;
    driver.devices[0].milliseconds = scripted.to_vec();
    driver
}

fn diff(args: &[&str]) -> Ran {
    run(&block_size_builtin::mock::h200(), &[&["diff"][..], args].concat())
}

/// The verdict column, by block size.
fn verdicts(stdout: &str) -> Vec<(u32, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let threads = words.first()?.parse().ok()?;
            let verdict = words.last()?;
            ["SAME", "FASTER", "SLOWER", "UNCLEAR"].contains(verdict).then(|| (threads, verdict.to_string()))
        })
        .collect()
}

#[test]
fn twin_sweeps_are_the_same_everywhere() {
    let folder = scratch("twins");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &[]);
    sweep_json(&driver(&[]), &new, &[]);
    let ran = diff(&[old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{}", ran.stdout);
    assert_eq!(
        verdicts(&ran.stdout),
        [64, 128, 256, 512].map(|threads| (threads, "SAME".to_string())),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(" thr/blk  old ms  new ms  ratio  95% interval  verdict\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.ends_with(
            "\n4 configurations compared: 4 SAME, 0 FASTER, 0 SLOWER, 0 UNCLEAR (threshold 2%).\n"
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("Rule: ratio = median of NEW's samples / median of OLD's; 95% bootstrap interval")
    );
    // The same files, the same answer, to the last digit.
    assert_eq!(diff(&[old.to_str().unwrap(), new.to_str().unwrap()]).stdout, ran.stdout);
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn a_scripted_slowdown_is_slower_where_it_was_scripted_and_fails_ci_on_request() {
    let folder = scratch("slowed");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &[]);
    // 256 threads 10 percent slower, 64 threads 10 percent faster; 128 threads 2 percent
    // slower, which ten samples spread by 1 percent cannot tell from the threshold.
    sweep_json(&driver(&[(256, 1.10), (64, 0.90), (128, 1.02)]), &new, &[]);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let ran = diff(&[old, new]);
    assert_eq!(ran.code, 0, "without --fail-if-slower a slowdown is reported, not failed: {}", ran.stderr);
    let expected = [(64, "FASTER"), (128, "UNCLEAR"), (256, "SLOWER"), (512, "SAME")];
    assert_eq!(verdicts(&ran.stdout), expected.map(|(threads, verdict)| (threads, verdict.to_string())));
    let slowed = ran.stdout.lines().find(|line| line.trim_start().starts_with("256 ")).unwrap();
    assert!(slowed.contains(" 1.100 "), "the ratio of medians: {slowed}");
    assert!(
        ran.stdout
            .ends_with("4 configurations compared: 1 SAME, 1 FASTER, 1 SLOWER, 1 UNCLEAR (threshold 2%).\n")
    );

    let failing = diff(&[old, new, "--fail-if-slower"]);
    assert_eq!(failing.code, 1, "{}", failing.stderr);
    assert_eq!(failing.stdout, ran.stdout, "the same report, another status");
    // A threshold of 15 percent calls every row the same, and CI passes.
    let loose = diff(&[old, new, "--threshold", "15%", "--fail-if-slower"]);
    assert_eq!(loose.code, 0);
    assert!(verdicts(&loose.stdout).iter().all(|(_, verdict)| verdict == "SAME"), "{}", loose.stdout);
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn configurations_in_one_file_only_are_listed_not_judged() {
    let folder = scratch("unmatched");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &["--block-sizes", "64,128"]);
    sweep_json(&driver(&[]), &new, &["--block-sizes", "128,256"]);
    let ran = diff(&[old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("only in OLD") && ran.stdout.contains("only in NEW"), "{}", ran.stdout);
    assert!(ran.stdout.ends_with("1 configurations compared: 1 SAME, 0 FASTER, 0 SLOWER, 0 UNCLEAR (threshold 2%); 2 in one file only.\n"), "{}", ran.stdout);
    let none = folder.join("none.json");
    sweep_json(&driver(&[]), &none, &["--block-sizes", "32"]);
    let ran = diff(&[old.to_str().unwrap(), none.to_str().unwrap()]);
    assert_eq!((ran.code, ran.stdout.as_str()), (2, ""));
    assert!(ran.stderr.ends_with("have no configuration in common\n"), "{}", ran.stderr);
    let _ = std::fs::remove_dir_all(folder);
}

/// A failed configuration is a failed check, so `diff` refuses its file; one whose failures were
/// cleared by hand still has no samples at that row, which is listed, not judged.
#[test]
fn a_configuration_without_a_measurement_is_listed_not_judged() {
    let folder = scratch("failed");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &[]);
    let mut faulting = driver(&[]);
    faulting.devices[0].fault_at = Some((128, block_size_runner::mock::MockFault { context_lost: false }));
    let args = [
        "--width",
        "64",
        "--height",
        "64",
        "--warmups",
        "0",
        "--runs",
        "10",
        "--block-sizes",
        "64,128,256,512",
    ];
    let ran = run(&faulting, &[&args[..], &["--format", "json"]].concat());
    assert_eq!(ran.code, 1, "the failed row is a failed check: {}", ran.stderr);
    let mut json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert!(json["rows"][1]["failed"].is_string());
    json["failures"] = serde_json::json!([]);
    std::fs::write(&new, serde_json::to_string(&json).unwrap()).unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let ran = diff(&[old, new]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let line = ran.stdout.lines().find(|line| line.trim_start().starts_with("128 ")).unwrap();
    assert!(line.ends_with("failed in NEW"), "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with(
            "3 configurations compared: 3 SAME, 0 FASTER, 0 SLOWER, 0 UNCLEAR (threshold 2%); 1 failed in a file, with no measurement to judge.\n"
        ),
        "{}",
        ran.stdout
    );
    let itself = diff(&[new, new]);
    assert_eq!(itself.code, 0, "{}", itself.stderr);
    assert!(itself.stdout.contains("failed in both"), "{}", itself.stdout);
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn different_gpus_are_refused_in_one_line_unless_allowed() {
    let folder = scratch("different");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &[]);
    let mut other = driver(&[]);
    other.devices[0].limits.name = "Mock T4".into();
    other.cuda_version = 12080;
    sweep_json(&other, &new, &[]);
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let ran = diff(&[old, new]);
    assert_eq!((ran.code, ran.stdout.as_str()), (2, ""));
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("are not the same measurement (GPU: Mock H200 vs Mock T4); give --allow-different"),
        "{}",
        ran.stderr
    );
    let allowed = diff(&[old, new, "--allow-different"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    assert!(
        allowed
            .stdout
            .contains("Note: not the same measurement (--allow-different): GPU: Mock H200 vs Mock T4\n"),
        "{}",
        allowed.stdout
    );
    assert!(
        allowed.stdout.contains("Note: driver: release unknown (CUDA 13.0) vs release unknown (CUDA 12.8)\n")
    );
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn a_different_timing_is_noted_not_refused() {
    let folder = scratch("timing");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &[]);
    sweep_json(&driver(&[]), &new, &["--timing", "cold"]);
    let ran = diff(&[old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains(
            "Note: timing: graph, 10 or more launch(es) a sample, L2 flush none, fixed count vs cold, 1 launch(es) a sample, L2 flush before_each_launch, fixed count\n"
        ),
        "{}",
        ran.stdout
    );
    let _ = std::fs::remove_dir_all(folder);
}

fn block_size() -> Command {
    let mut command = Command::cargo_bin("block-size").unwrap();
    command.env_remove("LD_LIBRARY_PATH");
    command
}

/// `block-size diff` itself (no GPU, no driver needed): one `Error:` line, exit 2, nothing on
/// standard output.
fn refused(args: &[&str], fragment: &str) {
    let output = block_size().arg("diff").args(args).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("Error: ") && stderr.contains(fragment), "{args:?}: {stderr}");
}

#[test]
fn bad_files_are_one_line_and_exit_2() {
    let folder = scratch("bad");
    let good = folder.join("good.json");
    sweep_json(&driver(&[]), &good, &[]);
    let good = good.to_str().unwrap();
    let write = |name: &str, text: &str| {
        let path = folder.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let table = write("table.txt", "GPU: Mock H200\n thr/blk ...\n");
    refused(&[good, &table], "table.txt: not a JSON export of a block-size sweep (--json, --format json): ");
    let other_json = write("other.json", "{\"name\": \"not a sweep\"}");
    refused(&[&other_json, good], "other.json: not a JSON export of a block-size sweep");
    refused(&[good, "/no/such/new.json"], "cannot read result file /no/such/new.json: ");
    // A file without an end is refused at the bound, not read until memory runs out.
    refused(&[good, "/dev/zero"], "result file /dev/zero is larger than 1 GiB: refused");
    let future =
        std::fs::read_to_string(good).unwrap().replace("\"schema_version\": 4", "\"schema_version\": 99");
    let future = write("future.json", &future);
    refused(&[good, &future], "future.json: schema version 99, newer than the 4 this block-size reads");
    let text = std::fs::read_to_string(good).unwrap();
    let torn = write("torn.json", &text[..text.len() * 2 / 3]);
    refused(
        &[good, &torn],
        "torn.json: not a JSON export of a block-size sweep (--json, --format json): EOF while parsing",
    );
    let wordy = write("wordy.json", &text.replace("\"schema_version\": 4", "\"schema_version\": \"4\""));
    refused(
        &[&wordy, good],
        "wordy.json: not a JSON export of a block-size sweep (--json, --format json): schema_version \"4\" is not a version",
    );
    // A hash that is not 64 hex digits (a cut by bytes in it once panicked) is refused; a GPU
    // name with a line break is still one line.
    let hash = text.split("\"ptx_sha256\": \"").nth(1).unwrap().split('"').next().unwrap().to_string();
    let odd = write("odd.json", &text.replace(&hash, "ééééééééééééééééé"));
    refused(&[good, &odd], "odd.json: ptx_sha256 ééééééééééééééééé is not a SHA-256 (64 hex digits)");
    let odd = write("odd-gpu.json", &text.replace("\"Mock H200\"", "\"Mock\\nH200\""));
    refused(&[good, &odd], "are not the same measurement (GPU: Mock H200 vs Mock\\nH200)");
    // Times no sweep measures: a negative sample, and a median that is not its samples'.
    let negative = write(
        "negative.json",
        &text.replacen("\"run_ms\": [\n        0.99,", "\"run_ms\": [\n        -0.99,", 1),
    );
    refused(
        &[good, &negative],
        "negative.json: the row of 64 threads has run_ms[0] -0.99 ms: a time must be finite and above 0",
    );
    let median = write("median.json", &text.replacen("\"median_ms\": 1.0,", "\"median_ms\": -0.072,", 1));
    refused(
        &[&median, good],
        "median.json: the row of 64 threads has median_ms -0.072 where its samples give 1",
    );
    refused(&[good, good, "--threshold", "0"], "--threshold must be a fraction above 0 and below 1");
    refused(&[good, good, "--threshold", "many"], "invalid value 'many' for '--threshold");
    refused(&[good], "the following required arguments were not provided");

    // A run whose checks failed measured nothing.
    let corrupted = folder.join("corrupted.json");
    let ran = run(
        &driver(&[]),
        &[
            "--width",
            "64",
            "--height",
            "64",
            "--runs",
            "2",
            "--format",
            "json",
            "--output",
            corrupted.to_str().unwrap(),
            "--corrupt-output",
            "5",
        ],
    );
    assert_eq!(ran.code, 1);
    refused(
        &[good, corrupted.to_str().unwrap()],
        "corrupted.json: 13 check(s) failed in that run, so its rows are not a measurement",
    );
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn twin_files_through_the_binary_exit_0_without_a_driver() {
    let folder = scratch("binary");
    let (old, new) = (folder.join("old.json"), folder.join("new.json"));
    sweep_json(&driver(&[]), &old, &[]);
    sweep_json(&driver(&[(512, 1.5)]), &new, &[]);
    let output = block_size().arg("diff").arg(&old).arg(&new).arg("--fail-if-slower").output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("1 SLOWER"), "{stdout}");
    let output = block_size().arg("diff").arg(&old).arg(&old).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(folder);
}

/// Two real sweeps of the H200 (evidence/2026-11-30-h200-final, schema version 1, launch
/// timing of 10 runs a row, before the file said its timing mode): with and without an L2 flush
/// before every run. A file against
/// itself is a ratio of exactly 1 everywhere; ten noisy single-launch samples give intervals of
/// a few percent, so most rows are UNCLEAR at 2 percent, and the flush's 4 percent shows as
/// SLOWER only where the samples are tight enough to say so.
#[test]
fn real_h200_sweeps_of_schema_version_1_compare() {
    let evidence = Path::new(env!("CARGO_MANIFEST_DIR")).join("../evidence/2026-11-30-h200-final");
    let (warm, flushed) = (evidence.join("sweep-4k.json"), evidence.join("sweep-4k-flush-l2.json"));
    let (warm, flushed) = (warm.to_str().unwrap(), flushed.to_str().unwrap());
    let itself = diff(&[warm, warm]);
    assert_eq!(itself.code, 0, "{}", itself.stderr);
    let ratios: Vec<&str> = itself.stdout.lines().filter(|line| line.contains("  1.000  ")).collect();
    assert_eq!(ratios.len(), 13, "{}", itself.stdout);
    assert!(verdicts(&itself.stdout).iter().all(|(_, verdict)| verdict != "SLOWER" && verdict != "FASTER"));

    let ran = diff(&[warm, flushed]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Version 1 had no timing mode: each sample was one launch between its own events, and the
    // flush (flush_l2) is read as what it did.
    assert!(ran.stdout.contains("Note: timing: launch, 1 launch(es) a sample, L2 flush none, fixed count vs launch, 1 launch(es) a sample, L2 flush before_each_launch, fixed count\n"), "{}", ran.stdout);
    // What version 1 did not record, said of each file.
    for which in ["OLD", "NEW"] {
        let said = format!(
            "Note: {which} (schema version 1) did not record the shared memory per block, the lines above its table (head), \
             the lines below its table (summary) and its rows' limiters; read as the tool worked then: timing: launch mode"
        );
        assert!(ran.stdout.contains(&said), "{which}: {}", ran.stdout);
    }
    let verdicts = verdicts(&ran.stdout);
    assert_eq!(verdicts.len(), 13);
    assert!(verdicts.contains(&(32, "SLOWER".to_string())), "{}", ran.stdout);
    assert!(
        verdicts.iter().all(|(_, verdict)| verdict == "SLOWER" || verdict == "UNCLEAR"),
        "{}",
        ran.stdout
    );
}
