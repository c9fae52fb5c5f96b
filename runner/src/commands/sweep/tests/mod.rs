use super::*;
use crate::commands::settings::TimingSettings;
use crate::measure::gpu::mock::MockGpu;
use crate::tests::fixture;

#[test]
fn per_device_names_keep_folder_and_extension() {
    assert_eq!(per_device(Path::new("out/sweep.json"), 1), PathBuf::from("out/sweep-gpu1.json"));
    assert_eq!(per_device(Path::new("plot"), 0), PathBuf::from("plot-gpu0"));
}

/// A small sweep on the mock, with one failed check where `corrupt`.
fn measured(corrupt: Option<usize>) -> Sweep {
    let mut gpu = fixture::gpu();
    gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
    let timing = TimingSettings { runs: Some(2), ..TimingSettings::default() }.validate().unwrap();
    let mut workload = fixture::workload(&mut gpu, fixture::kernel(256));
    sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, corrupt).unwrap()
}

fn provenance() -> crate::measure::record::provenance::Provenance {
    let environment = crate::measure::record::provenance::Environment {
        driver_release: None,
        driver_api_version: 13000,
        modules: Vec::new(),
        ptx_facts: None,
    };
    let limits = MockGpu::h200_like().limits;
    crate::measure::record::provenance::Provenance::new(
        &limits,
        &environment,
        "block-size",
        "2026-11-30T12:00:00Z",
    )
}

#[test]
fn the_table_streams_its_header_first_and_its_body_after() {
    let plan = Outputs::new(&Settings { stats: true, ..Settings::default() }, None);
    assert!(plan.streams);
    let result = measured(None);
    let delivery = plan.deliver(&result, "HEAD\n", provenance).unwrap();
    assert_eq!(
        delivery,
        Delivery(vec![Effect::Stdout(table::body(&result, true))]),
        "the head went out before"
    );
}

#[test]
fn an_export_to_standard_output_is_the_document_alone() {
    let plan = Outputs::new(&Settings { format: Some(Format::Json), ..Settings::default() }, None);
    assert!(!plan.streams);
    let Delivery(effects) = plan.deliver(&measured(None), "HEAD\n", provenance).unwrap();
    let [Effect::Stdout(json)] = effects.as_slice() else { panic!("{effects:?}") };
    let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(parsed["rows"].as_array().unwrap().len(), 2);
}

#[test]
fn an_output_file_takes_the_whole_document_and_failures_stay_on_stderr() {
    let plan = Outputs::new(
        &Settings { output: Some("table.txt".into()), plot: Some("sweep.svg".into()), ..Settings::default() },
        None,
    );
    assert!(!plan.streams);
    let result = measured(Some(3));
    let Delivery(effects) = plan.deliver(&result, "HEAD\n", provenance).unwrap();
    let [Effect::File(table, document), Effect::Stderr(failures), Effect::File(svg, plot)] =
        effects.as_slice()
    else {
        panic!("{effects:?}")
    };
    assert_eq!((table.as_path(), svg.as_path()), (Path::new("table.txt"), Path::new("sweep.svg")));
    assert_eq!(*document, format!("HEAD\n{}", table::body(&result, false)));
    assert_eq!(*failures, table::stderr(&result));
    assert!(failures.contains("2 check(s) failed"), "{failures}");
    assert!(plot.starts_with("<svg"));
}

#[test]
fn with_several_devices_every_file_is_named_for_its_device() {
    let options = Settings {
        format: Some(Format::Csv),
        output: Some("src/sweep.csv".into()),
        plot: Some("sweep.svg".into()),
        ..Settings::default()
    };
    let plan = Outputs::new(&options, Some(1));
    assert_eq!(plan.output, Some(PathBuf::from("src/sweep-gpu1.csv")));
    assert_eq!(plan.plot, Some(PathBuf::from("sweep-gpu1.svg")));
    assert_eq!(Outputs::new(&options, None).output, Some(PathBuf::from("src/sweep.csv")));
}

#[test]
fn an_export_that_cannot_be_written_after_the_sweep_is_kept_elsewhere_and_named() {
    let delivery = Delivery(vec![
        Effect::File(PathBuf::from("/proc/self/no-such/sweep.json"), "{\"rows\": []}".into()),
        Effect::Stderr("after\n".into()),
    ]);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let error = delivery.perform(&mut Console { out: &mut out, err: &mut err }).unwrap_err();
    assert_eq!(error.exit_status(), exit::FAILED);
    let message = error.to_string();
    assert!(message.starts_with("writing /proc/self/no-such/sweep.json: "), "{message}");
    let fallback = std::env::temp_dir().join(format!("block-size-{}-sweep.json", std::process::id()));
    assert!(message.ends_with(&format!("it went to {} instead", fallback.display())), "{message}");
    assert_eq!(std::fs::read_to_string(&fallback).unwrap(), "{\"rows\": []}");
    assert_eq!(err, b"after\n", "the effects after it still happen");
    let _ = std::fs::remove_file(fallback);
}

#[test]
fn exports_go_to_their_files_beside_the_table() {
    let settings = Settings {
        exports: vec![
            (Format::Json, "out/sweep.json".into()),
            (Format::Csv, "sweep.csv".into()),
            (Format::Markdown, "sweep.md".into()),
        ],
        ..Settings::default()
    };
    let plan = Outputs::new(&settings, None);
    assert!(plan.streams, "the table still streams to standard output");
    let result = measured(None);
    let Delivery(effects) = plan.deliver(&result, "HEAD\n", provenance).unwrap();
    let [
        Effect::Stdout(body),
        Effect::File(json, json_text),
        Effect::File(csv, csv_text),
        Effect::File(md, md_text),
    ] = effects.as_slice()
    else {
        panic!("{effects:?}")
    };
    assert_eq!(*body, table::body(&result, false));
    assert_eq!(
        (json.as_path(), csv.as_path(), md.as_path()),
        (Path::new("out/sweep.json"), Path::new("sweep.csv"), Path::new("sweep.md"))
    );
    for (format, text) in [(Format::Json, json_text), (Format::Csv, csv_text), (Format::Markdown, md_text)] {
        assert_eq!(*text, export::render(&result, provenance(), format).unwrap(), "{format:?}");
    }
    // With several devices, each file is named for its device.
    let plan = Outputs::new(&settings, Some(2));
    assert_eq!(plan.exports[0], (Format::Json, PathBuf::from("out/sweep-gpu2.json")));
}

