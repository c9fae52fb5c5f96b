//! Many GPUs, many machines: `--device all` with a worker per GPU at once, `--split`, `--shard
//! I/N` and `block-size merge`, run as real processes on the mock worker
//! (`examples/mock_worker.rs` through `BLOCK_SIZE_TEST_WORKER`) with `MOCK_DEVICES` GPUs, a fault
//! or a hang on one of them (`MOCK_FAULTS_ON`).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{json, mock_worker};

fn folder(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("fleet-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

const QUICK: [&str; 8] = ["--width", "64", "--height", "64", "--warmups", "0", "--runs", "2"];
const SIZES: [&str; 2] = ["--block-sizes", "64,128,256,512,1024"];

fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_block-size"));
    command.current_dir(dir).args(args).env("BLOCK_SIZE_TEST_WORKER", mock_worker());
    for (name, value) in env {
        command.env(name, value);
    }
    let Output { status, stdout, stderr } = command.output().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8(stderr).unwrap())
}

/// A sweep with the quick options and the block sizes, then `args`.
fn sweep_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let all: Vec<&str> = QUICK.iter().chain(&SIZES).chain(args).copied().collect();
    run_in(dir, &all, env)
}

/// Each row of an export: (block size, its failure or pruning, if any).
fn rows(export: &serde_json::Value) -> Vec<(u64, Option<String>)> {
    export["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let why = row["failed"].as_str().or(row["pruned"].as_str()).map(String::from);
            (row["threads_per_block"].as_u64().unwrap(), why)
        })
        .collect()
}

