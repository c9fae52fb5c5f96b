//! The clock, throttling and energy of every row, end to end: `block-size` on the mock worker
//! (`examples/mock_worker.rs`) whose scripted sensors (`MOCK_SENSORS`, `MOCK_WATTS`,
//! `MOCK_THROTTLE`) stand in for NVML, and without them, as a machine without NVML.

mod support;

use std::path::PathBuf;
use std::process::Command;
use support::{json, mock_worker};

fn temp(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sensors-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// Every row takes the mock's 1 ms; 512 threads draws the least power and 128 the most.
const WATTS: (&str, &str) = ("MOCK_WATTS", "128:450,256:300,512:150");

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_block-size"));
    command
        .args(["--width", "64", "--height", "64", "--warmups", "0", "--block-sizes", "128,256,512"])
        .args(args)
        .env("BLOCK_SIZE_TEST_WORKER", mock_worker());
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
fn the_energy_objective_picks_the_row_of_least_energy_where_the_fastest_differs() {
    let (export, emitted) = (temp("energy.json"), temp("energy.rs"));
    let (code, stdout, stderr) = run(
        &[
            "--energy",
            "--stats",
            "--objective",
            "energy",
            "--json",
            export.to_str().unwrap(),
            "--emit-rust",
            emitted.to_str().unwrap(),
        ],
        &[("MOCK_SENSORS", "1"), WATTS],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("mJ/pass") && stdout.contains("SM MHz"), "{stdout}");
    // All three rows take 1 ms: the fastest is the first of equals, the least energy 512.
    assert!(stdout.contains("Fastest measured: 128 threads per block at 1.000 ms."), "{stdout}");
    assert!(stdout.contains("Winner by --objective energy: 512 threads per block at "), "{stdout}");
    assert!(
        stdout.contains("Least energy (0.5 s windows of the GPU's energy counter): 512 threads per block"),
        "{stdout}"
    );
    let document = json(&export);
    assert_eq!(document["objective"], "energy");
    assert_eq!(document["timing"]["energy_window_s"], 0.5);
    let watts: Vec<f64> = document["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["energy"]["watts"].as_f64().unwrap())
        .collect();
    for (measured, scripted) in watts.iter().zip([450.0, 300.0, 150.0]) {
        assert!((measured - scripted).abs() / scripted < 0.02, "{watts:?}");
    }
    let fractions: Vec<f64> = document["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["fraction_of_best"].as_f64().unwrap())
        .collect();
    assert!(fractions[2] == 1.0 && fractions[0] < 0.4, "by energy: {fractions:?}");
    assert_eq!(document["rows"][0]["sm_clock"]["median_mhz"], 1980);
    // The emitted winner is the objective's.
    let rust = std::fs::read_to_string(&emitted).unwrap();
    assert!(rust.contains("pub const BLOCK_SIZE: u32 = 512;"), "{rust}");
    assert!(rust.contains("the least-energy configuration of `grayscale`"), "{rust}");
    assert!(rust.contains("median 1.0000 ms over 10 samples, 150."), "{rust}");
    // Read back, the file renders and diffs (the reader's checks hold for its fields).
    let (bin, page) = (env!("CARGO_BIN_EXE_block-size"), temp("r.html"));
    let report =
        Command::new(bin).args(["report", export.to_str().unwrap(), "--html"]).arg(&page).output().unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let diff = Command::new(bin).args(["diff"]).arg(&export).arg(&export).output().unwrap();
    assert!(diff.status.success(), "{}", String::from_utf8_lossy(&diff.stderr));
    let compared = String::from_utf8(diff.stdout).unwrap();
    assert!(
        compared.contains("mJ ratio")
            && compared.contains("150.000")
            && compared.contains("mJ ratio: NEW's joules"),
        "{compared}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th>mJ/pass</th>") && html.contains("<th>SM MHz</th>"));
}

#[test]
fn by_time_the_summary_still_names_the_row_of_least_energy_and_a_resume_keeps_the_readings() {
    let (journal, first, resumed) = (temp("j.jsonl"), temp("first.json"), temp("resumed.json"));
    let env = [("MOCK_SENSORS", "1"), WATTS];
    let (code, stdout, stderr) =
        run(&["--energy", "--journal", journal.to_str().unwrap(), "--json", first.to_str().unwrap()], &env);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Fastest measured: 128 threads per block"), "{stdout}");
    assert!(!stdout.contains("Winner by"), "time is the objective: {stdout}");
    assert!(stdout.contains("512 threads per block at 150.") || stdout.contains("Least energy"), "{stdout}");
    let (code, _, stderr) =
        run(&["--energy", "--resume", journal.to_str().unwrap(), "--json", resumed.to_str().unwrap()], &env);
    assert_eq!(code, 0, "{stderr}");
    let (first, resumed) = (json(&first), json(&resumed));
    for row in 0..3 {
        assert_eq!(first["rows"][row]["energy"], resumed["rows"][row]["energy"]);
        assert_eq!(first["rows"][row]["sm_clock"], resumed["rows"][row]["sm_clock"]);
    }
}

#[test]
fn throttled_samples_are_taken_again_and_counted() {
    let export = temp("throttled.json");
    let (code, stdout, stderr) = run(
        &["--stats", "--json", export.to_str().unwrap()],
        &[("MOCK_SENSORS", "1"), ("MOCK_THROTTLE", "2")],
    );
    assert_eq!(code, 0, "{stderr}");
    let line = stdout.lines().find(|line| line.starts_with("SM clock:")).unwrap_or_default();
    assert_eq!(
        line,
        "SM clock: 1980 MHz (each row's median reading), lowest reading 1980 MHz; 11 sample(s) throttled (sw_power_cap), taken again while a row's budget lasted."
    );
    // The first two readings throttled: after the row's first sample (the one that times a
    // launch) and after its first chunk of ten, both dropped and counted.
    let row = &json(&export)["rows"][0];
    assert_eq!(row["sm_clock"]["throttled_samples"], 11);
    assert_eq!(row["samples"], 10, "the ten kept are unthrottled");
    assert!(
        stdout.lines().any(|line| line.trim_start().starts_with("128 ") && line.contains("1980t")),
        "{stdout}"
    );
}

#[test]
fn without_nvml_the_columns_say_n_a_and_one_line_says_why() {
    let csv = temp("na.csv");
    let (code, stdout, stderr) = run(&["--energy", "--stats", "--csv", csv.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr
            .matches(
                "Warning: no SM clock or energy readings (the mock GPU has no sensors): their columns say n/a"
            )
            .count(),
        1,
        "{stderr}"
    );
    let rows: Vec<&str> =
        stdout.lines().filter(|line| line.trim_start().starts_with(['1', '2', '5'])).collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(rows.iter().all(|row| row.matches("n/a").count() == 3), "{rows:?}");
    // The CSV has no sensor columns where nothing was read.
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(!text.contains("joules_per_pass"), "{text}");
    // Against a run whose clocks were read, diff says the clocks differ.
    let (unread, read) = (temp("unread.json"), temp("read.json"));
    assert_eq!(run(&["--json", unread.to_str().unwrap()], &[]).0, 0);
    assert_eq!(run(&["--json", read.to_str().unwrap()], &[("MOCK_SENSORS", "1")]).0, 0);
    let diff =
        Command::new(env!("CARGO_BIN_EXE_block-size")).arg("diff").arg(&unread).arg(&read).output().unwrap();
    let compared = String::from_utf8(diff.stdout).unwrap();
    assert!(compared.contains("Note: SM clock: not read vs 1980 MHz, 0 sample(s) throttled\n"), "{compared}");
    // An energy objective with nothing read falls back to time, and says so.
    let (code, stdout, _) = run(&["--energy", "--objective", "edp"], &[]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("--objective edp found no row with an energy reading: the winner is the fastest."),
        "{stdout}"
    );
}

#[test]
fn an_energy_objective_needs_energy_and_refuses_a_race() {
    let (code, stdout, stderr) = run(&["--objective", "energy"], &[]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr, "Error: --objective energy needs --energy: a row's energy is read only with it\n");
    let (code, _, stderr) = run(&["--objective", "edp", "--energy", "--search", "race"], &[]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "Error: --search race drops rows by their time, not by --objective edp: give --search exhaustive\n"
    );
    let (code, _, stderr) = run(&["--energy", "--energy-window", "0"], &[]);
    assert_eq!(code, 2);
    assert_eq!(stderr, "Error: --energy-window must be from 0.001 to 60 seconds, not 0\n");
}
