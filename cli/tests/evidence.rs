//! Every sweep's JSON export committed under evidence/, of every schema version this tool has
//! written, through the real `block-size` binary: `diff F F` and `report F --html` exit 0, and
//! the page of a version 1 file says what that file did not record.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The sweep exports known when this test was written: the walk must find at least these, so
/// that it cannot pass by finding nothing.
const KNOWN: [&str; 8] = [
    "2026-11-30-h200-final/sweep-4k-flush-l2.json",
    "2026-11-30-h200-final/sweep-4k.json",
    "2026-11-30-h200-stats/sweep-4k.json",
    "2026-11-30-h200-variants/sweep-4k.json",
    "2026-12-01-h200-report/contended.json",
    "2026-12-01-h200-report/launch.json",
    "2026-12-01-h200-report/twin-a.json",
    "2026-12-01-h200-report/twin-b.json",
];

fn evidence() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../evidence")
}

/// Every `*.json` below `folder`, sorted.
fn json_files(folder: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(json_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "json") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Whether `path` is a sweep's export by its shape (an object with a device and rows), whatever
/// its version; whether it reads is what the test checks.
fn is_sweep_export(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    ["device", "rows", "pixels"].iter().all(|key| value.get(key).is_some())
}

fn block_size() -> Command {
    let mut command = Command::cargo_bin("block-size").unwrap();
    command.env_remove("LD_LIBRARY_PATH");
    command
}

/// The exit status and standard error of `block-size ARGS`, and its standard output.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = block_size().args(args).output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code(), text(output.stdout), text(output.stderr))
}

#[test]
fn every_sweep_export_in_evidence_diffs_against_itself_and_gets_a_page() {
    let root = evidence();
    let exports: Vec<PathBuf> = json_files(&root).into_iter().filter(|path| is_sweep_export(path)).collect();
    let found: Vec<String> = exports
        .iter()
        .map(|path| path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    for known in KNOWN {
        assert!(found.iter().any(|path| path == known), "{known} not found among {found:?}");
    }
    let pages = std::env::temp_dir().join(format!("block-size-evidence-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&pages);
    std::fs::create_dir_all(&pages).unwrap();
    // One thread a file: the bootstrap of a file of 6026 samples a row takes its while in a
    // debug build, and the others run beside it.
    std::thread::scope(|scope| {
        for (index, path) in exports.iter().enumerate() {
            let page = pages.join(format!("{index}.html"));
            scope.spawn(move || {
                let file = path.to_str().unwrap();
                let (code, stdout, stderr) = run(&["diff", file, file]);
                let value: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
                if value["failures"].as_array().is_some_and(|failures| !failures.is_empty()) {
                    // A run whose checks failed (a fault on the GPU, kept as evidence) is no
                    // measurement to compare: one line, exit 2.
                    assert_eq!(code, Some(2), "diff {file} {file}: {stderr}");
                    assert!(stderr.contains("check(s) failed in that run"), "{file}: {stderr}");
                } else {
                    assert_eq!(code, Some(0), "diff {file} {file}: {stderr}");
                    assert!(stdout.contains(" SAME, 0 FASTER, 0 SLOWER, "), "{file}: {stdout}");
                }
                let (code, _, stderr) = run(&["report", file, "--html", page.to_str().unwrap()]);
                assert_eq!((code, stderr.as_str()), (Some(0), ""), "report {file}");
                assert!(std::fs::read_to_string(&page).unwrap().ends_with("</html>\n"), "{file}");
            });
        }
    });

    // A version 1 file from before the provenance: its page and its diff say what it lacks.
    let index = found.iter().position(|path| path == "2026-11-30-h200-stats/sweep-4k.json").unwrap();
    let page = std::fs::read_to_string(pages.join(format!("{index}.html"))).unwrap();
    for said in [
        "block-size JSON schema 1</p>",
        "This file (schema version 1) did not record its provenance (command, date, driver, compilers), \
         the shared memory per block, the lines above its table (head), the lines below its table (summary) \
         and its rows&#39; limiters; read as the tool worked then: timing: launch mode, one launch a sample, \
         a fixed count (the only timing before --timing); workload: grayscale, 16 B moved a pixel",
        "This file did not record the lines below its table; from its fields:",
        "<li>Fastest measured: 128 threads per block at 0.039 ms.</li>",
        "This file did not record the lines above its table; its timing:",
        "<td class=\"limiter\">not recorded</td>",
        "This file did not record its provenance",
    ] {
        assert!(page.contains(said), "missing {said:?}");
    }
    let file = root.join(KNOWN[2]);
    let (_, stdout, _) = run(&["diff", file.to_str().unwrap(), file.to_str().unwrap()]);
    assert!(stdout.contains("\nNote: OLD (schema version 1) did not record its provenance"), "{stdout}");
    let _ = std::fs::remove_dir_all(pages);
}
