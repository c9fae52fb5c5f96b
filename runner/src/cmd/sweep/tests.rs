use super::*;
use crate::mock::MockGpu;
use crate::settings::TimingSettings;
use crate::workload::grayscale;

#[test]
fn per_device_names_keep_folder_and_extension() {
    assert_eq!(per_device(Path::new("out/sweep.json"), 1), PathBuf::from("out/sweep-gpu1.json"));
    assert_eq!(per_device(Path::new("plot"), 0), PathBuf::from("plot-gpu0"));
}

/// A small sweep on the mock, with one failed check where `corrupt`.
fn measured(corrupt: Option<usize>) -> Sweep {
    let mut gpu = MockGpu::h200_with(&[grayscale::KERNEL.rust_kernel()]);
    gpu.milliseconds = vec![(64, 0.5), (128, 0.25)];
    let params = crate::workload::Params::frame(16, 16);
    let timing = TimingSettings { runs: Some(2), ..TimingSettings::default() }.validate().unwrap();
    let mut workload = (grayscale::KERNEL.create)(&params).unwrap();
    workload.upload(&mut gpu).unwrap();
    sweep::run(&mut gpu, workload.as_mut(), &[64, 128], timing, corrupt).unwrap()
}

fn provenance() -> crate::provenance::Provenance {
    let environment = crate::provenance::Environment {
        driver_release: None,
        driver_api_version: 13000,
        modules: Vec::new(),
    };
    let limits = MockGpu::h200_like().limits;
    crate::provenance::Provenance::new(&limits, &environment, "block-size", "2026-11-30T12:00:00Z")
}

#[test]
fn the_table_streams_its_header_first_and_its_body_after() {
    let plan = Plan::new(&Settings { stats: true, ..Settings::default() }, None);
    assert!(plan.streams);
    let result = measured(None);
    let delivery = plan.deliver(&result, "HEAD\n", provenance).unwrap();
    assert_eq!(
        delivery,
        Delivery(vec![Effect::Stdout(report::body(&result, true))]),
        "the head went out before"
    );
}

#[test]
fn an_export_to_standard_output_is_the_document_alone() {
    let plan = Plan::new(&Settings { format: Some(Format::Json), ..Settings::default() }, None);
    assert!(!plan.streams);
    let Delivery(effects) = plan.deliver(&measured(None), "HEAD\n", provenance).unwrap();
    let [Effect::Stdout(json)] = effects.as_slice() else { panic!("{effects:?}") };
    let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(parsed["rows"].as_array().unwrap().len(), 2);
}

#[test]
fn an_output_file_takes_the_whole_document_and_failures_stay_on_stderr() {
    let plan = Plan::new(
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
    assert_eq!(*document, format!("HEAD\n{}", report::body(&result, false)));
    assert_eq!(*failures, report::stderr(&result));
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
    let plan = Plan::new(&options, Some(1));
    assert_eq!(plan.output, Some(PathBuf::from("src/sweep-gpu1.csv")));
    assert_eq!(plan.plot, Some(PathBuf::from("sweep-gpu1.svg")));
    assert_eq!(Plan::new(&options, None).output, Some(PathBuf::from("src/sweep.csv")));
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
        json: Some("out/sweep.json".into()),
        csv: Some("sweep.csv".into()),
        markdown: Some("sweep.md".into()),
        ..Settings::default()
    };
    let plan = Plan::new(&settings, None);
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
    assert_eq!(*body, report::body(&result, false));
    assert_eq!(
        (json.as_path(), csv.as_path(), md.as_path()),
        (Path::new("out/sweep.json"), Path::new("sweep.csv"), Path::new("sweep.md"))
    );
    for (format, text) in [(Format::Json, json_text), (Format::Csv, csv_text), (Format::Markdown, md_text)] {
        assert_eq!(*text, export::render(&result, provenance(), format).unwrap(), "{format:?}");
    }
    // With several devices, each file is named for its device.
    let plan = Plan::new(&settings, Some(2));
    assert_eq!(plan.exports[0], (Format::Json, PathBuf::from("out/sweep-gpu2.json")));
}

#[test]
fn a_failed_row_is_in_every_export_and_the_report_read_back_says_so() {
    let mut gpu = MockGpu::h200_with(&[grayscale::KERNEL.rust_kernel()]);
    gpu.fault_at = Some((128, crate::mock::MockFault { context_lost: false }));
    let params = crate::workload::Params::frame(16, 16);
    let timing = TimingSettings { runs: Some(2), ..TimingSettings::default() }.validate().unwrap();
    let mut workload = (grayscale::KERNEL.create)(&params).unwrap();
    workload.upload(&mut gpu).unwrap();
    let result = sweep::run(&mut gpu, workload.as_mut(), &[64, 128, 256], timing, None).unwrap();
    assert_eq!(result.rows.iter().filter(|row| row.failed.is_some()).count(), 1);
    assert!(report::table(&result, false).lines().any(|line| line.contains("failed")));
    let csv = export::render(&result, provenance(), Format::Csv).unwrap();
    assert!(csv.lines().nth(2).unwrap().contains("too many resources requested for launch"), "{csv}");
    let json = export::render(&result, provenance(), Format::Json).unwrap();
    let document = crate::document::Document::parse(&json).unwrap();
    assert!(document.rows[1].median_ms.is_nan() && document.rows[1].failed.is_some());
    let page = crate::export::html::render(&document).unwrap();
    assert!(page.contains("<td>failed</td>"), "the report shows the failed row");
    assert!(plot::svg(&result).unwrap().starts_with("<svg"), "the plot leaves it out");
}