#[test]
fn a_failed_row_is_in_every_export_and_the_report_read_back_says_so() {
    let mut gpu = fixture::gpu();
    gpu.fault_at = Some((128, crate::measure::gpu::mock::MockFault { context_lost: false }));
    let timing = TimingSettings { runs: Some(2), ..TimingSettings::default() }.validate().unwrap();
    let mut workload = fixture::workload(&mut gpu, fixture::kernel(256));
    let result = sweep::run(&mut gpu, workload.as_mut(), &[64, 128, 256], timing, None).unwrap();
    assert_eq!(result.rows.iter().filter(|row| row.failed.is_some()).count(), 1);
    assert!(table::table(&result, false).lines().any(|line| line.contains("failed")));
    let csv = export::render(&result, provenance(), Format::Csv).unwrap();
    assert!(csv.lines().nth(2).unwrap().contains("too many resources requested for launch"), "{csv}");
    let json = export::render(&result, provenance(), Format::Json).unwrap();
    let record = crate::results::schema::SweepRecord::parse(&json).unwrap();
    assert!(record.rows[1].median_ms.is_nan() && record.rows[1].failed.is_some());
    let page = crate::results::export::html::render(&record).unwrap();
    assert!(page.contains("<td>failed</td>"), "the report shows the failed row");
    assert!(plot::svg(&result).unwrap().starts_with("<svg"), "the plot leaves it out");
}

#[test]
fn the_early_open_takes_the_one_device_the_sweep_opens_here_and_none_of_several() {
    let not_supervised = Supervision::default();
    let one = |device| Settings { device, ..Settings::default() };
    assert_eq!(early_ordinal(&one(DeviceChoice::One(2)), &not_supervised), Some(2));
    assert_eq!(
        early_ordinal(&one(DeviceChoice::All), &not_supervised),
        None,
        "they open in turn or in workers"
    );
    // A worker of `--device all` measures its part's device, whatever the command line says.
    let part =
        crate::measure::supervision::supervise::Part { device: 1, shard: None, result: "part.json".into() };
    let worker = Supervision { part: Some(part), ..Supervision::default() };
    assert_eq!(early_ordinal(&one(DeviceChoice::All), &worker), Some(1));
}

#[test]
fn only_the_user_s_journal_is_synced_an_entry_and_a_supervisor_s_own_is_written_alone() {
    let user = Settings { journal: Some("run.jsonl".into()), ..Settings::default() };
    let temporary =
        Supervision { journal: Some("/tmp/block-size-journal-1-2.jsonl".into()), ..Supervision::default() };
    assert_eq!(durability(&user, &Supervision::default()), Durability::Synced, "--journal, no supervisor");
    assert_eq!(
        durability(&user, &Supervision { journal: user.journal.clone(), ..Supervision::default() }),
        Durability::Synced,
        "--journal, supervised: the worker appends to the user's file"
    );
    assert_eq!(
        durability(&Settings::default(), &temporary),
        Durability::Written,
        "the supervisor's temporary one"
    );
    // A worker of `--device all` journals to a part its supervisor copies into the user's file.
    let part =
        crate::measure::supervision::supervise::Part { device: 1, shard: None, result: "part.json".into() };
    let worker = Supervision { part: Some(part), ..temporary };
    assert_eq!(durability(&user, &worker), Durability::Written);
}

