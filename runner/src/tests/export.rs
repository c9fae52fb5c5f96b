//! Every export format, pinned by a snapshot of the same mock sweep.

use crate::kernel::Kernel;
use crate::measure::backend::Timing;
use crate::measure::provenance::Provenance;
use crate::measure::timing::{NoiseStop, TimingMode};
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::results::export::{Format, Record};
use crate::search::sweep;
use crate::tests::fixture;
use std::time::Duration;

fn record(corrupt_pixel: Option<usize>) -> Record {
    record_of(fixture::frame_kernel(320, 200), corrupt_pixel)
}

fn record_of(kernel: Kernel, corrupt_pixel: Option<usize>) -> Record {
    let mut gpu = fixture::gpu();
    let times =
        [0.155, 0.080, 0.041, 0.0405, 0.046, 0.0402, 0.0407, 0.0404, 0.0401, 0.0409, 0.0403, 0.0431, 0.0412];
    gpu.milliseconds = DEFAULT_BLOCK_SIZES.into_iter().zip(times).collect();
    gpu.run_spread = 0.02;
    let mut workload = fixture::workload(&mut gpu, kernel);
    let timing = Timing::fixed(TimingMode::Batch, 3, 4);
    let result =
        sweep::run(&mut gpu, workload.as_mut(), &[32, 100, 256, 1024], timing, corrupt_pixel).unwrap();
    Record::of(&result, provenance())
}

/// Fixed provenance, as a real run would fill it in.
fn provenance() -> Provenance {
    Provenance {
        command: "block-size --format json".into(),
        date: "2026-11-30T12:00:00Z".into(),
        gpu: "Mock H200".into(),
        compute_capability: "9.0".into(),
        driver_release: Some("580.159.04".into()),
        cuda_driver_api: "13.0".into(),
        kernel: "cuda_builder".into(),
        ptx_sha256: crate::measure::ptx::BLOCKING_MODULE.sha256(),
        registers_per_thread: Some(16),
        compiler: "cuda_builder".into(),
        rust_cuda_rev: Some("946c91f080770f30d42d7c706ac8185969274073".into()),
        toolchain: Some("nightly-2026-04-02".into()),
        rustc: Some("rustc 1.96.0-nightly (7e46c5f6f 2026-04-01)".into()),
        libnvvm: Some("1.9".into()),
        libnvvm_release: Some("11.8.89 (PyPI nvidia-cuda-nvcc-cu11)".into()),
        ptx_isa: Some("7.8".into()),
        ptx_isa_needs_cuda: Some("CUDA 11.8 or newer".into()),
        runner: "block-size 0.1.0".into(),
    }
}

/// The rendered text, with the PTX hash (which changes with every kernel edit) masked.
fn rendered(format: Format, record: &Record) -> String {
    format
        .exporter()
        .render(record)
        .unwrap()
        .replace(&crate::measure::ptx::BLOCKING_MODULE.sha256(), "<ptx sha256>")
}

#[test]
fn json_carries_every_run() {
    let text = rendered(Format::Json, &record(None));
    let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["rows"][0]["run_ms"].as_array().unwrap().len(), 4);
    assert_eq!(parsed["provenance"]["ptx_sha256"], "<ptx sha256>");
    assert_eq!(parsed["provenance"]["rust_cuda_rev"], "946c91f080770f30d42d7c706ac8185969274073");
    insta::assert_snapshot!("export_json", text);
}

#[test]
fn csv_has_a_header_and_one_line_per_row() {
    let text = rendered(Format::Csv, &record(None));
    assert_eq!(text.lines().count(), 5);
    assert!(text.starts_with("threads_per_block,warps_per_block,idle_lanes,blocks_per_sm,"));
    insta::assert_snapshot!("export_csv", text);
}

#[test]
fn markdown_is_a_table_and_the_summary() {
    insta::assert_snapshot!("export_markdown", rendered(Format::Markdown, &record(None)));
}

#[test]
fn failed_checks_travel_with_the_export() {
    let record = record(Some(7));
    assert_eq!(record.failures.len(), 4);
    let markdown = rendered(Format::Markdown, &record);
    assert!(markdown.contains("**4 check(s) failed: this table is not a measurement.**"), "{markdown}");
    let json: serde_json::Value = serde_json::from_str(&rendered(Format::Json, &record)).unwrap();
    assert_eq!(json["failures"].as_array().unwrap().len(), 4);
}

