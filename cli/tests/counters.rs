//! `--counters` end to end without a GPU: `block-size` on the mock worker
//! (`examples/mock_worker.rs`) with `MOCK_COUNTERS=ncu`, so that the counters are read as on a
//! GPU, through an `ncu` (`BLOCK_SIZE_NCU`) over a replay of the worker, here a stand-in script
//! that runs the replay as Nsight Compute would and reports one kernel per configuration the
//! replay listed; and the same `ncu` failing, and missing.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{json, mock_worker};

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("counters-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// The stand-in for Nsight Compute's `ncu` (`support/fake-ncu`, committed executable: a script
/// written while another test starts a process cannot be run): `--version`; `--import REPORT
/// ...` prints REPORT; `--export REPORT ... --metrics LIST PROGRAM ARGS...` runs the program as
/// the replay (its standard output to `$FAKE_NCU_LOG`), then writes REPORT as `ncu --csv --page
/// raw` would: a kernel per configuration the replay listed, its DRAM rate the block's threads
/// x 10 GB/s, every other metric 50. With `FAKE_NCU_FAIL` set it fails as `ncu` does without
/// permission.
fn fake_ncu() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/fake-ncu")
}

/// `block-size ARGS` (a subcommand) on the mock worker reading through the stand-in `ncu`, the
/// replay's standard output to `log`: (status, stdout, stderr).
fn subcommand(args: &[&str], log: &Path) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_block-size"))
        .args(args)
        .env("BLOCK_SIZE_TEST_WORKER", mock_worker())
        .env("MOCK_COUNTERS", "ncu")
        .env("BLOCK_SIZE_NCU", fake_ncu())
        .env("FAKE_NCU_LOG", log)
        .env_remove("FAKE_NCU_FAIL")
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn run(args: &[&str], ncu: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_block-size"));
    command
        .args([
            "--width",
            "64",
            "--height",
            "64",
            "--warmups",
            "0",
            "--block-sizes",
            "128,256,512",
            "--counters",
        ])
        .args(args)
        .env("BLOCK_SIZE_TEST_WORKER", mock_worker())
        .env("MOCK_COUNTERS", "ncu")
        .env("BLOCK_SIZE_NCU", ncu)
        .env_remove("FAKE_NCU_FAIL");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn the_replay_under_ncu_launches_each_configuration_prints_nothing_and_its_kernels_become_the_rows_counters()
{
    let (ncu, log, journal, export) =
        (fake_ncu(), temp("replay-stdout"), temp("journal.jsonl"), temp("run.json"));
    let (code, out, err) = run(
        &["--journal", journal.to_str().unwrap(), "--json", export.to_str().unwrap()],
        &ncu,
        &[("FAKE_NCU_LOG", log.to_str().unwrap())],
    );
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "the replay prints nothing");
    assert_eq!(
        std::fs::read_to_string(&journal).unwrap().lines().count(),
        3,
        "the supervised worker journals its three rows; the replay, no worker, journals none"
    );
    assert!(
        out.contains("Counters: Nsight Compute 2099.1.0.0, read on a replay of each configuration"),
        "{out}"
    );
    let row =
        |threads: &str| out.lines().find(|line| line.split_whitespace().next() == Some(threads)).unwrap();
    for (threads, dram) in [("128", " 1280 "), ("256", " 2560 "), ("512", " 5120 ")] {
        assert!(row(threads).contains(dram), "{}", row(threads));
    }
    let record = json(&export);
    assert_eq!(record["counters"]["profiler"], "Nsight Compute 2099.1.0.0");
    assert_eq!(record["rows"][1]["counters"]["dram_bytes_per_second"], 2.56e12);
    assert_eq!(record["rows"][1]["counters"]["warp_efficiency_percent"], 50.0 / 32.0 * 100.0);
}