/// A driver that records which devices it was asked to open early, each early open holding a
/// [`Held`] until its drop.
struct Recording {
    driver: crate::measure::gpu::mock::MockDriver,
    asked: std::sync::Mutex<Vec<u32>>,
    released: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// What an early open of [`Recording`] holds: it says when it is let go.
struct Held(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl crate::measure::gpu::backend::DeviceSource for Recording {
    type Device = MockGpu;
    fn cuda_version(&self) -> i32 {
        self.driver.cuda_version()
    }
    fn device_count(&self) -> anyhow::Result<u32> {
        self.driver.device_count()
    }
    fn open(&self, ordinal: u32) -> Result<MockGpu, crate::measure::gpu::backend::OpenError> {
        self.driver.open(ordinal)
    }
    fn model(&self, ordinal: u32) -> anyhow::Result<(String, (u32, u32))> {
        self.driver.model(ordinal)
    }
    fn open_early(&self, ordinal: u32) -> EarlyOpen {
        self.asked.lock().unwrap().push(ordinal);
        let held = Held(self.released.clone());
        EarlyOpen::on_thread(move || Some(Box::new(held) as Box<dyn Send>))
    }
}

#[test]
fn an_early_open_holds_what_it_opened_until_its_drop_and_the_sweep_runs_meanwhile() {
    use crate::measure::gpu::backend::DeviceSource as _;
    use std::sync::atomic::Ordering;
    let driver = Recording {
        driver: crate::measure::gpu::mock::MockDriver { cuda_version: 13000, devices: vec![fixture::gpu()] },
        asked: Default::default(),
        released: Default::default(),
    };
    let options = SweepArgs::from_args(["--device", "0", "--block-sizes", "64,128", "--runs", "2"]).unwrap();
    let settings = options.settings();
    let early = open_early(&driver, &options);
    assert_eq!(*driver.asked.lock().unwrap(), [0]);
    let kernel = fixture::kernel(256);
    let (mut run, timing) = prepare::prepare(&kernel, &settings).unwrap();
    let supervision = Supervision::default();
    let measuring = Measuring { settings: &settings, timing, supervision: &supervision };
    let measured = measure(&driver, 0, &mut run, measuring, &mut |_| {}).unwrap();
    assert_eq!(measured.exit_status(), exit::SUCCESS);
    assert!(!driver.released.load(Ordering::SeqCst), "held through the sweep");
    drop(early);
    assert!(driver.released.load(Ordering::SeqCst), "the drop waits for the thread and lets go");
    // With several devices nothing opens early; the mock itself opens nothing early.
    let all = SweepArgs::from_args(["--device", "all"]).unwrap();
    drop(open_early(&driver, &all));
    assert_eq!(*driver.asked.lock().unwrap(), [0]);
    assert!(crate::measure::gpu::mock::MockDriver::h200().open_early(0).thread.is_none());
}

/// The race's tests: the fixture's kernel on the mock, every block size of `milliseconds`
/// scripted, each sample scaled by the next factor of `script`.
mod race {
    use super::*;
    use crate::measure::record::journal::Key;
    use crate::measure::sampling::timing::{NoiseStop, Stopped};
    use crate::search::strategy::Search;
    use std::time::Duration;

    /// Ten factors with median 1 whose interval (x_(2), x_(9)) is 0.99 to 1.01: a first round of
    /// ten samples takes each once, so every interval holds its row's scripted time, the
    /// rule's assumption.
    const SPREAD: [f32; 10] = [1.0, 0.99, 1.01, 0.98, 1.02, 1.0, 0.995, 1.005, 0.99, 1.01];

    fn target() -> Run<'static> {
        let kernel: &'static Kernel = Box::leak(Box::new(fixture::kernel(4096)));
        Run::new(kernel, 1 << 16)
    }

    fn gpu(milliseconds: &[(u32, f32)], script: &[f32]) -> MockGpu {
        let mut gpu = fixture::gpu();
        crate::measure::gpu::backend::Device::load(&mut gpu, &fixture::MODULE.kernel("scale")).unwrap();
        gpu.milliseconds = milliseconds.to_vec();
        gpu.sample_script = script.to_vec();
        gpu
    }

    fn plan(block_sizes: &[u32]) -> sweep::Plan {
        // Ten samples a first round; the second converges at 5 percent, or stops at 40 ms.
        let stop = NoiseStop { max_noise: 0.05, max_time_per_row: Duration::from_millis(40), max_runs: 1000 };
        sweep::Plan {
            blocks: block_sizes.iter().copied().map(crate::model::block_shape::BlockShape::linear).collect(),
            timing: Timing::launch(1, 10).until(stop),
            grid: crate::model::grid::GridPolicy::OneWave,
            corrupt: None,
            round: sweep::Round::All,
            shard: None,
            bounds: None,
            // The rules of the rungs and the run-off in full, on a few configurations.
            rungs_budget: sweep::RungsBudget::Unlimited,
        }
    }

    fn race(gpu: &mut MockGpu, plan: &sweep::Plan, journal: Option<&mut Journal>) -> Sweep {
        strategy::measure(&mut target(), gpu, plan, Search::Race, journal, &mut Vec::new()).unwrap()
    }

    /// The key of the race tests' journals.
    fn journal_key() -> Key {
        Key {
            gpu: "mock".into(),
            driver: "13.0".into(),
            ptx: Vec::new(),
            kernel: vec!["grayscale".into()],
            work: "64x64".into(),
            timing: "launch".into(),
            grid: "one-wave".into(),
        }
    }

    fn rungs(gpu: &mut MockGpu, plan: &sweep::Plan, journal: Option<&mut Journal>) -> Sweep {
        let (swept, warnings) = rungs_warning(gpu, plan, journal);
        assert_eq!(warnings, Vec::<String>::new(), "the screen's assumptions held");
        swept
    }

    /// [`rungs`], and the warnings for standard error it gave.
    fn rungs_warning(
        gpu: &mut MockGpu,
        plan: &sweep::Plan,
        journal: Option<&mut Journal>,
    ) -> (Sweep, Vec<String>) {
        let mut warnings = Vec::new();
        let swept =
            strategy::measure(&mut target(), gpu, plan, Search::Rungs, journal, &mut warnings).unwrap();
        (swept, warnings)
    }

    fn samples(sweep: &Sweep) -> Vec<usize> {
        sweep.rows.iter().map(|row| row.run_ms.len()).collect()
    }

    fn stopped(sweep: &Sweep) -> Vec<(u32, Option<Stopped>)> {
        sweep.rows.iter().map(|row| (row.threads_per_block, row.stopped)).collect()
    }

    /// [`SPREAD`] for the slower row's first round, factors 8 percent apart for the best's
    /// (MAD over median 7 percent, above the tests' 5 percent limit), then [`SPREAD`] for the
    /// tie's: in a race of three rows the best alone needs a second round.
    const WIDE_FOR_THE_SECOND_ROW: [f32; 30] = [
        1.0, 0.99, 1.01, 0.98, 1.02, 1.0, 0.995, 1.005, 0.99, 1.01, //
        1.0, 0.92, 1.08, 0.93, 1.07, 1.0, 0.94, 1.06, 0.92, 1.08, //
        1.0, 0.99, 1.01, 0.98, 1.02, 1.0, 0.995, 1.005, 0.99, 1.01,
    ];

    #[test]
    fn a_survivor_not_settled_in_the_first_round_samples_on_from_it_to_the_stop() {
        let times = [(64, 2.0), (256, 1.0), (512, 1.004)];
        let result = race(&mut gpu(&times, &WIDE_FOR_THE_SECOND_ROW), &plan(&[64, 256, 512]), None);
        assert_eq!(
            stopped(&result),
            [(64, Some(Stopped::Raced)), (256, Some(Stopped::Converged)), (512, Some(Stopped::Converged))]
        );
        // 512 converged in its first ten: done there. 256 did not: it samples on, a chunk at a
        // time, its first ten counted, and stops at the first chunk where all its samples
        // converge (18), not after ten more of its own (20).
        assert_eq!(samples(&result), [10, 18, 10]);
        let best = &result.rows[1].run_ms;
        let spread = crate::measure::sampling::timing::relative_spread;
        assert!(spread(&best[..10]) > 0.05 && spread(best) <= 0.05, "{best:?}");
        assert!(spread(&best[..15]) > 0.05, "the chunk before did not converge: {best:?}");
        assert_eq!(result.best().unwrap().threads_per_block, 256);
    }

    #[test]
    fn the_clearly_slower_stop_after_the_first_round_and_the_ties_converged_in_it_are_done() {
        // 256 is the best; 512 is 0.4 percent slower, within the 2 percent spread: a tie.
        let times = [(64, 2.0), (128, 1.3), (256, 1.0), (512, 1.004), (1024, 1.05)];
        let mut gpu = gpu(&times, &SPREAD);
        let result = race(&mut gpu, &plan(&[64, 128, 256, 512, 1024]), None);
        assert_eq!(result.failures, []);
        assert_eq!(
            stopped(&result),
            [
                (64, Some(Stopped::Raced)),
                (128, Some(Stopped::Raced)),
                (256, Some(Stopped::Converged)),
                (512, Some(Stopped::Converged)),
                (1024, Some(Stopped::Raced)),
            ]
        );
        let samples: Vec<usize> = result.rows.iter().map(|row| row.run_ms.len()).collect();
        // The ties' first ten samples converged: they stop there, as exhaustive would.
        assert_eq!(samples, [10, 10, 10, 10, 10]);
        assert_eq!(result.best().unwrap().threads_per_block, 256);
        // The table marks the raced rows and the summary says why.
        let body = table::body(&result, false);
        assert!(body.contains("10r"), "{body}");
        assert!(body.contains("3 raced out after the first round"), "{body}");
        // The exports say so too.
        assert_eq!(result.search, Search::Race);
        let json = export::render(&result, super::provenance(), Format::Json).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed["search"], "race");
        assert_eq!(parsed["rows"][0]["stopped"], "raced");
        assert_eq!(parsed["rows"][2]["stopped"], "converged");
        let csv = export::render(&result, super::provenance(), Format::Csv).unwrap();
        assert_eq!(csv.matches(",raced,").count(), 3, "{csv}");
    }

