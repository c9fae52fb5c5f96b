//! The committed fuzz corpus and every crash the fuzzers found (`fuzz/regressions/TARGET/`),
//! replayed through the same entry points the fuzz targets call (`block_size_runner::fuzzing`,
//! the readers the program uses): a plain `cargo test`, no fuzz build. A panic is a failure.

use std::path::{Path, PathBuf};

/// Every file under `fuzz/regressions/<target>/`.
fn inputs(target: &str) -> Vec<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str, entry: fn(&[u8])) {
    let files = inputs(target);
    assert!(!files.is_empty(), "fuzz/regressions/{target} holds no input");
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        if std::panic::catch_unwind(|| entry(&bytes)).is_err() {
            panic!("{} panics {target}", file.display());
        }
    }
}

#[test]
fn the_result_files_of_diff_replay_without_a_panic() {
    replay("diff", block_size_runner::fuzzing::diff);
}

#[test]
fn the_result_files_of_report_replay_without_a_panic() {
    replay("report", block_size_runner::fuzzing::report);
}

#[test]
fn the_journals_replay_without_a_panic() {
    replay("journal", block_size_runner::fuzzing::journal);
}

#[test]
fn the_stamps_replay_without_a_panic() {
    replay("stamp", block_size_runner::fuzzing::stamp);
}

#[test]
fn the_ptx_headers_replay_without_a_panic() {
    replay("ptx", block_size_runner::fuzzing::ptx);
}

#[test]
fn the_parts_of_merge_replay_without_a_panic() {
    replay("merge", block_size_runner::fuzzing::merge);
}

#[test]
fn the_caches_of_kernel_tuner_replay_without_a_panic() {
    replay("kernel_tuner_cache", block_size_runner::fuzzing::kernel_tuner_cache);
}

#[test]
fn the_files_of_winners_beside_emitted_rust_replay_without_a_panic() {
    replay("emitted_winners", block_size_runner::fuzzing::emitted_winners);
}