#[test]
fn every_format_says_how_the_noise_driven_stop_ended_each_row() {
    let mut gpu = fixture::gpu();
    gpu.milliseconds = vec![(64, 0.5), (256, 0.25)];
    // Steady at 64 threads; three percent apart at 256 threads, until the budget.
    gpu.sample_script = [&[1.0; 5][..], &[0.97, 1.0, 1.03].repeat(1000)].concat();
    let mut workload = fixture::workload(&mut gpu, fixture::frame_kernel(32, 32));
    let stop = NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_millis(25), max_runs: 1000 };
    let timing = Timing::fixed(TimingMode::Cold, 0, 5).until(stop);
    let result = sweep::run(&mut gpu, workload.as_mut(), &[64, 256], timing, None).unwrap();
    let record = Record::of(&result, provenance());

    let json: serde_json::Value = serde_json::from_str(&rendered(Format::Json, &record)).unwrap();
    assert_eq!(json["timing"]["mode"], "cold");
    // Cold timing flushes L2 before every launch, --flush-l2 or not: the export says so.
    assert_eq!(json["timing"]["l2_flush"], "before_each_launch");
    assert_eq!(json["schema_version"], crate::results::export::SCHEMA_VERSION);
    assert_eq!(json["timing"]["stop"]["max_noise"], 0.005);
    assert_eq!(json["timing"]["stop"]["max_time_per_row_s"], 0.025);
    let rows = json["rows"].as_array().unwrap();
    let described: Vec<(&str, &str, u64, usize)> = rows
        .iter()
        .map(|row| {
            (
                row["timing_mode"].as_str().unwrap(),
                row["stopped"].as_str().unwrap(),
                row["samples"].as_u64().unwrap(),
                row["run_ms"].as_array().unwrap().len(),
            )
        })
        .collect();
    // 25 ms of 0.25 ms runs: 100 of them, and one more for the rounding of their sum.
    assert_eq!(described, [("cold", "converged", 5, 5), ("cold", "time_budget", 101, 101)]);

    let csv = rendered(Format::Csv, &record);
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with(",timing_mode,launches_per_sample,samples,stopped,failed,pruned")
    );
    assert!(csv.lines().nth(2).unwrap().ends_with(",cold,1,101,time_budget,,"), "{csv}");

    let markdown = rendered(Format::Markdown, &record);
    assert!(markdown.contains("| MAD ms | runs | limiter |"), "{markdown}");
    assert!(markdown.contains(" | 101 | warps |"), "{markdown}");
    assert!(
        markdown.contains(
            "Noise-driven stop: 1 of 2 rows reached MAD/median <= 0.5%, 1 stopped at 0.025 s; 5 to 101 samples a row (runs column)."
        ),
        "{markdown}"
    );
    assert!(markdown.starts_with(
        "**Mock H200** (compute capability 9.0, 132 SMs), 32 x 32 frame, cold mode, median of at least 5 runs after 0 warm-ups, until MAD/median <= 0.5% or 0.025 s a row;"
    ), "{markdown}");
}

/// The fields docs/statistics-and-exports.md lists for the JSON export, table by table (the
/// top level, `timing`, `rows[]`), each with whether it is present only where the sweep has a
/// tunable.
fn documented_fields() -> Vec<Vec<(String, bool)>> {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/statistics-and-exports.md"))
            .expect("docs/statistics-and-exports.md");
    let section = &page[page.find("### The JSON export's fields").expect("the fields' section")..];
    let mut tables: Vec<Vec<(String, bool)>> = Vec::new();
    let mut in_table = false;
    for line in section.lines() {
        match line.strip_prefix("| `") {
            Some(rest) => {
                if !in_table {
                    tables.push(Vec::new());
                    in_table = true;
                }
                let name = rest.split('`').next().unwrap().to_string();
                let optional = line.contains("(only where the sweep has one)");
                tables.last_mut().unwrap().push((name, optional));
            }
            None if line.starts_with('|') => {}
            None => in_table = false,
        }
        if tables.len() == 3 && !in_table {
            break;
        }
    }
    tables
}

#[test]
fn the_documented_fields_are_the_exports_fields() {
    let tables = documented_fields();
    assert_eq!(tables.len(), 3, "three tables: the top level, timing, rows[]");
    let json: serde_json::Value = serde_json::from_str(&rendered(Format::Json, &record(None))).unwrap();
    let keys =
        |value: &serde_json::Value| -> Vec<String> { value.as_object().unwrap().keys().cloned().collect() };
    for (table, (name, exported)) in tables.iter().zip([
        ("top level", keys(&json)),
        ("timing", keys(&json["timing"])),
        ("rows[]", keys(&json["rows"][0])),
    ]) {
        // Less the tunable's fields, which a sweep without one leaves out (both sorted: serde_json's
        // map reads keys back in order).
        let mut documented: Vec<String> =
            table.iter().filter(|(_, optional)| !optional).map(|(field, _)| field.clone()).collect();
        documented.sort();
        assert_eq!(documented, exported, "{name}: docs/statistics-and-exports.md against the JSON export");
    }
    // The tunable's fields are the ones marked, and they are what a sweep with a tunable adds.
    let marked: Vec<&str> =
        tables.iter().flatten().filter(|(_, optional)| *optional).map(|(field, _)| field.as_str()).collect();
    assert_eq!(marked, ["fastest_axes", "axes"]);
    // The CSV's columns are the rows' fields but the samples.
    let csv = rendered(Format::Csv, &record(None));
    let documented_rows: Vec<&str> = tables[2]
        .iter()
        .filter(|(field, optional)| !optional && field != "run_ms")
        .map(|(field, _)| field.as_str())
        .collect();
    assert_eq!(csv.lines().next().unwrap().split(',').collect::<Vec<_>>(), documented_rows);
}
