//! Every export format, pinned by a snapshot of the same mock sweep; the record read back from
//! its JSON is the record written, and renders as it did.

use crate::kernel::Kernel;
use crate::measure::gpu::backend::Timing;
use crate::measure::record::provenance::Provenance;
use crate::measure::sampling::timing::{NoiseStop, TimingMode};
use crate::model::occupancy::DEFAULT_BLOCK_SIZES;
use crate::results::export::Format;
use crate::results::schema::SweepRecord;
use crate::search::sweep;
use crate::tests::fixture;
use std::time::Duration;

fn record(corrupt_pixel: Option<usize>) -> SweepRecord {
    record_of(fixture::frame_kernel(320, 200), corrupt_pixel)
}

fn record_of(kernel: Kernel, corrupt_pixel: Option<usize>) -> SweepRecord {
    SweepRecord::of(&sweep_of(kernel, corrupt_pixel), provenance())
}

/// A mock sweep of `kernel` over four block sizes, batch timing, four samples a row.
fn sweep_of(kernel: Kernel, corrupt_pixel: Option<usize>) -> sweep::Sweep {
    let mut gpu = fixture::gpu();
    let times =
        [0.155, 0.080, 0.041, 0.0405, 0.046, 0.0402, 0.0407, 0.0404, 0.0401, 0.0409, 0.0403, 0.0431, 0.0412];
    gpu.milliseconds = DEFAULT_BLOCK_SIZES.into_iter().zip(times).collect();
    gpu.run_spread = 0.02;
    let mut workload = fixture::workload(&mut gpu, kernel);
    let timing = Timing::fixed(TimingMode::Batch, 3, 4);
    sweep::run(&mut gpu, workload.as_mut(), &[32, 100, 256, 1024], timing, corrupt_pixel).unwrap()
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
        ptx_sha256: crate::measure::gpu::ptx::BLOCKING_MODULE.sha256(),
        registers_per_thread: Some(16),
        ptx_facts: crate::model::ptx_facts::PtxFacts::of(
            crate::measure::gpu::ptx::BLOCKING_MODULE.ptx,
            "grayscale",
        ),
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
fn rendered(format: Format, record: &SweepRecord) -> String {
    format
        .exporter()
        .render(record)
        .unwrap()
        .replace(&crate::measure::gpu::ptx::BLOCKING_MODULE.sha256(), "<ptx sha256>")
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
    let record = SweepRecord::of(&result, provenance());

    let json: serde_json::Value = serde_json::from_str(&rendered(Format::Json, &record)).unwrap();
    assert_eq!(json["timing"]["mode"], "cold");
    // Cold timing flushes L2 before every launch, --flush-l2 or not: the export says so.
    assert_eq!(json["timing"]["l2_flush"], "before_each_launch");
    assert_eq!(json["schema_version"], crate::results::schema::SCHEMA_VERSION);
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
/// top level, `timing`, `rows[]`), each with whether it is present only where the sweep has it
/// (an axis, an objective other than time, energy, the sensors' readings).
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
                let optional = line.contains("(only where");
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
    assert_eq!(
        marked,
        [
            "objective",
            "fastest_axes",
            "shard",
            "merged_from",
            "min_sample_s",
            "energy_window_s",
            "axes",
            "sm_clock",
            "energy"
        ]
    );
    // The CSV's columns are the rows' fields but the samples.
    let csv = rendered(Format::Csv, &record(None));
    let documented_rows: Vec<&str> = tables[2]
        .iter()
        .filter(|(field, optional)| !optional && field != "run_ms")
        .map(|(field, _)| field.as_str())
        .collect();
    assert_eq!(csv.lines().next().unwrap().split(',').collect::<Vec<_>>(), documented_rows);
}

/// The sweep of `sweep_of`, dressed as one with an axis, a pruned configuration, a raced row and
/// the noise-driven stop: every sentence after the table has something to say.
fn dressed_sweep() -> sweep::Sweep {
    let mut sweep = sweep_of(fixture::frame_kernel(320, 200), None);
    sweep.axes = vec!["tile".to_string()];
    for (index, row) in sweep.rows.iter_mut().enumerate() {
        row.axes = crate::model::axis_values::AxisValues(vec![("tile".into(), (1 << index).to_string())]);
    }
    sweep.timing = sweep.timing.until(NoiseStop::DEFAULT);
    sweep.rows[0].stopped = Some(crate::measure::sampling::timing::Stopped::Raced);
    sweep.rows[1].stopped = Some(crate::measure::sampling::timing::Stopped::Converged);
    sweep.rows[1].run_ms.push(0.046);
    let pruned = &mut sweep.rows[3];
    pruned.pruned = Some("1024 threads x 80 registers, above the 65536 a block may hold".into());
    pruned.run_ms.clear();
    pruned.stats = crate::model::stats::RunStats::of(&[]);
    pruned.stopped = None;
    sweep
}

#[test]
fn the_record_reads_back_as_it_was_written() {
    let sweeps = [
        sweep_of(fixture::frame_kernel(320, 200), None),
        sweep_of(
            fixture::frame_kernel(320, 200)
                .dynamic_shared_memory(|_, _| 4000)
                .detail("Kernel: histogram of 1000 bins, 4000 B of dynamic shared memory per block"),
            None,
        ),
        {
            // Its extra sample is the fixture's, pushed without its statistics: the reader holds
            // a row's median, min, max and MAD to its samples, as every sweep writes them.
            let mut dressed = dressed_sweep();
            for row in &mut dressed.rows {
                row.stats = crate::model::stats::RunStats::of(&row.run_ms);
            }
            dressed
        },
    ];
    for sweep in &sweeps {
        let record = SweepRecord::of(sweep, provenance());
        let text = Format::Json.exporter().render(&record).unwrap();
        let read = SweepRecord::parse(&text).unwrap();
        // The pruned row's times are NaN, which equals nothing: compare the JSON of both too.
        assert_eq!(Format::Json.exporter().render(&read).unwrap(), text);
        if sweep.pruned_rows().count() == 0 {
            assert_eq!(read, record);
        }
        assert_eq!(read.origin, crate::results::schema::Origin::default());
        assert_eq!(read.lacking("This file"), None);
        // Every format renders the record read back as it rendered the record written.
        for format in [Format::Csv, Format::Markdown, Format::Html] {
            let exporter = format.exporter();
            assert_eq!(exporter.render(&read).unwrap(), exporter.render(&record).unwrap(), "{format:?}");
        }
    }
    // A failed row's times are null in the JSON and NaN again once read.
    let corrupted = record(Some(7));
    let read = SweepRecord::parse(&Format::Json.exporter().render(&corrupted).unwrap()).unwrap();
    assert_eq!(read.failures.len(), 4);
}

#[test]
fn a_graph_timed_sweep_reads_back_as_it_was_written() {
    for flush_l2 in [false, true] {
        let mut gpu = fixture::gpu();
        gpu.run_spread = 0.02;
        let mut workload = fixture::workload(&mut gpu, fixture::frame_kernel(320, 200));
        let timing = Timing { launches_per_sample: 4, flush_l2, ..Timing::fixed(TimingMode::Graph, 3, 4) };
        let sweep = sweep::run(&mut gpu, workload.as_mut(), &[32, 256], timing, None).unwrap();
        assert_eq!((gpu.graph_captures, gpu.graph_replays), (2, 2 * (1 + 4)));
        let record = SweepRecord::of(&sweep, provenance());
        let text = Format::Json.exporter().render(&record).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let flush = if flush_l2 { "before_each_batch" } else { "none" };
        assert_eq!(
            (&json["timing"]["mode"], &json["timing"]["launches_per_sample"], &json["timing"]["l2_flush"]),
            (&"graph".into(), &4.into(), &flush.into())
        );
        for row in json["rows"].as_array().unwrap() {
            assert_eq!((&row["timing_mode"], &row["launches_per_sample"]), (&"graph".into(), &4.into()));
        }
        let read = SweepRecord::parse(&text).unwrap();
        assert_eq!(read, record);
        assert_eq!(read.timing, timing);
        for format in [Format::Csv, Format::Markdown, Format::Html] {
            let exporter = format.exporter();
            assert_eq!(exporter.render(&read).unwrap(), exporter.render(&record).unwrap(), "{format:?}");
        }
        let markdown = rendered(Format::Markdown, &read);
        let flushed = if flush_l2 { ", L2 flushed before each sample" } else { "" };
        let clause = format!("graph mode, median of 4 samples after 3 warm-ups{flushed};");
        assert!(markdown.contains(&clause), "{markdown}");
        assert!(rendered(Format::Csv, &read).lines().nth(1).unwrap().contains(",graph,4,4,,"));
    }
}

#[test]
fn markdown_says_the_summary_in_the_tables_words() {
    let sweep = dressed_sweep();
    let summary = crate::results::table::Summary::of(&sweep);
    let markdown = rendered(Format::Markdown, &SweepRecord::of(&sweep, provenance()));
    let sentences = [
        Some(summary.suggestion()),
        summary.fastest(),
        summary.near_best(),
        summary.stop_sentence(),
        summary.pruned_sentence(),
        Some(format!("Occupancy: {}.", summary.model_clause())),
    ];
    for sentence in sentences {
        let sentence = sentence.expect("the dressed sweep says every sentence");
        assert!(markdown.contains(&sentence), "missing {sentence:?} in\n{markdown}");
    }
    assert!(markdown.contains("1 raced out after the first round"), "{markdown}");
    assert!(markdown.contains("at 0.040 ms") && markdown.contains("tile 4,"), "{markdown}");
}

#[test]
fn the_plot_of_a_sweep_is_the_plot_of_its_record() {
    for sweep in [sweep_of(fixture::frame_kernel(320, 200), None), dressed_sweep()] {
        let record = SweepRecord::of(&sweep, provenance());
        let chart = crate::results::plot::Chart::of(&record);
        assert_eq!(crate::results::plot::svg(&sweep).unwrap(), crate::results::plot::render(&chart).unwrap());
        let best = chart.best.as_ref().map(|(_, label)| label.as_str());
        let axes = if sweep.axes.is_empty() { "" } else { ", tile 4" };
        assert_eq!(best, Some(format!("fastest: 256 threads{axes}, 0.040 ms").as_str()));
    }
}

#[test]
fn a_record_no_sweep_would_make_still_renders() {
    // Every row without a measurement, a device beyond any GPU's limits (the explorer leaves it
    // out rather than evaluate the model at four billion bytes), a hash that is not ASCII, and a
    // row whose times make no bandwidth: every format renders, none panics.
    let mut record = record(None);
    for row in &mut record.rows[..3] {
        row.failed = Some("hung: no answer in 5 s".into());
        row.run_ms.clear();
        (row.median_ms, row.min_ms, row.max_ms, row.mad_ms) = (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
    }
    (record.rows[3].median_ms, record.rows[3].min_ms) = (0.0, 0.0);
    record.device.shared_memory_per_sm = u32::MAX;
    record.device.max_shared_memory_per_block = u32::MAX;
    record.device.reserved_shared_memory_per_block = u32::MAX;
    record.ptx_sha256 = "é".repeat(20);
    record.fastest_threads_per_block = Some(77);
    for format in [Format::Json, Format::Csv, Format::Markdown, Format::Html] {
        format.exporter().render(&record).unwrap_or_else(|error| panic!("{format:?}: {error:#}"));
    }
    let page = Format::Html.exporter().render(&record).unwrap();
    assert!(page.contains("<td>hung</td>") && !page.contains("(measured: this run's device)"));
    for row in &mut record.rows {
        row.failed = Some("the launch failed".into());
    }
    Format::Html.exporter().render(&record).unwrap();
}

/// The text of the page's embedded explorer model.
fn embedded_model(page: &str) -> &str {
    let open = "<script type=\"application/json\" id=\"occupancy-model\">";
    let start = page.find(open).expect("the model's element") + open.len();
    &page[start..start + page[start..].find("</script>").expect("its end")]
}

#[test]
fn a_hostile_gpu_name_neither_breaks_the_page_s_script_nor_reorders_its_text() {
    let mut record = record(None);
    let name = "H200 <!--<script> </script> & \u{2028}\u{2029} \u{202e}reversed\u{2066}";
    record.device.name = name.into();
    record.workload.kernel = "k\u{202e}lenrek".into();
    let page = Format::Html.exporter().render(&record).unwrap();
    // The model holds no `<`, so neither `</script>` nor `<!--` ends or changes its element,
    // and it reads back as the JSON it was, the name's controls shown.
    let model = embedded_model(&page);
    assert!(!model.contains(['<', '>', '&', '\u{2028}', '\u{2029}']), "{model}");
    let parsed: serde_json::Value = serde_json::from_str(model).unwrap();
    let measured = parsed["gpus"].as_array().unwrap().iter().find(|gpu| gpu["key"] == "measured").unwrap();
    assert_eq!(
        measured["name"],
        "H200 <!--<script> </script> & \u{2028}\u{2029} \\u{202e}reversed\\u{2066} (measured: this run's device)"
    );
    // No bidirectional control anywhere on the page: the title, headings, the plot's caption.
    assert!(!page.contains(['\u{202e}', '\u{2066}']), "a bidirectional control is on the page");
    assert!(page.contains("<title>block-size: k\\u{202e}lenrek on H200 &lt;!--&lt;script&gt;"), "{page}");
    assert_eq!(page.matches("<script").count(), 2, "one model, one script");
}

#[test]
fn a_sweep_read_back_from_its_record_renders_as_the_sweep_did() {
    // What `block-size merge` and `--split` rely on: the sweep of a file is the sweep the file
    // was written from, for every export, the table, the plot and --emit-rust.
    let mut failing = sweep_of(fixture::frame_kernel(320, 200), Some(7));
    failing.shard = Some(crate::model::shard::ShardOf {
        shard: crate::model::shard::Shard { index: 2, count: 3 },
        configurations: 12,
    });
    let sweeps = [
        sweep_of(fixture::frame_kernel(320, 200), None),
        sweep_of(fixture::frame_kernel(320, 200).dynamic_shared_memory(|_, _| 4000), None),
        {
            let mut dressed = dressed_sweep();
            for row in &mut dressed.rows {
                row.stats = crate::model::stats::RunStats::of(&row.run_ms);
            }
            dressed
        },
        failing,
    ];
    for sweep in &sweeps {
        let record = SweepRecord::of(sweep, provenance());
        let text = Format::Json.exporter().render(&record).unwrap();
        let (read, read_provenance) =
            crate::results::from_record::sweep_of(&SweepRecord::parse(&text).unwrap()).unwrap();
        assert_eq!(read_provenance, provenance());
        for format in [Format::Json, Format::Csv, Format::Markdown, Format::Html] {
            assert_eq!(
                crate::results::export::render(&read, provenance(), format).unwrap(),
                crate::results::export::render(sweep, provenance(), format).unwrap(),
                "{format:?}"
            );
        }
        assert_eq!(crate::results::table::body(&read, true), crate::results::table::body(sweep, true));
        assert_eq!(crate::results::table::stderr(&read), crate::results::table::stderr(sweep));
        assert_eq!(crate::results::plot::svg(&read).unwrap(), crate::results::plot::svg(sweep).unwrap());
        assert_eq!(
            crate::results::emit::winner(&read, &provenance()),
            crate::results::emit::winner(sweep, &provenance())
        );
    }
    // A file of before `merge` is refused in words that say what to do.
    let mut old = SweepRecord::of(&sweeps[0], provenance());
    old.occupancy_model = None;
    assert_eq!(
        crate::results::from_record::sweep_of(&old).unwrap_err(),
        "written by a block-size of before `merge` (it has no occupancy_model); measure it again to merge it"
    );
}

/// Kernel Tuner's own T4 file: written by kernel_tuner 1.5.0's `store_output_file` from a
/// results list of synthetic numbers (`t4/make_fixture.py`).
const KERNEL_TUNER_T4: &str = include_str!("t4/kernel-tuner.t4.json");

#[test]
fn kernel_tuner_s_t4_file_reads_as_its_configurations_times_and_invalid_ones() {
    let record = SweepRecord::parse(KERNEL_TUNER_T4).unwrap_or_else(|why| panic!("{why}"));
    assert_eq!(record.axes, ["items_per_thread"]);
    assert_eq!(record.device.name, "not recorded");
    let labels: Vec<String> = record.rows.iter().map(described).collect();
    assert_eq!(
        labels,
        [
            "64 threads, items_per_thread 1: 7 samples",
            "128 threads, items_per_thread 4: 7 samples",
            "block 128x2, items_per_thread 1: 7 samples",
            "256 threads, items_per_thread 4: 7 samples",
            "block 256x2, items_per_thread 4: failed: T4 invalidity `runtime`: failed at run time",
            "2048 threads, items_per_thread 1: pruned: T4 invalidity `constraints`: ruled out by the tuner's restrictions",
        ]
    );
    assert_eq!(record.rows[0].run_ms, [0.052, 0.051, 0.053, 0.050, 0.052, 0.051, 0.052]);
    assert_eq!(record.rows[0].median_ms, f64::from(0.052f32));
    let fastest = record.fastest().unwrap();
    assert_eq!(fastest.label(), "256 threads, items_per_thread 4");
    // 0.039 over 0.041 is 95.1 percent.
    assert_eq!(record.rows_near_best, 2);
    assert_eq!(
        record.lacking("OLD").unwrap(),
        "OLD is a T4 results file (schema 1.0.0): it records each configuration's samples and validity, \
         not its GPU, kernel, PTX, work, timing, occupancy, clocks, energy or provenance."
    );
}

/// Kernel Tuner's own cache of the same synthetic results (`t4/make_cache_fixture.py`: its
/// `util.process_cache`, `store_cache` and `close_cache`), closed, and as a run cut short
/// leaves it, open.
const KERNEL_TUNER_CACHE: &str = include_str!("t4/kernel-tuner.cache.json");
const KERNEL_TUNER_OPEN_CACHE: &str = include_str!("t4/kernel-tuner-open.cache.json");

#[test]
fn kernel_tuner_s_cache_reads_as_its_t4_file_does_with_its_device_and_kernel_open_or_closed() {
    assert!(
        serde_json::from_str::<serde_json::Value>(KERNEL_TUNER_OPEN_CACHE).is_err(),
        "open: no JSON as it is"
    );
    let record = SweepRecord::parse(KERNEL_TUNER_CACHE).unwrap_or_else(|why| panic!("{why}"));
    let open = SweepRecord::parse(KERNEL_TUNER_OPEN_CACHE).unwrap_or_else(|why| panic!("{why}"));
    // The same record (as JSON: a NaN is no equal of itself).
    assert_eq!(serde_json::to_string(&open).unwrap(), serde_json::to_string(&record).unwrap());
    assert_eq!(open.origin, record.origin);
    assert_eq!(
        (record.device.name.as_str(), record.workload.kernel.as_str()),
        ("NVIDIA H200", "sum_of_squares_tuned")
    );
    assert_eq!(record.axes, ["items_per_thread"]);
    let mut labels: Vec<String> = record.rows.iter().map(described).collect();
    labels.sort();
    assert_eq!(
        labels,
        [
            "128 threads, items_per_thread 4: 7 samples",
            "2048 threads, items_per_thread 1: pruned: T4 invalidity `constraints`: ruled out by the tuner's restrictions",
            "256 threads, items_per_thread 4: 7 samples",
            "64 threads, items_per_thread 1: 7 samples",
            "block 128x2, items_per_thread 1: 7 samples",
            "block 256x2, items_per_thread 4: failed: T4 invalidity `runtime`: failed at run time",
        ]
    );
    // The same rows, samples and winner as Kernel Tuner's T4 file of the same results.
    let t4 = SweepRecord::parse(KERNEL_TUNER_T4).unwrap();
    for row in &t4.rows {
        let same = record.rows.iter().find(|other| other.label() == row.label()).unwrap();
        assert_eq!((&same.run_ms, &same.failed, &same.pruned), (&row.run_ms, &row.failed, &row.pruned));
    }
    assert_eq!(record.fastest().unwrap().label(), "256 threads, items_per_thread 4");
    assert!(record.lacking("OLD").unwrap().starts_with("OLD is a Kernel Tuner cache file: it records"));
    // A bad entry is one line that names it.
    let mut document: serde_json::Value = serde_json::from_str(KERNEL_TUNER_CACHE).unwrap();
    document["cache"]["64,1,1"]["times"] = serde_json::json!([0.05, -1.0]);
    let error = SweepRecord::parse(&document.to_string()).expect_err("refused");
    assert_eq!(
        error,
        "a Kernel Tuner cache file: the cache entry \"64,1,1\" has times.runtimes[1] -1.0: a time must be a number of ms, finite and above 0"
    );
    document["cache"]["64,1,1"].as_object_mut().unwrap().remove("block_size_y");
    let error = SweepRecord::parse(&document.to_string()).expect_err("refused");
    assert_eq!(error, "a Kernel Tuner cache file: the cache entry \"64,1,1\" has no block_size_y");
}

/// A row in a few words: its configuration and samples, or why it has none.
fn described(row: &crate::results::schema::RowRecord) -> String {
    match (&row.failed, &row.pruned) {
        (Some(why), _) => format!("{}: failed: {why}", row.label()),
        (None, Some(why)) => format!("{}: pruned: {why}", row.label()),
        (None, None) => format!("{}: {} samples", row.label(), row.samples),
    }
}

#[test]
fn a_t4_file_block_size_cannot_read_is_said_in_one_line() {
    let mut document: serde_json::Value = serde_json::from_str(KERNEL_TUNER_T4).unwrap();
    let refusal = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut edited = document.clone();
        edit(&mut edited);
        let error = SweepRecord::parse(&edited.to_string()).expect_err("refused");
        assert_eq!(error.lines().count(), 1, "{error}");
        assert!(error.starts_with("a T4 results file (Kernel Tuner): "), "{error}");
        error
    };
    let no_block = refusal(&|document| {
        document["results"][1]["configuration"].as_object_mut().unwrap().remove("block_size_x");
    });
    assert!(no_block.contains("results[1] has no block_size_x in its configuration"), "{no_block}");
    let zero = refusal(&|document| document["results"][0]["configuration"]["block_size_y"] = 0.into());
    assert!(zero.contains("block_size_y 0: not a block size"), "{zero}");
    let negative = refusal(&|document| document["results"][0]["times"]["runtimes"][2] = (-1.0).into());
    assert!(negative.contains("times.runtimes[2] -1.0: a time must be"), "{negative}");
    let unknown = refusal(&|document| document["results"][0]["invalidity"] = "maybe".into());
    assert!(unknown.contains("invalidity \"maybe\", not one of T4's"), "{unknown}");
    let newer = refusal(&|document| document["schema_version"] = "2.0.0".into());
    assert!(newer.contains("T4 schema version \"2.0.0\""), "{newer}");
    let seconds = refusal(&|document| document["metadata"]["timeunit"] = "seconds".into());
    assert!(seconds.contains("metadata.timeunit"), "{seconds}");
    let missing_axis = refusal(&|document| {
        document["results"][2]["configuration"].as_object_mut().unwrap().remove("items_per_thread");
    });
    assert!(missing_axis.contains("results[2] has no items_per_thread"), "{missing_axis}");
    // Without runtimes, the `time` measurement is the one sample.
    document["results"][0]["times"]["runtimes"] = serde_json::json!([]);
    let record = SweepRecord::parse(&document.to_string()).unwrap();
    assert_eq!(record.rows[0].run_ms, [0.05157142857142857f64 as f32]);
    // The metadata file is not the results file.
    let metadata = include_str!("t4/kernel-tuner.metadata.json");
    let error = SweepRecord::parse(metadata).unwrap_err();
    assert!(error.contains("a T4 metadata file (store_metadata_file), not a results file"), "{error}");
    // Malformed JSON is the reader's one line as before.
    let error = SweepRecord::parse(&KERNEL_TUNER_T4[..100]).unwrap_err();
    assert!(
        error.starts_with("not a JSON export of a block-size sweep (--json, --format json): EOF"),
        "{error}"
    );
}

/// The configurations of `record`, each with its samples and its validity (`correct`, or the
/// failed or pruned reason).
fn configurations(record: &SweepRecord) -> Vec<(String, Vec<f32>, &'static str)> {
    record
        .rows
        .iter()
        .map(|row| {
            let validity = match (&row.failed, &row.pruned) {
                (Some(_), _) => "failed",
                (None, Some(_)) => "pruned",
                (None, None) => "correct",
            };
            (row.label(), row.run_ms.clone(), validity)
        })
        .collect()
}

#[test]
fn t4_is_one_result_per_row() {
    let text = rendered(Format::T4, &record(None));
    let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(parsed["schema_version"], "1.0.0");
    let results = parsed["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(
        results[0]["configuration"],
        serde_json::json!({"block_size_x": 32, "block_size_y": 1, "block_size_z": 1})
    );
    assert_eq!(results[0]["times"]["runtimes"].as_array().unwrap().len(), 4);
    assert_eq!(results[0]["measurements"][0]["name"], "time");
    assert_eq!(results[0]["measurements"][0]["unit"], "ms");
    assert_eq!(results[0]["invalidity"], "correct");
    insta::assert_snapshot!("export_t4", text);
}

#[test]
fn a_t4_export_reads_back_as_the_same_configurations_samples_and_validity() {
    let mut shaped = record(None);
    // A 2-D block at 256 threads.
    shaped.rows[2].block = Some(crate::model::block_shape::BlockShape { x: 32, y: 8, z: 1 });
    let mut failed = SweepRecord::of(&dressed_sweep(), provenance());
    failed.rows[1].failed = Some("the launch failed: CUDA_ERROR_LAUNCH_FAILED".into());
    failed.rows[1].run_ms.clear();
    let mut named = failed.clone();
    named.axes = vec!["items/thr".into()];
    for row in &mut named.rows {
        let value = row.axes.values().next().unwrap().to_string();
        row.axes = crate::model::axis_values::AxisValues(vec![("items/thr".into(), value)]);
    }
    for written in [record(None), shaped, failed, named] {
        let text = Format::T4.exporter().render(&written).unwrap();
        let read = SweepRecord::parse(&text).unwrap_or_else(|why| panic!("{why}"));
        assert_eq!(read.origin.kernel_tuner.as_deref(), Some("a T4 results file (schema 1.0.0)"));
        assert_eq!(read.axes, written.axes);
        assert_eq!(configurations(&read), configurations(&written));
        assert_eq!(read.device.name, "Mock H200");
        for (read, written) in read.rows.iter().zip(&written.rows) {
            assert_eq!(read.shape(), written.shape());
            assert_eq!(read.failed.is_some(), written.failed.is_some());
            if let Some(reason) = &written.pruned {
                assert_eq!(
                    read.pruned.as_deref(),
                    Some(format!("{reason} (T4 invalidity `constraints`)").as_str())
                );
            }
            if written.measured() {
                assert_eq!(read.median_ms, written.median_ms, "the median of the same samples");
            }
        }
        // What T4 does not carry is not recorded, not invented.
        assert_eq!(read.extent(), "work not recorded");
        assert!(read.provenance.is_none() && read.occupancy_model.is_none());
        assert!(
            read.rows
                .iter()
                .all(|row| row.limiter.is_none() && row.sm_clock.is_none() && row.energy.is_none())
        );
        // And the page of it is the T4 page: no explorer, no occupancy.
        let page = Format::Html.exporter().render(&read).unwrap();
        assert!(page.contains("T4 results file") && !page.contains("occupancy-model"), "{page}");
    }
    // A wrong output is `correctness`, and reads back as a failed row.
    let corrupted = record(Some(7));
    let text = Format::T4.exporter().render(&corrupted).unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
    let wrong =
        parsed["results"].as_array().unwrap().iter().filter(|result| result["invalidity"] == "correctness");
    assert_eq!(wrong.count(), 4, "{text}");
    assert_eq!(parsed["results"][0]["correctness"], 0);
    let read = SweepRecord::parse(&text).unwrap();
    assert!(
        read.rows.iter().all(|row| row.failed.as_deref().is_some_and(|why| why.contains("wrong output")))
    );
}
