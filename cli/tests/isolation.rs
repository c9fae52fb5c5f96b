//! Nothing measured is lost, nothing hangs: `block-size` with a mock worker
//! (`examples/mock_worker.rs`, through `BLOCK_SIZE_TEST_WORKER`) whose launch faults, loses the
//! GPU context, hangs, or takes a signal at one configuration. Each test runs real processes: the
//! supervisor, its workers, and a signal sent to them.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::{json, mock_worker};

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("isolation-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

const QUICK: [&str; 8] = ["--width", "64", "--height", "64", "--warmups", "0", "--runs", "2"];
const SIZES: &str = "64,128,256,512,1024";

fn block_size(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_block-size"));
    command.args(QUICK).args(["--block-sizes", SIZES]).args(args);
    command.env("BLOCK_SIZE_TEST_WORKER", mock_worker());
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let Output { status, stdout, stderr } = block_size(args, env).output().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
}

/// The rows of an export: (block size, failed reason).
fn rows(export: &serde_json::Value) -> Vec<(u64, Option<String>)> {
    export["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["threads_per_block"].as_u64().unwrap(), row["failed"].as_str().map(String::from)))
        .collect()
}

fn journal_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn a_launch_fault_that_keeps_the_context_fails_its_row_and_the_sweep_goes_on() {
    let output = temp("fault.json");
    let (code, stdout, stderr) =
        run(&["--format", "json", "--output", output.to_str().unwrap()], &[("MOCK_FAULT_AT", "512")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    let rows = rows(&json(&output));
    assert_eq!(rows.iter().map(|(threads, _)| *threads).collect::<Vec<_>>(), [64, 128, 256, 512, 1024]);
    assert!(rows[3].1.as_deref().unwrap().contains("too many resources requested for launch"), "{rows:?}");
    assert!(rows.iter().enumerate().all(|(index, (_, failed))| (index == 3) == failed.is_some()));
    assert!(
        stderr.contains("check failed: at 512 threads per block nothing was measured: the launch failed"),
        "{stderr}"
    );
    let _ = std::fs::remove_file(output);
}

#[test]
fn a_fault_that_loses_the_context_costs_a_worker_and_every_other_row_is_measured() {
    let (output, journal) = (temp("lost.json"), temp("lost.jsonl"));
    let (code, _, stderr) = run(
        &["--format", "json", "--output", output.to_str().unwrap(), "--journal", journal.to_str().unwrap()],
        &[("MOCK_LOST_AT", "256")],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("256 threads per block: the launch lost the GPU context; a fresh worker measures"),
        "{stderr}"
    );
    let rows = rows(&json(&output));
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(rows[2].1.as_deref().unwrap().contains("an illegal memory access"), "{rows:?}");
    assert!(rows.iter().enumerate().all(|(index, (_, failed))| (index == 2) == failed.is_some()), "{rows:?}");
    // The journal holds each configuration once per worker that finished it.
    let entries = journal_lines(&journal);
    let threads: Vec<u64> =
        entries.iter().map(|entry| entry["configuration"]["threads_per_block"].as_u64().unwrap()).collect();
    assert_eq!(threads, [64, 128, 256, 512, 1024], "{entries:?}");
    let _ = (std::fs::remove_file(output), std::fs::remove_file(journal));
}

#[test]
fn a_sweep_whose_every_row_failed_writes_every_export_with_its_failures() {
    let folder = temp("all-failed");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let at = |name: &str| folder.join(name).to_str().unwrap().to_string();
    let mut args = vec!["--block-sizes".to_string(), "512".into(), "--journal".into(), at("j.jsonl")];
    for option in ["--output", "--json", "--csv", "--markdown", "--html", "--plot", "--emit-rust"] {
        let name = format!("out{}", option.replace("--", "."));
        args.extend([option.to_string(), at(&name)]);
    }
    let Output { status, stdout, stderr } = Command::new(env!("CARGO_BIN_EXE_block-size"))
        .args(QUICK)
        .args(&args)
        .env("BLOCK_SIZE_TEST_WORKER", mock_worker())
        .env("MOCK_FAULT_AT", "512")
        .output()
        .unwrap();
    let (code, stdout, stderr) =
        (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap());
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty(), "--output takes the table: {stdout}");
    let failure = "check failed: at 512 threads per block nothing was measured: the launch failed";
    assert!(stderr.contains(failure), "{stderr}");
    assert!(stderr.contains("1 check(s) failed"), "{stderr}");
    // --emit-rust has no winner to write, and says so in one line.
    let emitted = format!("--emit-rust: {} not written: a check failed\n", at("out.emit-rust"));
    assert_eq!(stderr.matches("--emit-rust").count(), 1, "{stderr}");
    assert!(stderr.contains(&emitted), "{stderr}");
    assert!(!Path::new(&at("out.emit-rust")).exists() && !Path::new(&at("out.emit-rust.json")).exists());
    let export = json(Path::new(&at("out.json")));
    let failed = rows(&export);
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0].1.as_deref().unwrap().contains("too many resources requested for launch"),
        "{failed:?}"
    );
    let nothing = "No configuration was measured: every row failed (the failed checks say why).";
    for (file, holds) in [
        ("out.output", nothing),
        ("out.markdown", nothing),
        ("out.html", nothing),
        ("out.html", "1 check(s) failed"),
        ("out.csv", "512,"),
        ("out.plot", "<svg"),
    ] {
        let text = std::fs::read_to_string(at(file)).unwrap();
        assert!(text.contains(holds), "{file} lacks {holds:?}: {text}");
    }
    assert_eq!(journal_lines(Path::new(&at("j.jsonl"))).len(), 1);
    // Its page, read back from the JSON, is the same page, and says so too.
    let output = Command::new(env!("CARGO_BIN_EXE_block-size"))
        .args(["report", &at("out.json"), "--html", &at("again.html")])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    assert_eq!(
        std::fs::read_to_string(at("again.html")).unwrap(),
        std::fs::read_to_string(at("out.html")).unwrap()
    );
    let _ = std::fs::remove_dir_all(folder);
}

#[test]
fn a_hang_is_named_within_its_timeout_and_the_other_rows_finish() {
    let output = temp("hang.json");
    let started = Instant::now();
    let (code, _, stderr) = run(
        &["--format", "json", "--output", output.to_str().unwrap(), "--launch-timeout", "1"],
        &[("MOCK_HANG_AT", "128")],
    );
    let elapsed = started.elapsed();
    assert_eq!(code, 1, "{stderr}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert!(
        stderr.contains("Error: 128 threads per block: hung: a wait on the GPU did not finish within 1.0 s"),
        "{stderr}"
    );
    assert!(stderr.contains("a barrier that not every thread of a block reaches"), "{stderr}");
    let rows = rows(&json(&output));
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(rows[1].1.as_deref().unwrap().starts_with("hung"), "{rows:?}");
    assert!(rows.iter().enumerate().all(|(index, (_, failed))| (index == 1) == failed.is_some()), "{rows:?}");
    let _ = std::fs::remove_file(output);
}

/// Sends `signal` to the process group of `child` (the supervisor and its worker, as a
/// terminal's Ctrl-C does).
fn signal_group(child: &std::process::Child, signal: i32) {
    unsafe extern "C" {
        fn kill(pid: i32, signal: i32) -> i32;
    }
    // SAFETY: kill(2) on the group this test made for the child.
    assert_eq!(unsafe { kill(-(child.id() as i32), signal) }, 0);
}

fn interrupted_sweep(signal: i32, status: i32) {
    use std::os::unix::process::CommandExt as _;
    let (output, journal) = (temp(&format!("signal-{signal}.json")), temp(&format!("signal-{signal}.jsonl")));
    let mut command = block_size(
        &["--format", "json", "--output", output.to_str().unwrap(), "--journal", journal.to_str().unwrap()],
        &[("MOCK_DELAY_MS", "400")],
    );
    let child = command.process_group(0).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // One schedule a row (a fixed count) at 400 ms: two rows finish in 1 s, of five.
    std::thread::sleep(Duration::from_millis(1000));
    signal_group(&child, signal);
    let Output { status: ended, stderr, .. } = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(stderr).unwrap();
    assert_eq!(ended.code(), Some(status), "{stderr}");
    let export = json(&output);
    let finished = rows(&export);
    assert!((1..5).contains(&finished.len()), "{finished:?}");
    assert!(finished.iter().all(|(_, failed)| failed.is_none()));
    let name = if signal == 2 { "SIGINT" } else { "SIGTERM" };
    assert_eq!(export["ended_early"], format!("interrupted by {name}"));
    // The row a signal cut short leaves no check behind: the model agrees at every kept row.
    let n = finished.len();
    let model = export["model_check"].as_str().unwrap();
    assert!(model.contains(&format!("at {n} of {n} ")), "{model}");
    assert_eq!(journal_lines(&journal).len(), finished.len(), "every finished row is in the journal");

    // A resume measures only the rows the journal lacks.
    let resumed = temp(&format!("resumed-{signal}.json"));
    let (code, _, stderr) = run(
        &["--format", "json", "--output", resumed.to_str().unwrap(), "--resume", journal.to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(rows(&json(&resumed)).len(), 5);
    let skipped: Vec<f64> = json(&resumed)["rows"].as_array().unwrap()[..finished.len()]
        .iter()
        .map(|row| row["median_ms"].as_f64().unwrap())
        .collect();
    let before: Vec<f64> =
        export["rows"].as_array().unwrap().iter().map(|row| row["median_ms"].as_f64().unwrap()).collect();
    assert_eq!(skipped, before, "the resumed rows are the journal's, not measured again");
    let _ = [output, journal, resumed].map(std::fs::remove_file);
}

#[test]
fn sigint_keeps_the_finished_rows_in_the_export_and_the_journal_and_a_resume_finishes() {
    interrupted_sweep(2, 130);
}

#[test]
fn sigterm_keeps_the_finished_rows_too() {
    interrupted_sweep(15, 143);
}

#[test]
fn a_supervisor_killed_with_sigkill_leaves_no_worker_behind() {
    let journal = temp("sigkill.jsonl");
    // Five rows of 3 s each: the worker would run on for seconds after its supervisor.
    let mut child = block_size(&["--journal", journal.to_str().unwrap()], &[("MOCK_DELAY_MS", "3000")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The worker: the supervisor's one child, once it has started.
    let children = format!("/proc/{0}/task/{0}/children", child.id());
    let started = Instant::now();
    let worker = loop {
        let listed = std::fs::read_to_string(&children).unwrap_or_default();
        if let Some(pid) = listed.split_whitespace().next() {
            break pid.to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no worker started");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(500));
    // SIGKILL can pass nothing on: the worker, in a process group of its own, must end anyway.
    child.kill().unwrap();
    child.wait().unwrap();
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|stat| !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
    };
    let started = Instant::now();
    while alive(&worker) && started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(&worker), "the worker {worker} still runs after its supervisor was killed");
    let lines = journal_lines(&journal).len();
    std::thread::sleep(Duration::from_millis(3500));
    assert_eq!(journal_lines(&journal).len(), lines, "nothing appends to the journal any more");
    let _ = std::fs::remove_file(&journal);
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_any_gpu_work() {
    let (code, stdout, stderr) = run(&["--format", "json", "--output", "/proc/self/x.json"], &[]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.starts_with("Error: cannot write /proc/self/x.json (--output): "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_worker_that_restarts_without_progress_ends_the_run_instead_of_looping() {
    use std::os::unix::fs::PermissionsExt as _;
    // A worker that asks for a restart every time and never journals a configuration.
    let script = temp("no-progress.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 75\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_block-size"))
        .args(QUICK)
        .env("BLOCK_SIZE_TEST_WORKER", &script)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "Error: a worker lost the GPU context without journaling the configuration it was measuring; giving up\n"
    );
    let _ = std::fs::remove_file(script);
}

/// Issue 25: a GPU whose name holds a line break and a right-to-left override (the mock
/// worker's `MOCK_GPU_NAME`) is refused in one line that shows the name quoted.
#[test]
fn a_gpu_name_with_a_line_break_is_refused_in_one_line() {
    let Output { status, stdout, stderr } = Command::new(env!("CARGO_BIN_EXE_block-size"))
        .args(QUICK)
        .args(["--block-sizes", "64,2048"])
        .env("BLOCK_SIZE_TEST_WORKER", mock_worker())
        .env("MOCK_GPU_NAME", "Fake\nGPU\u{202e}")
        .output()
        .unwrap();
    let stderr = String::from_utf8(stderr).unwrap();
    assert_eq!((status.code(), stdout.as_slice()), (Some(2), &b""[..]), "{stderr}");
    assert_eq!(
        stderr,
        "Error: block size 2048 is above \"Fake\\nGPU\\u{202e}\"'s limit of 1024 threads per block\n"
    );
}