    #[test]
    fn rungs_whose_survivors_break_the_screen_s_assumption_race_the_screened_rows_again() {
        // The true best, 256, draws a first sample 30 percent slow and 512, 1 percent slower, one
        // 25 percent slow: the screen drops 256 after one sample (1.3 against 1024's 1.03 x
        // 1.25). Measured on, 512's first sample is 1.25 x its median, above the 1.1875 the
        // screen assumes: the rows it dropped race on without it, and 256 wins.
        let times = [(64, 2.0), (128, 1.5), (256, 1.0), (512, 1.01), (1024, 1.03)];
        let sizes = [64, 128, 256, 512, 1024];
        let mut script = vec![1.0, 1.0, 1.3, 1.25, 1.0];
        script.extend(SPREAD.iter().cycle().take(3000));
        let (result, warnings) = rungs_warning(&mut gpu(&times, &script), &plan(&sizes), None);
        assert_eq!(result.failures, []);
        assert_eq!(result.best().unwrap().threads_per_block, 256);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("Warning: the rungs' screen assumes no sample below 0.95 x"));
        assert!(
            warnings[0].contains("; 512 threads broke that (its first sample was 1.2"),
            "{}",
            warnings[0]
        );
        assert!(warnings[0].contains("so the 3 row(s) it dropped after one or two samples raced on"));
        // 64 and 128 raced out by the interval rule at six samples; 256 measured to the end.
        let counts = samples(&result);
        assert_eq!(&counts[..2], [6, 6]);
        assert!(counts[2] >= 10, "{counts:?}");
        assert_eq!(result.rows[0].stopped, Some(Stopped::Raced));
        // Journaled, its rungs and the audit's resume to the same rows, measuring nothing again.
        let path = std::env::temp_dir().join(format!("rungs-audit-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let (mut journal, _, _) =
            Journal::open(Some((&path, Durability::Synced)), &[], journal_key()).unwrap();
        let (first, _) = rungs_warning(&mut gpu(&times, &script), &plan(&sizes), Some(&mut journal));
        assert_eq!(first.rows, result.rows);
        let (mut resumed, _, _) = Journal::open(None, &[&path], journal_key()).unwrap();
        let mut again = gpu(&times, &script);
        let (second, warnings) = rungs_warning(&mut again, &plan(&sizes), Some(&mut resumed));
        assert!(again.launches.is_empty(), "{:?}", again.launches);
        assert_eq!((second.rows, warnings.len()), (result.rows.clone(), 1));
        let _ = std::fs::remove_file(&path);
        // The same sweep without the slow first samples: the screen's drops stand, no warning.
        let (plain, warnings) = rungs_warning(&mut gpu(&times, &SPREAD), &plan(&sizes), None);
        assert_eq!((warnings.len(), samples(&plain)[0]), (0, 1));
        assert_eq!(plain.best().unwrap().threads_per_block, 256);
    }

    #[test]
    fn rungs_drop_the_clearly_slower_after_one_sample_the_nearer_after_six_and_stop_the_rest_at_ten() {
        let times = [(64, 2.0), (128, 1.3), (256, 1.0), (512, 1.004), (1024, 1.042)];
        let sizes = [64, 128, 256, 512, 1024];
        let result = rungs(&mut gpu(&times, &SPREAD), &plan(&sizes), None);
        assert_eq!(result.failures, []);
        assert_eq!(result.search, Search::Rungs);
        assert_eq!(
            stopped(&result),
            [
                (64, Some(Stopped::Raced)),
                (128, Some(Stopped::Raced)),
                (256, Some(Stopped::Converged)),
                (512, Some(Stopped::Converged)),
                (1024, Some(Stopped::Raced)),
            ]
        );
        // 64 and 128, 30 percent slower and more, stop after one sample; 1024, 4.2 percent
        // slower, within the screen's 10 percent after two, after six, where its interval lies
        // above the best's; the ties stop at ten (`--min-runs`), their samples converged; then
        // the two, tied within their noise, run off: twenty samples more each, in turn.
        assert_eq!(samples(&result), [1, 1, 30, 30, 6]);
        assert_eq!(result.best().unwrap().threads_per_block, 256);
        // Its 23 later rungs ran on the buffers of the first: no more allocated than one round's.
        let buffers = |gpu: &MockGpu| {
            (0..)
                .take_while(|&id| gpu.memory.bytes(crate::measure::gpu::backend::BufferId(id)).is_ok())
                .count()
        };
        let mut in_rungs = gpu(&times, &SPREAD);
        rungs(&mut in_rungs, &plan(&sizes), None);
        let mut at_once = gpu(&times, &SPREAD);
        strategy::measure(
            &mut target(),
            &mut at_once,
            &plan(&sizes),
            Search::Exhaustive,
            None,
            &mut Vec::new(),
        )
        .unwrap();
        assert!(buffers(&at_once) > 0);
        assert_eq!(buffers(&in_rungs), buffers(&at_once));
        // A race over the same sweep spends ten on each: the losers are out after them, the
        // ties converged in them.
        let raced = race(&mut gpu(&times, &SPREAD), &plan(&sizes), None);
        assert_eq!(samples(&raced), [10, 10, 10, 10, 10]);
        let json = export::render(&result, super::provenance(), Format::Json).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (parsed["search"].as_str(), parsed["rows"][0]["stopped"].as_str()),
            (Some("rungs"), Some("raced"))
        );
    }

