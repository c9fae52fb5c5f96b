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