#[test]
fn ncu_without_permission_or_missing_is_one_warning_and_n_a_never_a_failed_sweep() {
    let ncu = fake_ncu();
    let log = temp("failing-stdout");
    let why =
        "ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters";
    let (code, out, err) = run(&[], &ncu, &[("FAKE_NCU_FAIL", why), ("FAKE_NCU_LOG", log.to_str().unwrap())]);
    assert_eq!(code, 0, "{err}");
    // ncu's line, cut where it runs long, names the error: one line.
    let said = "ncu over the replay: ==ERROR== ERR_NVGPUCTRPERM - The user does not have permission";
    assert!(err.starts_with(&format!("Warning: no hardware counters ({said}")), "{err}");
    assert!(err.ends_with("(exit status: 1)): their columns say n/a\n") && err.lines().count() == 1, "{err}");
    assert!(out.contains(&format!("Counters: none read ({said}")), "{out}");
    let (code, out, err) = run(&[], Path::new("/nonexistent/ncu"), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with(
            "Warning: no hardware counters (/nonexistent/ncu: could not start /nonexistent/ncu: "
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let row = out.lines().find(|line| line.split_whitespace().next() == Some("256")).unwrap();
    assert_eq!(row.matches("n/a").count(), 9, "{row}");
}

#[test]
fn compare_reads_each_builds_counters_at_each_block_size_on_one_replay() {
    let (log, export) = (temp("compare-stdout"), temp("compare.json"));
    let (code, out, err) = subcommand(
        &[
            "compare",
            "--width",
            "64",
            "--height",
            "64",
            "--block-sizes",
            "128,256",
            "--rounds",
            "3",
            "--counters",
            "--json",
            export.to_str().unwrap(),
        ],
        &log,
    );
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "the replay prints nothing it keeps");
    assert!(
        out.contains(
            "\nCounters: Nsight Compute 2099.1.0.0, read on a replay of each build at each block size"
        ),
        "{out}"
    );
    // Four builds at two block sizes: eight kernels profiled, each its row.
    for build in ["cuda_builder", "nvcc", "rustc-nvptx", "rustc-nvptx-fma"] {
        for (threads, dram) in [("128", " 1280 "), ("256", " 2560 ")] {
            let row = out.lines().find(|line| {
                let words: Vec<&str> = line.split_whitespace().collect();
                words.len() > 2 && words[0] == threads && words[1] == build
            });
            assert!(row.is_some_and(|row| row.contains(dram)), "{build} at {threads}: {out}");
        }
        assert!(out.contains(&format!("Bound: {build}'s fastest row, ")), "{out}");
    }
    let record = json(&export);
    assert_eq!(record["counters"]["profiler"], "Nsight Compute 2099.1.0.0");
    assert_eq!(record["rows"][1]["cells"][0]["counters"]["dram_bytes_per_second"], 2.56e12);
}

#[test]
fn diff_of_two_runs_with_counters_says_what_moved_without_a_verdict_on_it() {
    let (ncu, log, old, new) = (fake_ncu(), temp("diff-stdout"), temp("old.json"), temp("new.json"));
    // OLD: the mock's scripted counters (128 threads at 90 percent of a 4000 GB/s copy); NEW:
    // the stand-in ncu's (128 threads at 1280 GB/s).
    let (code, _, err) = run(&["--json", old.to_str().unwrap()], &ncu, &[("MOCK_COUNTERS", "scripted")]);
    assert_eq!((code, err.as_str()), (0, ""));
    let (code, _, err) =
        run(&["--json", new.to_str().unwrap()], &ncu, &[("FAKE_NCU_LOG", log.to_str().unwrap())]);
    assert_eq!((code, err.as_str()), (0, ""));
    let output = Command::new(env!("CARGO_BIN_EXE_block-size"))
        .args(["diff", old.to_str().unwrap(), new.to_str().unwrap()])
        .output()
        .unwrap();
    let out = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{out}");
    let heading = out.lines().find(|line| line.contains("verdict")).unwrap();
    assert!(heading.contains("DRAM GB/s") && heading.contains("mem stall"), "{heading}");
    let row = out.lines().find(|line| line.split_whitespace().next() == Some("128")).unwrap();
    assert!(row.contains("3600>1280") && row.contains("90>50"), "{row}");
    assert!(
        out.contains("Counters: OLD's reading > NEW's, from one replay a configuration in each file"),
        "{out}"
    );
}

#[test]
fn variants_reads_each_rows_counters_on_one_replay() {
    let log = temp("variants-stdout");
    let (code, out, err) = subcommand(
        &[
            "variants",
            "--width",
            "256",
            "--height",
            "64",
            "--block-sizes",
            "128,256",
            "--runs",
            "3",
            "--counters",
        ],
        &log,
    );
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    assert!(out.contains("\nCounters: Nsight Compute 2099.1.0.0, read on a replay of each row"), "{out}");
    // Every compiler's every variant at both block sizes is a kernel of the replay's.
    let counted: Vec<&str> = out
        .lines()
        .skip_while(|line| !line.starts_with("\nCounters:") && !line.starts_with("Counters:"))
        .filter(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words.len() == 12 && (words[2] == "128" || words[2] == "256")
        })
        .collect();
    assert_eq!(counted.len(), 20, "two compilers x five variants x two block sizes: {out}");
    assert!(counted.iter().all(|line| line.contains(" 1280 ") || line.contains(" 2560 ")), "{out}");
    assert!(
        out.contains("Bound: Rust's fastest row, ") && out.contains("Bound: C++'s fastest row, "),
        "{out}"
    );
}

#[test]
fn tail_reads_each_grids_counters_on_one_replay() {
    let log = temp("tail-stdout");
    let (code, out, err) = subcommand(
        &[
            "tail",
            "--width",
            "256",
            "--height",
            "64",
            "--block-size",
            "128",
            "--waves",
            "1,1.5,2",
            "--counters",
        ],
        &log,
    );
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    assert!(out.contains("\nCounters: Nsight Compute 2099.1.0.0, read on a replay of each grid"), "{out}");
    // The stand-in's DRAM rate is the block's threads x 10 GB/s: 1280 for each of the three grids.
    let rows = out.lines().skip_while(|line| !line.starts_with(" waves  grid  DRAM")).skip(1).take(3);
    assert_eq!(rows.filter(|line| line.contains(" 1280 ")).count(), 3, "{out}");
    assert!(out.contains("Bound: 1.00 waves ("), "{out}");
}