#[test]
fn every_gpu_gets_a_worker_and_its_table_in_order_and_one_journal_and_one_emitted_file() {
    let dir = folder("all");
    let (code, stdout, stderr) = sweep_in(
        &dir,
        &["--device", "all", "--json", "s.json", "--emit-rust", "w.rs", "--journal", "j.jsonl"],
        &[("MOCK_DEVICES", "3")],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.matches("\n thr/blk  warps").count(), 3, "{stdout}");
    for device in 0..3 {
        let export = json(&dir.join(format!("s-gpu{device}.json")));
        assert_eq!(rows(&export).len(), 5);
        assert_eq!(export["device"]["ordinal"], device);
        assert!(stdout.contains(&format!("GPU {device} (Mock H200): fastest ")), "{stdout}");
    }
    // The summary lines come last, in the GPUs' order.
    let summary: Vec<&str> = stdout.lines().filter(|line| line.starts_with("GPU ")).collect();
    assert!(summary[0].starts_with("GPU 0") && summary[2].starts_with("GPU 2"), "{summary:?}");
    // Every GPU's configurations in the one journal; one module for one model in the one file.
    let journal = std::fs::read_to_string(dir.join("j.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 15);
    let winners = json(&dir.join("w.rs.json"));
    assert_eq!(winners["winners"].as_array().unwrap().len(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_fault_or_a_hang_on_one_gpu_costs_that_gpu_its_row_and_nothing_of_the_others() {
    for (name, fault) in [("lost", ("MOCK_LOST_AT", "256")), ("hang", ("MOCK_HANG_AT", "256"))] {
        let dir = folder(name);
        let (code, stdout, stderr) = sweep_in(
            &dir,
            &["--device", "all", "--json", "s.json", "--launch-timeout", "1"],
            &[("MOCK_DEVICES", "3"), ("MOCK_FAULTS_ON", "1"), fault],
        );
        assert_eq!(code, 1, "{name}: {stderr}");
        for device in [0, 2] {
            let export = json(&dir.join(format!("s-gpu{device}.json")));
            assert!(rows(&export).iter().all(|(_, why)| why.is_none()), "{name}: GPU {device}");
            assert_eq!(export["failures"].as_array().unwrap().len(), 0);
        }
        let faulted = rows(&json(&dir.join("s-gpu1.json")));
        assert_eq!(faulted.len(), 5, "{name}: every configuration of GPU 1 has its row");
        let failed: Vec<u64> =
            faulted.iter().filter(|(_, why)| why.is_some()).map(|(threads, _)| *threads).collect();
        assert_eq!(failed, [256], "{name}");
        assert!(
            stderr.contains("check failed: at 256 threads per block nothing was measured"),
            "{name}: {stderr}"
        );
        assert!(stdout.contains("GPU 1 (Mock H200): fastest 64 threads per block"), "{name}: {stdout}");
        assert!(stdout.contains("1 check(s) failed."), "{name}: {stdout}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn a_sweep_split_across_gpus_or_into_shards_merges_into_the_unsplit_one() {
    let dir = folder("split");
    let (code, _, stderr) = sweep_in(&dir, &["--json", "whole.json"], &[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = sweep_in(
        &dir,
        &["--device", "all", "--split", "--json", "split.json", "--emit-rust", "w.rs"],
        &[("MOCK_DEVICES", "2")],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(
        "Split: the sweep's 5 configurations across 2 GPUs of Mock H200 (9.0), a shard each, merged"
    ));
    assert_eq!(stdout.matches("\n thr/blk  warps").count(), 1, "one table: {stdout}");
    for shard in ["1/3", "2/3", "3/3"] {
        let name = format!("part-{}.json", &shard[..1]);
        let (code, stdout, stderr) = sweep_in(&dir, &["--shard", shard, "--json", &name], &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains(&format!("Shard {shard}: ")), "{stdout}");
    }
    let (code, stdout, stderr) = run_in(
        &dir,
        &["merge", "part-3.json", "part-1.json", "part-2.json", "--json", "merged.json", "--html", "m.html"],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Merged: 3 shards (part-1.json, part-2.json, part-3.json) on Mock H200 (9.0)\n"),
        "{stdout}"
    );
    // Every row of the unsplit sweep, in its order, with its samples and its checks.
    let whole = json(&dir.join("whole.json"));
    for merged in [json(&dir.join("split.json")), json(&dir.join("merged.json"))] {
        assert_eq!(merged["rows"], whole["rows"]);
        assert_eq!(merged["failures"], whole["failures"]);
        assert_eq!(merged["summary"], whole["summary"]);
        assert_eq!(merged["occupancy_model"], whole["occupancy_model"]);
        assert!(merged.get("shard").is_none());
    }
    assert_eq!(json(&dir.join("merged.json"))["merged_from"].as_array().unwrap().len(), 3);
    assert!(std::fs::read_to_string(dir.join("m.html")).unwrap().contains("<h2>The sweep</h2>"));
    assert_eq!(json(&dir.join("w.rs.json"))["winners"].as_array().unwrap().len(), 1);
    // `report` and `diff` read the merged file as any sweep's.
    let (code, stdout, stderr) = run_in(&dir, &["diff", "whole.json", "merged.json"], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("SAME"), "{stdout}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn merge_puts_gpu_models_side_by_side_with_a_module_each() {
    let dir = folder("models");
    for (name, gpu) in [("a.json", "Mock A100"), ("b.json", "Mock T4")] {
        let (code, _, stderr) = sweep_in(&dir, &["--json", name], &[("MOCK_GPU_NAME", gpu)]);
        assert_eq!(code, 0, "{stderr}");
    }
    let (code, stdout, stderr) = run_in(
        &dir,
        &["merge", "a.json", "b.json", "--json", "m.json", "--emit-rust", "w.rs", "--html", "m.html"],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.matches("\n thr/blk  warps").count(), 2, "{stdout}");
    assert!(stdout.contains("\nMock A100 (9.0): 64 threads at "), "{stdout}");
    assert!(stdout.contains("\nMock T4 (9.0): 64 threads at "), "{stdout}");
    let merged = json(&dir.join("m.json"));
    assert_eq!(merged.as_array().unwrap().len(), 2);
    let rust = std::fs::read_to_string(dir.join("w.rs")).unwrap();
    assert!(rust.contains("pub mod mock_a100_sm90") && rust.contains("pub mod mock_t4_sm90"), "{rust}");
    let page = std::fs::read_to_string(dir.join("m.html")).unwrap();
    assert!(page.contains("on 2 GPU models") && page.contains("id=\"sweep-1\""));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn what_does_not_split_or_merge_is_one_line_and_exit_2() {
    let dir = folder("refusals");
    for shard in ["1/2", "2/2"] {
        let name = format!("p{}.json", &shard[..1]);
        assert_eq!(sweep_in(&dir, &["--shard", shard, "--json", &name], &[]).0, 0);
    }
    assert_eq!(sweep_in(&dir, &["--json", "whole.json"], &[]).0, 0);
    assert_eq!(sweep_in(&dir, &["--kernel", "histogram", "--json", "histogram.json"], &[]).0, 0);
    std::fs::write(dir.join("not.json"), "{}").unwrap();
    let cases: [(&[&str], &str); 11] = [
        (
            &["merge", "p1.json"],
            "shard 2/2 of Mock H200 (9.0) is missing: merge needs every shard of the sweep",
        ),
        (&["merge", "p1.json", "p2.json", "p1.json"], "p1.json and p1.json are one file, given twice"),
        (
            &["merge", "whole.json", "p1.json", "p2.json"],
            "whole.json and p1.json are both of Mock H200 (9.0), and whole.json is a whole sweep",
        ),
        (&["merge", "p1.json", "histogram.json"], "p1.json and histogram.json are of different kernels"),
        (&["merge", "p1.json", "not.json"], "not.json"),
        (&["merge", "p1.json", "p2.json", "--json", "p1.json"], "--json p1.json names the file merge reads"),
        (&["--shard", "3/2"], "invalid value '3/2' for '--shard <I/N>'"),
        (
            &["--shard", "1/2", "--search", "race"],
            "--search race drops rows against a best that no shard sees",
        ),
        (
            &["--shard", "1/2", "--emit-rust", "w.rs"],
            "--emit-rust writes the sweep's winner, which shard 1/2 alone",
        ),
        (&["--shard", "1/2", "--device", "all"], "--shard 1/2 measures its share on one GPU"),
        (&["--split"], "--split splits one sweep across every GPU of this machine: give --device all"),
    ];
    for (args, line) in cases {
        // Refused before any GPU, so without the quick options (--runs would refuse a race first).
        let all: Vec<&str> =
            if args[0] == "merge" { args.to_vec() } else { SIZES.iter().chain(args).copied().collect() };
        let (code, stdout, stderr) = run_in(&dir, &all, &[]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("Error: ") && stderr.contains(line), "{args:?}: {stderr}");
    }
    // A shard of nothing, and GPUs of two models under --split.
    let (code, _, stderr) = sweep_in(&dir, &["--shard", "6/6"], &[]);
    assert_eq!((code, stderr.as_str()), (2, "Error: --shard 6/6 holds no configuration: the sweep has 5\n"));
    let (code, _, stderr) = sweep_in(
        &dir,
        &["--device", "all", "--split"],
        &[("MOCK_DEVICES", "2"), ("MOCK_GPU_NAMES", "Mock H200,Mock L40S")],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with(
        "Error: --split needs GPUs of one model: GPU 0 is Mock H200 (9.0), GPU 1 is Mock L40S (9.0)"
    ));
    // Nothing was written by a refused merge.
    assert!(!dir.join("merged.json").exists());
    std::fs::remove_dir_all(dir).unwrap();
}