    #[test]
    fn rungs_whose_rows_tie_stop_at_what_exhaustive_spends_and_say_so() {
        let times = [(64, 2.0), (128, 1.3), (256, 1.0), (512, 1.004), (1024, 1.042)];
        let sizes = [64, 128, 256, 512, 1024];
        let plan = sweep::Plan { rungs_budget: sweep::RungsBudget::Exhaustive, ..plan(&sizes) };
        // Each search's sweep, its warnings, and the time its samples took on the mock's clock.
        let by = |search: Search| {
            let mut gpu = gpu(&times, &SPREAD);
            let mut warnings = Vec::new();
            let swept =
                strategy::measure(&mut target(), &mut gpu, &plan, search, None, &mut warnings).unwrap();
            (swept, warnings, gpu.clock)
        };
        let (exhaustive, _, exhaustive_time) = by(Search::Exhaustive);
        let (swept, warnings, rungs_time) = by(Search::Rungs);
        assert!(rungs_time <= exhaustive_time, "{rungs_time:?} {exhaustive_time:?}");
        // The same drops; the run-off cut where it would spend past exhaustive's least.
        let held = samples(&swept);
        assert_eq!((held[0], held[1], held[4]), (1, 1, 6), "{held:?}");
        assert!(held[2] < 30 && held[3] < 30, "{held:?}");
        assert_eq!(swept.best().unwrap().threads_per_block, exhaustive.best().unwrap().threads_per_block);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(
                "Note: the rungs stopped at what measuring every configuration costs at the least ("
            ),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn a_lead_that_drift_gave_is_undone_by_the_run_off_measuring_the_tied_in_turn() {
        // 256 is 0.6 percent faster than 512, but while the rungs measure each apart, its
        // samples are 1 or 1.02 and 512's 0.98 or 1 (the GPU's state when each was measured):
        // after ten samples each, 512 leads, the two tied within their noise. The run-off
        // measures them in turn, as they are: twenty samples each at their own times.
        // The order of the samples: one each, one more each, four each, four each (to ten).
        let positions = [[0, 2, 4, 5, 6, 7, 12, 13, 14, 15], [1, 3, 8, 9, 10, 11, 16, 17, 18, 19]];
        let factors = [[1.0, 1.02], [0.98, 1.0]];
        let mut script = vec![1.0f32; 60];
        for (row, positions) in positions.iter().enumerate() {
            for (k, &position) in positions.iter().enumerate() {
                script[position] = factors[row][k % 2];
            }
        }
        let times = [(256, 1.0), (512, 1.006)];
        let result = rungs(&mut gpu(&times, &script), &plan(&[256, 512]), None);
        let first_ten = |row: &sweep::Row| crate::model::stats::RunStats::of(&row.run_ms[..10]).median;
        assert!(first_ten(&result.rows[1]) < first_ten(&result.rows[0]), "{:?}", result.rows);
        assert_eq!(samples(&result), [30, 30]);
        assert_eq!(stopped(&result), [(256, Some(Stopped::Converged)), (512, Some(Stopped::Converged))]);
        assert_eq!(result.best().unwrap().threads_per_block, 256);
        // The run-off's samples are each row's own time: it took them in turn.
        assert!(result.rows[0].run_ms[10..].iter().all(|&ms| ms == 1.0), "{:?}", result.rows[0].run_ms);
        assert!(result.rows[1].run_ms[10..].iter().all(|&ms| ms == 1.006), "{:?}", result.rows[1].run_ms);
    }

    #[test]
    fn rungs_with_a_minimum_below_six_stop_their_survivors_at_that_minimum() {
        // 1, 2, then 4 (--min-runs): the survivor converges there.
        let times = [(64, 2.0), (256, 1.0)];
        let plan = sweep::Plan { timing: Timing { runs: 4, ..plan(&[64, 256]).timing }, ..plan(&[64, 256]) };
        let result = rungs(&mut gpu(&times, &SPREAD), &plan, None);
        assert_eq!(samples(&result), [1, 4]);
        assert_eq!(stopped(&result), [(64, Some(Stopped::Raced)), (256, Some(Stopped::Converged))]);
    }

    #[test]
    fn a_survivor_whose_spread_stays_above_the_limit_stops_in_rungs_once_its_median_is_known() {
        // Two configurations, the first clearly slower; samples drawn evenly from +-3 percent:
        // MAD over median about 1.5 percent, above a 0.5 percent limit however many.
        let mut state = 5;
        let script: Vec<f32> = (0..997).map(|_| (0.97 + 0.06 * next(&mut state)) as f32).collect();
        let stop =
            NoiseStop { max_noise: 0.005, max_time_per_row: Duration::from_secs(3600), max_runs: 5000 };
        let plan = sweep::Plan { timing: Timing::launch(1, 10).until(stop), ..plan(&[64, 256]) };
        let times = [(64, 2.0), (256, 1.0)];
        let in_rungs = rungs(&mut gpu(&times, &script), &plan, None);
        assert_eq!(stopped(&in_rungs), [(64, Some(Stopped::Raced)), (256, Some(Stopped::MedianKnown))]);
        // Its 95 percent interval of the median within 0.5 percent of it, and no further rung.
        let best = &in_rungs.rows[1];
        let (lower, upper) = crate::search::race::median_interval(&best.run_ms).unwrap();
        assert!((upper - lower) / 2.0 <= 0.005 * best.stats.median, "{lower} {upper}");
        let fewer = crate::search::race::median_interval(&best.run_ms[..best.run_ms.len() / 2]).unwrap();
        assert!((fewer.1 - fewer.0) / 2.0 > 0.005 * best.stats.median, "{fewer:?}");
        // The noise-driven stop alone takes samples to the most a row takes.
        let exhaustive = strategy::measure(
            &mut target(),
            &mut gpu(&times, &script),
            &plan,
            Search::Exhaustive,
            None,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(exhaustive.rows[1].stopped, Some(Stopped::MaxRuns));
        assert!(best.run_ms.len() * 10 < exhaustive.rows[1].run_ms.len(), "{}", best.run_ms.len());
        // The summary says how the row stopped; the JSON names it.
        let body = table::body(&in_rungs, false);
        assert!(body.contains("1 had their median known within 0.5%"), "{body}");
        let json = export::render(&in_rungs, super::provenance(), Format::Json).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(parsed["rows"][1]["stopped"], "median_known");
        assert_eq!(parsed["timing"]["stop"]["max_noise"], 0.005);
    }

    #[test]
    fn every_rung_is_journaled_apart_and_a_resume_measures_nothing_again() {
        let path = std::env::temp_dir().join(format!("rungs-journal-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let key = journal_key();
        let times = [(64, 2.0), (256, 1.0), (512, 1.004), (1024, 1.02)];
        let sizes = [64, 256, 512, 1024];
        let (mut journal, _, _) = Journal::open(Some((&path, Durability::Synced)), &[], key.clone()).unwrap();
        let first = rungs(
            &mut gpu(&times, &SPREAD),
            &sweep::Plan { corrupt: Some(7), ..plan(&sizes) },
            Some(&mut journal),
        );
        // Every configuration fails its check once, however many rungs it ran.
        assert_eq!(first.failures.len(), 4, "{:?}", first.failures);
        let lines = std::fs::read_to_string(&path).unwrap();
        // Four first rungs (one sample), then three of each later rung (to 2, 6 and 10 samples;
        // 64 dropped after one), then the three, tied, run off: twenty rungs of one sample each.
        assert_eq!(lines.lines().count(), 4 + 3 * 3 + 20 * 3, "{lines}");
        assert_eq!(lines.matches("\"first_round\":true").count(), 4, "{lines}");
        assert_eq!(lines.matches("\"rung\":1}").count(), 3, "{lines}");
        assert_eq!(lines.matches("\"rung\":23}").count(), 3, "{lines}");
        assert_eq!(lines.matches("\"rung\":24}").count(), 0, "{lines}");
        let (mut resumed, _, _) = Journal::open(None, &[&path], key).unwrap();
        let mut again = gpu(&times, &SPREAD);
        let second = rungs(&mut again, &sweep::Plan { corrupt: Some(7), ..plan(&sizes) }, Some(&mut resumed));
        assert!(again.launches.is_empty(), "{:?}", again.launches);
        assert_eq!(second.rows, first.rows);
        let _ = std::fs::remove_file(&path);
    }

    /// A small pseudo-random generator, so that the property below needs no crate.
    fn next(state: &mut u64) -> f64 {
        *state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn under_its_assumptions_the_true_best_is_never_dropped() {
        let sizes = crate::model::occupancy::DEFAULT_BLOCK_SIZES;
        let mut state = 17;
        for trial in 0..40 {
            // Times 1 to 1.1 apart, many within a percent of each other, and a symmetric spread
            // of up to 5 percent about each (median 1, so every interval holds its time).
            let times: Vec<(u32, f32)> =
                sizes.iter().map(|&size| (size, (1.0 + 0.1 * next(&mut state)) as f32)).collect();
            let width = (0.05 * next(&mut state)) as f32;
            let script: Vec<f32> = [0.0, -1.0, 1.0, -0.5, 0.5, 0.0, -0.25, 0.25, -0.75, 0.75]
                .iter()
                .map(|k| 1.0 + k * width)
                .collect();
            for search in [Search::Race, Search::Rungs] {
                let mut gpu = gpu(&times, &script);
                let result =
                    strategy::measure(&mut target(), &mut gpu, &plan(&sizes), search, None, &mut Vec::new())
                        .unwrap();
                let best = times.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
                let row = result.rows.iter().find(|row| row.threads_per_block == best).unwrap();
                assert_ne!(
                    row.stopped,
                    Some(Stopped::Raced),
                    "{search} trial {trial}: the best, {best}, was dropped: {times:?}"
                );
                // And every configuration within the spread of the best raced on with it: in a
                // race always; in rungs where the spread is at most 3 percent (beyond, its
                // screen guarantees the best alone: search::race).
                let fastest = times.iter().map(|&(_, ms)| ms).fold(f32::INFINITY, f32::min);
                for (size, ms) in &times {
                    if *ms <= fastest * (1.0 + width) && (search == Search::Race || width <= 0.03) {
                        let row = result.rows.iter().find(|row| row.threads_per_block == *size).unwrap();
                        assert_ne!(
                            row.stopped,
                            Some(Stopped::Raced),
                            "{search} trial {trial}: {size} at {ms} ms tied"
                        );
                    }
                }
            }
        }
    }

    /// A run of `kernel` for the race tests.
    fn target_of(kernel: Kernel) -> Run<'static> {
        Run::new(Box::leak(Box::new(kernel)), 1 << 16)
    }

    /// Each search's sweep of `kernel` on `gpu` as `plan` says.
    fn by(search: Search, kernel: Kernel, gpu: &mut MockGpu, plan: &sweep::Plan) -> Sweep {
        strategy::measure(&mut target_of(kernel), gpu, plan, search, None, &mut Vec::new()).unwrap()
    }

    #[test]
    fn each_configuration_is_checked_once_however_many_rounds_sample_it() {
        let times = [(64, 2.0), (256, 1.0), (512, 1.004), (1024, 1.02)];
        let sizes = [64, 256, 512, 1024];
        for search in [Search::Exhaustive, Search::Race, Search::Rungs] {
            // A CPU reference: each configuration's output copied back once.
            let mut host = gpu(&times, &SPREAD);
            let swept = by(search, fixture::kernel(4096), &mut host, &plan(&sizes));
            // Sampled in one round or in many: 64 threads is dropped after one sample in rungs.
            assert!(
                samples(&swept)[1..].iter().all(|&count| count >= 10),
                "{search:?}: {:?}",
                samples(&swept)
            );
            assert_eq!((host.downloads, host.device_checks.len()), (4, 0), "{search:?}");
            // Expected values: each configuration compared on the GPU once, nothing copied back.
            let mut device = gpu(&times, &SPREAD);
            let swept = by(search, fixture::expected_kernel(4096), &mut device, &plan(&sizes));
            assert_eq!(swept.failures, [], "{search:?}");
            assert_eq!((device.downloads, device.device_checks), (0, vec![4096; 4]), "{search:?}");
        }
    }

    #[test]
    fn a_wrong_output_is_caught_on_the_gpu_at_its_first_bad_index_and_worded_on_the_host() {
        let times = [(64, 2.0), (256, 1.0)];
        let expected = |block: u32| sweep::CheckFailure::WrongOutput {
            block: crate::model::block_shape::BlockShape::linear(block),
            mismatch: crate::model::mismatch::Mismatch {
                index: Some(7),
                description: "value 7 is NaN, the CPU reference says 1.75".into(),
            },
        };
        for (search, compares_on_device) in
            [(Search::Exhaustive, true), (Search::Rungs, true), (Search::Rungs, false)]
        {
            let mut gpu = gpu(&times, &SPREAD);
            gpu.compares_on_device = compares_on_device;
            let plan = sweep::Plan { corrupt: Some(7), ..plan(&[64, 256]) };
            let swept = by(search, fixture::expected_kernel(4096), &mut gpu, &plan);
            assert_eq!(swept.failures, [expected(64), expected(256)], "{search:?}, {compares_on_device}");
            // On the GPU: found there, copied back to be worded; else copied back to be checked.
            assert_eq!(gpu.downloads, 2);
            assert_eq!(gpu.device_checks.len(), if compares_on_device { 2 } else { 0 });
        }
    }

    #[test]
    fn the_first_row_is_kept_on_the_gpu_and_a_later_row_that_differs_is_named() {
        /// `scale`, one value wrong at 256 threads a block.
        fn wrong_at_256(
            launch: &crate::measure::gpu::mock::Launch,
            memory: &mut dyn crate::measure::gpu::mock::EmulatedMemory,
            fault: Option<usize>,
        ) -> anyhow::Result<()> {
            fixture::emulate(launch, memory, fault.or((launch.block.x == 256).then_some(9)))
        }
        let kernel = || {
            let mut kernel = fixture::kernel(4096);
            kernel.checks = vec![crate::kernel::Check::same_as_first(crate::kernel::Agreement::BitForBit)];
            kernel
        };
        for compares_on_device in [true, false] {
            let mut gpu = gpu(&[(64, 2.0), (256, 1.0), (512, 1.5)], &SPREAD);
            gpu.compares_on_device = compares_on_device;
            gpu.emulate(fixture::MODULE.kernel("scale"), wrong_at_256);
            let swept = by(Search::Rungs, kernel(), &mut gpu, &plan(&[64, 256, 512]));
            let [sweep::CheckFailure::WrongOutput { block, mismatch }] = swept.failures.as_slice() else {
                panic!("{:?}", swept.failures)
            };
            assert_eq!(block.threads(), 256);
            assert_eq!(mismatch.index, Some(9));
            assert!(
                mismatch.description.starts_with(
                    "value 9 is -1 (0xbf800000), not bit for bit the first row's (64 threads per block) 2.25"
                ),
                "{mismatch}"
            );
            if compares_on_device {
                // The first row copied on the device, the two others compared there; the wrong
                // one and the first row's copy read back to word it.
                assert_eq!((gpu.device_checks.len(), gpu.downloads), (2, 2));
            }
        }
    }

    #[test]
    fn every_row_is_checked_raced_or_not_and_each_failure_counted_once() {
        let times = [(64, 2.0), (256, 1.0)];
        let mut gpu = gpu(&times, &SPREAD);
        let result = race(&mut gpu, &sweep::Plan { corrupt: Some(7), ..plan(&[64, 256]) }, None);
        let failing: Vec<u32> = result
            .failures
            .iter()
            .map(|failure| match failure {
                sweep::CheckFailure::WrongOutput { block, .. } => block.threads(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(failing, [64, 256]);
        assert_eq!(stopped(&result), [(64, Some(Stopped::Raced)), (256, Some(Stopped::Converged))]);
    }

    #[test]
    fn a_failed_configuration_is_failed_not_raced() {
        let times = [(64, 2.0), (128, 1.0), (256, 1.0)];
        let mut gpu = gpu(&times, &SPREAD);
        gpu.fault_at = Some((128, crate::measure::gpu::mock::MockFault { context_lost: false }));
        let result = race(&mut gpu, &plan(&[64, 128, 256]), None);
        assert!(result.rows[1].failed.is_some());
        assert_eq!(result.rows[1].stopped, None);
        assert_eq!(stopped(&result)[0], (64, Some(Stopped::Raced)));
        assert_eq!(result.best().unwrap().threads_per_block, 256);
    }

    #[test]
    fn a_resumed_race_measures_nothing_again_and_finds_the_same_rows() {
        let path = std::env::temp_dir().join(format!("race-journal-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let key = journal_key();
        let times = [(64, 2.0), (256, 1.0), (512, 1.004)];
        let sizes = [64, 256, 512];
        let (mut journal, _, _) = Journal::open(Some((&path, Durability::Synced)), &[], key.clone()).unwrap();
        let script = &WIDE_FOR_THE_SECOND_ROW;
        let first = race(&mut gpu(&times, script), &plan(&sizes), Some(&mut journal));
        let lines = std::fs::read_to_string(&path).unwrap();
        // Three first rounds and one second one: the best's, its eight samples more.
        assert_eq!(lines.lines().count(), 4, "{lines}");
        assert_eq!(lines.matches("\"first_round\":true").count(), 3, "{lines}");
        let (mut resumed, note, _) = Journal::open(None, &[&path], key).unwrap();
        assert!(note.unwrap().contains("4 configuration(s)"));
        let mut again = gpu(&times, script);
        let second = race(&mut again, &plan(&sizes), Some(&mut resumed));
        assert!(again.launches.is_empty(), "{:?}", again.launches);
        assert_eq!(second.rows, first.rows);
        let _ = std::fs::remove_file(&path);
    }
}

#[test]
fn the_winner_is_written_as_rust_that_compiles_and_as_json_beside_it() {
    let plan =
        Outputs::new(&Settings { emit_rust: Some("out/winner.rs".into()), ..Settings::default() }, None);
    let mut result = measured(None);
    result.axes = vec!["items/thr".into()];
    for (row, value) in result.rows.iter_mut().zip(["1", "4"]) {
        row.axes = crate::model::axis_values::AxisValues(vec![("items/thr".into(), value.into())]);
    }
    let Delivery(effects) = plan.deliver(&result, "HEAD\n", provenance).unwrap();
    let files: Vec<(&Path, &String)> = effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::File(path, text) => Some((path.as_path(), text)),
            _ => None,
        })
        .collect();
    let [(rust_path, rust), (json_path, json)] = files.as_slice() else { panic!("{effects:?}") };
    assert_eq!((*rust_path, *json_path), (Path::new("out/winner.rs"), Path::new("out/winner.rs.json")));
    // 128 threads at 0.25 ms is the winner, with items/thr 4.
    assert!(rust.contains("pub const BLOCK_SIZE: u32 = 128;"), "{rust}");
    assert!(rust.contains("pub const ITEMS_THR: u32 = 4;"), "{rust}");
    assert!(rust.contains("(\"Mock H200\", (9, 0)) => Some(mock_h200_sm90::CONFIG)"), "{rust}");
    assert!(rust.starts_with("// Written by block-size"), "{rust}");
    let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
    let winner = &parsed["winners"][0];
    assert_eq!(winner["block_size"], 128);
    assert_eq!(winner["axes"], serde_json::json!({"items/thr": "4"}));
    assert_eq!(winner["gpu"], "Mock H200");
    assert_eq!(parsed["axes"], serde_json::json!(["items/thr"]));

    // A crate that includes it and launches with it compiles.
    let dir = std::env::temp_dir().join(format!("block-size-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("winner.rs"), rust).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "#![deny(warnings)]\n\
         mod winner { include!(\"winner.rs\"); }\n\
         /// The block size and items per thread to launch with on this GPU.\n\
         pub fn launch_shape(name: &str, cc: (u32, u32)) -> (u32, u32) {\n    \
         let config = winner::config_for(name, cc).unwrap_or(winner::MEASURED);\n    \
         assert_eq!(config.block_size, winner::BLOCK_SIZE);\n    \
         (config.block_size, config.items_thr * winner::ITEMS_THR / winner::ITEMS_THR)\n}\n",
    )
    .unwrap();
    let output = std::process::Command::new("rustc")
        .args(["--edition", "2021", "--crate-type", "lib", "--crate-name", "emitted", "lib.rs", "--out-dir"])
        .arg(&dir)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_winner_is_written_from_a_sweep_whose_checks_failed() {
    let plan = Outputs::new(&Settings { emit_rust: Some("winner.rs".into()), ..Settings::default() }, None);
    let Delivery(effects) = plan.deliver(&measured(Some(3)), "HEAD\n", provenance).unwrap();
    assert!(!effects.iter().any(|effect| matches!(effect, Effect::File(..))), "{effects:?}");
    assert!(
        effects.contains(&Effect::Note("--emit-rust: winner.rs not written: a check failed\n".into())),
        "{effects:?}"
    );
}

mod shapes;
mod user;
